"""The asyncio gRPC server: game service, health, reflection, graceful stop.

Graceful stop (``stop_server``): health goes ``NOT_SERVING``, the gate
(services/api/gate.py) refuses new calls with ``UNAVAILABLE``
(``SERVER_SHUTTING_DOWN``), the live feed stops so open streams end the same
way and their clients resume on another server, the calls under way finish,
and only then does the gRPC server stop.

The health service follows the event store (infra/store_watch.py), and a turn
clock times out turns whose time limit ran out (services/turns.py); the table
clock closes tables that waited too long and moves for resigned seats
(services/table_clock.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from tabletop.v1 import (
    auth_service_pb2,
    auth_service_pb2_grpc,
    game_audit_service_pb2,
    game_audit_service_pb2_grpc,
    game_service_pb2,
    game_service_pb2_grpc,
)

from infra.accounts import (
    announce_session_key,
    players_for,
    players_projection,
    session_key,
)
from infra.databases import where
from infra.event_store import create_app
from infra.http_api import HttpServer, announce_http, http_app, start_http
from infra.open_files import (
    connection_limit,
    connection_options,
    raise_open_file_limit,
)
from infra.settings import Settings, SettingsError, check_free, listen_error
from infra.store_lock import lock_store
from infra.store_watch import StoreWatch
from infra.telemetry import Telemetry, start_telemetry
from services.api.audit_servicer import GameAuditServicer
from services.api.auth_servicer import AuthServicer
from services.api.bridge import Bridge, HandlerRegistry, deferred_codecs
from services.api.connections import HeldOpen, connection_counts
from services.api.game_servicer import GameServicer
from services.api.gate import Gate
from services.api.interception import GuardingInterceptor, Guards
from services.api.limits import RateLimiter, RateLimitInterceptor, known_tokens
from services.api.observe import Observation, Observer
from services.api.quotas import table_quotas
from services.api.shapes import ShapeInterceptor
from services.feed import Feed
from services.games import GamesApp
from services.player_names import CHANGES, NAMES
from services.sessions import SessionKey
from services.signing import SigningKey
from services.table_clock import TableClock
from services.turns import TurnClock

log = logging.getLogger(__name__)

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
AUDIT_SERVICE_NAME = game_audit_service_pb2.DESCRIPTOR.services_by_name[
    "GameAuditService"
].full_name
AUTH_SERVICE_NAME = auth_service_pb2.DESCRIPTOR.services_by_name[
    "AuthService"
].full_name
SERVICES = (
    "",
    SERVICE_NAME,
    AUDIT_SERVICE_NAME,
    AUTH_SERVICE_NAME,
)  # those the health service reports
# Those the HTTP port serves too (infra/http_api.py).
HTTP_SERVICES = (
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    game_audit_service_pb2.DESCRIPTOR.services_by_name["GameAuditService"],
    auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"],
)
# The largest request gRPC reads; a larger one is refused by gRPC itself
# (RESOURCE_EXHAUSTED, without ErrorInfo) before any of our code runs. No valid
# request comes near it (the largest, a CreateGame sending back a finished
# game's view, is a few KiB: tests/unit/services/test_shape_limits.py), and
# every byte under it is parsed on the event loop before a guard can refuse
# the call: at 1 MiB a refused request cost some 10 ms of the loop.
MAX_REQUEST_BYTES = 64 * 1024
# Keepalive for mobile clients, whose networks drop quiet connections: allow
# pings every 20 s while a call is open, recycle connections every 30 min. A
# connection without calls is closed after --idle-seconds, and at most as many
# are accepted as the process may open files (infra/open_files.py,
# connection_options).
SERVER_OPTIONS = (
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 20_000),
    ("grpc.max_connection_age_ms", 1_800_000),
    ("grpc.max_connection_age_grace_ms", 300_000),
    ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
)


# How often turn timers are checked (services/turns.py).
TURN_TICK_SECONDS = 1.0
# On shutdown the server stops once no call came for this long (Gate.drain).
QUIET_SECONDS = 0.25


@dataclass(frozen=True, slots=True)
class Running:
    """A started server and what stops with it."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    gate: Gate
    feed: Feed
    signing_key: SigningKey
    http: HttpServer | None = None  # with --http-listen


def signing_key(settings: Settings) -> SigningKey:
    """Returns the key that signs exports: the configured one, or an ephemeral one."""
    if settings.signing_key_bytes is not None:
        return SigningKey.from_private_bytes(
            settings.signing_key_bytes, ephemeral=settings.signing_key_file is None
        )
    if settings.signing_key_file is not None:
        return SigningKey.from_file(settings.signing_key_file)
    return SigningKey.generate()


async def create_server(
    settings: Settings,
    app: GamesApp,
    feed: Feed,
    observers: Sequence[Observer] = (),
    key: SigningKey | None = None,
    accounts_key: SessionKey | None = None,
) -> Running:
    """Returns a started server, with the port it listens on and its services.

    Starts ``feed`` too; ``stop_server`` stops both. ``observers`` see every
    call of the game services (services/api/observe.py). ``key`` signs the
    audit exports (by default ``signing_key(settings)``), ``accounts_key`` the
    players' access tokens (by default ``session_key(settings)``).
    """
    key = key or signing_key(settings)
    players = players_for(settings, app, accounts_key or session_key(settings))
    feed.watch(CHANGES, NAMES.forget)
    # Calls run their rules and storage work on these threads (services/api/calls.py).
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(settings.workers, thread_name_prefix="tabletop-call")
    )
    # Only server processes of one group share a port (infra/processes.py);
    # otherwise a second server on a taken port fails instead of sharing it.
    reuse_port = ("grpc.so_reuseport", int(settings.processes > 1))
    gate = Gate()
    # The observers outermost, so they see every refusal; then the gate: a
    # call it refuses costs its caller no rate.
    guarding: list[GuardingInterceptor] = [gate]
    if observers:
        guarding.insert(0, Observation(observers))
    if settings.rate_limited:
        per_address = settings.per_address_limits.items()
        limits = RateLimitInterceptor(
            RateLimiter(settings.rate_limit, settings.rate_burst),
            known_tokens(settings.operator_token),
            {method: RateLimiter(*limit) for method, limit in per_address},
        )
        # Only tokens the store saw act for a seat get a bucket of their own.
        app.authenticated.append(limits.known.learn)
        limits.sessions = app.sessions
        guarding.append(limits)
    # After the rate: a request refused by its shape still costs its caller one.
    guarding.append(ShapeInterceptor())
    # Last, what one client may hold open: a call over a rate costs no count.
    connections = connection_counts(
        settings.max_connections_per_address, settings.idle_seconds
    )
    streams = (settings.max_streams_per_address, settings.max_streams_per_token)
    guarding.append(HeldOpen(connections, *streams, app.sessions))
    # One Guards for both ports: a client's rate, connections and streams are
    # counted together whichever port it calls.
    guards = Guards(guarding)
    server = grpc.aio.server(
        options=(*SERVER_OPTIONS, reuse_port, *connection_options(settings)),
        interceptors=[guards],
    )
    quotas = table_quotas(app, settings.max_waiting_tables, settings.max_timed_games)
    game_servicer = GameServicer(app, feed, quotas)
    audit_servicer = GameAuditServicer(app, settings.operator_token, key)
    auth_servicer = AuthServicer(players, app)
    registry = HandlerRegistry()  # the same handlers, for the HTTP port
    # The registry stands in for a server: the generated functions take either.
    targets: tuple[Any, ...] = (server, registry)
    for target in targets:
        game_service_pb2_grpc.add_GameServiceServicer_to_server(game_servicer, target)
        game_audit_service_pb2_grpc.add_GameAuditServiceServicer_to_server(
            audit_servicer, target
        )
        auth_service_pb2_grpc.add_AuthServiceServicer_to_server(auth_servicer, target)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if settings.reflection:
        names = (
            SERVICE_NAME,
            AUDIT_SERVICE_NAME,
            AUTH_SERVICE_NAME,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        )
        reflection.enable_server_reflection(names, server)
    port = _listen(server, settings)
    feed.start()
    await server.start()
    http = None
    if settings.http_listen is not None:
        deferred_codecs()
        endpoints = Bridge(registry.handlers, guards).endpoints(HTTP_SERVICES)
        try:
            http = await start_http(
                http_app(endpoints, MAX_REQUEST_BYTES, settings.http_allowed_origins),
                settings.http_listen,
                reuse_port=settings.processes > 1,
                idle_seconds=settings.idle_seconds,
                max_connections=connection_limit(),
                max_connections_per_address=settings.max_connections_per_address,
            )
        except SettingsError:  # taken since the start was checked: stop again
            await server.stop(None)
            await feed.stop()
            raise
    for service in SERVICES:
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    return Running(server, port, health_servicer, gate, feed, key, http)


def _listen(server: grpc.aio.Server, settings: Settings) -> int:
    """Adds the listening port; refuses one that does not bind in one line.

    ``tabletop serve`` checked the address before starting (``check_free``);
    this catches one taken since, or a server started otherwise.
    """
    try:
        port = server.add_insecure_port(settings.listen)
    except RuntimeError:  # gRPC says no more than that it failed
        port = 0
    if port == 0:
        if settings.processes == 1:  # a group's own listeners share the port
            check_free(settings.listen, "--listen")
        msg = f"cannot listen on {settings.listen} (--listen)"
        raise SettingsError(msg)
    return port


async def serve(
    settings: Settings,
    grace_seconds: float = 10.0,
    ready: Callable[[int], object] | None = None,
) -> None:
    """Runs the server until SIGINT or SIGTERM, then stops it gracefully.

    Once it listens it prints where (and where its metrics are served), or
    with ``ready`` tells it the port.
    """
    # Before the application opens a SQLite file: no second server on it. And
    # before anything is logged, so that the refusal is the one line printed.
    store_lock = lock_store(settings.database)
    with contextlib.ExitStack() as started:  # undone if the start fails
        if store_lock is not None:
            started.callback(store_lock.release)
        files, most = raise_open_file_limit()
        log.info("open-file limit %d (hard limit %d)", files, most)
        key = signing_key(settings)
        announce_key(key)
        accounts_key = session_key(settings)
        announce_session_key(accounts_key)
        app = create_app(settings)
        started.callback(app.close)
        feed = Feed(app, heartbeat_seconds=settings.heartbeat_seconds)
        telemetry = _start_telemetry(settings, app)
        started.callback(telemetry.stop)
        running = await create_server(
            settings, app, feed, telemetry.observers, key, accounts_key
        )
        started.pop_all()
    watch = StoreWatch(app, running.health, running.gate, SERVICES)
    turns = TurnClock(app)
    tables = TableClock(app)
    players, delivery = players_projection(settings, app, feed)
    tasks = (
        asyncio.create_task(watch.run(), name="tabletop-store-watch"),
        asyncio.create_task(turns.run(TURN_TICK_SECONDS), name="tabletop-turns"),
        asyncio.create_task(tables.run(TURN_TICK_SECONDS), name="tabletop-tables"),
        asyncio.create_task(players.run(TURN_TICK_SECONDS), name="tabletop-players"),
        *(
            [asyncio.create_task(delivery.run(TURN_TICK_SECONDS), name="tabletop-push")]
            if delivery
            else []
        ),
    )
    # Before the server says it listens: a SIGTERM sent as soon as a
    # supervisor reads that line must stop it gracefully, not kill it.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    host = settings.listen.rsplit(":", 1)[0]
    log.info(
        "tabletop listening on %s:%d (database %s%s)",
        host,
        running.port,
        where(settings.database),
        ", development mode" if settings.dev_mode else "",
    )
    if ready is None:
        print(f"tabletop: listening on {host}:{running.port}", flush=True)  # noqa: T201
        if running.http is not None and settings.http_listen is not None:
            announce_http(settings.http_listen.rpartition(":")[0], running.http.port)
        telemetry.announce()
    else:
        ready(running.port)
    await stop.wait()
    log.info(
        "stopping: health NOT_SERVING, finishing calls for up to %ss", grace_seconds
    )
    await stop_server(running, grace_seconds, tasks)
    telemetry.stop()
    app.close()
    if store_lock is not None:
        store_lock.release()


def _start_telemetry(settings: Settings, app: GamesApp) -> Telemetry:
    """Returns ``start_telemetry``'s; a metrics port that does not bind is
    refused in one line."""
    try:
        return start_telemetry(settings, app)
    except OSError as error:  # only the metrics port is bound there
        if settings.metrics_listen is None:
            raise
        raise listen_error(settings.metrics_listen, "--metrics-listen", error) from None


def announce_key(key: SigningKey) -> None:
    """Logs the fingerprint of the key that signs exports, and whether it lasts."""
    if key.ephemeral:
        log.warning(
            "no --signing-key-file: audit exports are signed with an ephemeral key, "
            "%s, that lives only as long as this server; its exports can be "
            "checked only with the public key GetSigningKey returns meanwhile "
            "(tabletop keygen writes a lasting one)",
            key.public.fingerprint,
        )
    else:
        log.info("audit exports are signed with key %s", key.public.fingerprint)


async def stop_server(
    running: Running,
    grace_seconds: float,
    tasks: Sequence[asyncio.Task[None]] = (),
) -> None:
    """Stops taking calls, ends open streams, lets calls under way finish, stops.

    Health goes ``NOT_SERVING`` first and stays so: the background ``tasks``
    (the store watch, the turn clock) stop with it;
    new calls and open streams end with ``UNAVAILABLE``
    (``SERVER_SHUTTING_DOWN``); the gRPC server stops once the calls under way
    are done and no call came for ``QUIET_SECONDS``, or after
    ``grace_seconds``, cancelling what is left.
    """
    started = time.monotonic()
    await running.health.enter_graceful_shutdown()
    for task in tasks:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    running.gate.draining = True
    await running.feed.stop()
    if not await running.gate.drain(QUIET_SECONDS, grace_seconds):
        log.warning(
            "%d calls still under way after %ss: cancelling them",
            running.gate.in_flight,
            grace_seconds,
        )
    left = max(0.0, grace_seconds - (time.monotonic() - started))
    if running.http is not None:
        await running.http.stop(left)
    await running.server.stop(max(0.0, grace_seconds - (time.monotonic() - started)))
