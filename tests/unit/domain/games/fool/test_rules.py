"""``decide``: every precondition refused with its own reason, and what plays do."""

from __future__ import annotations

import copy

import pytest

from domain.common.decision import Accepted, Rejected, RejectionKind
from domain.games.fool import RULES
from domain.games.fool.events import CardPlayed
from domain.games.fool.model import (
    Card,
    Color,
    Command,
    FoolConfig,
    Phase,
    PlayCard,
    State,
    card_from_id,
)
from domain.games.fool.setup import cards_in_play, initial_state
from tests.factories_fool import FOOL_RNG, fool_card, fool_play, fool_state

# Four players; seat 3 holds the disc; seat 0 led R5, so seat 1 is to play and
# holds red; seat 2 holds no red.
TRICK = fool_state(
    hands=(("G2", "G3"), ("R7", "G9", "W1-1"), ("Y4", "B5"), ("R9", "G11")),
    leader=0,
    fools=(3,),
    trick=((0, "R5"),),
)

CASES: list[tuple[str, State, Command, str, str, RejectionKind]] = [
    # Each case: test id, state, command, then the expected reason, rule and kind.
    (
        "before the deal",
        initial_state(4, FoolConfig()),
        fool_play(1, "G2"),
        "GAME_NOT_STARTED",
        "fool/setup",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "after the end",
        fool_state(hands=(("G2",), ("G3",), ("G4",), ("G5",)), phase=Phase.GAME_OVER),
        fool_play(0, "G2"),
        "GAME_OVER",
        "fool/game_end",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "a Fool plays",
        TRICK,
        fool_play(3, "R9"),
        "SITTING_OUT",
        "fool/fool_sits_out",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "another participant's turn",
        TRICK,
        fool_play(2, "Y4"),
        "NOT_YOUR_TURN",
        "fool/turn_order",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "the leader again",
        TRICK,
        fool_play(0, "G2"),
        "NOT_YOUR_TURN",
        "fool/turn_order",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "no such seat",
        TRICK,
        fool_play(7, "G2"),
        "NOT_YOUR_TURN",
        "fool/turn_order",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    *[
        (
            f"no such card {card}",
            TRICK,
            PlayCard(1, card),
            "UNKNOWN_CARD",
            "fool/cards",
            RejectionKind.MALFORMED,
        )
        for card in (
            Card(Color.GREEN, 28),
            Card(Color.RED, 1),
            Card(Color.BLUE, 16),
            Card(Color.GREEN, 5, 2),
            Card(None, 1, 0),
            Card(None, 1, 7),
            Card(None, 3, 1),
        )
    ],
    *[
        (
            f"{name} left out with four players",
            TRICK,
            fool_play(1, name),
            "CARD_NOT_IN_PLAY",
            "fool/cards_in_play",
            RejectionKind.MALFORMED,
        )
        for name in ("G18", "R14", "Y12", "B9", "W1-4")
    ],
    (
        "a card of another hand",
        TRICK,
        fool_play(1, "R9"),
        "CARD_NOT_IN_HAND",
        "fool/card_in_hand",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "a card already played",
        TRICK,
        fool_play(1, "R5"),
        "CARD_NOT_IN_HAND",
        "fool/card_in_hand",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "off colour while holding the lead colour",
        TRICK,
        fool_play(1, "G9"),
        "MUST_FOLLOW_LEAD_COLOUR",
        "fool/follow_lead_colour",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
]


@pytest.mark.parametrize(
    ("state", "command", "reason", "rule", "kind"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_broken_precondition_is_refused_with_its_own_reason(
    state: State, command: Command, reason: str, rule: str, kind: RejectionKind
) -> None:
    before = copy.deepcopy(state)
    refused = RULES.decide(state, command, FOOL_RNG)
    assert isinstance(refused, Rejected)
    assert (refused.reason, refused.rule, refused.kind) == (reason, rule, kind)
    assert refused.message
    assert state == before  # a refusal changes nothing


def test_the_follow_refusal_names_the_lead_colour_but_no_other_card() -> None:
    refused = RULES.decide(TRICK, fool_play(1, "G9"), FOOL_RNG)
    assert isinstance(refused, Rejected)
    assert refused.metadata == {"card": "G9", "leadColor": "red"}
    assert "red" in refused.message
    for card in cards_in_play(4):
        if card != fool_card("G9"):
            assert str(card) not in refused.message


def test_the_turn_refusal_names_the_participant_to_play() -> None:
    refused = RULES.decide(TRICK, fool_play(2, "Y4"), FOOL_RNG)
    assert isinstance(refused, Rejected)
    assert refused.metadata == {"currentPlayer": "1", "seat": "2"}


def test_a_wild_1_may_always_be_played() -> None:
    # D10: seat 1 holds red, yet a 1 is allowed.
    decision = RULES.decide(TRICK, fool_play(1, "W1-1"), FOOL_RNG)
    assert decision == Accepted((CardPlayed(1, fool_card("W1-1")),))


def test_a_player_without_the_lead_colour_may_play_any_card() -> None:
    state = RULES.fold(TRICK, (CardPlayed(1, fool_card("R7")),))
    assert {m.card for m in RULES.legal_moves(state, 2)} == {
        fool_card("Y4"),
        fool_card("B5"),
    }
    assert isinstance(RULES.decide(state, fool_play(2, "B5"), FOOL_RNG), Accepted)


def test_the_leader_may_lead_any_card() -> None:
    state = fool_state(hands=(("G2", "R3", "W1-2"), ("G4",), ("G5",), ("G6",)))
    assert [m.card for m in RULES.legal_moves(state, 0)] == [
        fool_card("G2"),
        fool_card("R3"),
        fool_card("W1-2"),
    ]


def test_legal_moves_are_exactly_the_cards_decide_accepts() -> None:
    for seat in range(4):
        legal = {m.card for m in RULES.legal_moves(TRICK, seat)}
        accepted = {
            card
            for card in cards_in_play(4)
            if isinstance(RULES.decide(TRICK, PlayCard(seat, card), FOOL_RNG), Accepted)
        }
        assert legal == accepted
    assert [m.card for m in RULES.legal_moves(TRICK, 1)] == [
        fool_card("R7"),
        fool_card("W1-1"),
    ]


def test_nobody_has_a_legal_move_before_the_deal_or_after_the_end() -> None:
    done = fool_state(hands=(("G2",), ("G3",), ("G4",), ("G5",)), phase=Phase.GAME_OVER)
    for state in (initial_state(4, FoolConfig()), done):
        assert RULES.to_move(state) == ()
        assert all(not list(RULES.legal_moves(state, seat)) for seat in range(4))


def test_no_move_is_ever_taken_back_alone() -> None:
    # D14: every card played was hidden in a hand, so playing it reveals it.
    state = fool_state(hands=(("G2", "G3"), ("G4",), ("G5",), ("G6",)))
    decision = RULES.decide(state, fool_play(0, "G2"), FOOL_RNG)
    assert isinstance(decision, Accepted)
    assert not RULES.self_undoable(decision.events)
    assert not RULES.self_undoable(())


def test_the_actor_is_the_seat_named_by_the_command() -> None:
    assert RULES.actor(fool_play(3, "G2")) == 3


def test_card_ids_read_and_print_as_the_spec_writes_them() -> None:
    for name in ("G17", "R2", "Y21", "B15", "W1-4"):
        card = card_from_id(name)
        assert card is not None
        assert str(card) == name
    assert card_from_id("W1-4") == Card(None, 1, 4)
    assert card_from_id("G17") == Card(Color.GREEN, 17)
    for bad in ("", "g17", "X3", "W2-1", "W1", "G", "G100"):
        assert card_from_id(bad) is None


def test_a_card_played_is_its_players_to_show_but_a_round_end_shows_every_hand() -> (
    None
):
    # T19: consent may take back a card; nothing takes back the last trick.
    state = fool_state(hands=(("G2",), ("G4",), ("G5",), ("G6",)))
    verdicts = []
    for seat, card in enumerate(("G2", "G4", "G5", "G6")):
        decision = RULES.decide(state, fool_play(seat, card), FOOL_RNG)
        assert isinstance(decision, Accepted), decision
        verdicts.append(RULES.reveals_to_others(decision.events))
        state = RULES.fold(state, decision.events)
    assert verdicts == [False, False, False, True]
