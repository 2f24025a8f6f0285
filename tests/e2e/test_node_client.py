"""A Node.js client (``tests/node``) plays a whole Qwirkle game on a real server.

It loads ``protos/`` at run time with ``@grpc/proto-loader``, as an app in any
language with its own generated code would, and decodes a refusal's
``google.rpc.Status``. This test checks what it reports against the server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tabletop.v1 import game_pb2

from tests.e2e.client import get, seat_of, verified_export
from tests.e2e.conftest import Server

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
SCRIPT = NODE_DIR / "play_qwirkle.mjs"
TIMEOUT = 120  # seconds for the whole game; it takes a few


def _node() -> str:
    """Returns the ``node`` executable; fails (never skips) when it cannot run."""
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "`node` is not on PATH: install Node.js 20 or later to run the Node.js "
            "client of tests/node",
            pytrace=False,
        )
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.fail(
            f"{NODE_DIR / 'node_modules'} is missing: `make test` installs it, "
            "or run `npm ci --prefix tests/node`",
            pytrace=False,
        )
    return node


def _play(server: Server) -> dict[str, Any]:
    """Runs the client against ``server``; returns its one-line JSON summary."""
    node = _node()
    try:
        done = subprocess.run(  # noqa: S603 (our own script, fixed arguments)
            [node, str(SCRIPT), server.address],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        msg = f"the Node.js client did not finish in {TIMEOUT} s: {expired.stderr!r}"
        raise AssertionError(msg) from expired
    assert done.returncode == 0, (
        f"the Node.js client exited {done.returncode}:\n{done.stderr}{done.stdout}"
    )
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, f"expected one summary line, got {done.stdout!r}"
    summary: dict[str, Any] = json.loads(lines[0])
    return summary


def test_a_node_client_plays_a_whole_qwirkle_game(server: Server) -> None:
    summary = _play(server)

    final = get(server.stub, summary["game"])
    assert final.game_type == game_pb2.GAME_TYPE_QWIRKLE
    assert final.state == game_pb2.GAME_STATE_FINISHED
    assert final.move_count == summary["moves"] > 0
    assert [player.score for player in final.players] == summary["scores"]
    assert [seat_of(winner) for winner in final.winners] == summary["winners"]
    # The spectator's stream saw every revision, the last one included.
    assert final.revision == summary["finalRevision"] == summary["eventsStreamed"]
    assert summary["errorsChecked"] == ["NOT_YOUR_TURN", "REVISION_MISMATCH"]

    assert server.operator_token is not None
    report = verified_export(server.channel, final.name, server.operator_token)
    assert report.ok, report.render()
    assert report.finished
