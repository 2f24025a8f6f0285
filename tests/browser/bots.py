"""Games played by the server's bots for a page to watch, paused at will.

Each game type is opened by "Bot 0" with a fixed seed (the server runs in
development mode), the game's fewest seats are filled with bots, and
``infra.bot_client.play_bots`` plays it. The seeds give short games, so
that the suite stays quick; any other seed would do as well.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from tabletop.v1 import (
    fool_pb2,
    game_pb2,
    gnoming_a_round_pb2,
    hues_and_cues_pb2,
    qwirkle_pb2,
    split_pb2,
)
from tabletop.v1 import game_service_pb2 as api

from infra.bot_client import BotSeat, play_bots, seat_bots
from tests.e2e.conftest import Server

CALL_SECONDS = 10
FINISH_SECONDS = 120  # the longest a bots game may take to its end here
SETTLE_SECONDS = 1.0  # a revision unchanged this long after the bots stop is final


def _guessing(game: game_pb2.Game) -> bool:
    """Whether a Hues and Cues round's target is chosen and still secret."""
    return game.hues_and_cues_view.phase in (
        hues_and_cues_pb2.HUES_AND_CUES_PHASE_FIRST_GUESSES,
        hues_and_cues_pb2.HUES_AND_CUES_PHASE_SECOND_CUE,
        hues_and_cues_pb2.HUES_AND_CUES_PHASE_SECOND_GUESSES,
    )


def _anything(game: game_pb2.Game) -> bool:
    return True


@dataclass(frozen=True)
class GameSpec:
    """How the tests open and play one game type."""

    slug: str  # the game's name in file names: build/screenshots/<slug>-desktop.png
    game: game_pb2.Game  # CreateGame's game: its type and config
    seed: int  # the 32-byte seed is this byte 32 times
    delay: float  # seconds each bot waits before a move
    pause_after: int  # moves played before the page is checked mid-game
    # What must hold of the spectator's game where it is checked mid-game.
    pausable: Callable[[game_pb2.Game], bool] = _anything


SPECS = (
    GameSpec(
        "qwirkle",
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_QWIRKLE,
            qwirkle_config=qwirkle_pb2.QwirkleConfig(),
        ),
        seed=1,
        delay=0.05,
        pause_after=14,
    ),
    GameSpec(
        "hues_and_cues",
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues_and_cues_pb2.HuesAndCuesConfig(),
        ),
        seed=0,
        delay=0.08,
        pause_after=9,
        pausable=_guessing,
    ),
    GameSpec(
        "split",
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_SPLIT,
            split_config=split_pb2.SplitConfig(),
        ),
        seed=7,
        delay=0.03,
        pause_after=30,
    ),
    GameSpec(
        "gnoming_a_round",
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_GNOMING_A_ROUND,
            gnoming_a_round_config=gnoming_a_round_pb2.GnomingARoundConfig(),
        ),
        seed=1,
        delay=0.02,
        pause_after=60,
    ),
    GameSpec(
        "fool",
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_FOOL,
            fool_config=fool_pb2.FoolConfig(),
        ),
        seed=11,
        delay=0.01,
        pause_after=70,
    ),
)


@dataclass
class BotsGame:
    """A started game whose seats are all bots, which play it when told to."""

    server: Server
    spec: GameSpec
    name: str
    seats: list[BotSeat]
    stops: list[threading.Event] = field(default_factory=list)

    @classmethod
    def open(cls, server: Server, spec: GameSpec) -> BotsGame:
        """Opens the table, seats the game's fewest players and starts it."""
        types = server.stub.ListGameTypes(
            api.ListGameTypesRequest(), timeout=CALL_SECONDS
        )
        info = next(t for t in types.game_types if t.game_type == spec.game.game_type)
        created = server.stub.CreateGame(
            api.CreateGameRequest(
                game=spec.game,
                display_name="Bot 0",
                seed=bytes([spec.seed]) * 32,
                request_id=str(uuid.uuid4()),
            ),
            timeout=CALL_SECONDS,
        )
        name = created.game.name
        host = BotSeat(server.stub, name, created.seat_token)
        seats = [host, *seat_bots(server.stub, name, info.min_players - 1)]
        server.stub.StartGame(
            api.StartGameRequest(name=name, request_id=str(uuid.uuid4())),
            metadata=host.metadata,
            timeout=CALL_SECONDS,
        )
        return cls(server, spec, name, seats)

    def get(self, token: str = "") -> game_pb2.Game:
        """Returns the game as a spectator (or the seat of ``token``) sees it."""
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        return self.server.stub.GetGame(
            api.GetGameRequest(name=self.name), metadata=metadata, timeout=CALL_SECONDS
        ).game

    def revision(self, revision: int) -> game_pb2.Game:
        """Returns the game at ``revision`` as a spectator sees it (GetGameRevision)."""
        return self.revision_response(revision).snapshot

    def revision_response(self, revision: int) -> api.GetGameRevisionResponse:
        return self.server.stub.GetGameRevision(
            api.GetGameRevisionRequest(name=f"{self.name}/revisions/{revision}"),
            timeout=CALL_SECONDS,
        )

    def play(self) -> None:
        """Lets the bots play (again)."""
        self.stops.append(play_bots(self.seats, self.spec.delay))

    def pause(self) -> game_pb2.Game:
        """Stops the bots; returns the game once its revision stays put.

        A bot told to stop may still make the move it was thinking about.
        """
        self.stop()
        game = self.get()
        still_since = time.monotonic()
        while time.monotonic() - still_since < SETTLE_SECONDS + self.spec.delay:
            time.sleep(0.1)
            now = self.get()
            if now.revision != game.revision:
                game, still_since = now, time.monotonic()
        return game

    def stop(self) -> None:
        for stop in self.stops:
            stop.set()

    def wait_until(
        self,
        done: Callable[[game_pb2.Game], bool],
        tick: Callable[[], None] = lambda: None,
        seconds: float = FINISH_SECONDS,
    ) -> game_pb2.Game:
        """Calls ``tick`` until the spectator's game is ``done``; returns that game."""
        deadline = time.monotonic() + seconds
        while True:
            game = self.get()
            if done(game):
                return game
            assert game.state != game_pb2.GAME_STATE_FINISHED, (
                f"{self.spec.slug}: the game finished before it could be checked"
            )
            assert time.monotonic() < deadline, (
                f"{self.spec.slug}: not done in {seconds} s (revision {game.revision})"
            )
            tick()
            time.sleep(0.15)

    def finished(self, tick: Callable[[], None] = lambda: None) -> game_pb2.Game:
        """Waits until the game is over; returns it as a spectator sees it."""
        deadline = time.monotonic() + FINISH_SECONDS
        while True:
            game = self.get()
            if game.state == game_pb2.GAME_STATE_FINISHED:
                return game
            assert time.monotonic() < deadline, (
                f"{self.spec.slug}: the bots did not finish in {FINISH_SECONDS} s "
                f"(revision {game.revision})"
            )
            tick()
            time.sleep(0.15)
