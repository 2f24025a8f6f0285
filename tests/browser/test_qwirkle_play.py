"""A person plays Qwirkle in Chromium by clicking, on a desktop and on a phone.

The player opens their seat with its seat token, clicks a tile of their rack,
then one of the cells the page offers it, then Play; the server's bot answers.
The rack shown is the seat's own (GetGame with its token), the list of legal
moves narrows to those placing the tile there, and the move the server
records is the one clicked. The second move is made on a 360 px wide page,
which does not scroll sideways.
"""

from __future__ import annotations

import time
import uuid

import pytest
from google.protobuf import json_format
from playwright.sync_api import Browser, expect
from tabletop.v1 import game_pb2, move_pb2, qwirkle_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.bot_client import join_as_bot, play_bots
from tests.browser.pages import DESKTOP, PHONE, WAIT_MS, Tab, open_tab
from tests.browser.views import tile_name
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

SEED = bytes([3]) * 32
CALL_SECONDS = 10


def test_a_player_places_qwirkle_tiles_by_clicking(
    browser: Browser, web_server: Server
) -> None:
    stub = web_server.stub
    created = stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_QWIRKLE,
                qwirkle_config=qwirkle_pb2.QwirkleConfig(),
            ),
            display_name="Web player",
            seed=SEED,
            request_id=str(uuid.uuid4()),
        ),
        timeout=CALL_SECONDS,
    )
    name, token = created.game.name, created.seat_token
    bot, _ = join_as_bot(stub, name, "Bot 1")
    stub.StartGame(
        api.StartGameRequest(name=name, request_id=str(uuid.uuid4())),
        metadata=_auth(token),
        timeout=CALL_SECONDS,
    )
    url = web_server.http_url
    assert url is not None
    stop = play_bots([bot], 0.05)
    try:
        for viewport, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
            tab = open_tab(browser, f"{url}/{name}", viewport)
            try:
                _play_a_move(web_server, tab, name, token)
                # The bot answers; the page offers the next move.
                tab.wait_for_revision(_my_turn(web_server, name, token).revision)
                expect(tab.page.locator("#play-tiles")).to_be_attached()
                if label == "phone":
                    tab.assert_no_horizontal_scrolling()
                tab.screenshot(f"qwirkle-play-{label}")
                assert not tab.errors, f"the page raised: {tab.errors}"
            finally:
                tab.close()
    finally:
        stop.set()


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _game(server: Server, name: str, token: str) -> game_pb2.Game:
    return server.stub.GetGame(
        api.GetGameRequest(name=name), metadata=_auth(token), timeout=CALL_SECONDS
    ).game


def _my_turn(server: Server, name: str, token: str) -> game_pb2.Game:
    """Waits until it is the seat's turn (the bot moves in between)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        game = _game(server, name, token)
        assert game.state == game_pb2.GAME_STATE_IN_PROGRESS
        if game.current_player == game.caller:
            return game
        assert time.monotonic() < deadline, "the bot never let the player move"
        time.sleep(0.1)


def _placements(data_move: str) -> set[tuple[str, str]]:
    """The (cell, tile) pairs a legal move's button places (its data-move JSON)."""
    move = json_format.Parse(data_move, move_pb2.Move())
    return {
        (f"{p.at.x},{p.at.y}", tile_name(p.tile))
        for p in move.qwirkle.place_tiles.placements
    }


def _play_a_move(server: Server, tab: Tab, name: str, token: str) -> None:
    page = tab.page
    page.locator("#seat-token").fill(token)
    page.locator("#open-seat").click()
    expect(page.locator("#seat-open")).to_be_visible()
    before = _my_turn(server, name, token)
    tab.wait_for_revision(before.revision, "live")
    expect(page.locator("#play-tiles")).to_be_attached()
    me = before.caller

    # The rack drawn is the seat's, in its order.
    rack = [tile_name(tile) for tile in before.qwirkle_view.private_state.rack]
    tiles = page.locator("[data-rack-tile]")
    assert [
        tiles.nth(i).get_attribute("data-rack-tile") for i in range(tiles.count())
    ] == rack

    # A tile that fits, then a cell offered for it, as often as Play needs
    # (the game's first move places all the tiles its rule asks), then Play.
    staged: set[tuple[str, str]] = set()
    play = page.locator("#play-tiles")
    while not play.is_enabled():
        assert len(staged) < len(rack), "the tiles staged never made a move"
        tile = page.locator("[data-rack-tile][data-fits]:not([data-staged])").first
        chosen = tile.get_attribute("data-rack-tile")
        assert chosen
        tile.click()
        cell = page.locator("#board [data-cell][data-candidate]").first
        key = cell.get_attribute("data-cell")
        assert key
        cell.click()
        expect(
            page.locator(f'[data-cell="{key}"][data-staged-piece="{chosen}"]')
        ).to_be_attached()
        staged.add((key, chosen))
        buttons = page.locator("#legal-moves button[data-move]")
        expect(buttons.first).to_be_attached()
        offered = [
            _placements(buttons.nth(i).get_attribute("data-move") or "")
            for i in range(buttons.count())
        ]
        assert all(staged <= move for move in offered), (
            "the legal moves listed do not all place the tiles where they were put"
        )
    assert any(staged == move for move in offered)
    play.click()

    # The server recorded that placement, by this seat, and the page shows it.
    for key, chosen in staged:
        page.wait_for_selector(
            f'#board [data-cell="{key}"][data-piece="{chosen}"]', state="attached"
        )
    after = _game(server, name, token)
    board = {
        (f"{p.at.x},{p.at.y}", tile_name(p.tile))
        for p in after.qwirkle_view.public_state.board
    }
    assert staged <= board
    assert after.move_count > before.move_count
    score = {p.name: p.score for p in after.players}[me]
    assert score > {p.name: p.score for p in before.players}[me]
    placed = page.locator('#log li[data-kind="qwirkle.tilesPlaced"]')
    for key, chosen in staged:
        placed = placed.filter(has_text=f"{chosen} at {key}")
    expect(placed.filter(has_text="Web player (you) placed")).to_have_count(1)
    expect(page.locator('#status[data-kind="error"]')).to_have_count(0)
