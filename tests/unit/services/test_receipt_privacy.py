"""A receipt must not let a seat confirm a guess about tiles hidden from it.

A real two-seat Qwirkle game is played a few moves; it is still in progress,
so its seed, and the key of its digests, are the server's secret. Seat 1 is
the attacker. It knows every entry of the record except what is hidden from
it, and holds the receipts (the digest of each revision, shown with every
event). It rebuilds the entry that gave seat 0 tiles with each candidate for
those tiles, the true ones among many wrong ones, and computes the digest
every way it could without the seed.

Two entries are attacked:

* ``dealt``: ``TilesDealt``, seat 0's first rack of six. The entry also holds
  the bag, whose order no seat sees; the attacker is given it anyway, so the
  rack is the only thing it lacks (an attacker stronger than any seat);
* ``drawn``: seat 0's ``TilesDrawn`` after its first placement, in which the
  drawn tiles are the only thing seat 1 does not see.

Against the keyed digest no candidate matches, the true one no more than the
wrong ones. The test has teeth: under the real key the true candidate, and
only it, reproduces the receipt (the rebuilt entry is exact); and against a
plain hash chain over the same entries the same search finds the true tiles.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest

from domain.common import table as tables
from domain.common.seats import Seat
from domain.common.table import TableStatus
from domain.games.qwirkle import (
    Color,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    Tile,
    TilesDealt,
    TilesDrawn,
    TilesPlaced,
)
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp, Seated
from services.records import CODEC, RecordedEvent
from tests.playing import sent_move

SEED = hashlib.sha256(b"a seed that only the server holds").digest()
VICTIM, ATTACKER = 0, 1
CANDIDATES = 500

Tiles = tuple[Tile, ...]
# A digest from the previous one and an entry (its canonical JSON).
Hash = Callable[[str, str], str]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Played:
    app: GamesApp
    game_id: UUID
    attacker_token: str
    events: list[RecordedEvent]


def play() -> Played:
    """Plays until seat 0 has placed tiles and drawn new ones; the game goes on."""
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, allow_client_seed=True)
    created = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 2, "Victim", SEED, request_id="c")
    )
    assert isinstance(created, Seated), created
    game_id = created.record.game_id
    joined = app.join_game(JoinGame(game_id, "Attacker", request_id="j"))
    assert isinstance(joined, Seated), joined
    tokens = [created.token, joined.token]
    assert isinstance(app.start_game(SeatRequest(game_id, Call(tokens[0]))), Applied)
    chooser = random.Random(3)
    while not any(
        isinstance(e.event, TilesDrawn) and e.event.seat == VICTIM and e.event.count
        for e in app.recorded_events(game_id)
    ):
        record = app.get_game(game_id)
        assert record is not None
        (seat,) = record.rules.to_move(record.table.game)
        legal = record.rules.legal_moves(record.table.game, seat)
        move = chooser.choice([m for m in legal if isinstance(m, PlaceTiles)])
        assert isinstance(
            app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat]))),
            Applied,
        )
    record = app.get_game(game_id)
    assert record is not None
    assert record.table.status is TableStatus.IN_PROGRESS  # the seed is secret
    return Played(app, game_id, tokens[ATTACKER], app.recorded_events(game_id))


@pytest.fixture(scope="module")
def played() -> Played:
    return play()


# --- What the attacker knows ---


def all_tiles() -> Counter[Tile]:
    return Counter({Tile(color, shape): 3 for color in Color for shape in Shape})


def seen_as_attacker(played: Played, item: RecordedEvent) -> dict[str, Any]:
    """Returns the event as the API shows it to the attacker's seat, encoded."""
    record = played.app.get_game(played.game_id)
    assert record is not None
    event = tables.visible(item.event, Seat(ATTACKER), record.rules)
    encoded: dict[str, Any] = CODEC.encode(event)
    return encoded


def unseen(played: Played, before: int) -> list[Tile]:
    """Returns the tiles the attacker has not seen up to revision ``before``.

    The whole set less its own rack and the tiles on the board.
    """
    left = all_tiles()
    for item in played.events[: before - 1]:
        event = item.event
        if isinstance(event, TilesDealt):
            left -= Counter(event.racks[ATTACKER])
        elif isinstance(event, TilesDrawn) and event.seat == ATTACKER:
            left -= Counter(event.tiles)
        elif isinstance(event, TilesPlaced) and event.seat == VICTIM:
            left -= Counter(p.tile for p in event.placements)
    return sorted(left.elements(), key=str)


@dataclass(frozen=True)
class Target:
    """An entry that gave seat 0 tiles, and how the attacker rebuilds it."""

    revision: int
    truth: Tiles
    # The entry with the given tiles in place of seat 0's.
    rebuild: Callable[[Tiles], dict[str, Any]]


def target(played: Played, kind: str) -> Target:
    """Returns the dealt or drawn entry, rebuilt only from what the attacker knows."""
    wanted = TilesDealt if kind == "dealt" else TilesDrawn
    item = next(
        e
        for e in played.events
        if isinstance(e.event, wanted)
        and (isinstance(e.event, TilesDealt) or e.event.seat == VICTIM)
    )
    event = item.event
    seen = seen_as_attacker(played, item)
    stored = item.entry()
    if isinstance(event, TilesDealt):
        truth: Tiles = event.racks[VICTIM]
        # The redacted event is the stored one less seat 0's rack and the bag.
        assert seen["racks"][VICTIM] == []
        assert seen["bag"] == []
        assert seen["racks"][ATTACKER] == stored["event"]["racks"][ATTACKER]
        given_bag = stored["event"]["bag"]  # seen by no seat: a gift

        def fill(event: dict[str, Any], tiles: Tiles) -> None:
            event["racks"][VICTIM] = [CODEC.encode(t) for t in tiles]
            event["bag"] = given_bag

    else:
        assert isinstance(event, TilesDrawn)
        truth = event.tiles
        assert seen["tiles"] == []
        assert seen["count"] == len(truth) > 0

        def fill(event: dict[str, Any], tiles: Tiles) -> None:
            event["tiles"] = [CODEC.encode(t) for t in tiles]

    assert stored["command"] is None  # the command is on the request's first event

    def rebuild(tiles: Tiles) -> dict[str, Any]:
        event = json.loads(json.dumps(seen))
        fill(event, tiles)
        # revision, time, actor, move number: shown with every event.
        return {**stored, "event": event}

    assert rebuild(truth) == stored
    return Target(item.revision, truth, rebuild)


def candidates(played: Played, goal: Target) -> list[tuple[Tiles, str]]:
    """Returns the true tiles and many wrong ones the attacker cannot rule out.

    Each with the entry rebuilt with them (its canonical JSON).
    """
    pool = unseen(played, goal.revision)
    assert not Counter(goal.truth) - Counter(pool)  # the truth is among them
    chooser = random.Random(goal.revision)
    wrong: set[Tiles] = set()
    while len(wrong) < CANDIDATES:
        guess = tuple(chooser.sample(pool, len(goal.truth)))
        if guess != goal.truth:
            wrong.add(guess)
    every = [goal.truth, *sorted(wrong, key=str)]
    chooser.shuffle(every)
    return [(tiles, _canonical(goal.rebuild(tiles))) for tiles in every]


def attacker_hashes(played: Played, previous: str) -> Iterator[tuple[str, Hash]]:
    """Every way to compute a digest from public values, without the seed."""
    record = played.app.get_game(played.game_id)
    assert record is not None
    game_id = played.game_id
    commitment = record.table.commitment
    keys = {
        "empty": b"",
        "game id": str(game_id).encode(),
        "game name": f"games/{game_id}".encode(),
        "game id bytes": game_id.bytes,
        "commitment": commitment.encode(),
        "commitment bytes": bytes.fromhex(commitment),
        "previous digest": previous.encode(),
        "previous digest bytes": bytes.fromhex(previous),
        "own token": played.attacker_token.encode(),
        "record key of no seed": _record_key(""),
        "record key of the commitment": _record_key(commitment),
    }
    for name, key in keys.items():
        yield f"HMAC keyed by {name}", _keyed(key)
    yield "SHA-256 chain", _plain
    yield "SHA-256 of prev + entry", lambda prev, entry: _sha(prev + entry)
    yield "SHA-256 of the entry", lambda _, entry: _sha(entry)


def _record_key(seed_hex: str) -> bytes:
    return hmac.digest(
        bytes.fromhex(seed_hex), b"tabletop/record-digest/v1", hashlib.sha256
    )


def _keyed(key: bytes) -> Hash:
    return lambda prev, entry: _mac(key, f"{prev}\n{entry}")


def _plain(prev: str, entry: str) -> str:
    return _sha(f"{prev}\n{entry}")


def matches(
    guesses: list[tuple[Tiles, str]], how: Hash, prev: str, receipt: str
) -> list[Tiles]:
    """Returns the guesses whose rebuilt entry gives ``receipt`` after ``prev``."""
    return [tiles for tiles, entry in guesses if how(prev, entry) == receipt]


def receipts(played: Played, revision: int) -> tuple[str, str]:
    """Returns the digests shown at ``revision - 1`` and at ``revision``."""
    shown = {item.revision: item.digest for item in played.events}
    return shown[revision - 1], shown[revision]


def unkeyed_chain(played: Played) -> dict[int, str]:
    """Returns what the digests would be as a plain SHA-256 chain."""
    previous = _sha(f"tabletop-record/v1\ngames/{played.game_id}")
    chain = {0: previous}
    for item in played.events:
        previous = _sha(f"{previous}\n{_canonical(item.entry())}")
        chain[item.revision] = previous
    return chain


# --- The brute force ---


@pytest.mark.parametrize("kind", ["dealt", "drawn"])
def test_no_guess_of_hidden_tiles_matches_the_receipt(
    played: Played, kind: str
) -> None:
    goal = target(played, kind)
    guesses = candidates(played, goal)
    previous, receipt = receipts(played, goal.revision)
    for name, how in attacker_hashes(played, previous):
        found = matches(guesses, how, previous, receipt)
        # The true tiles match exactly as often as the wrong ones: never.
        assert found == [], name


@pytest.mark.parametrize("kind", ["dealt", "drawn"])
def test_under_the_real_key_only_the_true_tiles_match(
    played: Played, kind: str
) -> None:
    """The rebuilt entries are exact: with the seed's key the truth is found."""
    goal = target(played, kind)
    guesses = candidates(played, goal)
    previous, receipt = receipts(played, goal.revision)
    real = _keyed(_record_key(SEED.hex()))
    assert matches(guesses, real, previous, receipt) == [goal.truth]


@pytest.mark.parametrize("kind", ["dealt", "drawn"])
def test_against_a_plain_hash_the_same_search_finds_the_tiles(
    played: Played, kind: str
) -> None:
    """The attack works against an unkeyed chain over the same entries."""
    goal = target(played, kind)
    guesses = candidates(played, goal)
    chain = unkeyed_chain(played)
    previous, receipt = chain[goal.revision - 1], chain[goal.revision]
    assert matches(guesses, _plain, previous, receipt) == [goal.truth]
