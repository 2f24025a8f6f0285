"""Fool! values <-> ``tabletop.v1`` messages: round trips and refused requests."""

from __future__ import annotations

from tabletop.v1 import fool_pb2, game_pb2

from domain.common.seats import Seat, Spectator
from domain.games.fool import (
    RULES,
    Card,
    Color,
    FoolConfig,
    PlayCard,
    RoundScored,
)
from domain.games.fool.setup import cards_in_play
from services.api.convert.registry import converter_for, converter_for_proto
from services.api.errors import FieldViolation
from tests.factories_fool import fool_cards, fool_state

convert = converter_for("fool")

PATH = "move.fool"


def _card(card: Card) -> fool_pb2.FoolCard:
    message: fool_pb2.FoolCard = convert.mapper.write(card, fool_pb2.FoolCard, str)
    return message


def test_every_card_survives_a_round_trip() -> None:
    for card in cards_in_play(8):
        assert convert.mapper.read(_card(card), Card, "c") == card


def test_a_card_message_carries_suit_value_and_copy() -> None:
    assert _card(Card(None, 1, 4)) == fool_pb2.FoolCard(
        color=fool_pb2.FOOL_COLOR_WILD, value=1, copy=4
    )
    assert _card(Card(Color.GREEN, 17)) == fool_pb2.FoolCard(
        color=fool_pb2.FOOL_COLOR_GREEN, value=17
    )


def test_a_move_survives_a_round_trip() -> None:
    command = PlayCard(2, Card(Color.RED, 9))
    message = convert.move_to_proto(command)
    assert convert.move_from_proto(message, 2, PATH) == command


def test_a_card_without_a_colour_is_a_field_violation() -> None:
    move = fool_pb2.FoolMove(
        play_card=fool_pb2.FoolPlayCard(card=fool_pb2.FoolCard(value=3))
    )
    assert convert.move_from_proto(move, 0, PATH) == [
        FieldViolation(
            "move.fool.play_card.card.color", "must be a Fool! colour or WILD"
        )
    ]


def test_a_move_without_a_card_or_an_action_is_a_field_violation() -> None:
    no_card = fool_pb2.FoolMove(play_card=fool_pb2.FoolPlayCard())
    assert convert.move_from_proto(no_card, 0, PATH) == [
        FieldViolation("move.fool.play_card.card", "is required")
    ]
    assert convert.move_from_proto(fool_pb2.FoolMove(), 0, PATH) == [
        FieldViolation("move.fool.action", "set play_card")
    ]


def test_a_card_that_does_not_exist_is_left_for_the_rules_to_refuse() -> None:
    move = fool_pb2.FoolMove(
        play_card=fool_pb2.FoolPlayCard(
            card=fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_BLUE, value=40)
        )
    )
    assert convert.move_from_proto(move, 1, PATH) == PlayCard(1, Card(Color.BLUE, 40))


def test_the_config_survives_a_round_trip() -> None:
    config = FoolConfig(first_dealer=3)
    assert convert.config_from_proto(convert.config_to_proto(config)) == config


def test_the_converter_is_registered_for_the_game_and_its_enum() -> None:
    assert converter_for("fool") is convert
    assert converter_for_proto(game_pb2.GAME_TYPE_FOOL) is convert
    assert RULES.name == convert.game_type


def names(seat: int) -> str:
    return f"games/g/players/{seat}"


def test_a_view_names_players_and_lists_sizes_by_seat() -> None:
    state = fool_state(
        hands=(("G2", "R3"), ("Y4",), ("B5", "W1-1"), ("G9",)),
        leader=3,
        fools=(1,),
        trick=((3, "G7"),),
    )
    message = convert.view_to_proto(RULES.view(state, Seat(2)), names)
    public = message.public_state
    assert (public.dealer, public.leader) == (names(2), names(3))
    assert list(public.fools) == [names(1)]
    assert list(public.participants) == [names(3), names(0), names(2)]
    assert public.lead_color == fool_pb2.FOOL_COLOR_GREEN
    assert [(t.player, t.card.value) for t in public.trick] == [(names(3), 7)]
    assert list(public.hand_sizes) == [2, 1, 2, 1]
    assert len(public.cards_in_play) == 48
    assert not public.revealed_hands
    assert [convert.mapper.read(c, Card, "c") for c in message.private_state.hand] == [
        *fool_cards("B5", "W1-1")
    ]
    spectator = convert.view_to_proto(RULES.view(state, Spectator()), names)
    assert not spectator.HasField("private_state")


def test_a_round_scored_event_shows_the_hands_left() -> None:
    event = RoundScored(2, (10, -5), (30, -40), (3, 0), ((), fool_cards("W1-1")))
    message = convert.event_to_proto(event, names).round_scored
    assert (message.round, list(message.points)) == (2, [10, -5])
    assert (list(message.totals), list(message.ten_counts)) == ([30, -40], [3, 0])
    assert [len(hand.cards) for hand in message.hands_left] == [0, 1]
