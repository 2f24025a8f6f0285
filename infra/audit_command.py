"""``tabletop audit export`` and ``verify``, ``tabletop keygen``: records, keys."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from infra.settings import SettingsError, operator_token
from infra.terminal.commands import server_option
from services.signing import (
    MAX_KEY_FILE_BYTES,
    TEXT_PREFIX,
    KeyFileError,
    PublicKey,
    SigningKey,
    parse_public_key,
)

DIGEST_LENGTH = 64  # hex digits of a record digest
# The largest export the client reads. A record of a few thousand events is a
# few megabytes, above gRPC's 4 MiB default; this leaves room for the longest.
MAX_EXPORT_BYTES = 256 * 1024 * 1024
EXPORT_SECONDS = 120.0


def add_commands(commands: Any) -> None:
    """Adds ``audit`` and ``keygen`` to the command line's subcommands."""
    audit = commands.add_parser(
        "audit",
        help="check exported game records",
        description="Work with the records GameAuditService.ExportGame exports.",
    )
    audit_commands = audit.add_subparsers(
        dest="audit_command", required=True, metavar="COMMAND"
    )
    export = audit_commands.add_parser(
        "export",
        help="export a game's signed record (operator only)",
        description="Write a game's whole record, signed, as GameAuditService."
        "ExportGame returns it, to standard output: tabletop audit export "
        "GAME_ID > game.jsonl, then tabletop audit verify game.jsonl. Needs the "
        "server's operator token. Exits 0 when written, 1 when the server "
        "refuses or does not answer, 2 on bad input.",
    )
    export.add_argument("game", metavar="GAME_ID", help="games/<id> or <id>")
    server_option(export)
    export.add_argument(
        "--operator-token-file",
        metavar="PATH",
        help="file holding the operator token the server was given (env "
        "TABLETOP_OPERATOR_TOKEN, as for serve)",
    )
    verify = audit_commands.add_parser(
        "verify",
        help="verify an exported record",
        description="Check an exported record offline: the signature of every "
        "line, the receipts given, its structure and, for a finished game, the "
        "revealed seed, every record digest and every request re-decided from "
        "nothing. Exits 0 when everything checked holds, 1 when something does "
        "not, 2 when the file or a key cannot be read.",
    )
    verify.add_argument("file", metavar="FILE", help="the exported JSON Lines file")
    verify.add_argument(
        "--public-key",
        action="append",
        default=[],
        metavar="KEY",
        help="a public key the signatures may be checked with: ed25519:<base64> "
        "(GetSigningKey's text), or a file holding one or a PEM key; repeatable, "
        "for exports signed before a key changed",
    )
    verify.add_argument(
        "--receipt",
        action="append",
        default=[],
        type=receipt,
        metavar="REVISION:DIGEST",
        help="a record digest a client was shown at a revision; the record must "
        "hold it there; repeatable",
    )
    verify.add_argument(
        "--kept-receipts",
        action="store_true",
        help="also check the receipts tabletop play kept for this game",
    )
    keygen = commands.add_parser(
        "keygen",
        help="write a key that signs audit exports",
        description="Write a new Ed25519 private key for serve --signing-key-file "
        "(PEM, readable by its owner only; an existing file is never "
        "overwritten) and print its public key and fingerprint.",
    )
    keygen.add_argument("file", metavar="FILE", help="where to write the key")


def run(args: argparse.Namespace) -> int:
    """Runs ``audit export``, ``audit verify`` or ``keygen``; returns the exit
    status."""
    if args.command == "keygen":
        return _keygen(args.file)
    if args.audit_command == "export":
        return _audit_export(args)
    return _audit_verify(args)


def receipt(value: str) -> tuple[int, str]:
    """Parses ``REVISION:DIGEST`` (argparse type)."""
    revision, _, digest = value.partition(":")
    digest = digest.strip().lower()
    if not revision.isdigit() or int(revision) < 1 or len(digest) != DIGEST_LENGTH:
        msg = f"{value!r} is not REVISION:DIGEST (a revision from 1, 64 hex digits)"
        raise argparse.ArgumentTypeError(msg)
    try:
        bytes.fromhex(digest)
    except ValueError:
        msg = f"{value!r}: the digest is not 64 hex digits"
        raise argparse.ArgumentTypeError(msg) from None
    return int(revision), digest


def _audit_export(args: argparse.Namespace) -> int:
    """Writes the export's JSON Lines, exactly as the server signed them."""
    # Imported here: keeps serve's start lean.
    import grpc  # noqa: PLC0415
    from tabletop.v1 import game_audit_service_pb2 as audit_api  # noqa: PLC0415
    from tabletop.v1 import game_audit_service_pb2_grpc  # noqa: PLC0415

    from infra.terminal.connection import (  # noqa: PLC0415
        ClientError,
        describe_error,
        game_name,
    )

    try:
        name = game_name(args.game)
        token = _operator_token(args.operator_token_file)
    except (ClientError, SettingsError) as error:
        print(f"tabletop: {error}", file=sys.stderr)  # noqa: T201
        return 2
    options = [("grpc.max_receive_message_length", MAX_EXPORT_BYTES)]
    with grpc.insecure_channel(args.server, options=options) as channel:
        stub = game_audit_service_pb2_grpc.GameAuditServiceStub(channel)
        try:
            reply = stub.ExportGame(
                audit_api.ExportGameRequest(name=name),
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=EXPORT_SECONDS,
            )
        except grpc.RpcError as error:
            print(f"tabletop: {describe_error(error)}", file=sys.stderr)  # noqa: T201
            return 1
    # The bytes verify reads: no newline translation, whatever the locale.
    sys.stdout.buffer.write(reply.records.encode("utf-8"))
    sys.stdout.buffer.flush()
    return 0


def _operator_token(path: str | None) -> str:
    """Returns the operator token from ``path``, else from the environment."""
    token = operator_token(path)
    if token is None:
        msg = (
            "audit export needs the server's operator token: --operator-token-file "
            "PATH (or TABLETOP_OPERATOR_TOKEN)"
        )
        raise SettingsError(msg)
    return token


def _audit_verify(args: argparse.Namespace) -> int:
    # Imported here: keeps serve's start lean.
    from infra.terminal.receipts import kept_receipts  # noqa: PLC0415
    from services.audit import verify  # noqa: PLC0415
    from services.audit.lines import game_of  # noqa: PLC0415

    path = args.file
    try:
        with open(path, "rb") as file:  # noqa: PTH123 (a path from the user)
            data = file.read()
    except OSError as error:
        print(f"tabletop: cannot read {path}: {error.strerror}", file=sys.stderr)  # noqa: T201
        return 2
    try:
        keys = [_public_key(text) for text in args.public_key]
    except UnicodeDecodeError:
        print("tabletop: a --public-key file is not text", file=sys.stderr)  # noqa: T201
        return 2
    except OSError as error:
        print(f"tabletop: cannot read a public key: {error}", file=sys.stderr)  # noqa: T201
        return 2
    except KeyFileError as error:
        print(f"tabletop: {error}", file=sys.stderr)  # noqa: T201
        return 2
    receipts = list(args.receipt)
    if args.kept_receipts:
        game = game_of(data)
        kept = kept_receipts(game) if game else []
        print(f"{len(kept)} receipt(s) kept for {game or 'this record'}")  # noqa: T201
        receipts += kept
    report = verify(data, public_keys=keys, receipts=receipts)
    print(report.render(), end="")  # noqa: T201
    return 0 if report.ok else 1


def _public_key(text: str) -> PublicKey:
    """Returns the key of ``ed25519:...`` or of the file a path names."""
    if not text.strip().startswith(TEXT_PREFIX):
        path = Path(text)
        if not path.is_file():  # a FIFO or a device would never end
            msg = f"{text} is not ed25519:<base64>, nor a file holding a key"
            raise KeyFileError(msg)
        with path.open(encoding="utf-8") as file:
            text = file.read(MAX_KEY_FILE_BYTES)
    return parse_public_key(text)


def _keygen(path: str) -> int:
    key = SigningKey.generate(ephemeral=False)
    try:
        key.write(path)
    except FileExistsError:
        print(f"tabletop: {path} exists; choose another file", file=sys.stderr)  # noqa: T201
        return 2
    except OSError as error:
        print(f"tabletop: cannot write {path}: {error.strerror}", file=sys.stderr)  # noqa: T201
        return 2
    print(f"wrote {path}")  # noqa: T201
    print(f"public key:  {key.public.text}")  # noqa: T201
    print(f"fingerprint: {key.public.fingerprint}")  # noqa: T201
    return 0
