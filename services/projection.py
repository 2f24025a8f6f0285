"""The players' projection: follows the event log into the players' view.

It reads the notification log after the position its view recorded, a page
at a time. For each game the page touched it folds the page's events onto the
game as it stood before them, making the notifications of each event
(``services/notifications.py``), and the game's "my games" rows from where it
ends (``services/my_games.py``); then it stores the rows, the notifications
and the page's last position in one transaction (``services/players_view.py``,
the library's tracking recorders with single-row tracking): each
notification of the log is applied once, across restarts and across server
processes. Two processes may read the same page; the second to store it gets
the library's ``IntegrityError``, rereads the position and goes on from there,
having changed nothing, and since the tracking row is locked until the first
commits, pages are stored in the log's order.

It runs in every server process, woken by this process's appends and by the
live feed (another process's appends on PostgreSQL), and every second anyway.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar
from uuid import UUID

from eventsourcing.persistence import IntegrityError, Notification, Tracking

from domain.players import EVENTS as PLAYER_EVENTS
from domain.players import PlayerDeleted
from services.log_clock import Ticker
from services.my_games import MyGameRow, rows_for
from services.notifications import Notice, event_notices, turn_notices
from services.players_view import PlayersView
from services.records import (
    EVENT_NAMES,
    GameRecord,
    RecordedEvent,
    StoredEvent,
    advance,
    unwrap,
)

if TYPE_CHECKING:
    from services.games import GamesApp

_Owned = TypeVar("_Owned", MyGameRow, Notice)

log = logging.getLogger(__name__)

NAME = "tabletop.players"  # the projection's name in the tracking table
PAGE = 500  # notifications read and applied at a time
KEPT_FOLDS = 1000  # games whose last fold the projection keeps to go on from
KEPT_GUESTS = 100_000  # games known to seat guests only, remembered at most
# Notifications read with nothing to store before the position is stored anyway.
SAVE_EVERY = 5000
_JOINED = "table.PlayerJoined"
_GAME_TOPICS = frozenset(EVENT_NAMES)
_DELETED = next(name for name, cls in PLAYER_EVENTS.items() if cls is PlayerDeleted)
MAX_KEPT_DELETED = 10_000  # deleted accounts the projection remembers


class PlayersProjection(Ticker):
    """Keeps the players' view up to date with the log."""

    NAME = "players' projection"

    def __init__(self, app: GamesApp, view: PlayersView) -> None:
        super().__init__()
        self.app = app
        self.view = view
        self._lock = threading.Lock()
        self._folds: OrderedDict[UUID, GameRecord] = OrderedDict()
        # Games known to seat no signed-in player: skipped unless one sits down.
        self._guests: OrderedDict[UUID, None] = OrderedDict()
        # Accounts known deleted (for good) or not (until a deletion is read).
        self._deleted: set[UUID] = set()
        self._live: set[UUID] = set()
        self._unsaved = 0  # notifications read since the position was stored
        self._read = 0  # the last notification read
        # Called after each page this process stored (StreamNotifications).
        self.stored: list[Callable[[], None]] = []

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
        # Where this projection read to (past the stored position when pages
        # with nothing to store were read); another process ahead of it shows
        # when storing fails, and the stored position is read again then.
        position = self._read or self.position()
        while True:
            page = self.app.recorder.select_notifications(
                start=position, limit=PAGE, inclusive_of_start=False
            )
            if not page:
                return applied
            page, by_game = self._decoded(page)
            erased = [UUID(str(n.originator_id)) for n in page if n.topic == _DELETED]
            self._live.difference_update(erased)
            games, made = self._project(by_game)
            if not (games or made or erased) and self._unsaved < SAVE_EVERY:
                # Nothing to store (guests' games): the position is stored with
                # the next change, or after SAVE_EVERY notifications.
                self._unsaved += len(page)
                position = self._read = page[-1].id
                applied += len(page)
                continue
            tracking = Tracking(NAME, page[-1].id)
            try:
                self.view.apply(games, made, tracking, erased)
            except IntegrityError:  # another process applied it first
                position = self.position()
                continue
            position = self._read = page[-1].id
            applied += len(page)
            self._unsaved = 0
            for hook in self.stored:
                hook()

    def _decoded(
        self, page: Sequence[Notification]
    ) -> tuple[Sequence[Notification], dict[UUID, list[RecordedEvent]]]:
        """Returns the page to apply and the decoded events of each game in it
        that has to be folded.

        A game known to seat no signed-in player is left alone (not even
        decoded) unless the page seats one there: most games are guests'.
        A full page may end inside a decision (its events are stored together,
        one after the other); it is then cut before that decision's first
        event, which the next page starts with.
        """
        by_game: dict[UUID, list[Notification]] = {}
        for notification in page:
            if notification.topic in _GAME_TOPICS:
                game_id = UUID(str(notification.originator_id))
                by_game.setdefault(game_id, []).append(notification)
        if len(page) == PAGE:  # every game decoded, to find the decisions
            pairs = {game: self._pairs(items) for game, items in by_game.items()}
            starts = [n.id for found in pairs.values() for n, r in found if r.command]
            cut = max(starts, default=0)
            if cut > page[0].id:
                page = [n for n in page if n.id < cut]
            return page, {
                game: events
                for game, found in pairs.items()
                if (events := [r for n, r in found if n.id <= page[-1].id])
            }
        return page, {
            game: [r for _, r in self._pairs(items)]
            for game, items in by_game.items()
            if self._involves_accounts(game, items)
        }

    def _involves_accounts(self, game_id: UUID, items: Sequence[Notification]) -> bool:
        """Tells whether a game's new events may concern a signed-in player."""
        if game_id not in self._guests:
            return True
        joins = [n for n in items if n.topic == _JOINED]
        if any(r.event.player_id for _, r in self._pairs(joins)):
            del self._guests[game_id]
            return True
        return False

    def _pairs(
        self, items: Sequence[Notification]
    ) -> list[tuple[Notification, RecordedEvent]]:
        """Returns notifications of game events with their events decoded."""
        pairs = []
        for notification in items:
            stored = self.app.mapper.to_domain_event(notification)
            if isinstance(stored, StoredEvent):
                pairs.append((notification, unwrap(stored)))
        return pairs

    def _project(
        self, by_game: dict[UUID, list[RecordedEvent]]
    ) -> tuple[list[tuple[UUID, list[MyGameRow]]], list[Notice]]:
        """Returns the rows of each game the page touched, and its notifications."""
        games, made = [], []
        for game_id, events in by_game.items():
            record = self._folded(game_id, events[0].revision - 1)
            for decision in _decisions(events):
                before = record
                for recorded in decision:
                    after = advance(record, game_id, recorded)
                    made += event_notices(after, recorded)
                    record = after
                made += turn_notices(before, after, decision[-1])
            self._keep(after)
            if not any(holder.player_id for holder in after.table.seats):
                self._guests[game_id] = None
                while len(self._guests) > KEPT_GUESTS:
                    self._guests.popitem(last=False)
            games.append((game_id, self._of_accounts(rows_for(after))))
        return games, self._of_accounts(made)

    def _of_accounts(self, items: Sequence[_Owned]) -> list[_Owned]:
        """Returns the rows or notices whose players' accounts are not deleted.

        A deleted player's seats stay in the log (resigned), but nothing more
        is made for them: no row to list, no notification to push or stream.
        """
        return [item for item in items if not self._is_deleted(item.player_id)]

    def _is_deleted(self, player: UUID) -> bool:
        """Returns whether the account was deleted (its last event, for good)."""
        if player in self._deleted:
            return True
        if player in self._live:  # until this projection reads its deletion
            return False
        last = self.app.recorder.select_events(player, desc=True, limit=1)
        if not last or last[0].topic != _DELETED:
            if len(self._live) >= MAX_KEPT_DELETED:
                self._live.clear()
            self._live.add(player)
            return False
        if len(self._deleted) >= MAX_KEPT_DELETED:
            self._deleted.clear()
        self._deleted.add(player)
        return True

    def _keep(self, record: GameRecord) -> None:
        """Keeps a game's last fold, for the next page to go on from."""
        self._folds[record.game_id] = record
        self._folds.move_to_end(record.game_id)
        while len(self._folds) > KEPT_FOLDS:
            self._folds.popitem(last=False)

    def _folded(self, game_id: UUID, revision: int) -> GameRecord | None:
        """Returns the game at ``revision`` (None before its first event): the
        fold this projection kept from its last page when it is that one."""
        if revision < 1:
            return None
        kept = self._folds.get(game_id)
        if kept is not None and kept.revision == revision:
            return kept
        return self.app.get_game(game_id, revision)


def _decisions(events: Sequence[RecordedEvent]) -> list[list[RecordedEvent]]:
    """Returns a game's events grouped by decision: each starts with its command."""
    decisions: list[list[RecordedEvent]] = []
    for recorded in events:
        if recorded.command is not None or not decisions:
            decisions.append([recorded])
        else:
            decisions[-1].append(recorded)
    return decisions
