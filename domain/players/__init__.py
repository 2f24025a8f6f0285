"""Players: accounts, the credentials that sign in to them, sign-ins and tokens."""

from __future__ import annotations

from typing import Any

from domain.players.events import (
    DeviceLinked,
    IdentityLinked,
    PlayerDeleted,
    PlayerEvent,
    PlayerRegistered,
    PlayerRenamed,
    RefreshTokenIssued,
    RefreshTokenUsed,
    SignInEnd,
    SignInEnded,
    SignInStarted,
)
from domain.players.model import (
    Account,
    RefreshToken,
    SignIn,
)

# The players' events by their stable stored names.
EVENTS: dict[str, type[Any]] = {
    f"player.{cls.__name__}": cls
    for cls in (
        PlayerRegistered,
        PlayerRenamed,
        DeviceLinked,
        IdentityLinked,
        PlayerDeleted,
        SignInStarted,
        SignInEnded,
        RefreshTokenIssued,
        RefreshTokenUsed,
    )
}

__all__ = [
    "EVENTS",
    "Account",
    "DeviceLinked",
    "IdentityLinked",
    "PlayerDeleted",
    "PlayerEvent",
    "PlayerRegistered",
    "PlayerRenamed",
    "RefreshToken",
    "RefreshTokenIssued",
    "RefreshTokenUsed",
    "SignIn",
    "SignInEnd",
    "SignInEnded",
    "SignInStarted",
]
