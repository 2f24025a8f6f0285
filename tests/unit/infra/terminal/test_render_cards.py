"""The card games' tables: Fool!, Split and Gnoming A Round."""

from __future__ import annotations

from tabletop.v1 import fool_pb2, game_pb2, gnoming_a_round_pb2, move_pb2, split_pb2

from infra.terminal.render import describe_move, render_game
from tests.unit.infra.terminal.drawing import new_game, screen

P0, P1, P2, P3 = (f"games/g1/players/{seat}" for seat in range(4))
gn = gnoming_a_round_pb2


def _fool() -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_FOOL, "Ana", "Ben", "Cy", "Di")
    game.current_player = P2
    public = game.fool_view.public_state
    public.round, public.discs, public.dealer, public.leader = 2, 1, P3, P0
    public.lead_color = fool_pb2.FOOL_COLOR_GREEN
    public.trick.add(
        player=P0, card=fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_GREEN, value=17)
    )
    public.trick.add(
        player=P1,
        card=fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_WILD, value=1, copy=4),
    )
    public.fools.append(P3)
    public.hand_sizes.extend([9, 9, 10, 10])
    public.scores.extend([-12, 4, 0, 10])
    public.ten_counts.extend([0, 1, 0, 2])
    game.fool_view.private_state.hand.add(color=fool_pb2.FOOL_COLOR_BLUE, value=15)
    return game


def test_fool_shows_the_trick_the_fools_and_the_hand() -> None:
    text, styled = screen(render_game(_fool(), None, P0))
    assert "trick: Ana G17, Ben W1-4   lead colour green" in text
    assert "FOOL: sits out" in text
    assert "Your hand: B15" in text
    assert "38;2;67;160;71mG17" in styled  # green in true colour
    assert "▶  Cy" in text


def test_fool_lists_each_seats_cards_score_and_tens() -> None:
    text, _ = screen(render_game(_fool(), None, P0))
    ana = next(line for line in text.splitlines() if "Ana" in line and "leads" in line)
    assert ana.split()[:4] == ["Ana", "9", "-12", "0"]


def _split() -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_SPLIT, "Ana", "Ben")
    public = game.split_view.public_state
    public.round, public.phase, public.current_player = (
        1,
        split_pb2.SPLIT_PHASE_PLAY,
        P1,
    )
    public.dealer, public.draw_pile_size = P0, 70
    public.discard_row.extend(
        [split_pb2.SplitCard(id="10H-L"), split_pb2.SplitCard(id="QS-R")]
    )
    public.matches.add(
        id=1,
        owner=P1,
        rank="7",
        left_stack=[split_pb2.SplitCard(id="7H-L")],
        right_stack=[split_pb2.SplitCard(id="7H-R")],
        type=split_pb2.SPLIT_MATCH_TYPE_PERFECT,
    )
    public.hand_sizes.extend([9, 7])
    public.score_sheets.add(total=6, negatives=1)
    public.score_sheets.add(total=3)
    game.split_view.private_state.hand.add(id="AC-L")
    return game


def test_split_shows_the_discard_row_matches_and_hand() -> None:
    text, styled = screen(render_game(_split(), None, P0))
    assert "discard row (oldest first): 0:10H-L 1:QS-R" in text
    match = next(line for line in text.splitlines() if "perfect" in line)
    assert match.split() == ["1", "Ben", "7", "7H-L", "(1)", "7H-R", "(1)", "perfect"]
    assert "Your hand: AC-L" in text
    assert "round 1/3, play" in text
    assert "38;2;229;57;53m10H-L" in styled  # hearts in red


def _gnoming() -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_GNOMING_A_ROUND, "Ana", "Ben", "Cy")
    public = game.gnoming_a_round_view.public_state
    public.round, public.phase = 1, gn.GNOMING_A_ROUND_PHASE_DRAW
    public.active_player, public.draw_pile_size = P1, 80
    public.players_to_act.append(P1)
    kinds = [
        gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_POSITIVE, value=7),
        gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_NEGATIVE, value=-3),
        gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_HAZARD),
    ]
    for seat in range(3):
        layout = public.layouts.add(face_down_count=8)
        for position in range(9):
            slot = layout.positions.add(face_down=position != seat)
            if position == seat:
                slot.card.CopyFrom(kinds[seat])
    public.discard_piles.add(
        top=gn.GnomingARoundCard(kind=gn.GNOMING_A_ROUND_CARD_KIND_MULLIGAN), size=2
    )
    public.discard_piles.add(size=0)
    public.totals.extend([12, -4, 30])
    return game


def test_gnoming_shows_every_layout_with_face_down_cards_hidden() -> None:
    text, _ = screen(render_game(_gnoming(), None, P0))
    rows = [line for line in text.splitlines() if line[:2] in {"0:", "3:", "6:"}]
    assert len(rows) == 3
    assert rows[0].split()[:3] == ["0:+07", "1:░░░", "2:░░░"]
    assert rows[0].split()[3:6] == ["0:░░░", "1:-03", "2:░░░"]
    assert "HAZ" in rows[0]
    assert "discard 1: MUL (2)   discard 2: empty (0)" in text
    assert "▶ Ben  total -4" in text


def test_card_game_moves_read_as_sentences() -> None:
    play = move_pb2.Move(
        fool=fool_pb2.FoolMove(
            play_card=fool_pb2.FoolPlayCard(
                card=fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_RED, value=9)
            )
        )
    )
    assert describe_move(play).plain == "play R9 (red 9)"
    discard = move_pb2.Move(
        split=split_pb2.SplitMove(
            discard=split_pb2.SplitDiscard(card=split_pb2.SplitCard(id="KD-R"))
        )
    )
    assert describe_move(discard).plain == "discard KD-R"
    keep = move_pb2.Move(
        gnoming_a_round=gn.GnomingARoundMove(keep=gn.GnomingARoundKeep(position=4))
    )
    assert describe_move(keep).plain == "keep the card in hand at position 4"
