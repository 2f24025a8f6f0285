"""Personal data sealed under per-player keys, on the in-memory store."""

from __future__ import annotations

import base64
import logging
import threading
import uuid
from uuid import UUID

import pytest

from services.personal import (
    KEY_BYTES,
    NONCE_BYTES,
    PREFIX,
    MemoryKeys,
    NoPersonalKeyError,
    PersonalKeys,
    Sealer,
    _KeyCache,
    keys_for,
)
from services.store import GameStore

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
ANA, BEN = uuid.UUID(int=1), uuid.UUID(int=2)


def sealer_with_keys(*players: UUID) -> tuple[PersonalKeys, Sealer]:
    keys = keys_for(GameStore(POPO))
    for player in players:
        keys.create(player)
    return keys, Sealer(keys)


def raw_of(sealed: str) -> bytes:
    body = sealed.removeprefix(PREFIX)
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def text_of(raw: bytes) -> str:
    return PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


class SharedTable(PersonalKeys):
    """Keys in one dict shared by several instances: processes on one database."""

    def __init__(self, table: dict[UUID, bytes]) -> None:
        super().__init__()
        self.table = table
        self.reads = 0

    def create_table(self) -> None:
        pass

    def _insert_or_select(self, player_id: UUID, fresh: bytes) -> bytes | None:
        return self.table.setdefault(player_id, fresh)

    def _select(self, player_id: UUID) -> bytes | None:
        self.reads += 1
        return self.table.get(player_id)

    def _delete(self, player_id: UUID) -> bool:
        return self.table.pop(player_id, None) is not None


# Attacks


def test_a_sealed_value_does_not_open_as_another_players() -> None:
    _, sealer = sealer_with_keys(ANA, BEN)
    sealed = sealer.seal(ANA, "Ana Lima", "display_name")
    assert sealer.open(BEN, sealed, "display_name") is None


def test_a_sealed_value_does_not_open_as_another_field() -> None:
    _, sealer = sealer_with_keys(ANA)
    sealed = sealer.seal(ANA, "Ana Lima", "display_name")
    assert sealer.open(ANA, sealed, "linked_identity") is None
    assert sealer.open(ANA, sealed, "display_nam") is None
    assert sealer.open(ANA, sealed, "display_name\x00") is None


def test_a_sealed_value_moved_to_another_player_with_the_same_key_fails() -> None:
    # Even a key shared by two players (it never is) would not let a value move.
    table: dict[UUID, bytes] = {}
    keys = SharedTable(table)
    table[BEN] = keys.create(ANA)
    sealer = Sealer(keys)
    assert sealer.open(BEN, sealer.seal(ANA, "Ana", "name"), "name") is None
    assert sealer.open(BEN, sealer.seal(ANA, "Ana", "x"), "x") is None


@pytest.mark.parametrize("position", [0, NONCE_BYTES - 1, NONCE_BYTES, -17, -1])
def test_a_changed_byte_is_refused(position: int) -> None:
    _, sealer = sealer_with_keys(ANA)
    raw = bytearray(raw_of(sealer.seal(ANA, "Ana Lima", "display_name")))
    raw[position] ^= 0x01
    assert sealer.open(ANA, text_of(bytes(raw)), "display_name") is None


def test_a_shortened_or_lengthened_value_is_refused() -> None:
    _, sealer = sealer_with_keys(ANA)
    raw = raw_of(sealer.seal(ANA, "Ana Lima", "display_name"))
    for changed in (raw[:-1], raw + b"\x00", raw[: NONCE_BYTES + 15], raw[1:]):
        assert sealer.open(ANA, text_of(changed), "display_name") is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Ana Lima",
        PREFIX,
        PREFIX + "A",
        PREFIX + "AAAA",
        "sealed:v2:" + "A" * 60,
        PREFIX + "A" * 59 + "=",
        PREFIX + "A" * 58 + "+/",
        PREFIX + "A" * 58 + " A",
    ],
)
def test_a_value_that_is_not_sealed_opens_as_none(text: str) -> None:
    _, sealer = sealer_with_keys(ANA)
    assert sealer.open(ANA, text, "display_name") is None


def test_only_the_canonical_text_of_a_value_opens() -> None:
    _, sealer = sealer_with_keys(ANA)
    sealed = sealer.seal(ANA, "Ana", "display_name")
    assert sealer.open(ANA, sealed + "=", "display_name") is None
    assert sealer.open(ANA, sealed.upper(), "display_name") is None


def test_after_destroy_nothing_opens_and_nothing_seals() -> None:
    keys, sealer = sealer_with_keys(ANA)
    sealed = sealer.seal(ANA, "Ana Lima", "display_name")
    assert keys.destroy(ANA) is True
    assert keys.get(ANA) is None
    assert sealer.open(ANA, sealed, "display_name") is None
    with pytest.raises(NoPersonalKeyError):
        sealer.seal(ANA, "Ana Lima", "display_name")


def test_a_key_created_after_destroy_is_new_and_opens_nothing_older() -> None:
    keys, sealer = sealer_with_keys(ANA)
    old_key = keys.get(ANA)
    sealed = sealer.seal(ANA, "Ana Lima", "display_name")
    keys.destroy(ANA)
    assert keys.create(ANA) != old_key
    assert sealer.open(ANA, sealed, "display_name") is None


def test_destroy_of_a_player_without_a_key_says_so() -> None:
    keys, _ = sealer_with_keys(ANA)
    assert keys.destroy(BEN) is False
    keys.destroy(ANA)
    assert keys.destroy(ANA) is False


def test_concurrent_creates_of_one_player_agree_on_the_key() -> None:
    keys = keys_for(GameStore(POPO))
    barrier = threading.Barrier(8)
    found: list[bytes] = []

    def create() -> None:
        barrier.wait()
        found.append(keys.create(ANA))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8
    assert len(set(found)) == 1
    assert keys.get(ANA) == found[0]


def test_sealing_and_opening_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    keys, sealer = sealer_with_keys(ANA)
    sealed = sealer.seal(ANA, "Ana Lima", "display_name")
    sealer.open(ANA, sealed, "display_name")
    sealer.open(BEN, sealed, "display_name")
    keys.destroy(ANA)
    assert caplog.records == []


def test_the_keys_show_no_key_in_their_repr() -> None:
    keys, sealer = sealer_with_keys(ANA)
    key = keys.get(ANA)
    assert key is not None
    for shown in (repr(keys), repr(sealer), str(vars(sealer))):
        assert key.hex() not in shown
        assert repr(key) not in shown


# Other processes and the cache


def test_another_process_keeps_a_cached_key_until_it_forgets_it() -> None:
    table: dict[UUID, bytes] = {}
    here, there = SharedTable(table), SharedTable(table)
    here.create(ANA)
    sealed = Sealer(here).seal(ANA, "Ana", "x")
    assert Sealer(there).open(ANA, sealed, "x") == "Ana"  # cached there
    assert here.destroy(ANA) is True
    assert Sealer(there).open(ANA, sealed, "x") == "Ana"  # documented
    there.forget(ANA)
    assert Sealer(there).open(ANA, sealed, "x") is None


def test_a_cached_key_is_read_from_the_store_once() -> None:
    keys = SharedTable({})
    keys.create(ANA)
    keys.forget(ANA)
    for _ in range(3):
        keys.get(ANA)
    assert keys.reads == 1


def test_a_missing_key_is_not_cached() -> None:
    table: dict[UUID, bytes] = {}
    here, there = SharedTable(table), SharedTable(table)
    assert there.get(ANA) is None
    key = here.create(ANA)
    assert there.get(ANA) == key


def test_the_cache_drops_the_least_recently_used_key() -> None:
    cache = _KeyCache(2)
    players = [uuid.UUID(int=n) for n in range(3)]
    cache.put(players[0], b"0", cache.generation())
    cache.put(players[1], b"1", cache.generation())
    assert cache.get(players[0]) == b"0"
    cache.put(players[2], b"2", cache.generation())
    assert cache.get(players[1]) is None
    assert cache.get(players[0]) == b"0"
    assert cache.get(players[2]) == b"2"


def test_a_read_that_raced_an_eviction_is_not_cached() -> None:
    cache = _KeyCache(8)
    began = cache.generation()
    cache.evict(ANA)  # a destroy finished while the read was under way
    cache.put(ANA, b"old", began)
    assert cache.get(ANA) is None


def test_a_destroy_racing_a_read_does_not_leave_the_key_cached() -> None:
    table: dict[UUID, bytes] = {}

    class SlowRead(SharedTable):
        def _select(self, player_id: UUID) -> bytes | None:
            key = super()._select(player_id)
            self.destroy(player_id)  # lands between the read and the caching
            return key

    keys = SlowRead(table)
    table[ANA] = b"k" * KEY_BYTES
    assert keys.get(ANA) == b"k" * KEY_BYTES  # read before the delete
    assert keys.get(ANA) is None


# What a sealed value is


def test_text_round_trips_sealed() -> None:
    _, sealer = sealer_with_keys(ANA)
    for text in ("", "Ana Lima", "Zoë 🎲 Ñandú", "x" * 10_000):
        assert (
            sealer.open(ANA, sealer.seal(ANA, text, "display_name"), "display_name")
            == text
        )


def test_a_sealed_value_is_the_prefix_and_unpadded_urlsafe_base64() -> None:
    _, sealer = sealer_with_keys(ANA)
    sealed = sealer.seal(ANA, "Ana Lima", "display_name")
    body = sealed.removeprefix(PREFIX)
    assert sealed.startswith("sealed:v1:")
    assert "=" not in body
    assert set(body) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    assert len(raw_of(sealed)) == NONCE_BYTES + len("Ana Lima") + 16
    assert "Ana" not in sealed


def test_sealing_twice_gives_two_values_with_different_nonces() -> None:
    _, sealer = sealer_with_keys(ANA)
    first = sealer.seal(ANA, "Ana Lima", "display_name")
    second = sealer.seal(ANA, "Ana Lima", "display_name")
    assert first != second
    assert raw_of(first)[:NONCE_BYTES] != raw_of(second)[:NONCE_BYTES]


def test_sealing_for_a_player_without_a_key_is_refused() -> None:
    _, sealer = sealer_with_keys()
    with pytest.raises(NoPersonalKeyError):
        sealer.seal(ANA, "Ana Lima", "display_name")


def test_each_player_gets_their_own_256_bit_key_once() -> None:
    keys, _ = sealer_with_keys()
    ana = keys.create(ANA)
    assert len(ana) == KEY_BYTES == 32
    assert keys.create(ANA) == ana
    assert keys.create(BEN) != ana


def test_an_application_has_one_set_of_keys_and_another_its_own() -> None:
    app = GameStore(POPO)
    keys = keys_for(app)
    assert isinstance(keys, MemoryKeys)
    assert keys_for(app) is keys
    keys.create(ANA)
    assert keys_for(GameStore(POPO)).get(ANA) is None
