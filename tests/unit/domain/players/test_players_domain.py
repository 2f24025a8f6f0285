"""Accounts, sign-ins and refresh tokens folded and decided purely."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.players import (
    Account,
    DeviceLinked,
    IdentityLinked,
    PlayerDeleted,
    PlayerEvent,
    PlayerRegistered,
    PlayerRenamed,
    RefreshToken,
    RefreshTokenIssued,
    RefreshTokenUsed,
    SignIn,
    SignInEnd,
    SignInEnded,
    SignInStarted,
)
from domain.players import evolve as fold
from domain.players.rules import RETRY_GRACE, Refresh, account_refusal, refresh_verdict

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _token(
    *, used: datetime | None = None, expires: timedelta = timedelta(days=1)
) -> RefreshToken:
    token = fold.refresh_token(
        RefreshToken(), RefreshTokenIssued("s", "p", "hash", NOW + expires)
    )
    return fold.refresh_token(token, RefreshTokenUsed(used)) if used else token


def test_an_account_folds_its_name_devices_and_identities() -> None:
    events: list[PlayerEvent] = [
        PlayerRegistered("sealed-1"),
        DeviceLinked("device-1"),
        PlayerRenamed("sealed-2"),
        IdentityLinked("identity-1"),
        DeviceLinked("device-2"),
    ]
    account = Account()
    for event in events:
        account = fold.account(account, event)
    assert account == Account(
        registered=True,
        sealed_name="sealed-2",
        devices=("device-1", "device-2"),
        identities=("identity-1",),
    )
    assert account_refusal(account) is None


def test_a_deleted_account_keeps_nothing_sealed_and_refuses_acting() -> None:
    account = fold.account(
        fold.account(Account(), PlayerRegistered("sealed")), PlayerDeleted()
    )
    assert account == Account(registered=True, deleted=True)
    refusal = account_refusal(account)
    assert refusal is not None
    assert refusal.reason == "PLAYER_NOT_FOUND"
    assert account_refusal(Account()) is not None  # never registered


def test_a_sign_in_ends_once_with_its_first_reason() -> None:
    sign_in = fold.sign_in(SignIn(), SignInStarted("p", "device"))
    ended = fold.sign_in(sign_in, SignInEnded(SignInEnd.SIGNED_OUT))
    again = fold.sign_in(ended, SignInEnded(SignInEnd.TOKEN_REUSED))
    assert again.ended is SignInEnd.SIGNED_OUT


LIVE = SignIn("p")


@pytest.mark.parametrize(
    ("token", "matches", "sign_in", "verdict"),
    [
        (_token(), True, LIVE, Refresh.FRESH),
        (_token(), False, LIVE, Refresh.INVALID),  # the wrong secret
        (RefreshToken(), True, LIVE, Refresh.INVALID),  # no such token
        (_token(expires=timedelta(0)), True, LIVE, Refresh.INVALID),  # expired
        (_token(), True, SignIn("p", SignInEnd.SIGNED_OUT), Refresh.INVALID),
        (_token(used=NOW - RETRY_GRACE), True, LIVE, Refresh.RETRY),
        (
            _token(used=NOW - RETRY_GRACE - timedelta(seconds=1)),
            True,
            LIVE,
            Refresh.REUSED,
        ),
        # A copy of a used token with the wrong secret says nothing about reuse.
        (_token(used=NOW - timedelta(days=2)), False, LIVE, Refresh.INVALID),
    ],
)
def test_what_presenting_a_refresh_token_means(
    token: RefreshToken, matches: bool, sign_in: SignIn, verdict: Refresh
) -> None:
    assert refresh_verdict(token, matches, sign_in, NOW) is verdict


def test_a_token_is_used_once_whatever_comes_after() -> None:
    used = fold.refresh_token(_token(), RefreshTokenUsed(NOW))
    again = fold.refresh_token(used, RefreshTokenUsed(NOW + timedelta(hours=1)))
    assert again.used_at == NOW
