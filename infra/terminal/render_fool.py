"""Fool!: the trick, the Fools, scores and ten counts, and the caller's hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from tabletop.v1 import event_pb2, fool_pb2, game_pb2, game_type_pb2, move_pb2

from infra.terminal.header import header
from infra.terminal.render_common import Renderer, packed, seat_of, short

SUITS = {
    fool_pb2.FOOL_COLOR_GREEN: ("G", "green", "bold #43A047"),
    fool_pb2.FOOL_COLOR_RED: ("R", "red", "bold #E53935"),
    fool_pb2.FOOL_COLOR_YELLOW: ("Y", "yellow", "bold #FDD835"),
    fool_pb2.FOOL_COLOR_BLUE: ("B", "blue", "bold #1E88E5"),
    fool_pb2.FOOL_COLOR_WILD: ("W", "wild", "bold black on white"),
}
END_REASONS = {
    fool_pb2.FOOL_END_REASON_SCORE_LIMIT: "a total reached -80",
    fool_pb2.FOOL_END_REASON_TEN_LIMIT: "a player scored +10 for the sixth time",
}
LEGEND = (
    "G, R, Y, B: green, red, yellow, blue, then the value; W1-n: a wild 1 (copy n,\n"
    "all six alike): always playable, below every card of the lead colour, 5 points\n"
    "if left in hand; +10s: rounds ended with an empty hand (the sixth ends the game)"
)


def card_text(card: fool_pb2.FoolCard) -> Text:
    """Returns a card as the rules write it (``G17``, ``W1-4``) in its colour."""
    letter, _, style = SUITS.get(card.color, ("?", "?", ""))
    label = f"W1-{card.copy}" if card.color == fool_pb2.FOOL_COLOR_WILD else None
    return Text(label or f"{letter}{card.value}", style=style)


def card_name(card: fool_pb2.FoolCard) -> str:
    """Returns a card in words: ``green 17``, ``a wild 1``."""
    if card.color == fool_pb2.FOOL_COLOR_WILD:
        return "a wild 1"
    return f"{SUITS.get(card.color, ('?', '?', ''))[1]} {card.value}"


def cards_text(cards: Iterable[fool_pb2.FoolCard]) -> Text:
    """Returns cards separated by spaces."""
    return Text(" ").join(card_text(card) for card in cards)


def _trick(game: game_pb2.Game, public: fool_pb2.FoolPublicState) -> Text:
    names = {p.name: short(p.display_name) for p in game.players}
    _, lead, style = SUITS.get(public.lead_color, ("", "none yet", ""))
    pieces = [
        Text.assemble(f"{names.get(played.player, '?')} ", card_text(played.card))
        for played in public.trick
    ] or [Text("(no card yet)", style="dim")]
    lead_text = Text.assemble("   lead colour ", (lead, style))
    pieces[-1] = Text.assemble(pieces[-1], lead_text)
    return packed(Text("trick: ", style="bold"), pieces, ", ")


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
            Text(short(p.display_name), style="bold cyan" if p.name == me else ""),
            _at(public.hand_sizes, seat),
            _at(public.scores, seat),
            _at(public.ten_counts, seat),
            ", ".join(notes),
        )
    return table


def _at(values: Iterable[int], index: int) -> str:
    listed = list(values)
    return str(listed[index]) if index < len(listed) else "-"


def _hands(game: game_pb2.Game, view: fool_pb2.FoolView) -> list[Text]:
    """Returns the cards played this round, the hands shown at its end, the caller's."""
    names = {p.seat: short(p.display_name) for p in game.players}
    shown = [(Text("played this round: ", style="dim"), view.public_state.played)]
    shown += [
        (Text(f"{names.get(seat, seat)} held: "), hand.cards)
        for seat, hand in enumerate(view.public_state.revealed_hands)
    ]
    if view.HasField("private_state"):
        shown.append((Text("Your hand: ", style="bold"), view.private_state.hand))
    return [packed(label, map(card_text, cards)) for label, cards in shown]


def render(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> RenderableType:
    """Returns the Fool! table as the caller sees it."""
    view = game.fool_view
    public = view.public_state
    played, *hands = _hands(game, view)
    parts: list[RenderableType] = [
        header(game, info, me),
        Text(f"round {public.round}, {public.discs} Fool disc(s)", style="bold"),
        _trick(game, public),
        played,
        _seats(game, public, me),
        *hands,
        Text(LEGEND, style="dim"),
    ]
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list: the card and its name."""
    card = move.fool.play_card.card
    return Text.assemble("play ", card_text(card), f" ({card_name(card)})")


def _by_seat(names: Mapping[str, str], values: Iterable[int]) -> str:
    """Returns values indexed by seat with the seats' names: ``Ana +10, Ben -3``."""
    seats = {seat_of(player): name for player, name in names.items()}
    return ", ".join(
        f"{seats.get(s, f'seat {s}')} {v:+d}" for s, v in enumerate(values)
    )


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str:
    """Describes a Fool! event for the log, every kind in words."""
    fact = event.fool
    kind = fact.WhichOneof("event")
    if kind == "card_played":
        played = fact.card_played
        wild = " (a wild 1)" if played.card.color == fool_pb2.FOOL_COLOR_WILD else ""
        card = card_text(played.card).plain
        return f"{names.get(played.player, '?')} played {card}{wild}"
    if kind == "trick_resolved":
        return _resolved(fact.trick_resolved, names)
    if kind == "round_scored":
        scored = fact.round_scored
        return f"round {scored.round} scored: {_by_seat(names, scored.points)}"
    if kind == "hands_dealt":
        dealt = fact.hands_dealt
        size = max(dealt.hand_sizes, default=0)
        return (
            f"round {dealt.round}: {names.get(dealt.dealer, '?')} dealt {size} "
            f"cards each; {names.get(dealt.leader, '?')} leads"
        )
    if kind == "game_ended":
        why = " and ".join(END_REASONS.get(r, "?") for r in fact.game_ended.reasons)
        return f"the game ended: {why or 'its end was reached'}"
    return "a Fool! event this client does not know"


def _resolved(trick: fool_pb2.FoolTrickResolved, names: Mapping[str, str]) -> str:
    """Says who won a trick and with what, and who took the Fool discs."""
    best = next((c.card for c in trick.cards if c.player == trick.winner), None)
    with_card = f" with {card_text(best).plain}" if best is not None else ""
    _, lead, _ = SUITS.get(trick.lead_color, ("", "", ""))
    lead_text = f" (lead {lead})" if lead else " (wild 1s only)"
    fools = ", ".join(names.get(f, "?") for f in trick.fools) or "nobody"
    disc = "discs" if len(trick.fools) > 1 else "disc"
    winner = names.get(trick.winner, "?")
    return f"{winner} won the trick{with_card}{lead_text}; Fool {disc}: {fools}"


RENDERER = Renderer("fool", render, describe_move, describe_event)
