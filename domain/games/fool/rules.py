"""``decide``: the Fool! rules policy (spec §3, §4; DESIGN §2, §4).

Checks run phase first, then whose turn it is, then whether the card exists and
is in play, then the rules of play; the first failure is returned. The move
that ends a round also scores it and then deals the next round (label
``fool/round-<r+1>/shuffle``) or ends the game: the table has no automatic
steps, so the last card of a round produces ``CardPlayed``, ``TrickResolved``,
``RoundScored`` and then ``HandsDealt`` or ``GameEnded``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import assert_never

from domain.common.decision import Accepted, Decision, Rejected, malformed, reject
from domain.common.rng import Rng
from domain.common.rules import Outcome
from domain.common.seats import next_seat
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
)
from domain.games.fool.evolve import evolve
from domain.games.fool.legal import follows, must_follow
from domain.games.fool.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Card,
    Command,
    Phase,
    PlayCard,
    State,
)
from domain.games.fool.scoring import end_reasons, resolve, round_points, winners
from domain.games.fool.setup import cards_in_play, deal

_IN_PLAY: Mapping[int, frozenset[Card]] = MappingProxyType(
    {n: frozenset(cards_in_play(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
)
_ALL_CARDS = _IN_PLAY[MAX_PLAYERS]  # §1.1: the whole deck of 88


def to_move(state: State) -> tuple[int, ...]:
    """Returns the seats the game waits for: the next participant, or none."""
    seat = state.to_move
    return () if seat is None else (seat,)


def self_undoable(events: tuple[Event, ...]) -> bool:
    """Tells whether a move revealed nothing, so its mover may take it back alone.

    Never in Fool! (D14): every card played was hidden in its player's hand, so
    playing it shows it to everybody; a takeback needs the others' consent.
    """
    del events
    return False


def reveals_to_others(events: tuple[Event, ...]) -> bool:
    """Tells whether a move showed others something hidden, so no takeback crosses it.

    T19: a round end shows every hand left (§3.3, ``RoundScored``) and deals new
    hands; the end of the game shows everything. A card played was the mover's
    own to show, so consent is enough to take it back.
    """
    return any(
        isinstance(event, RoundScored | HandsDealt | GameEnded) for event in events
    )


def leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` that lead on the totals of the rounds scored.

    The end-of-game ranking (D8): best total, then more rounds scored +10, then
    shared. The round in play counts nothing until it is scored.
    """
    return winners(state.scores, state.ten_counts, seats)


def outcome(state: State) -> Outcome:
    """Returns totals, the winners once over (D8: ten counts, then shared), if over."""
    everyone = tuple(range(len(state.scores)))
    return Outcome(
        scores=state.scores,
        winners=leaders(state, everyone) if state.finished else (),
        finished=state.finished,
    )


def decide(state: State, command: Command, rng: Rng) -> Decision[Event]:
    """Returns the events a command produces, or why it is refused."""
    match command:
        case PlayCard():
            refused = (
                _check_phase(state)
                or _check_turn(state, command.seat)
                or _check_card(state, command.card)
                or _check_follow(state, command)
            )
            if refused is not None:
                return refused
            return Accepted(_play(state, command, rng))
        case _:
            assert_never(command)


def _check_phase(state: State) -> Rejected | None:
    if state.phase is Phase.SETUP:
        return reject(
            "GAME_NOT_STARTED", "The cards have not been dealt yet.", "fool/setup"
        )
    if state.phase is Phase.GAME_OVER:
        return reject("GAME_OVER", "The game is over.", "fool/game_end")
    return None


def _check_turn(state: State, seat: int) -> Rejected | None:
    if seat in state.fools:
        # §3.1: a player holding a Fool disc sits out the trick.
        return reject(
            "SITTING_OUT",
            f"Seat {seat} holds a Fool disc and sits out this trick.",
            "fool/fool_sits_out",
            seat=seat,
        )
    if seat != state.to_move:
        # §3.2: participants play one card each, clockwise from the leader.
        return reject(
            "NOT_YOUR_TURN",
            f"It is seat {state.to_move}'s turn, not seat {seat}'s.",
            "fool/turn_order",
            currentPlayer=state.to_move,
            seat=seat,
        )
    return None


def _check_card(state: State, card: Card) -> Rejected | None:
    if card not in _ALL_CARDS:
        # §1.1: green 2-27, red 2-23, yellow 2-21, blue 2-15, wild 1s W1-1..W1-6.
        return malformed(
            "UNKNOWN_CARD", f"{card} is not a Fool! card.", "fool/cards", card=card
        )
    if card not in _IN_PLAY[state.players]:
        # §2.1: fewer players leave the highest values and some 1s out.
        return malformed(
            "CARD_NOT_IN_PLAY",
            f"{card} is not used with {state.players} players.",
            "fool/cards_in_play",
            card=card,
            players=state.players,
        )
    return None


def _check_follow(state: State, command: PlayCard) -> Rejected | None:
    hand = state.hands[command.seat]
    if command.card not in hand:
        return reject(
            "CARD_NOT_IN_HAND",
            f"{command.card} is not in your hand.",
            "fool/card_in_hand",
            card=command.card,
        )
    required = must_follow(hand, state.trick)
    if required is not None and not follows(command.card, required):
        # §3.2, D10: follow the lead colour if you can; a wild 1 is always allowed.
        # The message names only the lead colour, never another card of the hand.
        return reject(
            "MUST_FOLLOW_LEAD_COLOUR",
            f"The lead colour is {required} and you hold {required}: "
            f"play {required} or a wild 1.",
            "fool/follow_lead_colour",
            card=command.card,
            leadColor=required,
        )
    return None


def _play(state: State, command: PlayCard, rng: Rng) -> tuple[Event, ...]:
    played = CardPlayed(command.seat, command.card)
    after = evolve(state, played)
    if len(after.trick) < len(after.participants):
        return (played,)
    resolved = resolve(after.trick, state.players)
    after = evolve(after, resolved)
    if all(after.hands):
        return (played, resolved)
    # §3.3, invariant 7: the round ends after the first trick that empties a hand.
    return (played, resolved, *_round_end(after, rng))


def _round_end(state: State, rng: Rng) -> tuple[Event, ...]:
    points = round_points(state.hands, state.fools)
    emptied = tuple(
        not hand and seat not in state.fools for seat, hand in enumerate(state.hands)
    )
    scored = RoundScored(
        round=state.round,
        points=points,
        totals=tuple(t + p for t, p in zip(state.scores, points, strict=True)),
        ten_counts=tuple(
            c + ten for c, ten in zip(state.ten_counts, emptied, strict=True)
        ),
        hands_left=state.hands,
    )
    reasons = end_reasons(scored.totals, scored.ten_counts)
    if reasons:
        return (scored, GameEnded(reasons))
    dealer = next_seat(state.dealer, state.players)  # D6
    return (scored, deal(state.players, state.round + 1, dealer, rng))
