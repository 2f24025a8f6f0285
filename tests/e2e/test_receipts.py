"""Record digests, receipts and the key that signs exports, through a real server.

Every answer that shows a game or an event carries the record digest of the
revision it shows, the same for every viewer, and the operator's export holds
that digest at that revision: a client that keeps the last one holds a receipt
that ``tabletop audit verify --receipt`` checks. ``GetSigningKey`` serves the
public key that checks an export's signatures; a server started with another
key file signs with another key, and an export keeps verifying with the key
that signed it.
"""

from __future__ import annotations

import contextlib
import json
import random
import secrets
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import event_pb2, game_audit_service_pb2_grpc, game_pb2
from tabletop.v1 import game_audit_service_pb2 as audit_api
from tabletop.v1 import game_service_pb2 as api

from infra.cli import main
from services.audit import verify
from services.signing import PublicKey, parse_public_key
from tests.e2e.client import (
    STREAM_DEADLINE,
    auth,
    create_qwirkle,
    error_of,
    export,
    get,
    legal_moves,
    seat_of,
    signing_key,
    submit,
)
from tests.e2e.conftest import Server, start_server
from tests.pg import fresh_schema

ROOT = Path(__file__).resolve().parents[2]
SEED = bytes(range(32))
REVISIONS = (1, 2, 3, 4, 10, 25)  # GetGameRevision samples, besides the last
CONNECTIONS = 6  # new TCP connections to a group of processes


@dataclass
class Shown:
    """Every (what, revision, digest) the clients of one game were shown."""

    items: list[tuple[str, int, str]] = field(default_factory=list)

    def game(self, what: str, game: game_pb2.Game) -> None:
        self.items.append((what, game.revision, game.record_digest))

    def events(self, what: str, events: Iterable[event_pb2.GameEvent]) -> None:
        for event in events:
            self.items.append((what, event.revision, event.record_digest))

    def kinds(self) -> set[str]:
        return {what for what, _, _ in self.items}


class Follower:
    """Collects a game's stream in a background thread until the server ends it."""

    def __init__(
        self, server: Server, request: api.StreamGameRequest, token: str | None
    ) -> None:
        self.items: list[api.StreamGameResponse] = []
        self.call = server.stub.StreamGame(
            request,
            metadata=auth(token) if token else None,
            timeout=STREAM_DEADLINE,
        )
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with contextlib.suppress(grpc.RpcError):
            self.items.extend(self.call)

    def finish(self) -> list[api.StreamGameResponse]:
        self.thread.join(STREAM_DEADLINE)
        assert not self.thread.is_alive()
        assert self.call.code() == grpc.StatusCode.OK, self.call.details()
        return self.items


def record_stream(what: str, items: list[api.StreamGameResponse], shown: Shown) -> None:
    """Adds every snapshot and event of a stream to ``shown``."""
    for item in items:
        kind = item.WhichOneof("item")
        if kind == "snapshot":
            shown.game(f"{what} snapshot", item.snapshot)
        elif kind == "event":
            shown.events(f"{what} event", [item.event])
        elif kind == "events":
            shown.events(f"{what} batch", item.events.events)


def exported_digests(records: str) -> dict[int, str]:
    """Returns the record digest of every revision an export holds."""
    lines = [json.loads(line) for line in records.splitlines()]
    return {line["revision"]: line["digest"] for line in lines if "digest" in line}


@dataclass
class Played:
    """A finished game, everything its clients were shown, and its export."""

    server: Server
    name: str
    tokens: list[str]
    shown: Shown
    records: str
    last_digest: str  # the receipt a client keeps: the last digest it saw
    last_revision: int


@pytest.fixture(scope="module")
def played() -> Iterator[Played]:
    """Plays a Qwirkle game to the end, seen by seats, a spectator and streams."""
    with fresh_schema() as url:
        operator = secrets.token_hex(16)
        server = start_server(url, dev=True, operator_token=operator)
        try:
            yield _play(server, operator)
        finally:
            assert server.stop() == 0


def _play(server: Server, operator: str) -> Played:
    stub = server.stub
    shown = Shown()
    created = create_qwirkle(stub, "Ana", SEED)
    name = created.game.name
    shown.game("CreateGame", created.game)
    joined = stub.JoinGame(
        api.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    )
    shown.game("JoinGame", joined.game)
    tokens = [created.seat_token, joined.seat_token]
    started = stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    shown.game("StartGame", started.game)
    live = [
        ("live spectator", Follower(server, _follow(name, snapshot=True), None)),
        (
            "live seat",
            Follower(server, _follow(name, after=started.game.revision), tokens[1]),
        ),
    ]
    rng = random.Random(7)
    current = started.game
    while current.state == game_pb2.GAME_STATE_IN_PROGRESS:
        seat = seat_of(current.current_player)
        revision, moves = legal_moves(stub, name, tokens[seat])
        reply = submit(stub, name, tokens[seat], rng.choice(moves), revision)
        shown.game("SubmitMove", reply.game)
        shown.events("SubmitMove event", reply.events)
        current = reply.game
    for what, follower in live:
        record_stream(what, follower.finish(), shown)
    for what, token in (("seat", tokens[0]), ("spectator", None)):
        shown.game(f"GetGame as {what}", get(stub, name, token))
        for batch in (False, True):
            request = _follow(name, batch=batch)
            items = Follower(server, request, token).finish()
            record_stream(f"StreamGame as {what} (batch {batch})", items, shown)
        items = Follower(server, _follow(name, snapshot=True), token).finish()
        record_stream(f"StreamGame as {what} (snapshot)", items, shown)
        shown.events(f"ListGameEvents as {what}", _events(server, name, token))
    records = export(server.channel, name, operator)
    for revision in (*REVISIONS, current.revision):
        for what, token in (("seat 0", tokens[0]), ("seat 1", tokens[1]), ("", None)):
            snapshot = stub.GetGameRevision(
                api.GetGameRevisionRequest(name=f"{name}/revisions/{revision}"),
                metadata=auth(token) if token else None,
                timeout=10,
            ).snapshot
            assert snapshot.revision == revision
            shown.game(f"GetGameRevision as {what or 'spectator'}", snapshot)
    return Played(
        server, name, tokens, shown, records, current.record_digest, current.revision
    )


def _follow(
    name: str, *, after: int = 0, snapshot: bool = False, batch: bool = False
) -> api.StreamGameRequest:
    return api.StreamGameRequest(
        name=name, after_revision=after, snapshot_first=snapshot, batch_events=batch
    )


def _events(server: Server, name: str, token: str | None) -> list[event_pb2.GameEvent]:
    events: list[event_pb2.GameEvent] = []
    page_token = ""
    while True:
        reply = server.stub.ListGameEvents(
            api.ListGameEventsRequest(parent=name, page_size=50, page_token=page_token),
            metadata=auth(token) if token else None,
            timeout=10,
        )
        events.extend(reply.events)
        page_token = reply.next_page_token
        if not page_token:
            return events


def test_every_game_and_event_shown_carries_the_digest_the_export_holds(
    played: Played,
) -> None:
    digests = exported_digests(played.records)
    assert sorted(digests) == list(range(1, played.last_revision + 1))
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in digests.values())
    assert len(set(digests.values())) == len(digests)  # a chain: each one new
    kinds = played.shown.kinds()
    for expected in (
        "CreateGame",
        "JoinGame",
        "StartGame",
        "SubmitMove",
        "SubmitMove event",
        "live spectator snapshot",
        "live spectator event",
        "live seat event",
        "GetGame as seat",
        "GetGame as spectator",
        "StreamGame as seat (batch False) event",
        "StreamGame as spectator (batch True) batch",
        "StreamGame as seat (snapshot) snapshot",
        "StreamGame as spectator (snapshot) snapshot",
        "ListGameEvents as seat",
        "ListGameEvents as spectator",
        "GetGameRevision as seat 0",
        "GetGameRevision as seat 1",
        "GetGameRevision as spectator",
    ):
        assert expected in kinds, f"nothing shown by {expected}"
    wrong = [
        (what, revision, digest)
        for what, revision, digest in played.shown.items
        if digests.get(revision) != digest
    ]
    assert wrong == []
    # Every revision was shown, and the same digest to every viewer.
    by_revision: dict[int, set[str]] = {}
    for _, revision, digest in played.shown.items:
        by_revision.setdefault(revision, set()).add(digest)
    assert sorted(by_revision) == sorted(digests)
    assert all(len(seen) == 1 for seen in by_revision.values())


def test_a_kept_digest_is_a_receipt_the_export_must_hold(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(played.records, encoding="utf-8")
    key = signing_key(played.server.channel).text
    last = f"{played.last_revision}:{played.last_digest}"
    middle_revision = played.last_revision // 2
    middle = f"{middle_revision}:{exported_digests(played.records)[middle_revision]}"
    command = ["audit", "verify", str(path), "--public-key", key]
    assert main([*command, "--receipt", last, "--receipt", middle]) == 0
    output = capsys.readouterr().out
    assert "receipts:            2 of 2 matched" in output
    assert "signature:           valid" in output
    assert "RESULT: VERIFIED" in output

    changed = played.last_digest[:-1] + ("0" if played.last_digest[-1] != "0" else "1")
    assert main([*command, "--receipt", f"{played.last_revision}:{changed}"]) == 1
    output = capsys.readouterr().out
    assert f"revision {played.last_revision}: the receipt's digest {changed}" in output
    assert "NOT VERIFIED" in output


def test_the_signing_key_is_open_to_everyone_and_named_by_every_export(
    played: Played,
) -> None:
    audit = game_audit_service_pb2_grpc.GameAuditServiceStub(played.server.channel)
    request = audit_api.GetSigningKeyRequest()
    replies = [
        audit.GetSigningKey(request, metadata=metadata, timeout=10)
        for metadata in (None, auth(played.tokens[0]), auth("nonsense"))
    ]
    assert replies[0] == replies[1] == replies[2]
    key = replies[0]
    assert key.ephemeral  # started without a key file
    public = parse_public_key(key.text)
    assert public.raw == key.public_key
    assert public.fingerprint == key.fingerprint
    assert key.text.startswith("ed25519:")
    header = json.loads(played.records.splitlines()[0])
    assert header["format"] == "tabletop-audit/v2"
    assert header["key"] == key.fingerprint
    report = verify(played.records, public_keys=[public])
    assert report.ok, report.render()
    assert report.signature.startswith("valid")


def test_get_signing_key_is_rate_limited_like_any_call(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "1")
    monkeypatch.setenv("TABLETOP_RATE_BURST", "2")
    server = start_server(postgres_url, dev=True)
    try:
        audit = game_audit_service_pb2_grpc.GameAuditServiceStub(server.channel)
        request = audit_api.GetSigningKeyRequest()
        refusal = None
        for _ in range(6):  # a burst of 2; the bucket refills a little meanwhile
            try:
                audit.GetSigningKey(request, timeout=10)
            except grpc.RpcError as error:
                refusal = error
                break
        assert refusal is not None, "GetSigningKey was never limited"
        code, reason, _ = error_of(refusal)
        assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    finally:
        assert server.stop() == 0


def _keygen(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Writes a key file with ``tabletop keygen``; returns its public key's text."""
    assert main(["keygen", str(path)]) == 0
    output = capsys.readouterr().out
    line = next(line for line in output.splitlines() if line.startswith("public key:"))
    return line.split(":", 1)[1].strip()


def _a_few_moves(server: Server) -> str:
    name, tokens = _two_seats(server)
    current = get(server.stub, name, tokens[0])
    for _ in range(3):
        seat = seat_of(current.current_player)
        revision, moves = legal_moves(server.stub, name, tokens[seat])
        current = submit(server.stub, name, tokens[seat], moves[0], revision).game
    return name


def _two_seats(server: Server) -> tuple[str, list[str]]:
    created = create_qwirkle(server.stub, "Ana", SEED)
    name = created.game.name
    joined = server.stub.JoinGame(
        api.JoinGameRequest(name=name, display_name="Ben", request_id=str(uuid.uuid4()))
    )
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(created.seat_token), timeout=10
    )
    return name, [created.seat_token, joined.seat_token]


def test_a_new_key_signs_new_exports_and_old_exports_keep_their_key(
    postgres_url: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    old_file, new_file = tmp_path / "old.pem", tmp_path / "new.pem"
    old_text = _keygen(old_file, capfd)
    new_text = _keygen(new_file, capfd)
    operator = secrets.token_hex(16)

    first = start_server(
        postgres_url, dev=True, operator_token=operator, signing_key_file=str(old_file)
    )
    try:
        served = signing_key(first.channel)
        assert served.text == old_text
        assert not served.ephemeral
        name = _a_few_moves(first)
        old_export = export(first.channel, name, operator)
    finally:
        assert first.stop() == 0
    err = capfd.readouterr().err  # a lasting key: no warning about it
    assert "audit exports are signed with an ephemeral key" not in err

    second = start_server(
        postgres_url, dev=True, operator_token=operator, signing_key_file=str(new_file)
    )
    try:
        rotated = signing_key(second.channel)
        new_export = export(second.channel, name, operator)
    finally:
        assert second.stop() == 0
    assert rotated.text == new_text != served.text
    assert rotated.fingerprint != served.fingerprint
    assert not rotated.ephemeral

    old_key, new_key = parse_public_key(old_text), parse_public_key(new_text)
    report = verify(old_export, public_keys=[old_key])
    assert report.ok, report.render()
    assert report.signature.startswith("valid")
    alone = verify(old_export, public_keys=[new_key])
    assert not alone.ok
    assert not alone.signature.startswith("valid")
    assert served.fingerprint in alone.render()  # it names the key that signed
    both = verify(old_export, public_keys=[new_key, old_key])
    assert both.ok, both.render()
    fresh = verify(new_export, public_keys=[new_key])
    assert fresh.ok, fresh.render()
    assert fresh.signature == f"valid (key {rotated.fingerprint})"
    assert exported_digests(new_export) == exported_digests(old_export)


def test_a_server_without_a_key_file_warns_with_its_ephemeral_fingerprint(
    postgres_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    capfd.readouterr()
    server = start_server(postgres_url, dev=True)
    try:
        key = signing_key(server.channel)
    finally:
        assert server.stop() == 0
    assert key.ephemeral
    log = capfd.readouterr().err
    warning = next(line for line in log.splitlines() if "WARNING" in line)
    assert "no --signing-key-file" in warning
    assert "ephemeral key" in warning
    assert key.fingerprint in warning


def _serve(database: str, key_file: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
    command += ["--database", database, "--signing-key-file", str(key_file)]
    return subprocess.run(  # noqa: S603 (our own CLI)
        command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )


def test_serve_refuses_a_missing_or_bad_key_file(
    postgres_url: str, tmp_path: Path
) -> None:
    missing = tmp_path / "missing.pem"
    refused = _serve(postgres_url, missing)
    assert refused.returncode == 2, refused.stderr
    assert str(missing) in refused.stderr
    assert "cannot read the signing key file" in refused.stderr

    public_only = tmp_path / "public.pem"
    public_only.write_text(PublicKey(bytes(32)).text + "\n", encoding="utf-8")
    garbage = tmp_path / "garbage.pem"
    garbage.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot a key\n")
    for bad in (public_only, garbage):
        refused = _serve(postgres_url, bad)
        assert refused.returncode == 2, refused.stderr
        assert f"{bad} is not an unencrypted Ed25519 private key" in refused.stderr


def test_every_process_of_a_group_signs_with_one_key(postgres_url: str) -> None:
    operator = secrets.token_hex(16)
    group = start_server(postgres_url, dev=True, operator_token=operator, processes=2)
    # Each channel its own TCP connection, spread over the processes by the kernel.
    channels = [
        grpc.insecure_channel(group.address, [("grpc.use_local_subchannel_pool", 1)])
        for _ in range(CONNECTIONS)
    ]
    try:
        name = _a_few_moves(group)
        keys = {signing_key(channel).SerializeToString() for channel in channels}
        assert len(keys) == 1
        key = signing_key(channels[0])
        assert key.ephemeral  # made once by the supervisor, lasting no longer
        public = parse_public_key(key.text)
        for channel in channels:
            report = verify(export(channel, name, operator), public_keys=[public])
            assert report.ok, report.render()
            assert report.signature == f"valid (key {key.fingerprint})"
    finally:
        for channel in channels:
            channel.close()
        assert group.stop() == 0
