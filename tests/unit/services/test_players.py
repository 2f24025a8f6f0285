"""Players' use cases on the in-memory store: what one account may grow to, and
sign-ins and links that race each other."""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from domain.common.decision import Rejected
from domain.players import PlayerDeleted
from domain.players.rules import MAX_DEVICES, RENAMES_A_DAY
from services.credentials import credentials_for
from services.games import GamesApp
from services.identities import IdTokenRefused, IdTokenVerifier, VerifiedIdentity
from services.personal import keys_for
from services.players import LINK_FRESHNESS, MAX_IDENTITIES, Players, SignedIn
from services.sessions import SessionClaims, SessionKey, Sessions
from tests.playing import Clock

ISSUER = "https://accounts.example"


class Subjects(IdTokenVerifier):
    """Takes an ID token for the subject it names (signatures are tested elsewhere)."""

    def __init__(self) -> None:
        super().__init__(())

    def verify(self, id_token: str) -> VerifiedIdentity | IdTokenRefused:
        return VerifiedIdentity(ISSUER, id_token, "")


def device() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")


def device_credential(device_id: str) -> str:
    # As services/players.py hashes a device id for the index.
    return hashlib.sha256(b"tabletop/device/v1\x00" + device_id.encode()).hexdigest()


@pytest.fixture
def app(clock: Clock) -> GamesApp:
    return GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=clock)


@pytest.fixture
def players(app: GamesApp, clock: Clock) -> Players:
    sessions = Sessions(SessionKey.generate(), clock=clock)
    return Players(
        app, sessions, keys_for(app), credentials_for(app), Subjects(), clock
    )


def signed(result: SignedIn | Rejected) -> SignedIn:
    assert isinstance(result, SignedIn), result
    return result


def session_of(players: Players, signed_in: SignedIn) -> SessionClaims:
    """Returns what a sign-in's access token says, as a call presents it."""
    claims = players.sessions.verify(signed_in.access.token)
    assert claims is not None
    return claims


def refused(result: Any) -> str:
    assert isinstance(result, Rejected), result
    return result.reason


# --- what one account may grow to ---


def test_an_account_links_a_bounded_number_of_devices(players: Players) -> None:
    """Each link appends to the account, which every sign-in, refresh and view
    of its name folds: linking is bounded, and a refused device stays free."""
    ana_in = signed(players.sign_in_with_device(device(), "Ana", None))
    ana, me = ana_in.account, session_of(players, ana_in)
    for _ in range(MAX_DEVICES - 1):
        signed(players.sign_in_with_device(device(), "", me))
    one_too_many = device()
    result = players.sign_in_with_device(one_too_many, "", me)
    assert refused(result) == "TOO_MANY_DEVICES"
    assert players.credentials.lookup(device_credential(one_too_many)) is None
    view = players.account(ana.player_id)
    assert not isinstance(view, Rejected)
    assert view.device_count == MAX_DEVICES
    # A device already linked still signs in.
    again = signed(players.sign_in_with_device(device(), "", None))
    assert again.created


def test_an_account_links_a_bounded_number_of_identities(players: Players) -> None:
    ana_in = signed(players.sign_in_with_device(device(), "Ana", None))
    ana, me = ana_in.account, session_of(players, ana_in)
    for number in range(MAX_IDENTITIES):
        signed(players.sign_in_with_id_token(f"sub-{number}", "", me))
    result = players.sign_in_with_id_token("sub-extra", "", me)
    assert refused(result) == "TOO_MANY_IDENTITIES"
    # The refused identity is free: it signs in as a new player of its own.
    other = signed(players.sign_in_with_id_token("sub-extra", "", None))
    assert other.created
    assert other.account.player_id != ana.player_id


def test_renames_are_bounded_a_day(players: Players, clock: Clock) -> None:
    ana = signed(players.sign_in_with_device(device(), "Ana", None)).account
    for number in range(RENAMES_A_DAY):
        assert not isinstance(players.rename(ana.player_id, f"Ana {number}"), Rejected)
        clock.advance(1)
    assert refused(players.rename(ana.player_id, "Ana again")) == "TOO_MANY_RENAMES"
    clock.advance(24 * 3600)
    renamed = players.rename(ana.player_id, "Ana again")
    assert not isinstance(renamed, Rejected)
    assert renamed.display_name == "Ana again"


def test_a_rename_to_the_same_name_stores_nothing(
    players: Players, app: GamesApp
) -> None:
    ana = signed(players.sign_in_with_device(device(), "Ana", None)).account
    before = len(list(app.events.get(ana.player_id)))
    for _ in range(RENAMES_A_DAY + 1):
        same = players.rename(ana.player_id, " Ana ")
        assert not isinstance(same, Rejected)
        assert same.display_name == "Ana"
    assert len(list(app.events.get(ana.player_id))) == before


# --- links for an account that cannot take them ---


def test_a_link_for_an_account_never_registered_claims_nothing(
    players: Players,
) -> None:
    """A session naming no account (or a deleted one) must not leave the
    device linked to that player in the index: the device would sign in to
    nothing for good, and the index would tie it to a player it never had."""
    now = datetime.now(UTC)
    nobody = SessionClaims(uuid.uuid4(), uuid.uuid4(), now + timedelta(hours=1), now)
    phone = device()
    assert (
        refused(players.sign_in_with_device(phone, "", nobody)) == "SESSION_NOT_RECENT"
    )
    assert players.credentials.lookup(device_credential(phone)) is None
    assert signed(players.sign_in_with_device(phone, "", None)).created


# --- races ---


def _race_once(app: GamesApp, monkeypatch: pytest.MonkeyPatch, rival: Any) -> None:
    """Runs ``rival`` once, just before the next save of the store."""
    save = app.save
    ran = False

    def racing_save(*items: Any, **kwargs: Any) -> Any:
        nonlocal ran
        if not ran:
            ran = True
            rival()
        return save(*items, **kwargs)

    monkeypatch.setattr(app, "save", racing_save)


def test_two_links_racing_for_one_account_both_count(
    players: Players, app: GamesApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana_in = signed(players.sign_in_with_device(device(), "Ana", None))
    ana, me = ana_in.account, session_of(players, ana_in)
    tablet, laptop = device(), device()
    linked: list[SignedIn | Rejected] = []
    _race_once(
        app,
        monkeypatch,
        lambda: linked.append(players.sign_in_with_device(laptop, "", me)),
    )
    first = players.sign_in_with_device(tablet, "", me)
    signed(first)
    signed(linked[0])
    view = players.account(ana.player_id)
    assert not isinstance(view, Rejected)
    assert view.device_count == 3


def test_two_first_sign_ins_of_one_device_racing_both_succeed(
    players: Players, app: GamesApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A phone that sends its first sign-in twice (a retry while the first is
    still under way) gets one player, with its device counted, both times."""
    phone = device()
    rival: list[SignedIn | Rejected] = []
    _race_once(
        app,
        monkeypatch,
        lambda: rival.append(players.sign_in_with_device(phone, "Ana", None)),
    )
    first = signed(players.sign_in_with_device(phone, "Ana", None))
    second = signed(rival[0])
    assert first.account.player_id == second.account.player_id
    assert first.created != second.created
    view = players.account(first.account.player_id)
    assert not isinstance(view, Rejected)
    assert view.device_count == 1


def _delete(players: Players, app: GamesApp, player: uuid.UUID) -> None:
    """Deletes a player as a deletion would: the event, the key, the links."""
    version = len(list(app.events.get(player)))
    app.save(players._wrap(player, version + 1, PlayerDeleted()))
    players.keys.destroy(player)
    players.credentials.release(player)


def test_a_link_that_raced_a_deletion_leaves_no_link_to_the_deleted_player(
    players: Players, app: GamesApp
) -> None:
    """A link checks its account, then claims: a deletion in between (its
    release of the links done) would leave the new link behind, tying the
    device to a player whose key and links are gone, and the device unable to
    sign in for good. The next sign-in that meets it removes it."""
    ana = signed(players.sign_in_with_device(device(), "Ana", None)).account
    tablet = device()
    _delete(players, app, ana.player_id)
    # The claim of the racing link, made after the deletion released the links.
    players.credentials.claim(device_credential(tablet), ana.player_id)
    assert refused(players.sign_in_with_device(tablet, "", None)) == "PLAYER_NOT_FOUND"
    assert players.credentials.lookup(device_credential(tablet)) is None
    assert signed(players.sign_in_with_device(tablet, "", None)).created


def test_an_access_token_older_than_a_few_minutes_links_nothing(
    players: Players, clock: Clock
) -> None:
    ana_in = signed(players.sign_in_with_device(device(), "Ana", None))
    me = session_of(players, ana_in)
    clock.advance(LINK_FRESHNESS.total_seconds() + 1)
    phone = device()
    assert refused(players.sign_in_with_device(phone, "", me)) == "SESSION_NOT_RECENT"
    assert players.credentials.lookup(device_credential(phone)) is None
    fresh = signed(players.refresh(ana_in.refresh_token))
    linked = signed(players.sign_in_with_device(phone, "", session_of(players, fresh)))
    assert linked.account.player_id == ana_in.account.player_id
