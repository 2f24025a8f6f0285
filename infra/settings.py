"""Server settings from flags and environment, each checked as it is read.

The database URL they hold selects the event store: ``infra/databases.py``.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TypeAlias

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_DATABASE = "sqlite:///var/tabletop.sqlite3"
DEFAULT_HEARTBEAT_SECONDS = 20.0
DEFAULT_WORKERS = 32
# Calls a second per seat token, operator or (without a token) client address,
# and the burst allowed above it: see decision T15 in docs/decisions.md.
DEFAULT_RATE_LIMIT = 200.0
DEFAULT_RATE_BURST = 400
# Calls a second and burst per client address of the calls that store a game,
# store a seat or load a page of up to 200 games, on top of the limit above.
Limit: TypeAlias = tuple[float, int]
DEFAULT_CREATE_LIMIT: Limit = (1.0, 20)
# Each sign-in of a new device or identity stores a new player for good; each
# refresh or sign-out stores events of its sign-in.
DEFAULT_SIGN_IN_LIMIT: Limit = (1.0, 20)
SIGN_IN_CALLS = ("SignInWithDevice", "SignInWithIdToken", "RefreshSession", "SignOut")
# The shortest secret that signs push notifications (128 bits in hex).
MIN_WEBHOOK_SECRET = 32
DEFAULT_JOIN_LIMIT: Limit = (2.0, 30)
DEFAULT_LIST_LIMIT: Limit = (2.0, 10)
# What one client may hold open and create; 0 is no cap. Why these values:
# services/api/connections.py and services/api/quotas.py, and the README.
DEFAULT_IDLE_SECONDS = 30.0  # a connection without calls is closed after it
DEFAULT_MAX_CONNECTIONS = 256  # with calls, per client address
DEFAULT_MAX_STREAMS_PER_ADDRESS = 200  # open StreamGame calls
DEFAULT_MAX_STREAMS_PER_TOKEN = 8
DEFAULT_MAX_WAITING_TABLES = 100  # per client address
DEFAULT_MAX_TIMED_GAMES = 20  # unfinished, with a turn time limit, per address
# How long a table waits for players before it closes; 0: it waits for ever.
DEFAULT_TABLE_WAIT_SECONDS = 24 * 3600
# Bytes of game folds kept in memory (services/kept.py, the same default there).
DEFAULT_KEEP_MEMORY = 256 * 1024 * 1024
MEMORY_UNITS = {"": 1, "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
LOG_FORMATS = ("text", "json")
# The modules tracing needs: the optional ``tracing`` extra installs them.
TRACING_MODULES = ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.grpc")


# ``--processes auto``: one process per core on PostgreSQL, one on other stores
# (``infra.databases.resolve_processes``).
AUTO_PROCESSES = 0


class SettingsError(ValueError):
    """A setting that cannot be used, with a message for the operator."""


class AddressInUseError(SettingsError):
    """An address to listen on that another process listens on already."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How one server process runs."""

    listen: str = DEFAULT_LISTEN
    database: str = DEFAULT_DATABASE
    dev_mode: bool = False
    reflection: bool = True
    heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS  # StreamGame, while idle
    # Threads that run the calls' rules and storage work. Moves in flight at once
    # commit together (services/commits.py), so more threads mean fuller commits.
    workers: int = DEFAULT_WORKERS
    # Server processes sharing the port and the database (infra/processes.py).
    processes: int = 1
    # Token bucket per caller (services/api/limits.py); 0 in either turns it off.
    rate_limit: float = DEFAULT_RATE_LIMIT
    rate_burst: int = DEFAULT_RATE_BURST
    # Stricter buckets per address (calls a second, burst); 0 in either turns
    # one off, and a general limit turned off turns them off too.
    create_limit: Limit = DEFAULT_CREATE_LIMIT
    join_limit: Limit = DEFAULT_JOIN_LIMIT
    sign_in_limit: Limit = DEFAULT_SIGN_IN_LIMIT
    list_limit: Limit = DEFAULT_LIST_LIMIT
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    max_connections_per_address: int = DEFAULT_MAX_CONNECTIONS
    max_streams_per_address: int = DEFAULT_MAX_STREAMS_PER_ADDRESS
    max_streams_per_token: int = DEFAULT_MAX_STREAMS_PER_TOKEN
    max_waiting_tables: int = DEFAULT_MAX_WAITING_TABLES
    max_timed_games: int = DEFAULT_MAX_TIMED_GAMES
    # Seconds a new table waits for players before it closes (0: for ever).
    table_wait_seconds: int = DEFAULT_TABLE_WAIT_SECONDS
    # Estimated bytes of the games' folds kept in memory (services/kept.py).
    keep_memory: int = DEFAULT_KEEP_MEMORY
    # The credential of GameAuditService; None refuses every audit call. Kept
    # out of repr so that logging the settings never shows it.
    operator_token: str | None = field(default=None, repr=False)
    # The Ed25519 key that signs audit exports (services/signing.py): the 32 raw
    # private bytes, read from --signing-key-file (``signing_key_file`` names
    # it) or made for a group of processes; None makes an ephemeral one at start.
    signing_key_file: str | None = None
    signing_key_bytes: bytes | None = field(default=None, repr=False)
    # The Ed25519 key that signs players' access tokens (services/sessions.py),
    # kept apart from the audit key: its file, and its PEM for a group of
    # processes; neither makes an ephemeral one at start.
    session_key_file: str | None = None
    session_key_bytes: bytes | None = field(default=None, repr=False)
    # The OpenID issuers whose ID tokens sign players in (services/identities.py);
    # None: sign-in by device only.
    oidc_providers_file: str | None = None
    # The push gateway notifications are POSTed to, and the secret that signs
    # them (services/delivery.py); None: notifications are only streamed.
    notify_webhook: tuple[str, str] | None = field(default=None, repr=False)
    # host:port of the Prometheus endpoint (infra/metrics.py); None serves none.
    metrics_listen: str | None = None
    # host:port of the HTTP port (infra/http_api.py: the web page, and the API
    # over Connect and gRPC-Web); None serves none. Other origins whose pages
    # may call the API there (CORS; "*" any).
    http_listen: str | None = None
    http_allowed_origins: tuple[str, ...] = ()
    log_format: str = "text"  # or "json", one object per line (infra/logs.py)
    # The OTLP/gRPC collector spans go to (infra/tracing.py); None traces nothing.
    otel_endpoint: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Returns settings from ``TABLETOP_*`` environment variables."""
        return cls(
            listen=environ.get("TABLETOP_LISTEN", DEFAULT_LISTEN),
            database=environ.get("TABLETOP_DATABASE", DEFAULT_DATABASE),
            dev_mode=_flag(environ.get("TABLETOP_DEV_MODE", "")),
            reflection=_flag(environ.get("TABLETOP_REFLECTION", "1")),
            heartbeat_seconds=seconds(
                environ.get(
                    "TABLETOP_HEARTBEAT_SECONDS", str(DEFAULT_HEARTBEAT_SECONDS)
                )
            ),
            operator_token=environ.get("TABLETOP_OPERATOR_TOKEN", "").strip() or None,
            signing_key_file=environ.get("TABLETOP_SIGNING_KEY_FILE", "").strip()
            or None,
            session_key_file=environ.get("TABLETOP_SESSION_KEY_FILE", "").strip()
            or None,
            oidc_providers_file=environ.get("TABLETOP_OIDC_PROVIDERS", "").strip()
            or None,
            notify_webhook=webhook(
                environ.get("TABLETOP_NOTIFY_WEBHOOK", "").strip() or None,
                _secret_file(environ.get("TABLETOP_NOTIFY_SECRET_FILE", "").strip()),
            ),
            workers=count(environ.get("TABLETOP_WORKERS", str(DEFAULT_WORKERS))),
            processes=process_count(environ.get("TABLETOP_PROCESSES", "1")),
            rate_limit=rate(
                environ.get("TABLETOP_RATE_LIMIT", f"{DEFAULT_RATE_LIMIT:g}")
            ),
            rate_burst=burst(
                environ.get("TABLETOP_RATE_BURST", str(DEFAULT_RATE_BURST))
            ),
            create_limit=_limit(environ, "CREATE", DEFAULT_CREATE_LIMIT),
            join_limit=_limit(environ, "JOIN", DEFAULT_JOIN_LIMIT),
            sign_in_limit=_limit(environ, "SIGN_IN", DEFAULT_SIGN_IN_LIMIT),
            list_limit=_limit(environ, "LIST", DEFAULT_LIST_LIMIT),
            idle_seconds=seconds(
                environ.get("TABLETOP_IDLE_SECONDS", f"{DEFAULT_IDLE_SECONDS:g}")
            ),
            max_connections_per_address=_cap(
                environ, "CONNECTIONS_PER_ADDRESS", DEFAULT_MAX_CONNECTIONS
            ),
            max_streams_per_address=_cap(
                environ, "STREAMS_PER_ADDRESS", DEFAULT_MAX_STREAMS_PER_ADDRESS
            ),
            max_streams_per_token=_cap(
                environ, "STREAMS_PER_TOKEN", DEFAULT_MAX_STREAMS_PER_TOKEN
            ),
            max_waiting_tables=_cap(
                environ, "WAITING_TABLES", DEFAULT_MAX_WAITING_TABLES
            ),
            max_timed_games=_cap(environ, "TIMED_GAMES", DEFAULT_MAX_TIMED_GAMES),
            table_wait_seconds=_whole(
                environ.get(
                    "TABLETOP_TABLE_WAIT_SECONDS", str(DEFAULT_TABLE_WAIT_SECONDS)
                ),
                "a whole number of seconds, 0 (tables wait for ever) or more",
            ),
            keep_memory=memory_size(
                environ.get("TABLETOP_KEEP_MEMORY", str(DEFAULT_KEEP_MEMORY))
            ),
            metrics_listen=optional_address(environ.get("TABLETOP_METRICS_LISTEN", "")),
            http_listen=optional_address(environ.get("TABLETOP_HTTP_LISTEN", "")),
            http_allowed_origins=tuple(
                origin(value)
                for value in environ.get("TABLETOP_HTTP_ALLOWED_ORIGINS", "").split()
            ),
            log_format=log_format(environ.get("TABLETOP_LOG_FORMAT", "text")),
            otel_endpoint=environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
            or None,
        )

    @property
    def table_wait(self) -> timedelta | None:
        """Returns how long a new table waits for players; None: for ever."""
        seconds = self.table_wait_seconds
        return timedelta(seconds=seconds) if seconds else None

    @property
    def rate_limited(self) -> bool:
        """Whether calls are rate limited at all."""
        return self.rate_limit > 0 and self.rate_burst > 0

    @property
    def per_address_limits(self) -> dict[str, Limit]:
        """Returns the methods' own limits per address that are on, by method name."""
        limits = {
            "CreateGame": self.create_limit,
            "JoinGame": self.join_limit,
            "ListGames": self.list_limit,
            # Each call of these stores events for good (a new player, a
            # refreshed or ended sign-in): one bucket each, per address.
            **dict.fromkeys(SIGN_IN_CALLS, self.sign_in_limit),
        }
        return {name: limit for name, limit in limits.items() if min(limit) > 0}


def _limit(environ: Mapping[str, str], kind: str, default: Limit) -> Limit:
    """Returns a limit from ``TABLETOP_<KIND>_RATE_LIMIT`` and ``..._RATE_BURST``."""
    return (
        rate(environ.get(f"TABLETOP_{kind}_RATE_LIMIT", f"{default[0]:g}")),
        burst(environ.get(f"TABLETOP_{kind}_RATE_BURST", str(default[1]))),
    )


def check_tracing(settings: Settings) -> None:
    """Refuses tracing when the ``tracing`` extra is not installed."""
    if settings.otel_endpoint is None:
        return
    for module in TRACING_MODULES:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a parent package is missing
            found = False
        if not found:
            msg = (
                f"tracing to {settings.otel_endpoint} needs OpenTelemetry, which is "
                "not installed: pip install 'tabletop[tracing]'"
            )
            raise SettingsError(msg)


def read_token_file(path: str, what: str = "operator token") -> str:
    """Returns the secret kept in a file (surrounding whitespace removed)."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as error:
        msg = f"cannot read the {what} file {path!r}: {error.strerror}"
        raise SettingsError(msg) from None
    except UnicodeDecodeError:  # the message would quote a byte of the token
        msg = f"the {what} file {path!r} is not UTF-8 text"
        raise SettingsError(msg) from None
    if not token:
        msg = f"the {what} file {path!r} is empty"
        raise SettingsError(msg)
    return token


def operator_token(path: str | None) -> str | None:
    """Returns the operator token kept in the file at ``path``, else the one in
    ``TABLETOP_OPERATOR_TOKEN``; None when neither gives one.

    A token no call can carry (a header value is one line of printable ASCII)
    is refused in one line that does not show it: a server given one would
    refuse every audit call, and a client would fail to send it.
    """
    if path:
        return _sendable(read_token_file(path), f"file {path!r}")
    token = os.environ.get("TABLETOP_OPERATOR_TOKEN", "").strip()
    return _sendable(token, "in TABLETOP_OPERATOR_TOKEN") if token else None


def _sendable(token: str, where: str) -> str:
    if token.isascii() and token.isprintable():
        return token
    msg = (
        f"the operator token {where} holds a line break, a control character "
        "or a character outside ASCII, which no call can carry: keep it one "
        "line of printable ASCII"
    )
    raise SettingsError(msg)


def _secret_file(path: str) -> str | None:
    return read_token_file(path, "notification secret") if path else None


def webhook(url: str | None, secret: str | None) -> tuple[str, str] | None:
    """Returns the push gateway and its secret, or refuses a half-set pair."""
    if url is None:
        if secret is not None:
            msg = "--notify-secret-file needs --notify-webhook"
            raise SettingsError(msg)
        return None
    if not url.startswith(("http://", "https://")):
        msg = f"--notify-webhook must be an http:// or https:// URL, not {url!r}"
        raise SettingsError(msg)
    if secret is None or len(secret) < MIN_WEBHOOK_SECRET:
        msg = (
            "--notify-webhook needs --notify-secret-file: a file holding at least "
            f"{MIN_WEBHOOK_SECRET} characters, the key of the requests' signatures"
        )
        raise SettingsError(msg)
    return url, secret


def seconds(value: str) -> float:
    """Returns a positive number of seconds, or refuses the setting."""
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not 0 < number < float("inf"):
        msg = f"expected a positive number of seconds, got {value!r}"
        raise SettingsError(msg)
    return number


def process_count(value: str) -> int:
    """Returns a server process count, or ``AUTO_PROCESSES`` for ``auto``."""
    if value.strip().lower() == "auto":
        return AUTO_PROCESSES
    return count(value)


def count(value: str) -> int:
    """Returns a whole number from 1 to 1,000, or refuses the setting."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= 1_000:  # noqa: PLR2004 (the documented range)
        msg = f"expected a whole number from 1 to 1000, got {value!r}"
        raise SettingsError(msg)
    return number


def rate(value: str) -> float:
    """Returns calls per second, 0 (no limit) or more, or refuses the setting."""
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0 <= number < float("inf"):
        msg = f"expected a number of calls per second, 0 or more, got {value!r}"
        raise SettingsError(msg)
    return number


def cap(value: str) -> int:
    """Returns a whole number, 0 (no cap) or more, or refuses the setting."""
    return _whole(value, "a whole number, 0 (no cap) or more")


def _cap(environ: Mapping[str, str], name: str, default: int) -> int:
    return cap(environ.get(f"TABLETOP_MAX_{name}", str(default)))


def burst(value: str) -> int:
    """Returns a whole number of calls, 0 (no limit) or more, or refuses it."""
    return _whole(value, "a whole number of calls, 0 or more")


def _whole(value: str, expected: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        msg = f"expected {expected}, got {value!r}"
        raise SettingsError(msg)
    return number


def memory_size(value: str) -> int:
    """Returns a positive number of bytes, such as ``268435456`` or ``256MiB``.

    The units are B, KiB, MiB and GiB (powers of 1024), a space before them
    allowed; a fraction is allowed with a unit (``1.5GiB``) and rounded down.
    """
    number, unit = value.strip(), ""
    for name in sorted(MEMORY_UNITS, key=len, reverse=True):
        if name and number.lower().endswith(name.lower()):
            number, unit = number[: -len(name)].strip(), name
            break
    try:
        size = float(number) * MEMORY_UNITS[unit] if unit else int(number)
    except ValueError:
        size = 0
    if not 1 <= size < float("inf"):
        msg = (
            "expected a positive number of bytes, with B, KiB, MiB or GiB "
            f"or none (64MiB, 268435456), got {value!r}"
        )
        raise SettingsError(msg)
    return int(size)


def address(value: str) -> str:
    """Returns a ``host:port`` to listen on (port 0: any free one), or refuses it."""
    host, colon, port = value.strip().rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65_535:  # noqa: PLR2004
        msg = f"expected host:port to listen on, got {value!r}"
        raise SettingsError(msg)
    return f"{host}:{int(port)}"


def check_addresses(settings: Settings) -> None:
    """Refuses the settings' first address to listen on that is taken."""
    for listen, flag in (
        (settings.listen, "--listen"),
        (settings.http_listen, "--http-listen"),
        (settings.metrics_listen, "--metrics-listen"),
    ):
        if listen is not None:
            check_free(listen, flag)


def check_free(listen: str, flag: str) -> None:
    """Refuses an address to listen on that is taken or cannot be had.

    Binds it the way the servers do (``SO_REUSEADDR``, without
    ``SO_REUSEPORT``, so that the listeners of a ``--processes`` group count as
    taken too) and lets it go at once: a server already running is named in one
    line before anything starts. Port 0, any free port, is always free.
    """
    host, _, port = listen.rpartition(":")
    if int(port) == 0:
        return
    try:
        found = socket.getaddrinfo(
            host.strip("[]"),
            int(port),
            type=socket.SOCK_STREAM,
            flags=socket.AI_PASSIVE,
        )
    except socket.gaierror as error:
        msg = f"cannot listen on {listen} ({flag}): {error.strerror}"
        raise SettingsError(msg) from None
    for family, kind, protocol, _, where in found:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as error:
                raise listen_error(listen, flag, error) from None


def listen_error(listen: str, flag: str, error: OSError) -> SettingsError:
    """Returns the one-line refusal of an address ``flag`` named that would not bind."""
    if error.errno == errno.EADDRINUSE:
        return AddressInUseError(
            f"{listen} is in use: is a server already running? "
            f"({flag} HOST:PORT picks another)"
        )
    return SettingsError(
        f"cannot listen on {listen} ({flag}): {error.strerror or error}"
    )


def origin(value: str) -> str:
    """Returns a web origin (``https://host[:port]``, or ``*``), or refuses it."""
    value = value.strip().lower()  # browsers send origins in lower case
    if value == "*":
        return value
    scheme, sep, rest = value.partition("://")
    host, _, port = rest.partition(":")
    if (
        scheme not in ("http", "https")
        or not sep
        or not host
        or any(c in rest for c in "/?#@ ")
        or (port and not (port.isdigit() and int(port) <= 65_535))  # noqa: PLR2004
    ):
        msg = (
            f"expected an origin such as https://example.com or "
            f"http://localhost:3000 (scheme, host and port only), or *, got {value!r}"
        )
        raise SettingsError(msg)
    return value


def optional_address(value: str) -> str | None:
    """Returns ``address(value)``, or None for an empty value (turned off)."""
    return address(value) if value.strip() else None


def log_format(value: str) -> str:
    """Returns ``text`` or ``json``, or refuses the setting."""
    chosen = value.strip().lower()
    if chosen not in LOG_FORMATS:
        msg = f"expected a log format of text or json, got {value!r}"
        raise SettingsError(msg)
    return chosen


def _flag(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}
