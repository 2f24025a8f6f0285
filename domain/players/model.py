"""The states of accounts, credentials, sign-ins and refresh tokens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from domain.players.events import SignInEnd


@dataclass(frozen=True, slots=True)
class Account:
    """A player's account; ``registered`` is False for an id nobody registered."""

    registered: bool = False
    sealed_name: str = ""
    devices: tuple[str, ...] = ()  # sealed device id hashes
    identities: tuple[str, ...] = ()  # sealed "issuer subject" pairs
    deleted: bool = False
    # When the latest renames happened, oldest first (``rules.RENAMES_A_DAY``).
    renamed_at: tuple[datetime, ...] = ()


@dataclass(frozen=True, slots=True)
class SignIn:
    """One device's sign-in: its player, and why it ended (None: it goes on)."""

    player_id: str = ""
    ended: SignInEnd | None = None


@dataclass(frozen=True, slots=True)
class RefreshToken:
    """A refresh token: whose, its secret's hash, until when, and whether used."""

    sign_in_id: str = ""
    player_id: str = ""
    secret_hash: str = ""
    expires_at: datetime | None = None
    used_at: datetime | None = None
