"""The Fool! bot: stays out of the Fool's seat and sheds its costliest safe card."""

from __future__ import annotations

from domain.bots import choose_move
from tests.factories_fool import fool_play, fool_state

FOUR_HANDS = ("G2 G3", "G4 G5", "G6 G7", "G8 G9")


def hands_with(seat: int, hand: str) -> list[list[str]]:
    """Returns four small hands with ``hand`` at ``seat``."""
    hands = [names.split() for names in FOUR_HANDS]
    hands[seat] = hand.split()
    return hands


def test_the_last_player_follows_with_a_card_that_is_not_the_worst() -> None:
    # Seat 3 holds the disc; seats 0, 1, 2 play. R2 and the wild 1 would be worst.
    state = fool_state(
        hands=hands_with(2, "R2 R10 G20 W1-1"),
        fools=(3,),
        trick=((0, "R9"), (1, "R14")),
    )

    assert choose_move("fool", state, 2) == fool_play(2, "R10")


def test_sheds_its_costliest_card_when_an_off_colour_card_is_already_worst() -> None:
    state = fool_state(
        hands=hands_with(2, "R2 R12 W1-1"),
        fools=(3,),
        trick=((0, "R9"), (1, "Y3")),
    )

    assert choose_move("fool", state, 2) == fool_play(2, "R12")


def test_the_last_player_sheds_the_costliest_card_when_every_card_is_worst() -> None:
    state = fool_state(
        hands=hands_with(2, "G15 B3 W1-1"),
        fools=(3,),
        trick=((0, "R9"), (1, "R14")),
    )

    assert choose_move("fool", state, 2) == fool_play(2, "G15")


def test_with_players_still_to_come_a_wild_one_outranks_an_off_colour_card() -> None:
    # Seat 2 is not last: the wild 1 counts as red and any later off-colour
    # card would rank below it, while G15 would be the worst card so far.
    state = fool_state(hands=hands_with(1, "G15 B3 W1-1"), trick=((0, "R9"),))

    assert choose_move("fool", state, 1) == fool_play(1, "W1-1")


def test_the_leader_leads_its_highest_card() -> None:
    state = fool_state(hands=hands_with(0, "G3 R12 Y7 W1-1"))

    assert choose_move("fool", state, 0) == fool_play(0, "R12")


def test_a_seat_that_may_not_play_gets_no_move() -> None:
    state = fool_state(hands=[names.split() for names in FOUR_HANDS])

    assert choose_move("fool", state, 2) is None
