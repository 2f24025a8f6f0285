"""Gnoming A Round: the 3 x 3 layouts, the discard piles, the held card, the totals."""

from __future__ import annotations

from collections.abc import Mapping

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

from infra.terminal.render_common import Renderer, header

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


def card_text(card: gnoming_a_round_pb2.GnomingARoundCard) -> Text:
    """Returns a card as three characters: ``+07``, `` -3``, ``HAZ`` or ``MUL``."""
    if card.kind == pb.GNOMING_A_ROUND_CARD_KIND_HAZARD:
        label = "HAZ"
    elif card.kind == pb.GNOMING_A_ROUND_CARD_KIND_MULLIGAN:
        label = "MUL"
    else:
        label = f"{card.value:+03d}"
    return Text(label, style=KIND_STYLES.get(card.kind, ""))


def layout_text(layout: gnoming_a_round_pb2.GnomingARoundLayout) -> Text:
    """Returns a layout as three rows of three cards; face-down cards are shaded."""
    out = Text()
    for position, slot in enumerate(layout.positions):
        if position and position % 3 == 0:
            out.append("\n")
        elif position:
            out.append(" ")
        if slot.face_down:
            out.append(FACE_DOWN, style="dim")
        else:
            out.append_text(card_text(slot.card))
    return out


def _layouts(
    game: game_pb2.Game, public: gnoming_a_round_pb2.GnomingARoundPublicState, me: str
) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 3, 0, 0))
    acting = set(public.players_to_act)
    cells: list[Text] = []
    for p in game.players:
        title = Text("▶ " if p.name in acting else "  ")
        title.append(p.display_name, style="bold cyan" if p.name == me else "bold")
        total = public.totals[p.seat] if p.seat < len(public.totals) else 0
        title.append(f"  total {total}", style="dim")
        if p.name in game.winners:
            title.append(" ★", style="bold yellow")
        table.add_column(title)
        layout = public.layouts[p.seat] if p.seat < len(public.layouts) else None
        cells.append(layout_text(layout) if layout else Text("-"))
    table.add_row(*cells)
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
    names = {p.name: p.display_name for p in game.players}
    out = Text.assemble(
        (f"round {public.round}/3, {PHASES.get(public.phase, '?')}", "bold")
    )
    if public.active_player:
        out.append(f"  {names.get(public.active_player, '?')}'s turn")
    if public.HasField("held_card"):
        out.append("  in hand: ").append_text(card_text(public.held_card))
    elif public.holding:
        out.append("  in hand: a drawn card", style="dim")
    if view.HasField("private_state") and view.private_state.HasField("drawn_card"):
        out.append("  you drew ").append_text(card_text(view.private_state.drawn_card))
    if public.round_end_trigger:
        out.append(f"  last turns ({names.get(public.round_end_trigger, '?')} is out)")
    return out


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
        _layouts(game, public, me),
        Text("positions 0-8 run row by row; the lowest total wins", style="dim"),
    ]
    for result in public.round_results:
        scores = ", ".join(str(score) for score in result.scores)
        parts.append(Text(f"round {result.round}: {scores}", style="dim"))
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list."""
    action = move.gnoming_a_round
    kind = action.WhichOneof("action")
    if kind == "flip_initial":
        spots = " and ".join(str(p) for p in action.flip_initial.positions)
        return Text(f"flip positions {spots}")
    if kind == "draw_from_pile":
        return Text("draw from the pile")
    if kind == "take_from_discard":
        return Text(f"take from discard pile {action.take_from_discard.pile}")
    if kind == "keep":
        return Text(f"keep it at position {action.keep.position}")
    if kind == "reject":
        return Text("reject the drawn card")
    if kind == "bounce":
        return Text(f"bounce to position {action.bounce.position}")
    if kind == "stop_bounce":
        return Text("stop bouncing")
    if kind == "discard":
        pile = action.discard.pile
        return Text(f"discard on pile {pile}" if pile else "discard the hazard")
    if kind == "hazard_flip":
        return Text(f"answer the hazard: flip position {action.hazard_flip.position}")
    return Text("answer the hazard: flip nothing")


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes a Gnoming A Round event for the log; None for the bookkeeping ones."""
    fact = event.gnoming_a_round
    kind = fact.WhichOneof("event")
    who = names.get(event.actor, "?")
    if kind == "card_drawn":
        return f"{who} drew from the pile"
    if kind == "discard_taken":
        taken = fact.discard_taken
        return f"{who} took {card_text(taken.card).plain} from discard {taken.pile}"
    if kind == "card_kept":
        kept = fact.card_kept
        return f"{who} kept {card_text(kept.card).plain} at {kept.position}"
    if kind == "card_discarded":
        done = fact.card_discarded
        return f"{who} discarded {card_text(done.card).plain} on pile {done.pile}"
    if kind == "initial_cards_flipped":
        return f"{who} flipped two cards"
    if kind == "round_scored":
        return f"round {fact.round_scored.round} scored"
    return None


RENDERER = Renderer("gnoming_a_round", render, describe_move, describe_event)
