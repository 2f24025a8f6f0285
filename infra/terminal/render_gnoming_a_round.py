"""Gnoming A Round: the 3 x 3 layouts, the discard piles, the held card, the totals."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from tabletop.v1 import (
    event_pb2,
    game_pb2,
    game_type_pb2,
    gnoming_a_round_pb2,
    move_pb2,
)

from infra.terminal.header import header
from infra.terminal.render_common import WIDTH, Renderer, packed, seat_of, short

pb = gnoming_a_round_pb2
KIND_STYLES = {
    pb.GNOMING_A_ROUND_CARD_KIND_POSITIVE: "bold #43A047",
    pb.GNOMING_A_ROUND_CARD_KIND_NEGATIVE: "bold #E53935",
    pb.GNOMING_A_ROUND_CARD_KIND_HAZARD: "bold black on #FDD835",
    pb.GNOMING_A_ROUND_CARD_KIND_MULLIGAN: "bold #8E24AA",
}
PHASES = {
    pb.GNOMING_A_ROUND_PHASE_SETUP: "setup",
    pb.GNOMING_A_ROUND_PHASE_INITIAL_FLIP: "initial flip",
    pb.GNOMING_A_ROUND_PHASE_DRAW: "draw",
    pb.GNOMING_A_ROUND_PHASE_DECIDE: "keep or reject",
    pb.GNOMING_A_ROUND_PHASE_BOUNCE: "bounce",
    pb.GNOMING_A_ROUND_PHASE_DISCARD: "discard",
    pb.GNOMING_A_ROUND_PHASE_HAZARD_RESPONSES: "hazard responses",
    pb.GNOMING_A_ROUND_PHASE_GAME_OVER: "game over",
}
FACE_DOWN = "░░░"
LEGEND = (
    "4:+07 is a 7 at position 4 (positions 0-8 run row by row); ░░░ is face down\n"
    "HAZ hazard (+10 in a layout), MUL mulligan (wild in a line, 0); three alike\n"
    "in a row or column score minus their value; the lowest total wins"
)
GAP = 3  # cells between two layouts
TITLE_CELLS = 10  # over a layout, to this many (three layouts to a row)


def card_text(card: gnoming_a_round_pb2.GnomingARoundCard) -> Text:
    """Returns a card as three characters: ``+07``, ``-03``, ``HAZ`` or ``MUL``."""
    if card.kind == pb.GNOMING_A_ROUND_CARD_KIND_HAZARD:
        label = "HAZ"
    elif card.kind == pb.GNOMING_A_ROUND_CARD_KIND_MULLIGAN:
        label = "MUL"
    else:
        label = f"{card.value:+03d}"
    return Text(label, style=KIND_STYLES.get(card.kind, ""))


def layout_text(layout: gnoming_a_round_pb2.GnomingARoundLayout) -> Text:
    """Returns a layout as three rows of three numbered cards (``4:+07``); face-down
    cards are shaded."""
    out = Text()
    for position, slot in enumerate(layout.positions):
        if position and position % 3 == 0:
            out.append("\n")
        elif position:
            out.append(" ")
        out.append(f"{position}:", style="dim")
        if slot.face_down:
            out.append(FACE_DOWN, style="dim")
        else:
            out.append_text(card_text(slot.card))
    return out


def _block(
    game: game_pb2.Game, player: game_pb2.Player, me: str, acting: set[str]
) -> Text:
    """Returns a player's layout under a line with their name and total, marked
    ▶ while they are to act and ★ when they won."""
    public = game.gnoming_a_round_view.public_state
    out = Text("▶ " if player.name in acting else "  ")
    if player.name in game.winners:  # the game is over: nobody acts
        out = Text("★ ", style="bold yellow")
    name = short(player.display_name, TITLE_CELLS)
    out.append(name, style="bold cyan" if player.name == me else "bold")
    total = public.totals[player.seat] if player.seat < len(public.totals) else 0
    out.append(f"  total {total}", style="dim")
    layouts = public.layouts
    layout = layouts[player.seat] if player.seat < len(layouts) else None
    return Text.assemble(out, "\n", layout_text(layout) if layout else Text("-"))


def _layouts(game: game_pb2.Game, me: str) -> Table:
    """Returns the layouts side by side, as many to a row as WIDTH holds."""
    acting = set(game.gnoming_a_round_view.public_state.players_to_act)
    blocks = [_block(game, p, me, acting) for p in game.players]
    widest = max(
        (line.cell_len for block in blocks for line in block.split()), default=1
    )
    per_row = max(1, (WIDTH + GAP) // (widest + GAP))
    table = Table.grid(padding=(0, GAP, 0, 0))
    for start in range(0, len(blocks), per_row):
        if start:
            table.add_row()
        table.add_row(*blocks[start : start + per_row])
    return table


def _piles(public: gnoming_a_round_pb2.GnomingARoundPublicState) -> Text:
    out = Text.assemble((f"draw pile {public.draw_pile_size}", "bold"))
    for number, pile in enumerate(public.discard_piles, start=1):
        out.append(f"   discard {number}: ")
        out.append_text(card_text(pile.top) if pile.HasField("top") else Text("empty"))
        out.append(f" ({pile.size})", style="dim")
    if public.removed_hazards:
        out.append(f"   hazards out: {len(public.removed_hazards)}", style="dim")
    return out


def _status(game: game_pb2.Game, view: gnoming_a_round_pb2.GnomingARoundView) -> Text:
    public = view.public_state
    names = {p.name: short(p.display_name) for p in game.players}
    out = Text(f"round {public.round}/3, {PHASES.get(public.phase, '?')}", "bold")
    pieces: list[Text] = []
    if public.active_player:
        pieces.append(Text(f"{names.get(public.active_player, '?')}'s turn"))
    if public.HasField("held_card"):
        pieces.append(Text("in hand: ").append_text(card_text(public.held_card)))
    elif public.holding:
        pieces.append(Text("in hand: a drawn card", style="dim"))
    if view.HasField("private_state") and view.private_state.HasField("drawn_card"):
        drawn = card_text(view.private_state.drawn_card)
        pieces.append(Text("you drew ").append_text(drawn))
    if public.round_end_trigger:
        out_player = names.get(public.round_end_trigger, "?")
        pieces.append(Text(f"last turns ({out_player} is out)"))
    return packed(out.append("  "), pieces, "  ") if pieces else out


def _results(game: game_pb2.Game, public: pb.GnomingARoundPublicState) -> list[Text]:
    """Returns each finished round's scores by player."""
    names = {p.seat: short(p.display_name) for p in game.players}
    return [
        packed(
            Text(f"round {result.round}: ", style="dim"),
            (
                Text(f"{names.get(seat, seat)} {score}", style="dim")
                for seat, score in enumerate(result.scores)
            ),
            ", ",
        )
        for result in public.round_results
    ]


def render(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> RenderableType:
    """Returns the Gnoming A Round table as the caller sees it."""
    view = game.gnoming_a_round_view
    public = view.public_state
    parts: list[RenderableType] = [
        header(game, info, me),
        _status(game, view),
        _piles(public),
        _layouts(game, me),
        *_results(game, public),
        Text(LEGEND, style="dim"),
    ]
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list."""
    action = move.gnoming_a_round
    kind = action.WhichOneof("action")
    if kind == "flip_initial":
        spots = " and ".join(str(p) for p in action.flip_initial.positions)
        return Text(f"turn up positions {spots}")
    if kind == "draw_from_pile":
        return Text("draw from the pile")
    if kind == "take_from_discard":
        return Text(
            f"take the top card of discard pile {action.take_from_discard.pile}"
        )
    if kind == "keep":
        return Text(f"keep the card in hand at position {action.keep.position}")
    if kind == "reject":
        return Text("reject the drawn card (then discard it)")
    if kind == "bounce":
        return Text(f"bounce the card turned out to position {action.bounce.position}")
    if kind == "stop_bounce":
        return Text("stop bouncing (then discard the card turned out)")
    if kind == "discard":
        pile = action.discard.pile
        return Text(f"discard on pile {pile}" if pile else "discard the hazard")
    if kind == "hazard_flip":
        return Text(
            f"answer the hazard: turn up position {action.hazard_flip.position}"
        )
    return Text("answer the hazard: turn up nothing")


def _by_seat(names: Mapping[str, str], values: Iterable[int]) -> str:
    """Returns values indexed by seat with the seats' names: ``Ana 12, Ben -3``."""
    seats = {seat_of(player): name for player, name in names.items()}
    return ", ".join(f"{seats.get(s, f'seat {s}')} {v}" for s, v in enumerate(values))


def _player(fact: pb.GnomingARoundEvent) -> str:
    """Returns the player an event names, empty for the events that name none."""
    kind = fact.WhichOneof("event")
    return str(getattr(getattr(fact, kind), "player", "")) if kind else ""


def _card(card: pb.GnomingARoundCard) -> str:
    """Returns a card for the log: ``+07``, ``HAZ``."""
    return card_text(card).plain


def _turned_out(card: pb.GnomingARoundCard, face_down: bool) -> str:  # noqa: FBT001
    """Says which card a placed card turned out of the layout."""
    return f", turning out {'face-down ' if face_down else ''}{_card(card)}"


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str:
    """Describes a Gnoming A Round event for the log, every kind in words."""
    fact = event.gnoming_a_round
    kind = fact.WhichOneof("event")
    who = names.get(_player(fact), "?")
    if kind == "card_drawn":
        drawn = fact.card_drawn
        what = f": {_card(drawn.card)}" if drawn.HasField("card") else ""
        return f"{who} drew from the pile{what}"
    if kind == "discard_taken":
        taken = fact.discard_taken
        return f"{who} took {_card(taken.card)} from discard {taken.pile}"
    if kind == "card_kept":
        kept = fact.card_kept
        out = _turned_out(kept.displaced, kept.displaced_face_down)
        return f"{who} kept {_card(kept.card)} at position {kept.position}{out}"
    if kind == "card_rejected":
        rejected = fact.card_rejected
        card = _card(rejected.card) if rejected.HasField("card") else ""
        return f"{who} rejected {card or 'the card they drew'}"
    if kind == "card_bounced":
        bounced = fact.card_bounced
        out = _turned_out(bounced.displaced, bounced.displaced_face_down)
        return (
            f"{who} bounced {_card(bounced.card)} to position {bounced.position}{out}"
        )
    if kind == "bounce_stopped":
        card = _card(fact.bounce_stopped.card)
        return f"{who} stopped bouncing; {card} is to be discarded"
    if kind == "card_discarded":
        done = fact.card_discarded
        return f"{who} discarded {_card(done.card)} on pile {done.pile}"
    return _describe_hazard(fact, who, names) or _describe_round(fact, who, names)


def _describe_hazard(
    fact: pb.GnomingARoundEvent, who: str, names: Mapping[str, str]
) -> str | None:
    """Describes a hazard's events; None for the other events."""
    kind = fact.WhichOneof("event")
    if kind == "hazard_removed":
        asked = ", ".join(names.get(p, "?") for p in fact.hazard_removed.responders)
        flip = f"; {asked} may turn a card up" if asked else ""
        return f"{who} discarded a hazard, which leaves the round{flip}"
    if kind == "hazard_flipped":
        flipped = fact.hazard_flipped
        card = _card(flipped.card)
        where = f"at position {flipped.position}"
        return f"{who} answered the hazard: turned up {card} {where}"
    if kind == "hazard_declined":
        return f"{who} answered the hazard: turned up nothing"
    if kind == "hazard_turned_up":
        return "a hazard turned up from the draw pile was set aside"
    return None


def _describe_round(
    fact: pb.GnomingARoundEvent, who: str, names: Mapping[str, str]
) -> str:
    """Describes the deal, the turns, the piles and the scoring."""
    kind = fact.WhichOneof("event")
    if kind == "round_dealt":
        dealt = fact.round_dealt
        tops = " and ".join(_card(card) for card in dealt.discards)
        return (
            f"round {dealt.round} dealt, nine cards face down each; the discard "
            f"piles start with {tops}; {names.get(dealt.starting_player, '?')} starts"
        )
    if kind == "initial_cards_flipped":
        flipped = fact.initial_cards_flipped
        shown = " and ".join(
            f"{_card(card)} at {position}"
            for position, card in zip(flipped.positions, flipped.cards, strict=False)
        )
        return f"{who} flipped two cards: {shown}"
    if kind == "turn_started":
        return f"{who}'s turn"
    if kind == "draw_pile_reshuffled":
        size = fact.draw_pile_reshuffled.draw_pile_size
        return f"the discards under the piles' tops became a new draw pile of {size}"
    if kind == "discard_pile_refilled":
        refilled = fact.discard_pile_refilled
        card = _card(refilled.card)
        return f"discard pile {refilled.pile} restarted with {card} from the draw pile"
    if kind == "round_end_triggered":
        return f"{who} has no face-down card left: everyone else has one more turn"
    if kind == "round_scored":
        scored = fact.round_scored
        scores = _by_seat(names, (result.score for result in scored.results))
        first = names.get(scored.first_out_player, "?")
        adjusted = f"{first} went out first: {scored.adjustment:+d}"
        return f"round {scored.round} scored: {scores} ({adjusted})"
    if kind == "game_ended":
        ended = fact.game_ended
        won = ", ".join(names.get(w, "?") for w in ended.winners) or "nobody"
        totals = _by_seat(names, ended.totals)
        return f"the game ended: won by {won}, the lowest total ({totals})"
    return "a Gnoming A Round event this client does not know"


RENDERER = Renderer("gnoming_a_round", render, describe_move, describe_event)
