"""The converter: CPU time to turn a game's view and events into messages.

For each game type a seeded random game is played by its rules for 40 moves;
then the view of the seat to move is converted to its ``Game`` view message,
and the last events to ``GameEvent`` members, again and again. It prints the
median of ``--rounds`` rounds of the CPU time per view and per event, in µs:
what answering ``GetGame``, a full ``SubmitMove`` or a stream's snapshot costs
beside the rules, and what each event of a reply or a stream costs.

Run it with ``make bench-convert`` (``BENCH_ARGS="--repeat 500"``). For a
before/after, run the same script from a work tree of the older commit.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from domain.common.seats import Seat, Spectator
from domain.games.registry import GAMES
from services.api.convert.registry import converter_for
from tests.property.random_games import play, set_up

MOVES = 40  # moves into the game: a board, hands and scores of some size
EVENTS = 6  # the last events converted


def _names(seat: int) -> str:
    return f"games/bench/players/{seat}"


def _mid_game(name: str) -> tuple[Any, tuple[Any, ...]]:
    """Returns the view of the seat to move after MOVES random moves, and events."""
    rules = GAMES[name]
    players = max(rules.min_players, 3 if name == "hues_and_cues" else 2)
    game = set_up(rules, players, rules.config_type(), f"bench-convert-{name}")
    chooser = random.Random(1)

    def choose(state: Any) -> Any:
        seat = rules.to_move(state)[0]
        return chooser.choice(list(rules.legal_moves(state, seat)))

    play(game, choose, lambda *_: None, MOVES)
    to_move = rules.to_move(game.state)
    viewer = Seat(to_move[0]) if to_move else Spectator()
    return rules.view(game.state, viewer), tuple(game.events[-EVENTS:])


def _per_call(work: Any, repeat: int) -> float:
    started = time.process_time()
    for _ in range(repeat):
        work()
    return (time.process_time() - started) / repeat * 1e6


def main() -> None:
    """Prints the median CPU µs per view and per event of each game type."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=300, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("# converter: CPU µs per call, median of rounds")
    print(f"{'game':18} {'view µs':>9} {'event µs':>9}")
    for name in GAMES:
        converter = converter_for(name)
        view, events = _mid_game(name)

        def one_view(c: Any = converter, v: Any = view) -> None:
            c.view_to_proto(v, _names)

        def all_events(c: Any = converter, e: tuple[Any, ...] = events) -> None:
            for event in e:
                c.event_to_proto(event, _names)

        one_view()  # plans are made on the first call
        all_events()
        views = [_per_call(one_view, args.repeat) for _ in range(args.rounds)]
        each = [
            _per_call(all_events, args.repeat) / len(events) for _ in range(args.rounds)
        ]
        print(
            f"{name:18} {statistics.median(views):9.1f} {statistics.median(each):9.1f}"
        )


if __name__ == "__main__":
    main()
