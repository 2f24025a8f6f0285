"""Split: the discard row, the matches, the score sheets and the caller's hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2, split_pb2

from infra.terminal.header import header
from infra.terminal.render_common import Renderer, packed, seat_of, short

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
LEGEND = (
    "7H-L: the left half (-L; -R the right) of the 7 of hearts (H, D red; C, S black)\n"
    "a match pairs a left and a right half of one rank; (n): the halves in its stack\n"
    "negatives: negative boxes marked, each 2 points off the total"
)


def card_text(card: split_pb2.SplitCard) -> Text:
    """Returns a half card by its id, red for hearts and diamonds."""
    suit = card.id.split("-", 1)[0][-1:]
    return Text(card.id, style=SUIT_STYLES.get(suit, ""))


def cards_text(cards: Iterable[split_pb2.SplitCard]) -> Text:
    """Returns cards separated by spaces."""
    return Text(" ").join(card_text(card) for card in cards)


def _ids(cards: Iterable[split_pb2.SplitCard]) -> str:
    return ", ".join(card.id for card in cards)


def _top(stack: Iterable[split_pb2.SplitCard]) -> Text:
    cards = list(stack)
    if not cards:
        return Text("-")
    return Text.assemble(card_text(cards[-1]), (f" ({len(cards)})", "dim"))


def _matches(game: game_pb2.Game, public: split_pb2.SplitPublicState) -> Table:
    names = {p.name: short(p.display_name) for p in game.players}
    table = Table(title="matches", box=None, header_style="bold", pad_edge=False)
    for column in ("match", "owner", "rank", "left", "right", "type"):
        table.add_column(column)
    for match in public.matches:
        table.add_row(
            str(match.id),
            Text(names.get(match.owner, "?")),  # as written, never read as markup
            match.rank,
            _top(match.left_stack),
            _top(match.right_stack),
            MATCH_TYPES.get(match.type, "?"),
        )
    return table


def _seats(game: game_pb2.Game, public: split_pb2.SplitPublicState, me: str) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in (" ", "seat", "player", "cards", "total", "negatives"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for p in game.players:
        sheet = (
            public.score_sheets[p.seat] if p.seat < len(public.score_sheets) else None
        )
        name = Text(short(p.display_name), style="bold cyan" if p.name == me else "")
        if p.name == public.dealer:
            name.append(" (dealer)", style="dim")
        if p.name in public.winners:
            name.append(" ★ winner", style="bold yellow")
        table.add_row(
            "▶" if p.name == public.current_player else " ",
            str(p.seat),
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
    cards = (
        Text.assemble((f"{index}:", "dim"), card_text(card))
        for index, card in enumerate(public.discard_row)
    )
    return packed(Text("discard row (oldest first): ", style="bold"), cards)


def _hands(game: game_pb2.Game, view: split_pb2.SplitView) -> list[Text]:
    """Returns the hands shown at the round's end, then the caller's."""
    names = {p.seat: short(p.display_name) for p in game.players}
    shown = [
        (Text(f"{names.get(seat, seat)} held: "), hand.cards)
        for seat, hand in enumerate(view.public_state.revealed_hands)
    ]
    if view.HasField("private_state"):
        shown.append((Text("Your hand: ", style="bold"), view.private_state.hand))
    return [packed(label, map(card_text, cards)) for label, cards in shown]


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
    parts += [_matches(game, public), _seats(game, public, me), *_hands(game, view)]
    parts.append(Text(LEGEND, style="dim"))
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
            Text.assemble(f"match card {take.index} with ", card_text(take.partner))
            if take.WhichOneof("play") == "partner"
            else Text(f"upgrade match {take.match_id} with card {take.index}")
        )
        return Text.assemble(f"take discards {take.index} onward; ", use)
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
    return _describe_bonus(action, kind)


def _describe_bonus(action: split_pb2.SplitMove, kind: str | None) -> Text:
    """Returns a bonus, the discard or the end of a late meld as a line."""
    if kind == "choose_penalty_target":
        seat = action.choose_penalty_target.target_seat
        return Text(f"perfect bonus: seat {seat} marks a negative box (-2)")
    if kind == "resolve_strong_bonus":
        draw = action.resolve_strong_bonus.draw
        return Text(f"strong bonus: {'draw a card' if draw else 'draw no card'}")
    if kind == "resolve_weak_bonus":
        weak = action.resolve_weak_bonus
        if not weak.own_match_id:
            return Text("weak bonus: swap no matches")
        return Text(
            f"weak bonus: swap your match {weak.own_match_id} "
            f"for match {weak.other_match_id}"
        )
    if kind == "discard":
        return Text.assemble("discard ", card_text(action.discard.card))
    return Text("finish the late meld")


def _by_seat(names: Mapping[str, str], values: Iterable[int]) -> str:
    """Returns values indexed by seat with the seats' names: ``Ana 12, Ben -3``."""
    seats = {seat_of(player): name for player, name in names.items()}
    return ", ".join(f"{seats.get(s, f'seat {s}')} {v}" for s, v in enumerate(values))


def _player(fact: split_pb2.SplitEvent) -> str:
    """Returns the player an event names, empty for the events that name none."""
    kind = fact.WhichOneof("event")
    return str(getattr(getattr(fact, kind), "player", "")) if kind else ""


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str:
    """Describes a Split event for the log, every kind in words."""
    fact = event.split
    kind = fact.WhichOneof("event")
    who = names.get(_player(fact), "?")
    if kind == "round_dealt":
        dealt = fact.round_dealt
        first = names.get(dealt.first_player, "?")
        return (
            f"round {dealt.round}: {names.get(dealt.dealer, '?')} dealt 9 cards "
            f"each, {dealt.discard.id} starts the discard row; {first} plays first"
        )
    if kind == "card_drawn":
        drawn = fact.card_drawn
        what = drawn.card.id if drawn.HasField("card") else "a card"
        return f"{who} drew {what}{' (strong bonus)' if drawn.bonus else ''}"
    if kind == "discard_taken":
        taken = fact.discard_taken
        return f"{who} took the discard row from {taken.index} on: {_ids(taken.cards)}"
    if kind == "match_made":
        made = fact.match_made
        late = ", late meld" if made.late else ""
        match = f"match {made.match_id}, {MATCH_TYPES.get(made.type, '?')}{late}"
        return f"{who} matched {made.left.id} + {made.right.id} ({match})"
    if kind == "match_upgraded":
        up = fact.match_upgraded
        before, after = (MATCH_TYPES.get(t, "?") for t in (up.from_type, up.to_type))
        taken_from = up.previous_owner not in {"", up.player}
        owner = f", taking it from {names.get(up.previous_owner, '?')}"
        line = f"{who} upgraded match {up.match_id} with {up.card.id}"
        return f"{line}{owner if taken_from else ''} ({before} to {after})"
    return _describe_bonus_event(fact, who, names) or _describe_round(fact, who, names)


def _describe_bonus_event(
    fact: split_pb2.SplitEvent, who: str, names: Mapping[str, str]
) -> str | None:
    """Describes a bonus resolved or a discard; None for the other events."""
    kind = fact.WhichOneof("event")
    if kind == "negative_marked":
        by = names.get(fact.negative_marked.by, "?")
        return f"{who} marked a negative box (-2) for {by}'s perfect bonus"
    if kind == "strong_bonus_declined":
        return f"{who} drew no card for the strong bonus"
    if kind == "weak_bonus_resolved":
        weak = fact.weak_bonus_resolved
        if not weak.own_match_id:
            return f"{who} swapped no matches for the weak bonus"
        other = f"{names.get(weak.other_owner, '?')}'s match {weak.other_match_id}"
        return f"{who} swapped their match {weak.own_match_id} for {other}"
    if kind == "card_discarded":
        return f"{who} discarded {fact.card_discarded.card.id}"
    return None


def _describe_round(
    fact: split_pb2.SplitEvent, who: str, names: Mapping[str, str]
) -> str:
    """Describes the end of a round, a late meld, the scoring or the game's end."""
    kind = fact.WhichOneof("event")
    if kind == "round_ended":
        ended = fact.round_ended
        how = "went out"
        if ended.reason == split_pb2.SPLIT_END_REASON_DRAW_PILE_EMPTY:
            how = "drew the last card of the pile"
        late = ", ".join(names.get(p, "?") for p in ended.late_melders)
        melds = f"; {late} may meld late" if late else ""
        return f"round {ended.round} ended: {who} {how}{melds}"
    if kind == "late_meld_finished":
        return f"{who} finished their late meld"
    if kind == "round_scored":
        scored = fact.round_scored
        return (
            f"round {scored.round} scored: {len(scored.credits)} match(es) credited, "
            f"a negative box per card left in hand; totals "
            f"{_by_seat(names, scored.totals)}"
        )
    if kind == "game_ended":
        ended_game = fact.game_ended
        won = ", ".join(names.get(w, "?") for w in ended_game.winners) or "nobody"
        return f"the game ended: won by {won} ({_by_seat(names, ended_game.totals)})"
    return "a Split event this client does not know"


RENDERER = Renderer("split", render, describe_move, describe_event)
