"""The credential index on the in-memory store: claims, lookups and releases."""

from __future__ import annotations

import hashlib
import threading
import uuid
from typing import Any
from uuid import UUID

import pytest

from services.credentials import (
    CredentialIndex,
    MemoryCredentials,
    credentials_for,
)
from services.store import GameStore

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
ANA, BEN = uuid.UUID(int=1), uuid.UUID(int=2)


def credential(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


PHONE, LAPTOP, GOOGLE = credential("phone"), credential("laptop"), credential("g")


def new_index() -> CredentialIndex:
    return credentials_for(GameStore(POPO))


# Claims and lookups


def test_a_claimed_credential_signs_in_to_its_player() -> None:
    index = new_index()
    assert index.lookup(PHONE) is None
    assert index.claim(PHONE, ANA) == ANA
    assert index.lookup(PHONE) == ANA
    assert index.lookup(LAPTOP) is None


def test_a_claim_of_a_linked_credential_returns_the_first_player() -> None:
    index = new_index()
    index.claim(PHONE, ANA)
    assert index.claim(PHONE, BEN) == ANA
    assert index.claim(PHONE, ANA) == ANA
    assert index.lookup(PHONE) == ANA


def test_a_player_may_have_several_credentials() -> None:
    index = new_index()
    for each in (PHONE, LAPTOP, GOOGLE):
        assert index.claim(each, ANA) == ANA
    assert [index.lookup(each) for each in (PHONE, LAPTOP, GOOGLE)] == [ANA] * 3


def test_concurrent_claims_for_different_players_agree_on_one() -> None:
    index = new_index()
    players = [uuid.UUID(int=n) for n in range(1, 9)]
    barrier = threading.Barrier(len(players))
    found: list[UUID] = []

    def claim(player: UUID) -> None:
        barrier.wait()
        found.append(index.claim(PHONE, player))

    threads = [threading.Thread(target=claim, args=(each,)) for each in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == len(players)
    assert len(set(found)) == 1
    assert index.lookup(PHONE) == found[0]


def test_a_claim_retries_when_the_link_it_met_was_released_meanwhile() -> None:
    class ReleasedOnce(MemoryCredentials):
        def __init__(self) -> None:
            super().__init__()
            self.raced = False

        def _insert_or_select(self, credential: str, player_id: UUID) -> UUID | None:
            if not self.raced:
                self.raced = True
                return None  # BEN's link, met by the insert, gone by the read
            return super()._insert_or_select(credential, player_id)

    index = ReleasedOnce()
    assert index.claim(PHONE, ANA) == ANA
    assert index.lookup(PHONE) == ANA


def test_a_claim_that_keeps_losing_to_releases_gives_up() -> None:
    class AlwaysReleased(MemoryCredentials):
        def _insert_or_select(self, credential: str, player_id: UUID) -> UUID | None:
            return None

    with pytest.raises(RuntimeError):
        AlwaysReleased().claim(PHONE, ANA)


# Releases


def test_release_removes_only_the_players_links_and_counts_them() -> None:
    index = new_index()
    index.claim(PHONE, ANA)
    index.claim(LAPTOP, ANA)
    index.claim(GOOGLE, BEN)
    assert index.release(ANA) == 2
    assert index.lookup(PHONE) is None
    assert index.lookup(LAPTOP) is None
    assert index.lookup(GOOGLE) == BEN
    assert index.release(ANA) == 0


def test_a_released_credential_can_be_claimed_by_another_player() -> None:
    index = new_index()
    index.claim(PHONE, ANA)
    index.release(ANA)
    assert index.claim(PHONE, BEN) == BEN
    assert index.lookup(PHONE) == BEN
    assert index.release(ANA) == 0
    assert index.release(BEN) == 1


def test_a_claim_refused_to_a_player_leaves_nothing_to_release() -> None:
    index = new_index()
    index.claim(PHONE, ANA)
    index.claim(PHONE, BEN)
    assert index.release(BEN) == 0
    assert index.lookup(PHONE) == ANA


def test_release_of_a_player_without_credentials_releases_nothing() -> None:
    assert new_index().release(ANA) == 0


# Malformed credentials


@pytest.mark.parametrize(
    "malformed",
    [
        "",
        "phone",
        PHONE.upper(),
        PHONE[:-1],
        PHONE + "0",
        PHONE[:-1] + "g",
        PHONE + "\n",
        " " + PHONE[1:],
        b"0" * 64,
        None,
    ],
)
def test_a_malformed_credential_is_refused(malformed: Any) -> None:
    index = new_index()
    with pytest.raises(ValueError, match="64 lowercase hex"):
        index.claim(malformed, ANA)
    with pytest.raises(ValueError, match="64 lowercase hex"):
        index.lookup(malformed)
    assert index.release(ANA) == 0


# The index of an application


def test_an_application_has_one_index_and_another_its_own() -> None:
    app = GameStore(POPO)
    index = credentials_for(app)
    assert isinstance(index, MemoryCredentials)
    assert credentials_for(app) is index
    index.claim(PHONE, ANA)
    assert credentials_for(GameStore(POPO)).lookup(PHONE) is None
