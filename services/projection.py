"""The players' projection: follows the event log into the ListMyGames view.

It reads the notification log after the position its view recorded, a page
at a time, folds each game the page touched, and replaces that game's rows
together with the page's last position in one transaction (the library's
tracking recorders, single-row tracking): each notification is applied once,
across restarts and across server processes. Two processes may read the same
page; the second to record it gets the library's ``IntegrityError``, rereads
the position and goes on from there, having changed nothing.

It runs in every server process, woken by this process's appends and by the
live feed (another process's appends on PostgreSQL), and every second anyway.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING
from uuid import UUID

from eventsourcing.persistence import IntegrityError, Tracking

from services.log_clock import Ticker
from services.my_games import MyGamesView, rows_for
from services.records import EVENT_NAMES

if TYPE_CHECKING:
    from services.games import GamesApp

log = logging.getLogger(__name__)

NAME = "tabletop.players"  # the projection's name in the tracking table
PAGE = 500  # notifications read and applied at a time
_GAME_TOPICS = frozenset(EVENT_NAMES)


class PlayersProjection(Ticker):
    """Keeps the players' view up to date with the log."""

    NAME = "players' projection"

    def __init__(self, app: GamesApp, view: MyGamesView) -> None:
        super().__init__()
        self.app = app
        self.view = view
        self._lock = threading.Lock()

    def tick(self) -> int:
        """Applies everything stored since the view's position; returns how
        many notifications this call applied."""
        with self._lock:
            return self._catch_up()

    def position(self) -> int:
        """Returns the last notification the view has applied."""
        return self.view.tracking.max_tracking_id(NAME) or 0

    def _catch_up(self) -> int:
        applied = 0
        position = self.position()
        while True:
            page = self.app.recorder.select_notifications(
                start=position, limit=PAGE, inclusive_of_start=False
            )
            if not page:
                return applied
            games = dict.fromkeys(
                UUID(str(n.originator_id)) for n in page if n.topic in _GAME_TOPICS
            )
            replaced = []
            for game_id in games:
                record = self.app.get_game(game_id)
                if record is not None:
                    replaced.append((game_id, rows_for(record)))
            try:
                self.view.replace(replaced, Tracking(NAME, page[-1].id))
            except IntegrityError:  # another process applied it first
                position = self.position()
                continue
            position = page[-1].id
            applied += len(page)
