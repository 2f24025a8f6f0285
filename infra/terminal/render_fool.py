"""Fool!: the trick, the Fools, scores and ten counts, and the caller's hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from tabletop.v1 import event_pb2, fool_pb2, game_pb2, game_type_pb2, move_pb2

from infra.terminal.render_common import Renderer, hands, header

SUITS = {
    fool_pb2.FOOL_COLOR_GREEN: ("G", "green", "bold #43A047"),
    fool_pb2.FOOL_COLOR_RED: ("R", "red", "bold #E53935"),
    fool_pb2.FOOL_COLOR_YELLOW: ("Y", "yellow", "bold #FDD835"),
    fool_pb2.FOOL_COLOR_BLUE: ("B", "blue", "bold #1E88E5"),
    fool_pb2.FOOL_COLOR_WILD: ("W", "wild", "bold black on white"),
}


def card_text(card: fool_pb2.FoolCard) -> Text:
    """Returns a card as the rules write it (``G17``, ``W1-4``) in its colour."""
    letter, _, style = SUITS.get(card.color, ("?", "?", ""))
    label = f"W1-{card.copy}" if card.color == fool_pb2.FOOL_COLOR_WILD else None
    return Text(label or f"{letter}{card.value}", style=style)


def cards_text(cards: Iterable[fool_pb2.FoolCard]) -> Text:
    """Returns cards separated by spaces."""
    return Text(" ").join(card_text(card) for card in cards)


def _trick(game: game_pb2.Game, public: fool_pb2.FoolPublicState) -> Text:
    names = {p.name: p.display_name for p in game.players}
    _, lead, style = SUITS.get(public.lead_color, ("", "none yet", ""))
    out = Text.assemble(("trick: ", "bold"))
    for index, played in enumerate(public.trick):
        out.append(", " if index else "")
        out.append(f"{names.get(played.player, '?')} ")
        out.append_text(card_text(played.card))
    if not public.trick:
        out.append("(no card yet)", style="dim")
    out.append("   lead colour ")
    out.append(lead, style=style)
    return out


def _seats(game: game_pb2.Game, public: fool_pb2.FoolPublicState, me: str) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in (" ", "player", "cards", "score", "+10s", ""):
        table.add_column(
            column, justify="left" if column in {"player", ""} else "right"
        )
    for p in game.players:
        seat = p.seat
        notes = [
            note
            for note, holds in (
                ("dealer", p.name == public.dealer),
                ("leads", p.name == public.leader),
                ("FOOL: sits out", p.name in public.fools),
                ("★ winner", p.name in game.winners),
            )
            if holds
        ]
        table.add_row(
            "▶" if p.name == game.current_player else " ",
            Text(p.display_name, style="bold cyan" if p.name == me else ""),
            _at(public.hand_sizes, seat),
            _at(public.scores, seat),
            _at(public.ten_counts, seat),
            ", ".join(notes),
        )
    return table


def _at(values: Iterable[int], index: int) -> str:
    listed = list(values)
    return str(listed[index]) if index < len(listed) else "-"


def render(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> RenderableType:
    """Returns the Fool! table as the caller sees it."""
    view = game.fool_view
    public = view.public_state
    parts: list[RenderableType] = [
        header(game, info, me),
        Text(f"round {public.round}, {public.discs} Fool disc(s)", style="bold"),
        _trick(game, public),
        Text.assemble(("played this round: ", "dim"), cards_text(public.played)),
        _seats(game, public, me),
    ]
    own = view.private_state.hand if view.HasField("private_state") else None
    parts += hands(game, public.revealed_hands, own, cards_text)
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list."""
    return Text.assemble("play ", card_text(move.fool.play_card.card))


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes a Fool! event for the log; None for the bookkeeping ones."""
    fact = event.fool
    kind = fact.WhichOneof("event")
    if kind == "card_played":
        played = fact.card_played
        return f"{names.get(played.player, '?')} played {card_text(played.card).plain}"
    if kind == "trick_resolved":
        trick = fact.trick_resolved
        fools = ", ".join(names.get(f, "?") for f in trick.fools) or "nobody"
        return f"{names.get(trick.winner, '?')} won the trick; Fool: {fools}"
    if kind == "round_scored":
        return f"round {fact.round_scored.round} scored"
    if kind == "hands_dealt":
        return f"round {fact.hands_dealt.round} dealt"
    return None


RENDERER = Renderer("fool", render, describe_move, describe_event)
