"""Split values <-> ``tabletop.v1`` Split messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from tabletop.v1 import game_pb2, split_pb2

from domain.games.split import (
    Card,
    CardDiscarded,
    CardDrawn,
    ChoosePenaltyTarget,
    Discard,
    DiscardTaken,
    DrawFromPile,
    EndReason,
    FinishLateMeld,
    GameEnded,
    LateMeldFinished,
    MakeMatch,
    Match,
    MatchMade,
    MatchType,
    MatchUpgraded,
    NegativeMarked,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    RoundDealt,
    RoundEnded,
    RoundScored,
    SplitConfig,
    SplitView,
    StrongBonusDeclined,
    TakeFromDiscard,
    Upgrade,
    WeakBonusResolved,
    card_from_id,
)
from domain.games.split.model import Command
from domain.games.split.scoring import total
from services.api.convert.base import GameConverter, Names, Option, enum_map
from services.api.errors import FieldViolation

_TYPES: Mapping[MatchType, split_pb2.SplitMatchType] = enum_map(
    split_pb2.SplitMatchType, "SPLIT_MATCH_TYPE_", MatchType
)
_PHASES: Mapping[Phase, split_pb2.SplitPhase] = enum_map(
    split_pb2.SplitPhase, "SPLIT_PHASE_", Phase
)
_REASONS: Mapping[EndReason, split_pb2.SplitEndReason] = enum_map(
    split_pb2.SplitEndReason, "SPLIT_END_REASON_", EndReason
)


def card_to_proto(card: Card) -> split_pb2.SplitCard:
    """Returns a card message."""
    return split_pb2.SplitCard(id=str(card))


def _cards(cards: Sequence[Card]) -> list[split_pb2.SplitCard]:
    return [card_to_proto(card) for card in cards]


def _hands(hands: Sequence[Sequence[Card]]) -> list[split_pb2.SplitHand]:
    return [split_pb2.SplitHand(cards=_cards(hand)) for hand in hands]


def _card(
    message: Any, name: str, path: str, problems: list[FieldViolation]
) -> Card | None:
    where = f"{path}.{name}"
    if not message.HasField(name):
        problems.append(FieldViolation(where, "is required"))
        return None
    card = card_from_id(getattr(message, name).id)
    if card is None:
        problems.append(FieldViolation(f"{where}.id", "must be a Split card id"))
    return card


def _optional_id(value: int) -> int | None:
    return value or None


def move_from_proto(
    move: split_pb2.SplitMove, seat: int, path: str
) -> Command | list[FieldViolation]:
    """Returns the command a Split move asks for, or what is wrong with it."""
    action = move.WhichOneof("action")
    problems: list[FieldViolation] = []
    where = f"{path}.{action}"
    command: Command | None = None
    match action:
        case "draw_from_pile":
            command = DrawFromPile(seat)
        case "take_from_discard":
            command = _take_from_proto(move.take_from_discard, seat, where, problems)
        case "make_match":
            a = _card(move.make_match, "card_a", where, problems)
            b = _card(move.make_match, "card_b", where, problems)
            command = None if a is None or b is None else MakeMatch(seat, a, b)
        case "upgrade":
            card = _card(move.upgrade, "card", where, problems)
            match_id = move.upgrade.match_id
            command = None if card is None else Upgrade(seat, card, match_id)
        case "choose_penalty_target":
            target = move.choose_penalty_target.target_seat
            command = ChoosePenaltyTarget(seat, target)
        case "resolve_strong_bonus":
            command = ResolveStrongBonus(seat, move.resolve_strong_bonus.draw)
        case "resolve_weak_bonus":
            weak = move.resolve_weak_bonus
            command = ResolveWeakBonus(
                seat, _optional_id(weak.own_match_id), _optional_id(weak.other_match_id)
            )
        case "discard":
            card = _card(move.discard, "card", where, problems)
            command = None if card is None else Discard(seat, card)
        case "finish_late_meld":
            command = FinishLateMeld(seat)
        case _:
            return [FieldViolation(f"{path}.action", "set one Split action")]
    return problems if problems or command is None else command


def _take_from_proto(
    take: split_pb2.SplitTakeFromDiscard,
    seat: int,
    where: str,
    problems: list[FieldViolation],
) -> Command | None:
    match take.WhichOneof("play"):
        case "partner":
            partner = _card(take, "partner", where, problems)
            if partner is None:
                return None
            return TakeFromDiscard(seat, take.index, partner=partner)
        case "match_id":
            return TakeFromDiscard(seat, take.index, match_id=take.match_id)
        case _:
            problems.append(FieldViolation(f"{where}.play", "set partner or match_id"))
            return None


def move_to_proto(command: Command) -> split_pb2.SplitMove:
    """Returns the move message of a command (for ListLegalMoves)."""
    match command:
        case DrawFromPile():
            return split_pb2.SplitMove(draw_from_pile=split_pb2.SplitDrawFromPile())
        case TakeFromDiscard():
            return split_pb2.SplitMove(take_from_discard=_take_to_proto(command))
        case MakeMatch():
            pair = split_pb2.SplitMakeMatch(
                card_a=card_to_proto(command.card_a),
                card_b=card_to_proto(command.card_b),
            )
            return split_pb2.SplitMove(make_match=pair)
        case Upgrade():
            played = split_pb2.SplitUpgrade(
                card=card_to_proto(command.card), match_id=command.match_id
            )
            return split_pb2.SplitMove(upgrade=played)
        case ChoosePenaltyTarget():
            target = split_pb2.SplitChoosePenaltyTarget(target_seat=command.target)
            return split_pb2.SplitMove(choose_penalty_target=target)
        case ResolveStrongBonus():
            strong = split_pb2.SplitResolveStrongBonus(draw=command.draw)
            return split_pb2.SplitMove(resolve_strong_bonus=strong)
        case ResolveWeakBonus():
            weak = split_pb2.SplitResolveWeakBonus(
                own_match_id=command.own_match_id or 0,
                other_match_id=command.other_match_id or 0,
            )
            return split_pb2.SplitMove(resolve_weak_bonus=weak)
        case Discard():
            discard = split_pb2.SplitDiscard(card=card_to_proto(command.card))
            return split_pb2.SplitMove(discard=discard)
        case FinishLateMeld():
            return split_pb2.SplitMove(finish_late_meld=split_pb2.SplitFinishLateMeld())
        case _:
            assert_never(command)


def _take_to_proto(command: TakeFromDiscard) -> split_pb2.SplitTakeFromDiscard:
    take = split_pb2.SplitTakeFromDiscard(index=command.index)
    if command.partner is not None:
        take.partner.CopyFrom(card_to_proto(command.partner))
    else:
        take.match_id = command.match_id or 0
    return take


def _match(match: Match, names: Names) -> split_pb2.SplitMatch:
    return split_pb2.SplitMatch(
        id=match.id,
        owner=names(match.owner),
        rank=str(match.rank),
        left_stack=_cards(match.left),
        right_stack=_cards(match.right),
        type=_TYPES[match.type],
    )


def view_to_proto(view: SplitView, names: Names) -> split_pb2.SplitView:
    """Returns the caller's view message."""
    public = view.public
    pending = public.pending
    message = split_pb2.SplitView(
        public_state=split_pb2.SplitPublicState(
            round=public.round,
            dealer=names(public.dealer),
            current_player=names(public.current),
            phase=_PHASES[public.phase],
            pending_bonus=(
                split_pb2.SPLIT_MATCH_TYPE_UNSPECIFIED
                if pending is None
                else _TYPES[pending.type]
            ),
            pending_match_id=0 if pending is None else pending.match_id,
            discard_row=_cards(public.discard_row),
            matches=[_match(m, names) for m in public.matches],
            hand_sizes=list(public.hand_sizes),
            draw_pile_size=public.draw_pile_size,
            late_melders=[names(seat) for seat in public.late_melders],
            score_sheets=[
                split_pb2.SplitScoreSheet(
                    rows=list(rows), negatives=negatives, total=total(rows, negatives)
                )
                for rows, negatives in zip(public.marks, public.negatives, strict=True)
            ],
            revealed_hands=_hands(view.hands or ()),
            winners=[names(seat) for seat in public.winners],
        )
    )
    if view.private is not None:
        message.private_state.CopyFrom(
            split_pb2.SplitPrivateState(hand=_cards(view.private.hand))
        )
    return message


def event_to_proto(event: Any, names: Names) -> split_pb2.SplitEvent:
    """Returns a (redacted) Split event message."""
    match event:
        case RoundDealt():
            return split_pb2.SplitEvent(
                round_dealt=split_pb2.SplitRoundDealt(
                    round=event.round,
                    dealer=names(event.dealer),
                    first_player=names(event.first_player),
                    hands=_hands(event.hands),
                    hand_sizes=list(event.hand_sizes),
                    discard=card_to_proto(event.discard),
                    draw_pile=_cards(event.draw_pile),
                    draw_pile_size=event.draw_pile_size,
                )
            )
        case CardDrawn():
            drawn = split_pb2.SplitCardDrawn(
                player=names(event.seat), bonus=event.bonus
            )
            if event.card is not None:
                drawn.card.CopyFrom(card_to_proto(event.card))
            return split_pb2.SplitEvent(card_drawn=drawn)
        case DiscardTaken():
            return split_pb2.SplitEvent(
                discard_taken=split_pb2.SplitDiscardTaken(
                    player=names(event.seat),
                    index=event.index,
                    cards=_cards(event.cards),
                )
            )
    return _table_event_to_proto(event, names)


def _table_event_to_proto(event: Any, names: Names) -> split_pb2.SplitEvent:
    match event:
        case MatchMade():
            return split_pb2.SplitEvent(
                match_made=split_pb2.SplitMatchMade(
                    player=names(event.seat),
                    match_id=event.match_id,
                    left=card_to_proto(event.left),
                    right=card_to_proto(event.right),
                    type=_TYPES[event.type],
                    late=event.late,
                )
            )
        case MatchUpgraded():
            return split_pb2.SplitEvent(
                match_upgraded=split_pb2.SplitMatchUpgraded(
                    player=names(event.seat),
                    match_id=event.match_id,
                    card=card_to_proto(event.card),
                    from_type=_TYPES[event.from_type],
                    to_type=_TYPES[event.to_type],
                    previous_owner=names(event.previous_owner),
                )
            )
        case CardDiscarded():
            return split_pb2.SplitEvent(
                card_discarded=split_pb2.SplitCardDiscarded(
                    player=names(event.seat), card=card_to_proto(event.card)
                )
            )
    return _bonus_event_to_proto(event, names)


def _bonus_event_to_proto(event: Any, names: Names) -> split_pb2.SplitEvent:
    match event:
        case NegativeMarked():
            return split_pb2.SplitEvent(
                negative_marked=split_pb2.SplitNegativeMarked(
                    player=names(event.seat), by=names(event.by)
                )
            )
        case StrongBonusDeclined():
            return split_pb2.SplitEvent(
                strong_bonus_declined=split_pb2.SplitStrongBonusDeclined(
                    player=names(event.seat)
                )
            )
        case WeakBonusResolved():
            return split_pb2.SplitEvent(
                weak_bonus_resolved=split_pb2.SplitWeakBonusResolved(
                    player=names(event.seat),
                    own_match_id=event.own_match_id or 0,
                    other_match_id=event.other_match_id or 0,
                    other_owner=""
                    if event.other_owner is None
                    else names(event.other_owner),
                )
            )
    return _round_event_to_proto(event, names)


def _round_event_to_proto(event: Any, names: Names) -> split_pb2.SplitEvent:
    match event:
        case RoundEnded():
            return split_pb2.SplitEvent(
                round_ended=split_pb2.SplitRoundEnded(
                    round=event.round,
                    reason=_REASONS[event.reason],
                    player=names(event.seat),
                    late_melders=[names(seat) for seat in event.late_melders],
                    next_dealer=names(event.next_dealer),
                )
            )
        case LateMeldFinished():
            return split_pb2.SplitEvent(
                late_meld_finished=split_pb2.SplitLateMeldFinished(
                    player=names(event.seat)
                )
            )
    return _scoring_event_to_proto(event, names)


def _scoring_event_to_proto(event: Any, names: Names) -> split_pb2.SplitEvent:
    match event:
        case RoundScored():
            credits_given = [
                split_pb2.SplitCredit(
                    player=names(c.seat),
                    rank=str(c.rank),
                    type=_TYPES[c.type],
                )
                for c in event.credits
            ]
            return split_pb2.SplitEvent(
                round_scored=split_pb2.SplitRoundScored(
                    round=event.round,
                    credits=credits_given,
                    hands_left=_hands(event.hands_left),
                    totals=list(event.totals),
                )
            )
        case GameEnded():
            return split_pb2.SplitEvent(
                game_ended=split_pb2.SplitGameEnded(
                    totals=list(event.totals),
                    winners=[names(seat) for seat in event.winners],
                )
            )
    msg = f"not a Split event: {event!r}"
    raise TypeError(msg)


def config_from_proto(message: split_pb2.SplitConfig) -> SplitConfig:
    """Returns the table options; ``check_config`` refuses a dealer off the table."""
    return SplitConfig(first_dealer=message.first_dealer)


def config_to_proto(config: SplitConfig) -> split_pb2.SplitConfig:
    """Returns the table options message."""
    return split_pb2.SplitConfig(first_dealer=config.first_dealer)


CONVERTER = GameConverter(
    game_type="split",
    proto_type=game_pb2.GAME_TYPE_SPLIT,
    config_field="split_config",
    move_field="split",
    view_field="split_view",
    event_field="split",
    config_from_proto=config_from_proto,
    config_to_proto=config_to_proto,
    move_from_proto=move_from_proto,
    move_to_proto=move_to_proto,
    view_to_proto=view_to_proto,
    event_to_proto=event_to_proto,
    display_name="Split",
    options=(
        Option(
            "first_dealer",
            "The seat that deals the first round; the first turn is to "
            "the dealer's left.",
            "0",
        ),
    ),
    self_undo=(
        "A move that drew and revealed nothing: the perfect bonus's choice, "
        "declining the strong bonus, the weak bonus's swap or not, finishing a "
        "late meld that does not end the round, and taking from the discard row"
        " when only its cards are used. Every other move needs the others' "
        "consent."
    ),
)
