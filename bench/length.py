"""Game length: what loading a game costs at 10, 100, 1,000 and 10,000 events.

Each game is a real Hues and Cues game on PostgreSQL, grown to its length the
way long games grow (as ``tests/long_games.py`` grows them): the cue giver
gives a first cue, proposes taking it back and the two other seats accept,
again and again (every cycle stores eight events; alone, a seat may take back
only a few moves before another seat moves, decision T18). A game may end
within a cycle, so that it holds its length exactly, or just past it. For each
length it prints the median time of

* ``fold``: folding every stored event, what loading a game cost before games
  were kept in memory and snapshots were stored;
* ``cold``: the first load of the latest game by a new store object (empty
  memory, as in a process that has just started), snapshots present;
* ``cold mid``: the same for the game at half its length, as ``GetGameRevision``
  builds it (which loads the latest game first);
* ``cold worst``: the same for the revision just below a multiple of 100 (or
  the one before the latest in a short game): the most events folded after the
  nearest stored fold;
* ``warm``: loading a game this store keeps, which reads only what was stored
  since (nothing, here) - what a command pays;
* ``warm mid`` and ``warm worst``: those revisions, by the store that built it;
* ``move`` and ``x100 move``: a command that stores events (a cue, a proposal
  to take it back or an answer to it) while the game is grown, when it does not
  and when it does cross a multiple of 100 revisions (where a snapshot is
  written).

Run it with ``make bench-length`` (``BENCH_ARGS="--database postgresql://..."``).

With ``--kept N`` it measures instead what kept games hold in memory: it plays
a few two-seat Qwirkle games to their end in memory, then keeps N copies of
them (each a game of its own) in one ``KeptGames`` bounded by ``--keep-memory``
and prints, every so many games, the process's resident memory (RSS) growth
per game kept so far and the kept folds' estimated bytes per game: RSS stays
flat once the bound is reached.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from domain.games.hues_and_cues import RULES, HuesAndCuesConfig
from domain.games.qwirkle import QwirkleConfig
from infra.event_store import create_app
from infra.settings import Settings, memory_size
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RespondUndo,
    SeatRequest,
    SentMove,
    SubmitMove,
)
from services.games import Applied, GamesApp
from services.kept import CHECKPOINT_EVERY, KeptGames
from services.records import GameRecord, RecordedEvent, fold
from tests.long_games import first_cue

LENGTHS = (10, 100, 1_000, 10_000)
CYCLE = 4  # commands a cycle: a cue, a proposal to take it back, two answers
CYCLE_EVENTS = 8  # events those store
WARM_UP_READS = 12  # over twice the 5 connections of a store's pool


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
    created = ok(app.create_game(CreateGame(RULES.name, config, 3, "Ana")))
    game_id = created.record.game_id
    tokens = [created.token] + [
        ok(app.join_game(JoinGame(game_id, name))).token for name in ("Ben", "Cy")
    ]
    ok(app.start_game(SeatRequest(game_id, Call(tokens[0]))))
    return game_id, tokens


class Growth:
    """Grows a game by cues taken back by consent, timing each command."""

    def __init__(self, app: GamesApp, game_id: UUID, tokens: list[str]) -> None:
        self.app = app
        self.game_id = game_id
        self.tokens = tokens
        self.record: GameRecord = ok(app.get_game(game_id))
        self.revision: int = self.record.revision
        self.stage = 0  # the next command of the cycle, 0 to CYCLE - 1
        self.proposal_id = 0  # the proposal the other seats answer
        self.plain: list[float] = []  # seconds of commands within 100 revisions
        self.crossing: list[float] = []  # ... of those crossing a multiple of 100

    def command(self) -> Applied | Rejected:
        """Sends the cycle's next command: a cue, a proposal, or an answer."""
        if self.stage == 0:
            cue = first_cue(self.record)  # the cue giver's, on the game as it is
            call = Call(self.tokens[0])
            return self.app.submit_move(SubmitMove(self.game_id, cue, call))
        if self.stage == 1:
            return self.app.propose_undo(
                SeatRequest(self.game_id, Call(self.tokens[0]))
            )
        call = Call(self.tokens[self.stage - 1])  # seats 1 and 2 accept
        return self.app.respond_undo(
            RespondUndo(self.game_id, self.proposal_id, accept=True, call=call)
        )

    def step(self) -> None:
        """Sends the cycle's next command and files its time."""
        begin = time.perf_counter()
        applied = ok(self.command())
        spent = time.perf_counter() - begin
        if self.stage == 1:
            self.proposal_id = applied.record.table.undo.proposal.proposal_id
        self.stage = (self.stage + 1) % CYCLE
        self.record = applied.record
        revision: int = applied.record.revision
        crossed = revision // CHECKPOINT_EVERY > self.revision // CHECKPOINT_EVERY
        (self.crossing if crossed else self.plain).append(spent)
        self.revision = revision

    def to(self, events: int) -> int:
        """Gives cues taken back by consent until the game holds ``events``."""
        while self.revision + CYCLE_EVENTS <= events:
            for _ in range(CYCLE):
                self.step()
        while self.revision < events:  # part of a cycle to land on or just past
            self.step()
        return self.revision


def median_ms(action: Callable[[], object], repeat: int) -> float:
    """Returns the median wall time of ``action`` in milliseconds."""
    times = []
    for _ in range(repeat):
        begin = time.perf_counter()
        action()
        times.append(time.perf_counter() - begin)
    return statistics.median(times) * 1000


def cold_ms(database: str, game_id: UUID, revision: int | None, repeat: int) -> float:
    """Returns the median time of a game's first load by a new store object.

    Each store first reads unknown games, so that opening its connections
    (which its pool does in the background) is not counted: only the game's
    load is.
    """
    times = []
    for _ in range(repeat):
        app = create_app(Settings(database=database))
        for _ in range(WARM_UP_READS):
            app.get_game(uuid.uuid4())
        begin = time.perf_counter()
        ok(app.get_game(game_id, revision=revision))
        times.append(time.perf_counter() - begin)
        app.close()
    return statistics.median(times) * 1000


def measure(
    app: GamesApp, database: str, game_id: UUID, reached: int, repeat: int
) -> dict[str, float]:
    """Returns the load times of one game, by name, in milliseconds."""
    middle = reached // 2
    # The revision with the most events after the fold below it.
    worst = (reached - 1) // CHECKPOINT_EVERY * CHECKPOINT_EVERY - 1
    worst = worst if worst > 0 else reached - 1
    return {
        "fold": median_ms(lambda: fold(game_id, app.recorded_events(game_id)), repeat),
        "cold": cold_ms(database, game_id, None, repeat),
        "cold mid": cold_ms(database, game_id, middle, repeat),
        "cold worst": cold_ms(database, game_id, worst, repeat),
        "warm": median_ms(lambda: app.get_game(game_id), repeat),
        "warm mid": median_ms(lambda: app.get_game(game_id, revision=middle), repeat),
        "warm worst": median_ms(lambda: app.get_game(game_id, revision=worst), repeat),
    }


def median_of(seconds: list[float]) -> float:
    """Returns the median of some times in milliseconds, NaN if there are none."""
    return statistics.median(seconds) * 1000 if seconds else float("nan")


def qwirkle_events(app: GamesApp, seed: int) -> list[RecordedEvent]:
    """Returns the events of a two-seat Qwirkle game played to its end at random."""
    created = ok(
        app.create_game(
            CreateGame("qwirkle", QwirkleConfig(), 2, "Ana", seed=bytes([seed]) * 32)
        )
    )
    game_id = created.record.game_id
    tokens = [created.token, ok(app.join_game(JoinGame(game_id, "Ben"))).token]
    ok(app.start_game(SeatRequest(game_id, Call(tokens[0]))))
    chooser = random.Random(seed)
    record = ok(app.get_game(game_id))
    while record.table.status is not TableStatus.FINISHED:
        (seat,) = record.rules.to_move(record.table.game)
        moves = itertools.islice(record.rules.legal_moves(record.table.game, seat), 12)
        move = SentMove("qwirkle", chooser.choice(list(moves)))
        record = ok(app.submit_move(SubmitMove(game_id, move, Call(tokens[seat]))))
        record = record.record
    events: list[RecordedEvent] = app.recorded_events(game_id)
    return [replace(item, digest="") for item in events]  # folded again per copy


def rss() -> int:
    """Returns the process's resident memory in bytes (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def kept_memory(games: int, memory: int, every: int) -> None:
    """Keeps ``games`` finished Qwirkle games and prints memory per kept game."""
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, allow_client_seed=True)
    played = [qwirkle_events(app, seed) for seed in range(4)]
    del app
    kept = KeptGames(memory=memory)
    print(f"# {games} finished Qwirkle games kept, bound {memory / 2**20:g} MiB")
    print(
        f"# revisions a game: {', '.join(str(len(e)) for e in played)}; "
        "RSS growth and estimate in KiB"
    )
    print(f"{'games':>7}{'kept':>7}{'RSS MiB':>9}{'RSS/game':>10}{'est/kept':>10}")
    base = rss()
    for index in range(1, games + 1):
        events = played[index % len(played)]
        kept.advance(None, uuid.UUID(int=index), events, store=False)
        if index % every == 0 or index == games:
            grown = rss() - base
            print(
                f"{index:>7}{len(kept):>7}{grown / 2**20:>9.1f}"
                f"{grown / min(index, len(kept)) / 1024:>10.1f}"
                f"{kept.bytes / len(kept) / 1024:>10.1f}",
                flush=True,
            )


def main() -> None:
    """Builds one game per length and prints the load times."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", default=None, help="default: a new schema")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--lengths", type=int, nargs="*", default=list(LENGTHS))
    parser.add_argument("--kept", type=int, default=0, help="games to keep instead")
    parser.add_argument("--keep-memory", type=memory_size, default=64 * 2**20)
    parser.add_argument("--every", type=int, default=100, help="games a line")
    args = parser.parse_args()
    if args.kept:
        kept_memory(args.kept, args.keep_memory, args.every)
        return
    database = args.database or default_database()
    app = create_app(Settings(database=database))
    print(f"# game length on {database.split('@')[-1]}; medians of {args.repeat}")
    print("# load times, then commands while growing, in ms")
    columns = (
        "fold",
        "cold",
        "cold mid",
        "cold worst",
        "warm",
        "warm mid",
        "warm worst",
        "move",
        "x100 move",
    )
    print(f"{'events':>8}{'build s':>9}" + "".join(f"{c:>11}" for c in columns))
    for length in args.lengths:
        begin = time.perf_counter()
        game_id, tokens = started_game(app)
        growth = Growth(app, game_id, tokens)
        reached = growth.to(length)
        built = time.perf_counter() - begin
        figures = measure(app, database, game_id, reached, args.repeat)
        figures["move"] = median_of(growth.plain)
        figures["x100 move"] = median_of(growth.crossing)
        cells = "".join(f"{figures[c]:>11.2f}" for c in columns)
        print(f"{reached:>8}{built:>9.1f}{cells}", flush=True)
    app.close()


if __name__ == "__main__":
    main()
