"""Split: the discard row, the matches, the score sheets and the caller's hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2, split_pb2

from infra.terminal.render_common import Renderer, hands, header

SUIT_STYLES = {
    "H": "bold #E53935",
    "D": "bold #E53935",
    "C": "bold white",
    "S": "bold white",
}
MATCH_TYPES = {
    split_pb2.SPLIT_MATCH_TYPE_WEAK: "weak",
    split_pb2.SPLIT_MATCH_TYPE_STRONG: "strong",
    split_pb2.SPLIT_MATCH_TYPE_PERFECT: "perfect",
}
PHASES = {
    split_pb2.SPLIT_PHASE_SETUP: "setup",
    split_pb2.SPLIT_PHASE_DRAW: "draw",
    split_pb2.SPLIT_PHASE_PLAY: "play",
    split_pb2.SPLIT_PHASE_BONUS: "bonus",
    split_pb2.SPLIT_PHASE_LATE_MELD: "late meld",
    split_pb2.SPLIT_PHASE_ROUND_OVER: "round over",
    split_pb2.SPLIT_PHASE_GAME_OVER: "game over",
}


def card_text(card: split_pb2.SplitCard) -> Text:
    """Returns a half card by its id, red for hearts and diamonds."""
    suit = card.id.split("-", 1)[0][-1:]
    return Text(card.id, style=SUIT_STYLES.get(suit, ""))


def cards_text(cards: Iterable[split_pb2.SplitCard]) -> Text:
    """Returns cards separated by spaces."""
    return Text(" ").join(card_text(card) for card in cards)


def _top(stack: Iterable[split_pb2.SplitCard]) -> Text:
    cards = list(stack)
    if not cards:
        return Text("-")
    return Text.assemble(card_text(cards[-1]), (f" ({len(cards)})", "dim"))


def _matches(game: game_pb2.Game, public: split_pb2.SplitPublicState) -> Table:
    names = {p.name: p.display_name for p in game.players}
    table = Table(title="matches", box=None, header_style="bold", pad_edge=False)
    for column in ("id", "owner", "rank", "left", "right", "type"):
        table.add_column(column)
    for match in public.matches:
        table.add_row(
            str(match.id),
            names.get(match.owner, "?"),
            match.rank,
            _top(match.left_stack),
            _top(match.right_stack),
            MATCH_TYPES.get(match.type, "?"),
        )
    return table


def _seats(game: game_pb2.Game, public: split_pb2.SplitPublicState, me: str) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in (" ", "player", "cards", "total", "negatives"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for p in game.players:
        sheet = (
            public.score_sheets[p.seat] if p.seat < len(public.score_sheets) else None
        )
        name = Text(p.display_name, style="bold cyan" if p.name == me else "")
        if p.name == public.dealer:
            name.append(" (dealer)", style="dim")
        if p.name in public.winners:
            name.append(" ★ winner", style="bold yellow")
        table.add_row(
            "▶" if p.name == public.current_player else " ",
            name,
            str(public.hand_sizes[p.seat]) if p.seat < len(public.hand_sizes) else "-",
            str(sheet.total) if sheet else "-",
            str(sheet.negatives) if sheet else "-",
        )
    return table


def _status(public: split_pb2.SplitPublicState) -> Text:
    out = Text.assemble(
        (f"round {public.round}/3, {PHASES.get(public.phase, '?')}", "bold")
    )
    if public.pending_bonus:
        bonus = MATCH_TYPES.get(public.pending_bonus, "?")
        out.append(f"  {bonus} bonus of match {public.pending_match_id} pending")
    out.append(f"  draw pile {public.draw_pile_size}", style="dim")
    return out


def _discards(public: split_pb2.SplitPublicState) -> Text:
    out = Text.assemble(("discard row (oldest first): ", "bold"))
    for index, card in enumerate(public.discard_row):
        out.append(f" {index}:", style="dim")
        out.append_text(card_text(card))
    return out


def render(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> RenderableType:
    """Returns the Split table as the caller sees it."""
    view = game.split_view
    public = view.public_state
    parts: list[RenderableType] = [
        header(game, info, me),
        _status(public),
        _discards(public),
    ]
    parts += [_matches(game, public), _seats(game, public, me)]
    own = view.private_state.hand if view.HasField("private_state") else None
    parts += hands(game, public.revealed_hands, own, cards_text)
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list."""
    action = move.split
    kind = action.WhichOneof("action")
    if kind == "draw_from_pile":
        return Text("draw from the pile")
    if kind == "take_from_discard":
        take = action.take_from_discard
        use = (
            Text.assemble("match with ", card_text(take.partner))
            if take.WhichOneof("play") == "partner"
            else Text(f"upgrade match {take.match_id}")
        )
        return Text.assemble(f"take the discard row from {take.index}, ", use)
    if kind == "make_match":
        made = action.make_match
        return Text.assemble(
            "match ", card_text(made.card_a), " + ", card_text(made.card_b)
        )
    if kind == "upgrade":
        up = action.upgrade
        return Text.assemble(
            "upgrade match ", str(up.match_id), " with ", card_text(up.card)
        )
    if kind == "choose_penalty_target":
        return Text(
            f"give a negative mark to seat {action.choose_penalty_target.target_seat}"
        )
    if kind == "resolve_strong_bonus":
        return Text(
            "draw a bonus card" if action.resolve_strong_bonus.draw else "no bonus draw"
        )
    if kind == "resolve_weak_bonus":
        weak = action.resolve_weak_bonus
        if not weak.own_match_id:
            return Text("decline the swap")
        return Text(f"swap match {weak.own_match_id} for {weak.other_match_id}")
    if kind == "discard":
        return Text.assemble("discard ", card_text(action.discard.card))
    return Text("finish the late meld")


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes a Split event for the log; None for the bookkeeping ones."""
    fact = event.split
    kind = fact.WhichOneof("event")
    who = names.get(event.actor, "?")
    if kind == "card_drawn":
        return f"{who} drew a card"
    if kind == "discard_taken":
        return f"{who} took the discard row from {fact.discard_taken.index}"
    if kind == "match_made":
        made = fact.match_made
        return f"{who} matched {made.left.id} + {made.right.id}"
    if kind == "match_upgraded":
        up = fact.match_upgraded
        return f"{who} upgraded match {up.match_id} with {up.card.id}"
    if kind == "card_discarded":
        return f"{who} discarded {fact.card_discarded.card.id}"
    if kind == "round_scored":
        return f"round {fact.round_scored.round} scored"
    return None


RENDERER = Renderer("split", render, describe_move, describe_event)
