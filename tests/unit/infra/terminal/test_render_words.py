"""Split, Gnoming A Round and Fool! in words: every event kind has a line, in the
live log and in the replay, every move reads as a sentence, the glyphs have a
legend, and the tables fit an 80-column terminal at every player count. Qwirkle's
and Hues and Cues' events have a line each too, naming a tile, card or target
only where the event, as redacted for the viewer, carries it."""

from __future__ import annotations

import io
import re
from typing import cast

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from rich.console import Console, Group, RenderableType
from tabletop.v1 import (
    event_pb2,
    fool_pb2,
    game_pb2,
    gnoming_a_round_pb2,
    hues_and_cues_pb2,
    move_pb2,
    qwirkle_pb2,
    split_pb2,
)

from infra.terminal.games import NAMES, name_of
from infra.terminal.render import RENDERERS, describe_event, describe_move, render_game
from infra.terminal.replay import table_event, what_happened
from tests.unit.infra.terminal.drawing import new_game, screen

gn = gnoming_a_round_pb2
MINE = ("split", "gnoming_a_round", "fool")
WORDED = (*MINE, "qwirkle", "hues_and_cues")  # every event kind in words
PLAYERS = {"split": (2, 6), "gnoming_a_round": (3, 7), "fool": (4, 8)}
GAME_TYPES = {
    "split": game_pb2.GAME_TYPE_SPLIT,
    "gnoming_a_round": game_pb2.GAME_TYPE_GNOMING_A_ROUND,
    "fool": game_pb2.GAME_TYPE_FOOL,
}
P0, P1 = "games/g1/players/0", "games/g1/players/1"
NAMED = {P0: "Ana", P1: "Ben"}
# What a line must not hold: a field or enum name, an unknown name or kind.
RAW = re.compile(r"[a-z]_[a-z]|[A-Z]{2,}_[A-Z]|\?|does not know")


def _filled(message: Message, depth: int = 0) -> Message:
    """Sets every field of a message, as a server's event would: players are Ben,
    cards are real ones, numbers small, enums their first value, lists of two."""
    for field in cast("list[FieldDescriptor]", message.DESCRIPTOR.fields):
        for _ in range(2 if field.is_repeated else 1):
            _fill(message, field, depth)
    return message


def _fill(message: Message, field: FieldDescriptor, depth: int) -> None:
    repeated = field.is_repeated
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        if depth < 4:  # deep enough for every event
            inner = getattr(message, field.name)
            _filled(inner.add() if repeated else inner, depth + 1)
        return
    value = _value(message, field)
    if repeated:
        getattr(message, field.name).append(value)
    else:
        setattr(message, field.name, value)


def _value(message: Message, field: FieldDescriptor) -> object:
    if field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        return field.enum_type.values[1].number
    if field.type == FieldDescriptor.TYPE_BOOL:
        return True
    if field.type == FieldDescriptor.TYPE_STRING:
        return _string(message, field)
    if isinstance(message, gn.GnomingARoundCard) and field.name == "value":
        return 7
    return 2


def _string(message: Message, field: FieldDescriptor) -> str:
    if isinstance(message, split_pb2.SplitCard):
        return "7H-L"
    if isinstance(message, hues_and_cues_pb2.HuesAndCuesSquare):
        return "H15"
    if isinstance(message, hues_and_cues_pb2.HuesAndCuesCard):
        return "C001"
    return {"card_ids": "C001", "text": "ocean"}.get(field.name, P1)


def _kinds(game: str) -> list[str]:
    """Returns the members of a game's event oneof."""
    inner = getattr(event_pb2.GameEvent(), game)
    return [f.name for f in inner.DESCRIPTOR.oneofs_by_name["event"].fields]


def _event(game: str, kind: str) -> event_pb2.GameEvent:
    event = event_pb2.GameEvent(revision=9, move_number=4, actor=P1)
    detail = getattr(getattr(event, game), kind)
    detail.SetInParent()
    _filled(detail)
    return event


@pytest.mark.parametrize(
    ("game", "kind"), [(game, kind) for game in WORDED for kind in _kinds(game)]
)
def test_every_event_kind_has_a_line_in_words(game: str, kind: str) -> None:
    event = _event(game, kind)
    line = describe_event(event, NAMED)
    assert line is not None
    assert not RAW.search(line), line
    assert "seat " not in line, line  # players by name
    detail = getattr(getattr(event, game), kind)
    if "player" in detail.DESCRIPTOR.fields_by_name:
        assert "Ben" in line, line
    assert what_happened(event, NAMED) == line  # the replay says the same


@pytest.mark.parametrize("game", WORDED)
def test_each_event_kind_has_its_own_line(game: str) -> None:
    lines = [describe_event(_event(game, kind), NAMED) for kind in _kinds(game)]
    assert len(set(lines)) == len(lines)


TABLE_EVENTS = [
    f.name
    for f in event_pb2.GameEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    if f.name not in NAMES.values()
]


@pytest.mark.parametrize("kind", TABLE_EVENTS)
def test_the_replay_names_every_table_event_in_words(kind: str) -> None:
    event = event_pb2.GameEvent(revision=9, move_number=4, actor=P1)
    getattr(event, kind).SetInParent()
    _filled(getattr(event, kind))
    line = what_happened(event, NAMED)
    assert line in {describe_event(event, NAMED), table_event(event, NAMED)}
    assert not RAW.search(line), line


def test_the_replay_says_who_made_a_move_and_when_the_timer_runs_out() -> None:
    event = event_pb2.GameEvent(revision=9, move_number=4, actor=P0)
    event.move_played.player = P0
    assert what_happened(event, NAMED) == "Ana made move 4; what it did follows"
    timer = event_pb2.GameEvent(revision=10)
    timer.turn_timer_started.deadline.FromSeconds(3600 * 14 + 65)
    line = what_happened(timer, NAMED)
    assert line == "the turn timer started: the players to move act by 14:01:05 UTC"
    created = event_pb2.GameEvent(revision=1)
    created.game_created.max_players = 4
    created.game_created.visibility = game_pb2.VISIBILITY_PRIVATE
    assert what_happened(created, NAMED) == "game created: a private table of 4 seats"


def test_a_perfect_bonus_and_a_rejected_card_are_logged() -> None:
    marked = event_pb2.GameEvent(revision=5, actor=P1)
    marked.split.negative_marked.player, marked.split.negative_marked.by = P1, P0
    assert describe_event(marked, NAMED) == (
        "Ben marked a negative box (-2) for Ana's perfect bonus"
    )
    rejected = event_pb2.GameEvent(revision=6, actor=P1)
    rejected.gnoming_a_round.card_rejected.player = P1
    assert describe_event(rejected, NAMED) == "Ben rejected the card they drew"
    own = gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_NEGATIVE, value=-3)
    rejected.gnoming_a_round.card_rejected.card.CopyFrom(own)
    assert describe_event(rejected, NAMED) == "Ben rejected -03"


def test_a_wild_1_is_named_in_the_log_and_the_menu() -> None:
    wild = fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_WILD, value=1, copy=4)
    played = event_pb2.GameEvent(revision=7, actor=P0)
    played.fool.card_played.player = P0
    played.fool.card_played.card.CopyFrom(wild)
    assert describe_event(played, NAMED) == "Ana played W1-4 (a wild 1)"
    move = move_pb2.Move(
        fool=fool_pb2.FoolMove(play_card=fool_pb2.FoolPlayCard(card=wild))
    )
    assert describe_move(move).plain == "play W1-4 (a wild 1)"


def _qwirkle_tiles(count: int) -> list[qwirkle_pb2.QwirkleTile]:
    red_circle = qwirkle_pb2.QwirkleTile(
        color=qwirkle_pb2.QWIRKLE_COLOR_RED, shape=qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE
    )
    return [red_circle] * count


def test_qwirkle_names_the_tiles_drawn_only_to_their_drawer() -> None:
    drawn = event_pb2.GameEvent(revision=8, actor=P1)
    drawn.qwirkle.tiles_drawn.player, drawn.qwirkle.tiles_drawn.count = P1, 2
    assert describe_event(drawn, NAMED) == "Ben drew 2 tile(s)"  # as Ana sees it
    drawn.qwirkle.tiles_drawn.tiles.extend(_qwirkle_tiles(2))  # as Ben sees it
    assert describe_event(drawn, NAMED) == (
        "Ben drew 2 tile(s): red circle, red circle"
    )


def test_qwirkle_says_how_it_opened_and_ended_not_whose_move_it_was() -> None:
    dealt = event_pb2.GameEvent(revision=3)
    dealt.qwirkle.tiles_dealt.rack_sizes.extend([6, 6])
    dealt.qwirkle.tiles_dealt.bag_size = 96
    dealt.qwirkle.tiles_dealt.racks.add(tiles=_qwirkle_tiles(6))  # the viewer's
    dealt.qwirkle.tiles_dealt.racks.add()
    line = "6 tiles dealt to each rack; 96 tiles left in the bag"
    assert what_happened(dealt, NAMED) == line
    chosen = event_pb2.GameEvent(revision=4)
    chosen.qwirkle.starting_player_chosen.starting_numbers.extend([2, 3])
    chosen.qwirkle.starting_player_chosen.player = P1
    assert what_happened(chosen, NAMED) == (
        "Ben starts, with the most tiles sharing a colour or a shape (Ana 2, Ben 3)"
    )
    ended = event_pb2.GameEvent(revision=90, move_number=40, actor=P1)
    ended.qwirkle.game_ended.reason = qwirkle_pb2.QWIRKLE_END_REASON_DEADLOCK
    ended.qwirkle.game_ended.racks.add(tiles=_qwirkle_tiles(2))
    ended.qwirkle.game_ended.racks.add(tiles=_qwirkle_tiles(1))
    assert what_happened(ended, NAMED) == (
        "the game ended: the bag was empty and nobody could place a tile; "
        "tiles left: Ana 2, Ben 1"
    )


def test_hues_and_cues_names_the_card_and_target_only_where_the_event_has_them() -> (
    None
):
    drawn = event_pb2.GameEvent(revision=6, actor=P1)
    drawn.hues_and_cues.card_drawn.round, drawn.hues_and_cues.card_drawn.player = 2, P1
    chosen = event_pb2.GameEvent(revision=7, actor=P1)
    target = chosen.hues_and_cues.target_chosen
    target.round, target.player = 2, P1
    # As a guesser or a spectator sees them while the round is played:
    assert describe_event(drawn, NAMED) == "Ben drew a card for round 2"
    assert describe_event(chosen, NAMED) == "Ben chose the target for round 2"
    # As the cue giver sees them:
    card = drawn.hues_and_cues.card_drawn.card
    card.id = "C042"
    for square in ("A3", "C20", "N5", "K28"):
        card.squares.add(id=square)
    target.target.id = "C20"
    assert describe_event(drawn, NAMED) == (
        "Ben drew a card C042 (A3, C20, N5, K28) for round 2"
    )
    assert describe_event(chosen, NAMED) == "Ben chose the target C20 for round 2"


def test_hues_and_cues_says_how_it_opened_and_ended_not_whose_move_it_was() -> None:
    shuffled = event_pb2.GameEvent(revision=3)
    shuffled.hues_and_cues.deck_shuffled.round = 1
    shuffled.hues_and_cues.deck_shuffled.size = 100
    assert what_happened(shuffled, NAMED) == (
        "the 100 cue cards were shuffled into a deck for round 1"
    )
    first = event_pb2.GameEvent(revision=4)
    first.hues_and_cues.first_cue_giver_chosen.player = P1
    assert what_happened(first, NAMED) == (
        "Ben gives the first cue (as the table was set up)"
    )
    first.hues_and_cues.first_cue_giver_chosen.drawn = True
    assert what_happened(first, NAMED) == "Ben gives the first cue (drawn by lot)"
    revealed = event_pb2.GameEvent(revision=30, actor=P1)
    revealed.hues_and_cues.target_revealed.round = 2
    revealed.hues_and_cues.target_revealed.target.id = "C20"
    assert what_happened(revealed, NAMED) == "round 2's target revealed: C20"
    ended = event_pb2.GameEvent(revision=90, move_number=40, actor=P1)
    over = ended.hues_and_cues.game_ended
    over.reason = hues_and_cues_pb2.HUES_AND_CUES_END_REASON_TIEBREAK_CAP
    over.winners.extend([P0, P1])
    over.scores.add(player=P0, points=12)
    over.scores.add(player=P1, points=12)
    assert what_happened(ended, NAMED) == (
        "the game ended: won by Ana, Ben (still tied after ten tie-break rounds); "
        "Ana 12, Ben 12"
    )


def test_an_event_kind_newer_than_the_client_says_so() -> None:
    event = event_pb2.GameEvent(revision=5, actor=P1)
    event.qwirkle.SetInParent()  # a Qwirkle event of a kind newer than this client
    assert what_happened(event, NAMED) == "a Qwirkle event this client does not know"
    event = event_pb2.GameEvent(revision=5, actor=P1)
    event.hues_and_cues.SetInParent()
    assert what_happened(event, NAMED) == (
        "a Hues and Cues event this client does not know"
    )


def _moves(game: str) -> list[move_pb2.Move]:
    """Returns one move of every action of a game, its fields set."""
    inner = getattr(move_pb2.Move(), game)
    actions = inner.DESCRIPTOR.oneofs_by_name["action"].fields
    moves = []
    for action in actions:
        move = move_pb2.Move()
        detail = getattr(getattr(move, game), action.name)
        detail.SetInParent()
        _filled(detail)
        moves.append(move)
    return moves


@pytest.mark.parametrize("game", MINE)
def test_every_move_reads_as_words(game: str) -> None:
    labels = [describe_move(move).plain for move in _moves(game)]
    assert len(set(labels)) == len(labels)
    for label in labels:
        assert not RAW.search(label), label
        assert re.match(r"[a-z]+ ", label), label


def test_a_split_bonus_names_what_it_does() -> None:
    move = move_pb2.Move()
    move.split.choose_penalty_target.target_seat = 1
    assert describe_move(move).plain == (
        "perfect bonus: seat 1 marks a negative box (-2)"
    )
    move.split.resolve_weak_bonus.SetInParent()
    assert describe_move(move).plain == "weak bonus: swap no matches"


# The tables ------------------------------------------------------------------

LONG = "Bartholomew-Maximilian Featherstonehaugh-Smythe"[:40]  # the longest name


def _names(count: int) -> list[str]:
    return [f"{LONG[:-1]}{seat}" for seat in range(count)]


def _split_cards(count: int) -> list[split_pb2.SplitCard]:
    ids = [f"{r}{s}-{h}" for r in ("10", "Q", "7") for s in "HDCS" for h in "LR"]
    return [split_pb2.SplitCard(id=ids[i % len(ids)]) for i in range(count)]


def _split(players: int) -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_SPLIT, *_names(players))
    public = game.split_view.public_state
    public.round, public.phase = 3, split_pb2.SPLIT_PHASE_BONUS
    public.pending_bonus, public.pending_match_id = split_pb2.SPLIT_MATCH_TYPE_WEAK, 24
    public.dealer = public.current_player = game.players[-1].name
    public.winners.extend(p.name for p in game.players)
    public.draw_pile_size = 49
    public.discard_row.extend(_split_cards(48))
    for number in range(1, 25):
        public.matches.add(
            id=number,
            owner=game.players[number % players].name,
            rank="10",
            left_stack=_split_cards(12),
            right_stack=_split_cards(12),
            type=split_pb2.SPLIT_MATCH_TYPE_PERFECT,
        )
    for _ in range(players):
        public.hand_sizes.append(48)
        public.score_sheets.add(total=-1234, negatives=567)
        public.revealed_hands.add(cards=_split_cards(30))
    game.split_view.private_state.hand.extend(_split_cards(48))
    return game


def _gnoming(players: int) -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_GNOMING_A_ROUND, *_names(players))
    view = game.gnoming_a_round_view
    public = view.public_state
    public.round, public.phase = 3, gn.GNOMING_A_ROUND_PHASE_HAZARD_RESPONSES
    public.active_player = public.round_end_trigger = game.players[-1].name
    public.players_to_act.extend(p.name for p in game.players)
    game.winners.extend(p.name for p in game.players)
    public.draw_pile_size = 100
    hazard = gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_HAZARD)
    public.held_card.CopyFrom(hazard)
    view.private_state.drawn_card.CopyFrom(hazard)
    public.removed_hazards.extend([hazard] * 3)
    for _ in range(2):
        public.discard_piles.add(top=hazard, size=100)
    twelve = gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_POSITIVE, value=12)
    for _ in range(players):
        layout = public.layouts.add()
        for position in range(9):
            layout.positions.add(face_down=position % 2 == 0, card=twelve)
        public.totals.append(-150)
    for number in (1, 2, 3):
        public.round_results.add(round=number, scores=[-55] * players)
    return game


def _fool(players: int) -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_FOOL, *_names(players))
    public = game.fool_view.public_state
    public.round, public.discs = 40, 2
    public.dealer, public.leader = game.players[-1].name, game.players[0].name
    public.lead_color = fool_pb2.FOOL_COLOR_YELLOW
    public.fools.extend(p.name for p in game.players[1:])  # the leader holds none
    game.winners.extend(p.name for p in game.players)
    cards = [
        fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_GREEN, value=27),
        fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_WILD, value=1, copy=6),
    ]
    for player in game.players:
        public.trick.add(player=player.name, card=cards[1])
        public.hand_sizes.append(12)
        public.scores.append(-888)
        public.ten_counts.append(6)
        public.revealed_hands.add(cards=cards * 6)
    public.played.extend(cards * 44)
    game.fool_view.private_state.hand.extend(cards * 6)
    return game


BUILDERS = {"split": _split, "gnoming_a_round": _gnoming, "fool": _fool}


def _lines(renderable: RenderableType, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def _body(game: game_pb2.Game) -> Group:
    """Returns the table but its header, which every game shares (render_common)."""
    renderer = RENDERERS[name_of(game.game_type)]
    table = renderer.table(game, None, game.players[0].name)
    assert isinstance(table, Group)
    return Group(*table.renderables[1:])


@pytest.mark.parametrize(
    ("game", "players"),
    [(g, n) for g, (_, most) in PLAYERS.items() for n in range(2, most + 1)],
)
def test_the_table_fits_80_columns_at_every_player_count(
    game: str, players: int
) -> None:
    body = _body(BUILDERS[game](players))
    narrow = _lines(body, 80)
    assert narrow == _lines(body, 300)  # nothing wrapped or squeezed at 80
    assert max(len(line) for line in narrow) <= 80


def test_gnoming_lays_out_seven_layouts_in_two_rows_when_names_are_short() -> None:
    game = _gnoming(7)
    for seat, player in enumerate(game.players):
        player.display_name = ["Ana", "Ben", "Cy", "Di", "Eve", "Fay", "Gus"][seat]
    narrow = _lines(_body(game), 80)
    titles = [line for line in narrow if "total -150" in line]
    assert [line.count("total") for line in titles] == [4, 3]
    assert len(narrow) <= 20  # compact: rows of layouts, not one long row


@pytest.mark.parametrize(
    ("game", "legend"),
    [
        ("split", "7H-L: the left half (-L; -R the right) of the 7 of hearts"),
        ("gnoming_a_round", "4:+07 is a 7 at position 4 (positions 0-8 run row"),
        ("fool", "W1-n: a wild 1 (copy n,\nall six alike): always playable"),
    ],
)
def test_a_legend_under_the_table_explains_its_glyphs(game: str, legend: str) -> None:
    text, _ = screen(render_game(BUILDERS[game](4), None, P0), width=80)
    assert legend in text


def test_split_numbers_the_seats_the_perfect_bonus_names() -> None:
    game = new_game(game_pb2.GAME_TYPE_SPLIT, "Ana", "Ben", "Cy")
    game.split_view.public_state.hand_sizes.extend([9, 9, 9])
    text, _ = screen(render_game(game, None, P0), width=80)
    rows = [line.split() for line in text.splitlines()]
    assert ["seat", "player", "cards", "total", "negatives"] in rows
    assert ["1", "Ben", "9", "-", "-"] in rows
