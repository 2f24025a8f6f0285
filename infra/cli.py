"""The ``tabletop`` command."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from infra.databases import check_processes, resolve_processes
from infra.logs import configure
from infra.settings import (
    LOG_FORMATS,
    SIGN_IN_CALLS,
    Settings,
    SettingsError,
    address,
    burst,
    cap,
    check_addresses,
    check_tracing,
    count,
    memory_size,
    operator_token,
    origin,
    process_count,
    rate,
    read_token_file,
    seconds,
    webhook,
)
from services.identities import IdTokenVerifier, ProviderConfigError, load_providers
from services.sessions import SessionKey
from services.signing import KeyFileError, SigningKey


def build_parser() -> argparse.ArgumentParser:
    """Returns the command-line parser."""
    defaults = Settings.from_env()
    parser = argparse.ArgumentParser(
        prog="tabletop",
        description="Tabletop: an event-sourced backend for turn-based tabletop "
        "games, served over gRPC.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="run the gRPC server",
        description="Run the gRPC game server until SIGINT or SIGTERM.",
    )
    serve.add_argument(
        "--listen",
        default=defaults.listen,
        help="host:port to listen on; port 0 picks a free one "
        "(env TABLETOP_LISTEN, default %(default)s)",
    )
    serve.add_argument(
        "--database",
        default=defaults.database,
        help="postgresql://user:password@host:port/dbname, sqlite:///path, or "
        "memory: (env TABLETOP_DATABASE, default %(default)s)",
    )
    serve.add_argument(
        "--dev",
        action="store_true",
        default=defaults.dev_mode,
        help="development mode: accept client-chosen seeds in CreateGame "
        "(env TABLETOP_DEV_MODE)",
    )
    serve.add_argument(
        "--no-reflection",
        dest="reflection",
        action="store_false",
        default=defaults.reflection,
        help="do not serve gRPC reflection (env TABLETOP_REFLECTION=0)",
    )
    serve.add_argument(
        "--heartbeat-seconds",
        type=seconds,
        default=defaults.heartbeat_seconds,
        metavar="SECONDS",
        help="how often an idle StreamGame sends a heartbeat "
        "(env TABLETOP_HEARTBEAT_SECONDS, default %(default)s)",
    )
    serve.add_argument(
        "--workers",
        type=count,
        default=defaults.workers,
        metavar="N",
        help="threads running the calls' rules and storage work; moves in flight "
        "at once share one commit (env TABLETOP_WORKERS, default %(default)s)",
    )
    serve.add_argument(
        "--processes",
        type=process_count,
        default=defaults.processes,
        metavar="N",
        help="server processes sharing the port and the database, about one per "
        "core; auto is one per core on PostgreSQL, 1 on other stores (env "
        "TABLETOP_PROCESSES, default %(default)s)",
    )
    serve.add_argument(
        "--rate-limit",
        type=rate,
        default=defaults.rate_limit,
        metavar="PER_SECOND",
        help="calls a second allowed per seat token (once it has acted for its "
        "seat), operator token or else client address; 0 turns every rate "
        "limit off "
        "(env TABLETOP_RATE_LIMIT, default %(default)g)",
    )
    serve.add_argument(
        "--rate-burst",
        type=burst,
        default=defaults.rate_burst,
        metavar="N",
        help="calls allowed at once above that rate; 0 turns limiting off "
        "(env TABLETOP_RATE_BURST, default %(default)s)",
    )
    _add_per_address_limits(serve, defaults)
    _add_client_caps(serve, defaults)
    serve.add_argument(
        "--operator-token-file",
        metavar="PATH",
        help="file holding the operator credential of GameAuditService (env "
        "TABLETOP_OPERATOR_TOKEN); without one every audit call is refused",
    )
    serve.add_argument(
        "--signing-key-file",
        metavar="PATH",
        help="Ed25519 private key (PEM) that signs audit exports, as tabletop "
        "keygen writes (env TABLETOP_SIGNING_KEY_FILE); without one the server "
        "makes an ephemeral key and says so at start",
    )
    serve.add_argument(
        "--session-key-file",
        metavar="PATH",
        help="Ed25519 private key (PEM, as tabletop keygen writes) that signs "
        "players' access tokens (env TABLETOP_SESSION_KEY_FILE); without one "
        "the server makes an ephemeral key and says so at start",
    )
    serve.add_argument(
        "--oidc-providers",
        metavar="PATH",
        help="JSON file of the OpenID Connect issuers whose ID tokens sign "
        "players in (env TABLETOP_OIDC_PROVIDERS); without one, sign-in is by "
        "device id only",
    )
    serve.add_argument(
        "--notify-webhook",
        metavar="URL",
        help="the push gateway each notification is POSTed to, signed (env "
        "TABLETOP_NOTIFY_WEBHOOK); needs --notify-secret-file",
    )
    serve.add_argument(
        "--notify-secret-file",
        metavar="PATH",
        help="file holding the secret (at least 32 characters) that signs the "
        "notifications' POSTs (env TABLETOP_NOTIFY_SECRET_FILE)",
    )
    serve.add_argument(
        "--keep-memory",
        type=_memory_size,
        default=defaults.keep_memory,
        metavar="BYTES",
        help="memory for games kept folded, the least recently used dropped "
        "first: bytes, or with B, KiB, MiB or GiB, as 64MiB "
        "(env TABLETOP_KEEP_MEMORY, default %(default)s bytes: 256MiB)",
    )
    serve.add_argument("--log-level", default="INFO", help="default %(default)s")
    serve.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=defaults.log_format,
        help="text, or json: one object per line with the call's method, game "
        "and request id (env TABLETOP_LOG_FORMAT, default %(default)s)",
    )
    serve.add_argument(
        "--metrics-listen",
        type=address,
        default=defaults.metrics_listen,
        metavar="HOST:PORT",
        help="serve Prometheus metrics over HTTP at /metrics there; port 0 picks "
        "a free one (env TABLETOP_METRICS_LISTEN, default off)",
    )
    serve.add_argument(
        "--http-listen",
        type=address,
        default=defaults.http_listen,
        metavar="HOST:PORT",
        help="serve the web page and the API over Connect and gRPC-Web (HTTP/1.1) "
        "there; port 0 picks a free one (env TABLETOP_HTTP_LISTEN, default off)",
    )
    serve.add_argument(
        "--http-allowed-origin",
        action="append",
        type=origin,
        default=None,
        metavar="ORIGIN",
        help="another site whose pages may call the API on the HTTP port (CORS), "
        "as https://host[:port], or *; repeatable (env "
        "TABLETOP_HTTP_ALLOWED_ORIGINS, space-separated; default none)",
    )
    serve.add_argument(
        "--otel-endpoint",
        default=defaults.otel_endpoint,
        metavar="URL",
        help="send a trace span per call to this OTLP/gRPC collector; needs the "
        "tracing extra (env OTEL_EXPORTER_OTLP_ENDPOINT, default off)",
    )
    from infra.audit_command import add_commands as add_audit_commands  # noqa: PLC0415
    from infra.bot_command import add_command  # noqa: PLC0415 (argparse only)
    from infra.terminal.commands import add_commands  # noqa: PLC0415 (argparse only)

    add_commands(commands)
    add_command(commands)
    add_audit_commands(commands)
    return parser


def _add_per_address_limits(serve: argparse.ArgumentParser, defaults: Settings) -> None:
    """Adds the options of the stricter limits per address of some methods."""
    for kind, method, (per_second, burst_size) in (
        ("create", "CreateGame", defaults.create_limit),
        ("join", "JoinGame", defaults.join_limit),
        ("list", "ListGames", defaults.list_limit),
        ("sign-in", "Each of " + ", ".join(SIGN_IN_CALLS), defaults.sign_in_limit),
    ):
        env = f"TABLETOP_{kind.upper().replace('-', '_')}_RATE"
        serve.add_argument(
            f"--{kind}-rate-limit",
            type=rate,
            default=per_second,
            metavar="PER_SECOND",
            help=f"{method} calls a second allowed per client address, on top of "
            f"--rate-limit; 0 turns this limit off (env {env}_LIMIT, default "
            "%(default)g)",
        )
        serve.add_argument(
            f"--{kind}-rate-burst",
            type=burst,
            default=burst_size,
            metavar="N",
            help=f"{method} calls allowed at once above that rate; 0 turns this "
            f"limit off (env {env}_BURST, default %(default)s)",
        )


def _add_client_caps(serve: argparse.ArgumentParser, defaults: Settings) -> None:
    """Adds the options of what one client may hold open and create."""
    serve.add_argument(
        "--idle-seconds",
        type=seconds,
        default=defaults.idle_seconds,
        metavar="SECONDS",
        help="close a connection without calls for this long "
        "(env TABLETOP_IDLE_SECONDS, default %(default)g)",
    )
    for name, what in (
        ("connections-per-address", "connections with calls per client address"),
        ("streams-per-address", "open StreamGame calls per client address"),
        ("streams-per-token", "open StreamGame calls per seat token"),
        ("waiting-tables", "tables waiting for players per client address"),
        ("timed-games", "unfinished games with a turn time limit per address"),
    ):
        env = f"TABLETOP_MAX_{name.upper().replace('-', '_')}"
        serve.add_argument(
            f"--max-{name}",
            type=cap,
            default=getattr(defaults, env.removeprefix("TABLETOP_").lower()),
            metavar="N",
            help=f"at most N {what}; 0 is no cap (env {env}, default %(default)s)",
        )
    serve.add_argument(
        "--table-wait-seconds",
        type=cap,
        default=defaults.table_wait_seconds,
        metavar="SECONDS",
        help="a new table closes if play has not begun after this long; 0: it "
        "waits for ever (env TABLETOP_TABLE_WAIT_SECONDS, default %(default)s)",
    )


def _memory_size(value: str) -> int:
    """Returns ``memory_size(value)``; argparse shows its refusal as it is."""
    try:
        return memory_size(value)
    except SettingsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _key_bytes(
    kind: type[SigningKey | SessionKey], path: str | None, processes: int
) -> bytes | None:
    """Returns a key to sign with, read once here; or one for a group to share."""
    if path is not None:
        try:
            return kind.from_file(path).private_bytes()
        except KeyFileError as error:
            flag = "--session-key-file" if kind is SessionKey else "--signing-key-file"
            raise KeyFileError(f"{flag}: {error}") from None
    if processes > 1:  # one ephemeral key for every process of the group
        return kind.generate().private_bytes()
    return None


def _notify_webhook(args: argparse.Namespace, env: Settings) -> tuple[str, str] | None:
    """Returns the push gateway and its secret from the flags, else the
    environment's."""
    if args.notify_webhook is None and args.notify_secret_file is None:
        return env.notify_webhook
    secret_file = args.notify_secret_file
    secret = (
        read_token_file(secret_file, "notification secret") if secret_file else None
    )
    return webhook(args.notify_webhook, secret)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
    except SettingsError as error:  # from a TABLETOP_* environment variable
        print(f"tabletop: {error}", file=sys.stderr)  # noqa: T201
        return 2
    if args.command in {"audit", "keygen"}:
        from infra.audit_command import run as run_audit  # noqa: PLC0415

        return run_audit(args)
    if args.command == "bot":
        from infra.bot_command import run as run_bot  # noqa: PLC0415

        return run_bot(args)
    if args.command in {"play", "spectate", "replay", "games"}:
        from infra.terminal.commands import run  # noqa: PLC0415 (keeps serve lean)

        return run(args)
    configure(args.log_level, args.log_format)
    try:
        token = operator_token(args.operator_token_file)
        env = Settings.from_env()
        signing_key_file = args.signing_key_file or env.signing_key_file
        session_key_file = args.session_key_file or env.session_key_file
        settings = Settings(
            listen=args.listen,
            database=args.database,
            dev_mode=args.dev,
            reflection=args.reflection,
            heartbeat_seconds=args.heartbeat_seconds,
            workers=args.workers,
            processes=args.processes,
            rate_limit=args.rate_limit,
            rate_burst=args.rate_burst,
            create_limit=(args.create_rate_limit, args.create_rate_burst),
            join_limit=(args.join_rate_limit, args.join_rate_burst),
            list_limit=(args.list_rate_limit, args.list_rate_burst),
            sign_in_limit=(args.sign_in_rate_limit, args.sign_in_rate_burst),
            idle_seconds=args.idle_seconds,
            max_connections_per_address=args.max_connections_per_address,
            max_streams_per_address=args.max_streams_per_address,
            max_streams_per_token=args.max_streams_per_token,
            max_waiting_tables=args.max_waiting_tables,
            max_timed_games=args.max_timed_games,
            table_wait_seconds=args.table_wait_seconds,
            keep_memory=args.keep_memory,
            operator_token=token,
            signing_key_file=signing_key_file,
            session_key_file=session_key_file,
            oidc_providers_file=args.oidc_providers or env.oidc_providers_file,
            notify_webhook=_notify_webhook(args, env),
            metrics_listen=args.metrics_listen,
            http_listen=args.http_listen,
            http_allowed_origins=tuple(
                args.http_allowed_origin or env.http_allowed_origins
            ),
            log_format=args.log_format,
            otel_endpoint=args.otel_endpoint or None,
        )
        settings = resolve_processes(settings)
        settings = replace(
            settings,
            signing_key_bytes=_key_bytes(
                SigningKey, signing_key_file, settings.processes
            ),
            session_key_bytes=_key_bytes(
                SessionKey, session_key_file, settings.processes
            ),
        )
        check_processes(settings)
        check_tracing(settings)
        check_addresses(settings)  # a server already running: one line, no start
        if settings.oidc_providers_file is not None:  # its JWKS files read too
            IdTokenVerifier(load_providers(Path(settings.oidc_providers_file)))
    except (SettingsError, KeyFileError, ProviderConfigError) as error:
        print(f"tabletop: {error}", file=sys.stderr)  # noqa: T201
        return 2
    # Another server may yet take the SQLite file or an address in between.
    try:
        if settings.processes > 1:
            from infra.processes import serve_processes  # noqa: PLC0415

            return serve_processes(settings, args.log_level)
        from infra.server import serve  # noqa: PLC0415 (keeps --help fast)

        asyncio.run(serve(settings))
    except SettingsError as error:
        print(f"tabletop: {error}", file=sys.stderr)  # noqa: T201
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
