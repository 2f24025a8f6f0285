"""Game length: what loading a game costs at 10, 100, 1,000 and 10,000 events.

Each game is a real Hues and Cues game on PostgreSQL, grown to its length the
way long games grow: the cue giver gives a first cue and takes it back alone,
again and again (every cycle stores four events). For each length it prints the
median time of

* ``cold``: folding every stored event, which every command paid before games
  were kept in memory (a process that has not seen the game still does);
* ``warm``: loading a game this process keeps, which reads only what was stored
  since (nothing, here) - what a command pays now;
* ``middle``: the game at half its length, as ``GetGameRevision`` builds it.

Run it with ``make bench-length`` (``BENCH_ARGS="--database postgresql://..."``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any
from uuid import UUID

from domain.common.decision import Rejected
from domain.games.hues_and_cues import (
    RULES,
    GiveFirstCue,
    HuesAndCuesConfig,
)
from infra.server import create_app
from infra.settings import Settings
from services.games import GamesApp
from services.records import GameRecord, fold
from services.store import Call

LENGTHS = (10, 100, 1_000, 10_000)


def default_database() -> str:
    """Returns the PostgreSQL of ``make test`` (``.ci/.pg.env``), in a new schema."""
    host = os.environ.get("POSTGRES_HOST", "127.0.0.1")
    port = os.environ.get("POSTGRES_PORT", "5432")
    user = os.environ.get("POSTGRES_USER", "postgres")
    password = os.environ.get("POSTGRES_PASSWORD", "")
    dbname = os.environ.get("POSTGRES_DBNAME", "postgres")
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    auth = f"{user}:{password}@" if password else f"{user}@"
    return f"postgresql://{auth}{host}:{port}/{dbname}?schema={schema}"


def ok(result: Any) -> Any:
    """Returns a use case's result, failing loudly on a refusal."""
    if isinstance(result, Rejected):
        raise TypeError(result)
    return result


def started_game(app: GamesApp) -> tuple[UUID, list[str]]:
    """Opens and starts a three-seat game whose seat 0 gives the first cue."""
    config = HuesAndCuesConfig(first_cue_giver=0, free_choice_variant=True)
    created = ok(app.create_game(RULES.name, config, 3, "Ana"))
    game_id = created.record.game_id
    tokens = [created.token] + [
        ok(app.join_game(game_id, name)).token for name in ("Ben", "Cy")
    ]
    ok(app.start_game(game_id, tokens[0]))
    return game_id, tokens


def first_cue(record: GameRecord, seat: int) -> GiveFirstCue:
    """Returns the cue giver's first legal move (a target with a suggested cue)."""
    game = record.table.game
    return next(m for m in RULES.legal_moves(game, seat) if isinstance(m, GiveFirstCue))


def grow(app: GamesApp, game_id: UUID, token: str, events: int) -> int:
    """Gives a cue and takes it back until the game holds ``events``; returns it."""
    revision: int = ok(app.get_game(game_id)).revision
    while revision + 4 <= events:
        ok(app.submit_move(game_id, token, first_cue))
        revision = ok(app.undo_move(game_id, Call(token))).record.revision
    while revision < events:  # a few quiet steps to land exactly
        revision = ok(app.submit_move(game_id, token, first_cue)).record.revision
        if revision < events:
            revision = ok(app.undo_move(game_id, Call(token))).record.revision
    return revision


def median_ms(action: Callable[[], object], repeat: int) -> float:
    """Returns the median wall time of ``action`` in milliseconds."""
    times = []
    for _ in range(repeat):
        begin = time.perf_counter()
        action()
        times.append(time.perf_counter() - begin)
    return statistics.median(times) * 1000


def measure(
    app: GamesApp, game_id: UUID, reached: int, repeat: int
) -> tuple[float, float, float]:
    """Returns the cold, warm and middle-revision load times of one game."""
    cold = median_ms(lambda: fold(game_id, app.recorded_events(game_id)), repeat)
    warm = median_ms(lambda: app.get_game(game_id), repeat)
    middle = median_ms(lambda: app.get_game(game_id, revision=reached // 2), repeat)
    return cold, warm, middle


def main() -> None:
    """Builds one game per length and prints the load times."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", default=None, help="default: a new schema")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--lengths", type=int, nargs="*", default=list(LENGTHS))
    args = parser.parse_args()
    database = args.database or default_database()
    app = create_app(Settings(database=database))
    print(f"# game length on {database.split('@')[-1]}; medians of {args.repeat}")
    print(f"{'events':>8}{'build s':>9}{'cold ms':>10}{'warm ms':>10}{'middle ms':>11}")
    for length in args.lengths:
        begin = time.perf_counter()
        game_id, tokens = started_game(app)
        reached = grow(app, game_id, tokens[0], length)
        built = time.perf_counter() - begin
        cold, warm, middle = measure(app, game_id, reached, args.repeat)
        print(
            f"{reached:>8}{built:>9.1f}{cold:>10.2f}{warm:>10.2f}{middle:>11.2f}",
            flush=True,
        )
    app.close()


if __name__ == "__main__":
    main()
