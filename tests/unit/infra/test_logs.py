"""JSON log lines, and the call fields the log context adds to them."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any

from infra.logs import JsonFormatter, call_context, rfc3339
from services.api.observe import Call

GAME = "0b5f4c1e-0d7a-4c1f-9a55-3f0e9b6f2a11"


def record(message: str = "moved %s", *args: object) -> logging.LogRecord:
    """Returns a record as ``logging`` makes one."""
    return logging.LogRecord(
        "services.games", logging.WARNING, __file__, 1, message, args, None
    )


def a_call(**fields: Any) -> Call:
    return Call(
        "tabletop.v1.GameService",
        "SubmitMove",
        streaming=False,
        request=None,
        metadata=(),
        **fields,
    )


def test_a_record_is_one_json_object_on_one_line() -> None:
    line = JsonFormatter().format(record("moved\n%s", "twice"))
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "WARNING"
    assert entry["logger"] == "services.games"
    assert entry["message"] == "moved\ntwice"
    assert entry["time"].endswith("Z")
    assert set(entry) == {"time", "level", "logger", "message"}


def test_times_are_rfc3339_in_utc_to_the_millisecond() -> None:
    assert rfc3339(0.5) == "1970-01-01T00:00:00.500Z"


def test_inside_a_call_a_record_names_its_method_game_and_request_key() -> None:
    with call_context(a_call(game_id=GAME, request_key="k-1")):
        entry = json.loads(JsonFormatter().format(record()))
    assert entry["method"] == "tabletop.v1.GameService/SubmitMove"
    assert entry["game_id"] == GAME
    assert entry["request_key"] == "k-1"
    after = json.loads(JsonFormatter().format(record()))
    assert "method" not in after


def test_a_call_without_game_or_request_id_leaves_them_out() -> None:
    with call_context(a_call()):
        entry = json.loads(JsonFormatter().format(record()))
    assert entry["method"] == "tabletop.v1.GameService/SubmitMove"
    assert "game_id" not in entry
    assert "request_key" not in entry


def test_the_call_fields_reach_the_worker_threads_of_a_call() -> None:
    def on_a_worker() -> dict[str, str]:
        entry: dict[str, str] = json.loads(JsonFormatter().format(record()))
        return entry

    async def handle() -> dict[str, str]:
        with call_context(a_call(game_id=GAME)):
            return await asyncio.to_thread(on_a_worker)

    assert asyncio.run(handle())["game_id"] == GAME


def test_an_exception_is_kept_in_the_object() -> None:
    try:
        raise ValueError("broken")  # noqa: TRY301
    except ValueError:
        failed = record()
        failed.exc_info = sys.exc_info()
    entry = json.loads(JsonFormatter().format(failed))
    assert entry["exception"].startswith("Traceback")
    assert "ValueError: broken" in entry["exception"]
