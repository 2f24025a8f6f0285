"""Rules speed: random complete games per second per game type, on one core.

Each game is played from its setup to its end by the pure rules alone: at every
step the seat to move lists its legal moves, one is drawn at random, decided and
folded into the state. Prints games/s, moves/s and the median game time per game
type (all in CPU time of this process, which a busy shared machine disturbs
less than wall time), for Qwirkle the time to list every legal move of its worst
position against a median position, then a profile of the slowest game type.
Run it with ``make bench-rules``.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import platform
import pstats
import random
import statistics
import time
from typing import Any

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.rules import GameRules
from domain.games.qwirkle import RULES as QWIRKLE
from domain.games.qwirkle.model import Color, Phase, Shape, Tile
from domain.games.registry import GAMES


def play_one(rules: GameRules[Any, Any, Any, Any], players: int, seed: int) -> int:
    """Plays one random complete game; returns the number of moves."""
    chooser = random.Random(seed)
    rng = Rng(seed.to_bytes(32, "big"))
    state = rules.initial_state(players, rules.config_type())
    state = rules.fold(state, rules.setup(state, rng))
    moves = 0
    while not rules.outcome(state).finished:
        seat = chooser.choice(rules.to_move(state))
        command = chooser.choice(list(rules.legal_moves(state, seat)))
        decision = rules.decide(state, command, rng)
        if not isinstance(decision, Accepted):
            msg = f"a legal move was refused: {command!r} -> {decision!r}"
            raise TypeError(msg)
        state = rules.fold(state, decision.events)
        moves += 1
    return moves


def measure(
    rules: GameRules[Any, Any, Any, Any], seconds: float, first_seed: int
) -> dict[str, float]:
    """Plays games for about ``seconds``, cycling through the player counts."""
    counts = range(rules.min_players, rules.max_players + 1)
    times: list[float] = []
    moves = 0
    seed = first_seed
    started = time.process_time()
    while time.process_time() - started < seconds or len(times) < len(counts):
        players = counts[len(times) % len(counts)]
        begin = time.process_time()
        moves += play_one(rules, players, seed)
        times.append(time.process_time() - begin)
        seed += 1
    total = sum(times)
    return {
        "games": len(times),
        "games_per_s": len(times) / total,
        "moves_per_s": moves / total,
        "median_ms": statistics.median(times) * 1000,
        "moves_per_game": moves / len(times),
    }


def listing_ms(state: Any, repeats: int) -> tuple[int, float]:
    """Returns a Qwirkle position's legal-move count and best listing time (ms)."""
    best = float("inf")
    count = 0
    for _ in range(repeats):
        begin = time.process_time()
        count = len(list(QWIRKLE.legal_moves(state, state.to_move)))
        best = min(best, time.process_time() - begin)
    return count, best * 1000


def qwirkle_listings(games: int, repeats: int) -> list[tuple[str, int, float]]:
    """Returns (position, moves, ms) for Qwirkle's worst positions and a median one.

    The worst: a first move of six tiles of one colour (6! orders, two
    directions, six offsets: 8,640 placements), and a lone tile on the grid
    with a rack of the other five shapes of its colour (every line of one to
    five tiles through it, both ways). The median: of every position of
    ``games`` random games, by listing time.
    """
    samples: list[tuple[float, int]] = []
    state: Any = None
    for seed in range(games):
        chooser = random.Random(seed)
        rng = Rng(seed.to_bytes(32, "big"))
        state = QWIRKLE.initial_state(2, QWIRKLE.config_type())
        state = QWIRKLE.fold(state, QWIRKLE.setup(state, rng))
        first = state
        while not QWIRKLE.outcome(state).finished:
            count, ms = listing_ms(state, repeats)
            samples.append((ms, count))
            moves = list(QWIRKLE.legal_moves(state, state.to_move))
            decision = QWIRKLE.decide(state, chooser.choice(moves), rng)
            if not isinstance(decision, Accepted):
                msg = f"a legal move was refused: {decision!r}"
                raise TypeError(msg)
            state = QWIRKLE.fold(state, decision.events)
    samples.sort()
    median_ms, median_count = samples[len(samples) // 2]
    reds = tuple(Tile(Color.RED, shape) for shape in Shape)
    opening = dataclasses.replace(
        first,
        phase=Phase.FIRST_MOVE,
        to_move=0,
        racks=(reds, *first.racks[1:]),
        starting_numbers=(6, *first.starting_numbers[1:]),
    )
    lone = dataclasses.replace(
        first,
        phase=Phase.TURN,
        to_move=0,
        board={(0, 0): reds[0]},
        racks=(reds[1:], *first.racks[1:]),
    )
    return [
        ("first move, six of a colour", *listing_ms(opening, repeats)),
        ("lone tile, five to match", *listing_ms(lone, repeats)),
        (f"median of {len(samples)} positions", median_count, median_ms),
    ]


def profile(rules: GameRules[Any, Any, Any, Any], games: int, top: int) -> str:
    """Returns the profile of ``games`` games, by own time, as text."""
    profiler = cProfile.Profile()
    counts = range(rules.min_players, rules.max_players + 1)
    profiler.enable()
    for seed in range(games):
        play_one(rules, counts[seed % len(counts)], 10_000 + seed)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    """Measures every game type (or those named) and profiles the slowest."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", help="game types (default: all)")
    parser.add_argument("--seconds", type=float, default=10.0, help="per game type")
    parser.add_argument("--profile-games", type=int, default=20)
    parser.add_argument("--top", type=int, default=25, help="profile lines")
    parser.add_argument(
        "--listing-games", type=int, default=5, help="Qwirkle games for listings"
    )
    args = parser.parse_args()
    names = args.games or sorted(GAMES)
    print(
        f"# rules speed on {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()}, one core"
    )
    print(
        f"{'game':<18}{'games':>7}{'games/s':>10}{'moves/s':>10}"
        f"{'median ms':>11}{'moves/game':>12}"
    )
    results = {}
    for name in names:
        result = measure(GAMES[name], args.seconds, first_seed=1)
        results[name] = result
        print(
            f"{name:<18}{result['games']:>7.0f}{result['games_per_s']:>10.1f}"
            f"{result['moves_per_s']:>10.0f}{result['median_ms']:>11.1f}"
            f"{result['moves_per_game']:>12.1f}",
            flush=True,
        )
    if "qwirkle" in names:
        print("\n# Qwirkle: CPU time to list every legal move (best of 3)")
        for position, count, ms in qwirkle_listings(args.listing_games, 3):
            print(f"{position:<34}{count:>7} moves{ms:>10.2f} ms")
    slowest = min(results, key=lambda n: results[n]["games_per_s"])
    print(f"\n# profile of {args.profile_games} {slowest} games (own time)")
    print(profile(GAMES[slowest], args.profile_games, args.top))


if __name__ == "__main__":
    main()
