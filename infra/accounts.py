"""Players' accounts on a server: the session key, the sealer and the index.

Builds ``services.players.Players`` from the settings and the store, and makes
the store's calls and views know signed-in players: the store verifies access
tokens, and views show accounts' display names. Starts the players' projection
too, which keeps ListMyGames's view from the log.
"""

from __future__ import annotations

import logging
from pathlib import Path

from infra.settings import Settings
from services.credentials import credentials_for
from services.delivery import Delivery, http_post
from services.feed import Feed
from services.games import GamesApp
from services.identities import IdTokenVerifier, load_providers
from services.notification_feed import notification_feed_for
from services.personal import keys_for
from services.player_names import NAMES
from services.players import Players
from services.players_view import players_view_for
from services.projection import PlayersProjection
from services.records import EVENT_NAMES
from services.sessions import SessionKey, Sessions

log = logging.getLogger(__name__)


def session_key(settings: Settings) -> SessionKey:
    """Returns the key that signs access tokens: the configured one, or ephemeral."""
    if settings.session_key_bytes is not None:
        return SessionKey.from_bytes(
            settings.session_key_bytes, ephemeral=settings.session_key_file is None
        )
    if settings.session_key_file is not None:
        return SessionKey.from_file(settings.session_key_file)
    return SessionKey.generate()


def players_for(settings: Settings, app: GamesApp, key: SessionKey) -> Players:
    """Returns the accounts' use cases of a server, and wires the store to them."""
    identities = None
    if settings.oidc_providers_file is not None:
        providers = load_providers(Path(settings.oidc_providers_file))
        identities = IdTokenVerifier(providers)
        log.info(
            "players sign in with ID tokens of %s",
            ", ".join(provider.issuer for provider in providers),
        )
    sessions = Sessions(key)
    players = Players(app, sessions, keys_for(app), credentials_for(app), identities)
    app.sessions = sessions
    NAMES.lookup = players.display_name
    players.changed.append(NAMES.forget)
    return players


def players_projection(
    settings: Settings, app: GamesApp, feed: Feed
) -> tuple[PlayersProjection, Delivery | None]:
    """Returns the projection of the log into the players' view, woken by every
    append of this process and every one the live feed hears of, and the push
    delivery of its notifications when a gateway is configured."""
    view = players_view_for(app)
    projection = PlayersProjection(app, view)
    app.appended.append(lambda _game, _events: projection.wake())
    feed.watch(EVENT_NAMES, lambda _game: projection.wake())
    projection.stored.append(notification_feed_for(view).wake)
    if settings.notify_webhook is None:
        return projection, None
    url, secret = settings.notify_webhook
    delivery = Delivery(view, http_post(url), secret.encode())
    projection.stored.append(delivery.wake)
    log.info("notifications are POSTed to %s", url)
    return projection, delivery


def announce_session_key(key: SessionKey) -> None:
    """Logs the key that signs access tokens, and whether it outlives the server."""
    if key.ephemeral:
        log.warning(
            "no --session-key-file: access tokens are signed with an ephemeral "
            "key, %s; after a restart players refresh their sessions (their "
            "refresh tokens keep working). tabletop keygen writes a lasting one",
            key.fingerprint,
        )
    else:
        log.info("access tokens are signed with key %s", key.fingerprint)
