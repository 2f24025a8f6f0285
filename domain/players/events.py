"""The events of players' accounts, their credentials and their sign-ins.

Three kinds of aggregate, each its own stream in the games' store:

- an **account** (id: the player's id) holds the player's display name and the
  credentials linked to it, personal data only ever sealed (encrypted under the
  player's own key, which is kept outside the events: ``services/personal.py``).
  Which account a device or an identity signs in to is kept outside the events
  too, in an index that deletion empties, so nothing in the log links a person
  to a player once the player is deleted;
- a **sign-in** (id: random) is one device's session family: refreshed until
  it is ended by signing out, by a refresh token used twice, or by deletion;
- a **refresh token** (id: random, in the token) is issued once and used once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    """An account was created, with its display name (sealed)."""

    sealed_name: str


@dataclass(frozen=True, slots=True)
class PlayerRenamed:
    """The account's display name changed (sealed), at ``at``."""

    sealed_name: str
    # None: renamed before renames were counted (they are bounded a day).
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DeviceLinked:
    """A device signs in to the account (the device id's hash, sealed)."""

    sealed_device: str


@dataclass(frozen=True, slots=True)
class IdentityLinked:
    """An OpenID identity signs in to the account (issuer and subject, sealed)."""

    sealed_identity: str


@dataclass(frozen=True, slots=True)
class PlayerDeleted:
    """The account was deleted: its key is destroyed, its sealed data unreadable."""


class SignInEnd(StrEnum):
    """Why a sign-in ended."""

    SIGNED_OUT = "SIGNED_OUT"
    # A used refresh token came back: it was copied.
    TOKEN_REUSED = "TOKEN_REUSED"  # noqa: S105 (a reason, not a secret)
    PLAYER_DELETED = "PLAYER_DELETED"


@dataclass(frozen=True, slots=True)
class SignInStarted:
    """A device signed in as ``player_id`` (by ``method``: device or id_token)."""

    player_id: str
    method: str


@dataclass(frozen=True, slots=True)
class SignInEnded:
    """The sign-in ended: none of its refresh tokens works any more."""

    reason: SignInEnd


@dataclass(frozen=True, slots=True)
class RefreshTokenIssued:
    """A refresh token of ``sign_in_id``; only its secret's hash is kept."""

    sign_in_id: str
    player_id: str
    secret_hash: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class RefreshTokenUsed:
    """The refresh token was exchanged for the next session at ``at``."""

    at: datetime


PlayerEvent: TypeAlias = (
    PlayerRegistered
    | PlayerRenamed
    | DeviceLinked
    | IdentityLinked
    | PlayerDeleted
    | SignInStarted
    | SignInEnded
    | RefreshTokenIssued
    | RefreshTokenUsed
)
