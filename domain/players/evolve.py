"""Folds of the players' aggregates: total, pure, one function per kind."""

from __future__ import annotations

from dataclasses import replace

from domain.players.events import (
    DeviceLinked,
    IdentityLinked,
    PlayerDeleted,
    PlayerEvent,
    PlayerRegistered,
    PlayerRenamed,
    RefreshTokenIssued,
    RefreshTokenUsed,
    SignInEnded,
    SignInStarted,
)
from domain.players.model import Account, RefreshToken, SignIn
from domain.players.rules import RENAMES_A_DAY


def account(state: Account, event: PlayerEvent) -> Account:
    """Returns the account after ``event``; other kinds' events change nothing."""
    match event:
        case PlayerRegistered(sealed_name=name):
            return Account(registered=True, sealed_name=name)
        case PlayerRenamed(sealed_name=name, at=at):
            # Only the times a day's bound looks at are kept.
            renamed = state.renamed_at if at is None else (*state.renamed_at, at)
            kept = renamed[-RENAMES_A_DAY:]
            return replace(state, sealed_name=name, renamed_at=kept)
        case DeviceLinked(sealed_device=device):
            return replace(state, devices=(*state.devices, device))
        case IdentityLinked(sealed_identity=identity):
            return replace(state, identities=(*state.identities, identity))
        case PlayerDeleted():
            # What was sealed cannot be opened any more: nothing of it is kept.
            return Account(registered=True, deleted=True)
    return state


def sign_in(state: SignIn, event: PlayerEvent) -> SignIn:
    """Returns the sign-in after ``event``."""
    match event:
        case SignInStarted(player_id=player):
            return SignIn(player)
        case SignInEnded(reason=reason):
            return replace(state, ended=state.ended or reason)
    return state


def refresh_token(state: RefreshToken, event: PlayerEvent) -> RefreshToken:
    """Returns the refresh token after ``event``."""
    match event:
        case RefreshTokenIssued(
            sign_in_id=sign_in_id,
            player_id=player,
            secret_hash=hashed,
            expires_at=expires,
        ):
            return RefreshToken(sign_in_id, player, hashed, expires)
        case RefreshTokenUsed(at=at):
            return replace(state, used_at=state.used_at or at)
    return state
