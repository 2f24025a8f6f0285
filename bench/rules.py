"""Rules speed: random complete games per second per game type, on one core.

Each game is played from its setup to its end by the pure rules alone: at every
step the seat to move lists its legal moves, one is drawn at random, decided and
folded into the state. Prints games/s, moves/s and the median game time per game
type, then a profile of the slowest game type. Run it with ``make bench-rules``.
"""

from __future__ import annotations

import argparse
import cProfile
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
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or len(times) < len(counts):
        players = counts[len(times) % len(counts)]
        begin = time.perf_counter()
        moves += play_one(rules, players, seed)
        times.append(time.perf_counter() - begin)
        seed += 1
    total = sum(times)
    return {
        "games": len(times),
        "games_per_s": len(times) / total,
        "moves_per_s": moves / total,
        "median_ms": statistics.median(times) * 1000,
        "moves_per_game": moves / len(times),
    }


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
    slowest = min(results, key=lambda n: results[n]["games_per_s"])
    print(f"\n# profile of {args.profile_games} {slowest} games (own time)")
    print(profile(GAMES[slowest], args.profile_games, args.top))


if __name__ == "__main__":
    main()
