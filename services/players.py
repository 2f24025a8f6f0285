"""Use cases of players' accounts: sign in, refresh, sign out, read and rename.

Accounts, sign-ins and refresh tokens are event-sourced aggregates in the
games' store (``domain/players``). What would tie a person to an account is
kept out of the log: display names and identities are sealed under the
player's own key (``services/personal.py``), and which account a device or an
identity signs in to is in the credential index (``services/credentials.py``),
both emptied when a player is deleted.

A refresh token is ``rt1.<token id>.<secret>``; the store keeps the secret's
hash. Its successor derives from its secret, so a refresh retried within a
minute (its answer lost on the way) returns the same next token; a used token
presented later was copied, and ends its sign-in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain.common.decision import Rejected, RejectionKind, malformed, reject
from domain.players import (
    Account,
    DeviceLinked,
    IdentityLinked,
    PlayerDeleted,
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
from domain.players.rules import (
    MAX_IDENTITIES as _MAX_IDENTITIES,
)
from domain.players.rules import (
    Refresh,
    account_refusal,
    check_display_name,
    link_refusal,
    refresh_verdict,
    rename_refusal,
)
from services.credentials import CredentialIndex
from services.identities import IdTokenRefused, IdTokenVerifier, VerifiedIdentity
from services.personal import PersonalKeys, Sealer
from services.records import StoredEvent, unwrap, wrap
from services.sessions import IssuedToken, SessionClaims, Sessions
from services.store import GameStore

S = TypeVar("S")

# How recent an access token must be to link a device or identity with it.
LINK_FRESHNESS = timedelta(minutes=5)
# How long a refresh token works unless used (each refresh starts a new one).
REFRESH_LIFETIME = timedelta(days=30)
# A device id: 128 random bits or more, in URL-safe characters.
MAX_DEVICE_ID = 200
DEVICE_ID = re.compile(rf"[A-Za-z0-9_.-]{{22,{MAX_DEVICE_ID}}}")
# rt1.<32 hex digits>.<43 characters of base64>
REFRESH_TOKEN_LENGTH = 80
# The longest ID token read (a JWT of a few claims is under 2,000 characters).
MAX_ID_TOKEN = 8192
# Identities an account may link (each sign-in method of a phone is one).
MAX_IDENTITIES = _MAX_IDENTITIES
_REFRESH = re.compile(r"rt1\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})")
_DEVICE_LABEL = b"tabletop/device/v1\x00"
_IDENTITY_LABEL = b"tabletop/identity/v1\x00"
_NEXT_SECRET = b"tabletop/refresh/next-secret/v1"
_NEXT_ID = b"tabletop/refresh/next-id/v1"
# What sealed values are, so one cannot stand in for another.
NAME, DEVICE, IDENTITY = "display_name", "device", "identity"
MAX_ATTEMPTS = 5  # a sign-in or refresh that keeps losing races gives up
# Events of a refresh token's or a sign-in's stream (issued/used, started/ended).
_SHORT = 2


@dataclass(frozen=True, slots=True)
class AccountView:
    """An account as its owner sees it."""

    player_id: UUID
    display_name: str
    created_at: datetime
    device_count: int
    identities: tuple[tuple[str, str], ...]  # (issuer, subject)


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A new session: its access token, its refresh token and the account."""

    access: IssuedToken
    refresh_token: str
    refresh_expires_at: datetime
    account: AccountView
    created: bool = False


@dataclass(frozen=True, slots=True)
class _Loaded:
    """An aggregate's state, its version and when it began (None: never)."""

    state: Any
    version: int
    created_at: datetime | None


class Players:
    """The accounts' use cases, over the games' store."""

    def __init__(
        self,
        store: GameStore,
        sessions: Sessions,
        keys: PersonalKeys,
        credentials: CredentialIndex,
        identities: IdTokenVerifier | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.keys = keys
        self.sealer = Sealer(keys)
        self.credentials = credentials
        self.identities = identities
        self._now = clock or store.clock
        # Called with an account whose name this process changed or erased.
        self.changed: list[Callable[[UUID], None]] = []

    # --- sign-in ---

    def sign_in_with_device(
        self, device_id: str, display_name: str, caller: SessionClaims | None
    ) -> SignedIn | Rejected:
        """Signs a device in, creating its player the first time; with a
        ``caller`` (a recent session), links the device to its account."""
        if not DEVICE_ID.fullmatch(device_id):
            return malformed(
                "INVALID_DEVICE_ID",
                "A device id is 22 to 200 characters (128 random bits or more) "
                "of letters, digits, '-', '_' and '.'.",
                "players/device_id",
                field="device_id",
            )
        credential = _hash(_DEVICE_LABEL, device_id)
        return self._sign_in(
            credential,
            lambda player: DeviceLinked(self.sealer.seal(player, credential, DEVICE)),
            display_name,
            caller,
            "device",
        )

    def sign_in_with_id_token(
        self, id_token: str, display_name: str, caller: SessionClaims | None
    ) -> SignedIn | Rejected:
        """Signs an OpenID identity in, like a device."""
        if self.identities is None:
            return reject(
                "ID_TOKEN_SIGN_IN_DISABLED",
                "This server trusts no OpenID issuer (see --oidc-providers).",
                "players/id_token",
            )
        verified = self.identities.verify(id_token)
        if isinstance(verified, IdTokenRefused):
            return _id_token_refusal(verified)
        credential = _identity_hash(verified)
        identity = f"{verified.issuer}\n{verified.subject}"
        return self._sign_in(
            credential,
            lambda player: IdentityLinked(self.sealer.seal(player, identity, IDENTITY)),
            display_name or _fitting_name(verified.name),
            caller,
            "id_token",
        )

    def _sign_in(
        self,
        credential: str,
        link: Callable[[UUID], Any],
        display_name: str,
        session: SessionClaims | None,
        method: str,
    ) -> SignedIn | Rejected:
        if display_name and (refused := check_display_name(display_name)):
            return refused
        refused = self.stale(session) if session is not None else None
        if refused is not None:
            return refused
        caller = session.player_id if session is not None else None
        player, new_link = self._account_of(credential, caller, method)
        if isinstance(player, Rejected):
            return player
        # The credential is claimed now: a sign-in that loses a race for the
        # account (another sign-in of the same new device registering it, a
        # link of another device) is stored again on the account as it is,
        # never given up with the claim left unrecorded in the account.
        for _ in range(MAX_ATTEMPTS):
            account = self._load(player, fold.account, Account())
            if account.state.deleted:
                # A link that raced the deletion may have claimed a credential
                # after the deletion released the player's: none may stay.
                self.credentials.release(player)
                return _deleted()
            events: list[StoredEvent] = []
            created = not account.state.registered
            if created:
                if caller is not None:  # a session of an account never registered
                    return _deleted()
                self.keys.create(player)
                name = display_name.strip() or default_name(player)
                registered = PlayerRegistered(self.sealer.seal(player, name, NAME))
                events.append(self._wrap(player, 1, registered))
            if new_link:
                version = account.version + len(events) + 1
                events.append(self._wrap(player, version, link(player)))
            started = self._start(player, method, events, created=created)
            if started is not None:
                return started
        return _busy()

    def stale(self, session: SessionClaims) -> Rejected | None:
        """Refuses a link or a deletion asked with a session that is not recent
        or whose sign-in has ended: a stolen access token (good for an hour,
        not revocable) must not buy a lasting way in, nor an erasure."""
        sign_in = self._load(session.sign_in_id, fold.sign_in, SignIn(), _SHORT).state
        live = sign_in.player_id == str(session.player_id) and not sign_in.ended
        if live and self._now() - session.issued_at <= LINK_FRESHNESS:
            return None
        return reject(
            "SESSION_NOT_RECENT",
            "Linking a device or an identity, or deleting the account, needs an "
            f"access token issued in the last {LINK_FRESHNESS.seconds // 60} "
            "minutes by a sign-in that is still on: refresh the session "
            "(RefreshSession), then ask again.",
            "players/recent_session",
            RejectionKind.UNAUTHENTICATED,
        )

    def _account_of(
        self, credential: str, caller: UUID | None, method: str
    ) -> tuple[UUID | Rejected, bool]:
        """Returns the account a credential signs in to (a new one for a new
        credential, the caller's when linking), and whether it is newly linked.

        A link is refused before the credential is claimed, so a refused one
        (an account with as many links as it may have, or none to link to)
        stays free.
        """
        linked = self.credentials.lookup(credential)
        if linked is not None:
            if caller is None or linked == caller:
                return linked, False
            return _linked_elsewhere(), False
        if caller is not None:
            account = self._load(caller, fold.account, Account()).state
            kind = "device" if method == "device" else "identity"
            # Links racing this one may each pass: the bound is exceeded by
            # at most the links of one account under way at once.
            refused = link_refusal(account, kind)
            if refused is not None:
                return refused, False
        wanted = caller or uuid.uuid4()
        claimed = self.credentials.claim(credential, wanted)
        if claimed != wanted:  # another sign-in linked it at the same moment
            return (claimed, False) if caller is None else (_linked_elsewhere(), False)
        return claimed, True

    def _start(
        self,
        player: UUID,
        method: str,
        events: list[StoredEvent],
        *,
        created: bool,
    ) -> SignedIn | Rejected | None:
        """Stores a new sign-in with its first refresh token, beside ``events``;
        None when the account changed since ``events`` were made for it."""
        sign_in, token_id, secret = uuid.uuid4(), uuid.uuid4(), secrets.token_bytes(32)
        now = self._now()
        expires = now + REFRESH_LIFETIME
        events += [
            self._wrap(sign_in, 1, SignInStarted(str(player), method)),
            self._wrap(token_id, 1, self._issued(sign_in, player, secret, expires)),
        ]
        try:
            self.store.save(*events)
        except IntegrityError:  # the account changed meanwhile: a concurrent link
            return None
        return self._signed_in(
            player, sign_in, token_id, secret, expires, created=created
        )

    # --- refresh and sign-out ---

    def refresh(self, refresh_token: str) -> SignedIn | Rejected:
        """Exchanges a refresh token for the next session."""
        parsed = _parse_refresh(refresh_token)
        if parsed is None:
            return _invalid_refresh()
        token_id, secret = parsed
        for _ in range(MAX_ATTEMPTS):
            result = self._refresh_once(token_id, secret)
            if result is not None:
                return result
        return _busy()

    def _refresh_once(
        self, token_id: UUID, secret: bytes
    ) -> SignedIn | Rejected | None:
        """Returns the refresh's outcome, or None when a race was lost."""
        token = self._load(token_id, fold.refresh_token, RefreshToken(), _SHORT)
        state: RefreshToken = token.state
        matches = hmac.compare_digest(state.secret_hash, _secret_hash(secret))
        sign_in_id = UUID(state.sign_in_id) if matches else None
        sign_in = (
            self._load(sign_in_id, fold.sign_in, SignIn(), _SHORT).state
            if sign_in_id
            else SignIn()
        )
        now = self._now()
        verdict = refresh_verdict(state, matches, sign_in, now)
        if verdict is Refresh.INVALID or sign_in_id is None:
            return _invalid_refresh()
        player = UUID(state.player_id)
        if account_refusal(self._load(player, fold.account, Account()).state):
            return _invalid_refresh()
        next_id, next_secret = _successor(secret)
        following = self._load(
            next_id, fold.refresh_token, RefreshToken(), _SHORT
        ).state
        if verdict is Refresh.REUSED or (
            verdict is Refresh.RETRY and following.used_at is not None
        ):
            self._end(sign_in_id, SignInEnd.TOKEN_REUSED)
            return reject(
                "REFRESH_TOKEN_REUSED",
                "This refresh token was used before, so it was copied: its "
                "sign-in has ended. Sign in again.",
                "players/refresh_once",
                RejectionKind.UNAUTHENTICATED,
            )
        if verdict is Refresh.FRESH:
            expires = now + REFRESH_LIFETIME
            issued = self._issued(sign_in_id, player, next_secret, expires)
            try:
                self.store.save(
                    self._wrap(token_id, token.version + 1, RefreshTokenUsed(now)),
                    self._wrap(next_id, 1, issued),
                )
            except IntegrityError:
                return None  # used at the same moment: decided again as a retry
        else:
            expires = following.expires_at or now + REFRESH_LIFETIME
        return self._signed_in(player, sign_in_id, next_id, next_secret, expires)

    def sign_out(self, refresh_token: str) -> Rejected | None:
        """Ends the sign-in of a refresh token (any of its tokens, used or not)."""
        parsed = _parse_refresh(refresh_token)
        if parsed is None:
            return _invalid_refresh()
        token_id, secret = parsed
        state: RefreshToken = self._load(
            token_id, fold.refresh_token, RefreshToken(), _SHORT
        ).state
        if not hmac.compare_digest(state.secret_hash, _secret_hash(secret)):
            return _invalid_refresh()
        self._end(UUID(state.sign_in_id), SignInEnd.SIGNED_OUT)
        return None

    def _end(self, sign_in_id: UUID, reason: SignInEnd) -> None:
        """Ends a sign-in unless it has ended already."""
        for _ in range(MAX_ATTEMPTS):
            sign_in = self._load(sign_in_id, fold.sign_in, SignIn())
            if sign_in.state.ended is not None:
                return
            try:
                self.store.save(
                    self._wrap(sign_in_id, sign_in.version + 1, SignInEnded(reason))
                )
            except IntegrityError:
                continue
            return

    # --- the account ---

    def account(self, player: UUID) -> AccountView | Rejected:
        """Returns the caller's account."""
        loaded = self._load(player, fold.account, Account())
        refused = account_refusal(loaded.state)
        if refused is not None:
            return refused
        return self._view(player, loaded)

    def rename(self, player: UUID, display_name: str) -> AccountView | Rejected:
        """Changes the account's display name."""
        refused = check_display_name(display_name)
        if refused is not None:
            return refused
        name = display_name.strip()
        for _ in range(MAX_ATTEMPTS):
            loaded = self._load(player, fold.account, Account())
            refused = account_refusal(loaded.state)
            if refused is not None:
                return refused
            account: Account = loaded.state
            if self.sealer.open(player, account.sealed_name, NAME) == name:
                return self._view(player, loaded)  # nothing changes: nothing stored
            now = self._now()
            refused = rename_refusal(account, now)
            if refused is not None:
                return refused
            renamed = PlayerRenamed(self.sealer.seal(player, name, NAME), now)
            try:
                self.store.save(self._wrap(player, loaded.version + 1, renamed))
            except IntegrityError:
                continue
            for hook in self.changed:
                hook(player)
            return self.account(player)
        return _busy()

    def delete(self, player: UUID) -> Rejected | None:
        """Deletes the account for good: its personal data can no longer be read.

        The account records its deletion; the player's key is destroyed, so
        what was sealed under it (name, devices, identities) opens no more,
        and the credential index forgets the player's devices and identities,
        which may then sign in as new players. A deleted account stays
        deleted: deleting it again changes nothing.
        """
        for _ in range(MAX_ATTEMPTS):
            loaded = self._load(player, fold.account, Account())
            if loaded.state.deleted:
                break
            refused = account_refusal(loaded.state)
            if refused is not None:
                return refused
            try:
                self.store.save(self._wrap(player, loaded.version + 1, PlayerDeleted()))
            except IntegrityError:
                continue
            break
        else:
            return _busy()
        self.credentials.release(player)
        self.keys.destroy(player)
        for hook in self.changed:
            hook(player)
        return None

    def display_name(self, player: UUID) -> str | None:
        """Returns a player's display name, None once deleted (or never made)."""
        account: Account = self._load(player, fold.account, Account()).state
        if not account.registered or account.deleted:
            return None
        return self.sealer.open(player, account.sealed_name, NAME)

    def _view(self, player: UUID, loaded: _Loaded) -> AccountView:
        account: Account = loaded.state
        opened = (self.sealer.open(player, s, IDENTITY) for s in account.identities)
        identities = tuple(
            (issuer, subject)
            for text in opened
            if text is not None
            for issuer, _, subject in [text.partition("\n")]
        )
        name = self.sealer.open(player, account.sealed_name, NAME)
        return AccountView(
            player,
            name or default_name(player),
            loaded.created_at or self._now(),
            len(account.devices),
            identities,
        )

    # --- storage ---

    def _signed_in(
        self,
        player: UUID,
        sign_in: UUID,
        token_id: UUID,
        secret: bytes,
        expires: datetime,
        *,
        created: bool = False,
    ) -> SignedIn | Rejected:
        view = self.account(player)
        if isinstance(view, Rejected):
            return view
        return SignedIn(
            self.sessions.issue(player, sign_in),
            _refresh_text(token_id, secret),
            expires,
            view,
            created,
        )

    @staticmethod
    def _issued(
        sign_in: UUID, player: UUID, secret: bytes, expires: datetime
    ) -> RefreshTokenIssued:
        return RefreshTokenIssued(
            str(sign_in), str(player), _secret_hash(secret), expires
        )

    def _load(
        self,
        stream: UUID,
        evolve: Callable[[S, Any], S],
        initial: S,
        limit: int | None = None,
    ) -> _Loaded:
        """Returns the fold of one player aggregate's stream.

        ``limit`` bounds what is read of a stream named by a client (a token's
        id): such a stream holds two events, and a made-up id that names a
        game must not cost a whole game's load.
        """
        stored = self.store.events.get(stream, limit=limit)
        state, version, created = initial, 0, None
        for item in stored:
            if not isinstance(item, StoredEvent):
                continue
            recorded = unwrap(item)
            state = evolve(state, recorded.event)
            version = recorded.revision
            created = created or recorded.timestamp
        return _Loaded(state, version, created)

    def _wrap(self, stream: UUID, version: int, event: object) -> StoredEvent:
        return wrap(
            stream,
            version,
            event,
            timestamp=self._now(),
            actor=None,
            move_number=0,
            request_key="",
        )


def default_name(player: UUID) -> str:
    """Returns the name of a player who chose none: ``Player`` and 4 hex digits."""
    return f"Player {player.hex[:4]}"


def _fitting_name(name: str) -> str:
    """Returns an ID token's ``name`` claim if it makes a display name, else ""."""
    return name.strip() if name.strip() and check_display_name(name) is None else ""


def _hash(label: bytes, text: str) -> str:
    return hashlib.sha256(label + text.encode("utf-8")).hexdigest()


def _identity_hash(identity: VerifiedIdentity) -> str:
    return _hash(_IDENTITY_LABEL, f"{identity.issuer}\x00{identity.subject}")


def _secret_hash(secret: bytes) -> str:
    return hashlib.sha256(secret).hexdigest()


def _successor(secret: bytes) -> tuple[UUID, bytes]:
    """Returns the id and secret of the token that replaces ``secret``'s."""
    next_secret = hmac.new(secret, _NEXT_SECRET, hashlib.sha256).digest()
    raw = hmac.new(secret, _NEXT_ID, hashlib.sha256).digest()[:16]
    return UUID(bytes=raw, version=4), next_secret


def _refresh_text(token_id: UUID, secret: bytes) -> str:
    encoded = base64.urlsafe_b64encode(secret).decode("ascii").rstrip("=")
    return f"rt1.{token_id.hex}.{encoded}"


def _parse_refresh(text: str) -> tuple[UUID, bytes] | None:
    """Returns a refresh token's id and secret, None if it is not one."""
    found = _REFRESH.fullmatch(text) if len(text) == REFRESH_TOKEN_LENGTH else None
    if found is None:
        return None
    try:
        secret = base64.urlsafe_b64decode(found.group(2) + "=")
    except (binascii.Error, ValueError):
        return None
    return UUID(hex=found.group(1)), secret


def _invalid_refresh() -> Rejected:
    return reject(
        "INVALID_REFRESH_TOKEN",
        "The refresh token is unknown, expired, or its sign-in has ended: "
        "sign in again.",
        "players/refresh_token",
        RejectionKind.UNAUTHENTICATED,
    )


def _linked_elsewhere() -> Rejected:
    return reject(
        "CREDENTIAL_LINKED_ELSEWHERE",
        "This credential already signs in to another player; sign in with it "
        "instead, or delete that player first.",
        "players/one_account_per_credential",
    )


def _deleted() -> Rejected:
    return reject(
        "PLAYER_NOT_FOUND",
        "No such player: the account was deleted.",
        "players/account",
        RejectionKind.UNAUTHENTICATED,
    )


def _busy() -> Rejected:
    return reject(
        "CONCURRENT_UPDATE",
        "The account changed at the same moment; retry.",
        "players/concurrent_update",
        RejectionKind.STALE,
    )


_ID_TOKEN_KINDS = {
    "ID_TOKEN_MALFORMED": RejectionKind.MALFORMED,
    "JWKS_UNAVAILABLE": RejectionKind.UNAVAILABLE,
}


def _id_token_refusal(refused: IdTokenRefused) -> Rejected:
    kind = _ID_TOKEN_KINDS.get(refused.reason, RejectionKind.UNAUTHENTICATED)
    return reject(refused.reason, refused.message, "players/id_token", kind)
