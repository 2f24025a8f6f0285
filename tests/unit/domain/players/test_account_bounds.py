"""What one account may grow to: links and renames, decided purely."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.players import Account, DeviceLinked, IdentityLinked, PlayerRenamed
from domain.players import evolve as fold
from domain.players.rules import (
    MAX_DEVICES,
    MAX_IDENTITIES,
    RENAME_WINDOW,
    RENAMES_A_DAY,
    link_refusal,
    rename_refusal,
)
from services.codec import TYPE_KEY
from services.records import CODEC

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
REGISTERED = Account(registered=True, sealed_name="sealed")


def renamed(account: Account, *times: datetime | None) -> Account:
    for at in times:
        account = fold.account(account, PlayerRenamed("sealed", at))
    return account


def test_links_stop_at_their_bounds_each_kind_its_own() -> None:
    account = REGISTERED
    for number in range(MAX_DEVICES):
        assert link_refusal(account, "device") is None
        account = fold.account(account, DeviceLinked(f"device-{number}"))
    refused = link_refusal(account, "device")
    assert refused is not None
    assert refused.reason == "TOO_MANY_DEVICES"
    for number in range(MAX_IDENTITIES):
        assert link_refusal(account, "identity") is None
        account = fold.account(account, IdentityLinked(f"identity-{number}"))
    refused = link_refusal(account, "identity")
    assert refused is not None
    assert refused.reason == "TOO_MANY_IDENTITIES"


def test_no_link_goes_to_an_account_never_registered_or_deleted() -> None:
    for account in (Account(), Account(registered=True, deleted=True)):
        refused = link_refusal(account, "device")
        assert refused is not None
        assert refused.reason == "PLAYER_NOT_FOUND"


def test_renames_are_bounded_over_any_day() -> None:
    times = [NOW + timedelta(hours=hour) for hour in range(RENAMES_A_DAY)]
    account = renamed(REGISTERED, *times)
    assert len(account.renamed_at) == RENAMES_A_DAY
    refused = rename_refusal(account, times[-1])
    assert refused is not None
    assert refused.reason == "TOO_MANY_RENAMES"
    assert refused.metadata["renameAgainAfter"] == (NOW + RENAME_WINDOW).isoformat()
    # A day after the oldest of the day's renames, one more may follow.
    assert rename_refusal(account, NOW + RENAME_WINDOW) is None
    later = renamed(account, NOW + RENAME_WINDOW)
    assert len(later.renamed_at) == RENAMES_A_DAY
    assert rename_refusal(later, NOW + RENAME_WINDOW) is not None


def test_renames_stored_without_a_time_do_not_count() -> None:
    account = renamed(REGISTERED, *[None] * (RENAMES_A_DAY * 2))
    assert account.renamed_at == ()
    assert rename_refusal(account, NOW) is None


def test_a_rename_stored_before_its_time_was_reads_without_one() -> None:
    stored = CODEC.encode(PlayerRenamed("sealed", NOW))
    assert isinstance(stored, dict)
    del stored["at"]
    assert stored[TYPE_KEY] == "player.PlayerRenamed"
    assert CODEC.decode(stored) == PlayerRenamed("sealed", None)
