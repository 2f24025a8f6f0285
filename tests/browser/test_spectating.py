"""A spectator's page in Chromium follows a bots game of each game to its end.

For each of the five games the server's bots play a whole game while the
page watches it live, from a link in the lobby. Part way the bots are stopped
and the page is checked against what the server says: its board shows the
pieces of that revision and the scores, and neither its DOM nor any message it
received holds a hidden tile or card (the racks, hands, face-down cards, draw
piles, Hues and Cues' card and target), as the seats' own views and, once the
game is over, the revision's revealed state tell them. A 360 px wide phone's
page does not scroll sideways. At the end the board and scores are the final
ones, and moving the replay slider draws each revision as GetGameRevision
returns it.

Screenshots of each board, on a desktop and on a phone, mid-game and
finished, are written to build/screenshots/; with
TABLETOP_UPDATE_DOCS_SCREENSHOTS=1 the mid-game desktop one is copied to
docs/web/<game>.png as well.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from google.protobuf import json_format
from playwright.sync_api import Browser, ViewportSize, expect
from tabletop.v1 import game_pb2

from tests.browser.bots import SPECS, BotsGame, GameSpec
from tests.browser.pages import DESKTOP, PHONE, WAIT_MS, Node, Tab, open_tab
from tests.browser.views import (
    backs_with_identity,
    expected_pieces,
    hidden_pieces,
    leaks,
    sent_in_progress,
    shown_pieces,
)
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

RECEIVED_LIMIT = 2000  # window.tabletop.received keeps this many (api.ts)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.slug for spec in SPECS])
def test_a_spectator_watches_a_bots_game_to_its_end(
    spec: GameSpec, browser: Browser, web_server: Server
) -> None:
    watch = Watch(BotsGame.open(web_server, spec), browser)
    try:
        watch.open_from_the_lobby()
        middle = watch.pause_mid_game()
        watch.check_mid_game(middle)
        final = watch.follow_to_the_end(middle)
        watch.check_hidden_once_revealed(middle)
        watch.check_finished_on_a_phone(final)
        watch.replay(middle.game.revision, final.revision)
        for tab in watch.tabs:
            assert not tab.errors, f"the page raised: {tab.errors}"
    finally:
        watch.game.stop()
        for tab in watch.tabs:
            tab.close()


@dataclass
class Middle:
    """What the spectator's page held where the game was paused."""

    game: game_pb2.Game  # as a spectator saw it there
    seats: list[game_pb2.Game]  # as each seat saw it there
    board: Node
    scores: dict[str, int]
    log: Node
    received: list[dict[str, Any]]


@dataclass
class Watch:
    """A bots game and the pages watching it."""

    game: BotsGame
    browser: Browser
    tabs: list[Tab] = field(default_factory=list)
    revisions: set[int | None] = field(default_factory=set)  # drawn by the page
    scores: list[dict[str, int]] = field(default_factory=list)  # shown by the page
    first_board: Node = field(default_factory=lambda: Node("#root", {}))
    first_scores: dict[str, int] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.game.spec.slug

    @property
    def desktop(self) -> Tab:
        return self.tabs[0]

    def open(self, path: str, viewport: ViewportSize) -> Tab:
        url = self.game.server.http_url
        assert url is not None
        tab = open_tab(self.browser, f"{url}/{path}", viewport)
        self.tabs.append(tab)
        return tab

    def close(self, tab: Tab) -> None:
        tab.close()
        self.tabs.remove(tab)

    def look(self) -> None:
        """Notes the revision and the scores the desktop page shows now."""
        self.revisions.add(self.desktop.board_revision())
        self.scores.append(self.desktop.scores())

    def open_from_the_lobby(self) -> None:
        """The lobby lists the game in progress; its link opens the game's page."""
        desktop = self.open("", DESKTOP)
        started = self.game.get()
        link = desktop.page.locator(f'#lobby a[data-game="{self.game.name}"]')
        expect(link).to_have_attribute("data-state", "in-progress", timeout=WAIT_MS)
        link.click()
        desktop.page.wait_for_url(re.compile(f"/{self.game.name}$"))
        desktop.wait_for_revision(started.revision, "live")
        self.first_board = desktop.board()
        self.first_scores = desktop.scores()
        assert self.first_scores == _scores(started)
        assert set(self.first_scores.values()) == {0}
        assert shown_pieces(self.slug, self.first_board) == expected_pieces(
            self.slug, started
        )

    def pause_mid_game(self) -> Middle:
        """Lets the bots play, stops them where the spec wants, and returns what
        the page held there."""
        game, spec = self.game, self.game.spec
        least = spec.pause_after

        def there(now: game_pb2.Game) -> bool:
            return now.move_count >= least and spec.pausable(now)

        game.play()
        for _ in range(10):
            game.wait_until(there, self.look)
            paused = game.pause()
            if paused.state == game_pb2.GAME_STATE_IN_PROGRESS and there(paused):
                middle = self.capture(paused)
                if middle is not None:
                    return middle
            least = paused.move_count + 1
            game.play()
        msg = f"{spec.slug}: the bots never stopped where the game could be checked"
        raise AssertionError(msg)

    def capture(self, paused: game_pb2.Game) -> Middle | None:
        """What the page holds at the paused revision; None if a bot moved after
        all (one thinking when told to stop may take longer than expected)."""
        desktop = self.desktop
        if self.game.get().revision != paused.revision:
            return None
        desktop.wait_for_revision(paused.revision, "live")
        middle = Middle(
            paused,
            [self.game.get(seat.token) for seat in self.game.seats],
            desktop.board(),
            desktop.scores(),
            desktop.log(),
            desktop.received(),
        )
        revisions = {seat.revision for seat in middle.seats}
        if revisions | {self.game.get().revision} != {paused.revision}:
            return None
        return middle

    def check_mid_game(self, middle: Middle) -> None:
        """The page shows the paused revision, and nothing hidden."""
        desktop = self.desktop
        assert middle.scores == _scores(middle.game)
        # Whose turn: every player the game waits for (Game.players_to_act).
        names = {player.name: player.display_name for player in middle.game.players}
        acting = ", ".join(names[name] for name in middle.game.players_to_act)
        summary = desktop.page.locator("#game-summary").inner_text()
        assert not acting or f"{acting} to play" in summary, summary
        shown = shown_pieces(self.slug, middle.board)
        assert shown == expected_pieces(self.slug, middle.game)

        # Nothing hidden in what the spectator's page received or shows.
        _assert_no_leaks(middle.received)
        assert not backs_with_identity(middle.board)
        hidden = hidden_pieces(self.slug, middle.game, middle.seats)
        assert not hidden & set(shown), f"hidden faces drawn: {hidden & set(shown)}"
        _check_hidden_text(self.slug, middle.board, middle.log, middle.seats)

        phone = self.open(self.game.name, PHONE)
        phone.wait_for_revision(middle.game.revision, "live")
        assert shown_pieces(self.slug, phone.board()) == shown
        phone.assert_no_horizontal_scrolling()
        desktop.screenshot(f"{self.slug}-desktop", docs=True)
        phone.screenshot(f"{self.slug}-phone")
        self.close(phone)  # one page following the game is enough

    def follow_to_the_end(self, middle: Middle) -> game_pb2.Game:
        """The bots play on; the page ends on the final board and scores."""
        desktop = self.desktop
        self.game.play()
        final = self.game.finished(self.look)
        desktop.wait_for_revision(final.revision, "live")
        _wait_for_scores(desktop, final)
        assert desktop.winners() == set(final.winners)
        last_board = desktop.board()
        assert shown_pieces(self.slug, last_board) == expected_pieces(self.slug, final)
        # Nor did it receive anything hidden in the second half of the game.
        _assert_no_leaks([m for m in desktop.received() if sent_in_progress(m)])
        drawn = self.revisions - {None}
        assert len(drawn) >= 3, f"the page drew only revisions {drawn}"
        assert self.first_board != middle.board != last_board
        assert desktop.scores() != self.first_scores, "the scores never changed"
        assert len({tuple(sorted(seen.items())) for seen in self.scores}) > 1
        desktop.screenshot(f"{self.slug}-desktop-finished")
        return final

    def check_hidden_once_revealed(self, middle: Middle) -> None:
        """Once the game is over everything is public: the revision checked in
        the middle, its hidden tiles and cards revealed, tells what was hidden."""
        revealed = self.game.revision(middle.game.revision)
        hidden = hidden_pieces(self.slug, revealed, middle.seats)
        if self.slug != "qwirkle":  # whose tiles are checked otherwise
            assert hidden, "nothing was hidden mid-game: the check checked nothing"
        shown = set(shown_pieces(self.slug, middle.board))
        assert not hidden & shown, f"hidden faces were drawn: {hidden & shown}"

    def check_finished_on_a_phone(self, final: game_pb2.Game) -> None:
        phone = self.open(self.game.name, PHONE)
        phone.wait_for_revision(final.revision, "live")
        assert shown_pieces(self.slug, phone.board()) == expected_pieces(
            self.slug, final
        )
        phone.assert_no_horizontal_scrolling()
        phone.screenshot(f"{self.slug}-phone-finished")

    def replay(self, middle: int, last: int) -> None:
        """Moves the replay slider, steps back, then goes live again."""
        tab = self.desktop
        for revision in sorted({middle, max(2, last // 4), last - 2}):
            tab.page.locator("#revision-slider").fill(str(revision))
            tab.wait_for_revision(revision, "replay")
            _check_revision(self.game, tab, revision)
        tab.page.locator("#step-back").click()
        tab.wait_for_revision(last - 3, "replay")
        _check_revision(self.game, tab, last - 3)
        tab.page.locator("#live").click()
        tab.wait_for_revision(last, "live")


def _assert_no_leaks(received: list[dict[str, Any]]) -> None:
    assert len(received) < RECEIVED_LIMIT, "the page dropped responses"
    found = [f"#{i}: {leak}" for i, m in enumerate(received) for leak in leaks(m)]
    assert not found, "a spectator received hidden information:\n" + "\n".join(found)


def _scores(game: game_pb2.Game) -> dict[str, int]:
    return {player.name: player.score for player in game.players}


def _wait_for_scores(tab: Tab, game: game_pb2.Game) -> None:
    deadline = time.monotonic() + WAIT_MS / 1000
    while tab.scores() != _scores(game):
        assert time.monotonic() < deadline, (
            f"the page shows scores {tab.scores()}, the server {_scores(game)}"
        )
        time.sleep(0.1)


def _check_hidden_text(
    slug: str, board: Node, log: Node, seats: list[game_pb2.Game]
) -> None:
    """The words of the board and the log name no hidden tile, card or target."""
    if slug == "qwirkle":
        tiles = [n for n in board.walk() if "tile" in n.get("class").split()]
        assert all("data-cell" in n.attrs and "data-piece" in n.attrs for n in tiles)
        assert not board.find_all(attribute="data-rack-tile")
        assert not board.find_all(attribute="data-revealed-piece")
        assert not board.find_all(attribute="data-staged-piece")
        assert any(seat.qwirkle_view.private_state.rack for seat in seats)
        assert "you hold" not in log.text()
    if slug == "hues_and_cues":
        secrets = {
            square.id
            for seat in seats
            for square in seat.hues_and_cues_view.card.squares
        } | {
            seat.hues_and_cues_view.target.id
            for seat in seats
            if seat.hues_and_cues_view.HasField("target")
        }
        assert secrets, "the cue giver's card and target were not secret"
        for item in log.find_all("li"):
            kind = item.get("data-kind")
            if kind in ("huesAndCues.cardDrawn", "huesAndCues.targetChosen"):
                words = set(re.findall(r"[A-P]\d+", item.text()))
                assert not words & secrets, f"the log tells {item.text()!r}"


def _check_revision(game: BotsGame, tab: Tab, revision: int) -> None:
    """The board and scores replayed are those of GetGameRevision."""
    response = game.revision_response(revision)
    snapshot = response.snapshot
    assert tab.scores() == _scores(snapshot)
    shown = shown_pieces(game.spec.slug, tab.board())
    assert shown == expected_pieces(game.spec.slug, snapshot), f"revision {revision}"
    # And the page received exactly that snapshot.
    answers = tab.received_snapshots(revision)
    assert answers, f"the page received no GetGameRevision of {revision}"
    assert answers[-1] == json_format.MessageToDict(response)
