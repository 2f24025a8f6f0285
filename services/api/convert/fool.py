"""Fool! values <-> ``tabletop.v1`` Fool messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.v1 import fool_pb2, game_pb2

from domain.games.fool import (
    Card,
    CardPlayed,
    Color,
    EndReason,
    FoolConfig,
    FoolView,
    GameEnded,
    HandsDealt,
    PlayCard,
    RoundScored,
    TrickCard,
    TrickResolved,
)
from domain.games.fool.model import Command
from services.api.convert.base import GameConverter, Names, Option, enum_map
from services.api.errors import FieldViolation

_COLORS: dict[Color | None, fool_pb2.FoolColor] = {None: fool_pb2.FOOL_COLOR_WILD}
_COLORS.update(enum_map(fool_pb2.FoolColor, "FOOL_COLOR_", Color).items())
_COLOR_OF = {number: color for color, number in _COLORS.items()}
_REASONS: Mapping[EndReason, fool_pb2.FoolEndReason] = {
    EndReason.SCORE_LIMIT: fool_pb2.FOOL_END_REASON_SCORE_LIMIT,
    EndReason.TEN_LIMIT: fool_pb2.FOOL_END_REASON_TEN_LIMIT,
}


def card_to_proto(card: Card) -> fool_pb2.FoolCard:
    """Returns a card message."""
    return fool_pb2.FoolCard(
        color=_COLORS[card.color],
        value=card.value,
        copy=card.copy,
    )


def card_from_proto(
    message: fool_pb2.FoolCard, path: str
) -> Card | list[FieldViolation]:
    """Returns the card a message names, or what is wrong with it.

    Only the colour is checked here; whether such a card exists, is in play and
    is in the hand is for the rules to say.
    """
    if message.color not in _COLOR_OF:
        return [FieldViolation(f"{path}.color", "must be a Fool! colour or WILD")]
    return Card(_COLOR_OF[message.color], message.value, message.copy)


def move_from_proto(
    move: fool_pb2.FoolMove, seat: int, path: str
) -> Command | list[FieldViolation]:
    """Returns the command a Fool! move asks for, or what is wrong with it."""
    if move.WhichOneof("action") != "play_card":
        return [FieldViolation(f"{path}.action", "set play_card")]
    where = f"{path}.play_card.card"
    if not move.play_card.HasField("card"):
        return [FieldViolation(where, "is required")]
    card = card_from_proto(move.play_card.card, where)
    return card if isinstance(card, list) else PlayCard(seat, card)


def move_to_proto(command: Command) -> fool_pb2.FoolMove:
    """Returns the move message of a command (for ListLegalMoves)."""
    return fool_pb2.FoolMove(
        play_card=fool_pb2.FoolPlayCard(card=card_to_proto(command.card))
    )


def _cards(cards: Sequence[Card]) -> list[fool_pb2.FoolCard]:
    return [card_to_proto(card) for card in cards]


def _hands(hands: Sequence[Sequence[Card]]) -> list[fool_pb2.FoolHand]:
    return [fool_pb2.FoolHand(cards=_cards(hand)) for hand in hands]


def _trick(cards: Sequence[TrickCard], names: Names) -> list[fool_pb2.FoolTrickCard]:
    return [
        fool_pb2.FoolTrickCard(player=names(t.seat), card=card_to_proto(t.card))
        for t in cards
    ]


def _lead(color: Color | None) -> fool_pb2.FoolColor:
    return fool_pb2.FOOL_COLOR_UNSPECIFIED if color is None else _COLORS[color]


def view_to_proto(view: FoolView, names: Names) -> fool_pb2.FoolView:
    """Returns the caller's view message."""
    public = view.public
    message = fool_pb2.FoolView(
        public_state=fool_pb2.FoolPublicState(
            round=public.round,
            dealer=names(public.dealer),
            leader=names(public.leader),
            participants=[names(seat) for seat in public.participants],
            trick=_trick(public.trick, names),
            lead_color=_lead(public.lead_color),
            fools=[names(seat) for seat in public.fools],
            discs=public.discs,
            hand_sizes=list(public.hand_sizes),
            cards_in_play=_cards(public.cards_in_play),
            played=_cards(public.played),
            scores=list(public.scores),
            ten_counts=list(public.ten_counts),
            revealed_hands=_hands(view.hands or ()),
            end_reasons=[_REASONS[r] for r in public.end_reasons],
        )
    )
    if view.private is not None:
        message.private_state.CopyFrom(
            fool_pb2.FoolPrivateState(hand=_cards(view.private.hand))
        )
    return message


def event_to_proto(event: Any, names: Names) -> fool_pb2.FoolEvent:
    """Returns a (redacted) Fool! event message."""
    match event:
        case HandsDealt():
            return fool_pb2.FoolEvent(
                hands_dealt=fool_pb2.FoolHandsDealt(
                    round=event.round,
                    dealer=names(event.dealer),
                    leader=names(event.leader),
                    hand_sizes=list(event.hand_sizes),
                    hands=_hands(event.hands),
                )
            )
        case CardPlayed():
            return fool_pb2.FoolEvent(
                card_played=fool_pb2.FoolCardPlayed(
                    player=names(event.seat), card=card_to_proto(event.card)
                )
            )
        case TrickResolved():
            return fool_pb2.FoolEvent(
                trick_resolved=fool_pb2.FoolTrickResolved(
                    cards=_trick(event.cards, names),
                    lead_color=_lead(event.lead_color),
                    winner=names(event.winner),
                    fools=[names(seat) for seat in event.fools],
                )
            )
        case RoundScored():
            return fool_pb2.FoolEvent(
                round_scored=fool_pb2.FoolRoundScored(
                    round=event.round,
                    points=list(event.points),
                    totals=list(event.totals),
                    ten_counts=list(event.ten_counts),
                    hands_left=_hands(event.hands_left),
                )
            )
        case GameEnded():
            return fool_pb2.FoolEvent(
                game_ended=fool_pb2.FoolGameEnded(
                    reasons=[_REASONS[r] for r in event.reasons],
                )
            )
    msg = f"not a Fool! event: {event!r}"
    raise TypeError(msg)


def config_from_proto(message: fool_pb2.FoolConfig) -> FoolConfig:
    """Returns the table options; ``check_config`` refuses a dealer off the table."""
    return FoolConfig(first_dealer=message.first_dealer)


def config_to_proto(config: FoolConfig) -> fool_pb2.FoolConfig:
    """Returns the table options message."""
    return fool_pb2.FoolConfig(first_dealer=config.first_dealer)


CONVERTER = GameConverter(
    game_type="fool",
    proto_type=game_pb2.GAME_TYPE_FOOL,
    config_field="fool_config",
    move_field="fool",
    view_field="fool_view",
    event_field="fool",
    config_from_proto=config_from_proto,
    config_to_proto=config_to_proto,
    move_from_proto=move_from_proto,
    move_to_proto=move_to_proto,
    view_to_proto=view_to_proto,
    event_to_proto=event_to_proto,
    display_name="Fool!",
    options=(
        Option(
            "first_dealer",
            "The seat that deals the first round; the deal moves one seat"
            " clockwise each round.",
            "0",
        ),
    ),
    self_undo=(
        "None: every card played was hidden in a hand, so every takeback needs "
        "the others' consent."
    ),
)
