"""Bots play whole games: every move legal, every game finished, and play that wins.

Games run in the pure domain from ``setup`` to the end with a seeded ``Rng``, as
the playout tests do. Bots are checked against players that always take the
first legal move, and for fairness: changing what a seat cannot see (other
hands, the bag or draw pile, the secret target) never changes its bot's choice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import pytest

from domain.bots import choose_move
from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.rules import GameRules
from domain.games import fool, gnoming_a_round, hues_and_cues, qwirkle, split
from domain.games.fool.model import sorted_cards as fool_sorted
from domain.games.gnoming_a_round.model import Slot
from domain.games.hues_and_cues.cards import CARDS
from domain.games.registry import GAMES
from domain.games.split.cards import sorted_cards as split_sorted

T = TypeVar("T")
MAX_MOVES = 20_000
SAMPLE_EVERY = 5  # moves between two positions kept for the fairness checks

WHOLE_GAMES = [
    ("qwirkle", 2),
    ("qwirkle", 4),
    ("hues_and_cues", 3),
    ("hues_and_cues", 7),
    ("fool", 4),
    ("fool", 8),
    ("gnoming_a_round", 3),
    ("gnoming_a_round", 6),
    ("split", 2),
    ("split", 5),
]
# (game, players, games): bots take every other seat, shifted each game.
AGAINST_FIRST_MOVES = [
    ("qwirkle", 2, 10),
    ("hues_and_cues", 4, 10),
    ("fool", 5, 10),
    ("gnoming_a_round", 3, 10),
    ("split", 2, 10),
    ("split", 4, 10),
]


@dataclass
class Played:
    """A finished game: its rules, final state, and positions kept on the way."""

    rules: GameRules[Any, Any, Any, Any]
    state: Any
    positions: list[tuple[Any, int]] = field(default_factory=list)


def play(game: str, players: int, number: int, bots: Iterable[int]) -> Played:
    """Plays a seeded game to its end; bots at ``bots``, first legal moves elsewhere."""
    rules = GAMES[game]
    rng = Rng(hashlib.sha256(f"bot-games/{game}/{players}/{number}".encode()).digest())
    state = rules.initial_state(players, rules.config_type())
    played = Played(rules, rules.fold(state, rules.setup(state, rng)))
    bot_seats = frozenset(bots)
    for move in range(MAX_MOVES):
        if rules.outcome(played.state).finished:
            return played
        seat = rules.to_move(played.state)[0]
        if seat in bot_seats:
            command = choose_move(game, played.state, seat)
            if move % SAMPLE_EVERY == 0:
                played.positions.append((played.state, seat))
        else:
            command = next(rules.legal_moves(played.state, seat))
        decision = rules.decide(played.state, command, rng)
        assert isinstance(decision, Accepted), (command, decision)
        played.state = rules.fold(played.state, decision.events)
    pytest.fail(f"{game} did not end within {MAX_MOVES} moves")


@pytest.mark.parametrize(("game", "players"), WHOLE_GAMES)
def test_bots_play_a_whole_game_with_legal_moves(game: str, players: int) -> None:
    played = play(game, players, 0, range(players))

    assert played.rules.outcome(played.state).finished


@pytest.mark.parametrize(("game", "players", "games"), AGAINST_FIRST_MOVES)
def test_bots_beat_first_legal_move_players(
    game: str, players: int, games: int
) -> None:
    won = 0
    for number in range(games):
        bots = {seat for seat in range(players) if (seat + number) % 2 == 0}
        played = play(game, players, number, bots)
        winners = set(played.rules.outcome(played.state).winners)
        won += winners <= bots

    assert won > games / 2


def redealt(
    hands: Sequence[Sequence[T]], pile: Sequence[T]
) -> tuple[list[list[T]], list[T]]:
    """Returns the same hand sizes and pile size, dealt again from the pool reversed."""
    pool = [card for hand in hands for card in hand] + list(pile)
    pool.reverse()
    dealt: list[list[T]] = []
    for hand in hands:
        dealt.append(pool[: len(hand)])
        pool = pool[len(hand) :]
    return dealt, pool


def others_redealt(
    hands: Sequence[tuple[T, ...]],
    pile: Sequence[T],
    seat: int,
    order: Callable[[list[T]], tuple[T, ...]],
) -> tuple[tuple[tuple[T, ...], ...], tuple[T, ...]]:
    """Returns every hand but ``seat``'s, and the pile, dealt again from their pool."""
    others = [hand for owner, hand in enumerate(hands) if owner != seat]
    dealt, rest = redealt(others, pile)
    new = iter(dealt)
    result = tuple(
        hand if owner == seat else order(next(new)) for owner, hand in enumerate(hands)
    )
    return result, tuple(rest)


def hidden_changed(game: str, state: Any, seat: int) -> Any:
    """Returns ``state`` with everything ``seat`` may not see changed."""
    match game:
        case "qwirkle":
            racks, bag = others_redealt(state.racks, state.bag, seat, tuple)
            return replace(state, racks=racks, bag=bag)
        case "fool":
            hands, _ = others_redealt(state.hands, (), seat, fool_sorted)
            return replace(state, hands=hands)
        case "split":
            hands, pile = others_redealt(
                state.hands, state.draw_pile, seat, split_sorted
            )
            return replace(state, hands=hands, draw_pile=pile)
        case "gnoming_a_round":
            return _gnoming_hidden_changed(state)
        case "hues_and_cues":
            return _hues_hidden_changed(state, seat)
    raise AssertionError(game)


def _gnoming_hidden_changed(state: gnoming_a_round.State) -> gnoming_a_round.State:
    """Deals every face-down card (hidden from its owner too) and the pile again."""
    down = [[s.card for s in layout if not s.face_up] for layout in state.layouts]
    dealt, pile = redealt(down, state.draw_pile)
    layouts = []
    for layout, cards in zip(state.layouts, dealt, strict=True):
        fresh = iter(cards)
        layouts.append(
            tuple(s if s.face_up else Slot(next(fresh), face_up=False) for s in layout)
        )
    return replace(state, layouts=tuple(layouts), draw_pile=tuple(pile))


def _hues_hidden_changed(state: hues_and_cues.State, seat: int) -> hues_and_cues.State:
    """Turns the deck over; for a guesser, also swaps the card and the target."""
    changed = replace(state, deck=tuple(reversed(state.deck)))
    if seat == state.cue_giver or state.card is None:
        return changed
    other = next(card for card in CARDS if card != state.card)
    target = None if state.target is None else CARDS[other].squares[-1]
    return replace(changed, card=other, target=target)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_what_a_seat_cannot_see_never_changes_its_bots_choice(game: str) -> None:
    players = GAMES[game].min_players + 1
    played = play(game, players, 1, range(players))
    changed = 0
    for state, seat in played.positions:
        hidden = hidden_changed(game, state, seat)
        changed += hidden != state
        assert choose_move(game, hidden, seat) == choose_move(game, state, seat)

    assert changed >= len(played.positions) // 2 > 0


def test_the_game_modules_are_the_registered_ones() -> None:
    modules = (fool, gnoming_a_round, hues_and_cues, qwirkle, split)
    assert {module.RULES.name for module in modules} == set(GAMES)
