"""The server's logs: text for a terminal, or JSON lines for a log shipper.

In JSON every record is one object on one line: ``time`` (RFC 3339, UTC),
``level``, ``logger``, ``message``, and while a call is being handled its
``method``, ``game_id`` and ``request_key`` (the key of the client's request
id, as the audit export shows it: never the id, a secret of its client), which
``call_context`` (an observer of services/api/observe.py) keeps in context
variables. Calls run their work
through ``asyncio.to_thread``, which copies the context, so records logged on
the worker threads carry them too. Nothing here reads a request or metadata
beyond those fields: no token, seed or card reaches a log through them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # keeps the command line's start free of gRPC
    from services.api.observe import Call

METHOD: ContextVar[str] = ContextVar("tabletop_method", default="")
GAME_ID: ContextVar[str] = ContextVar("tabletop_game_id", default="")
REQUEST_KEY: ContextVar[str] = ContextVar("tabletop_request_key", default="")
_CALL_FIELDS = (("method", METHOD), ("game_id", GAME_ID), ("request_key", REQUEST_KEY))
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
PROCESS_TEXT_FORMAT = "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"


@contextmanager
def call_context(call: Call) -> Iterator[None]:
    """Puts the call's method, game and request key in the log context."""
    values = (call.full_method, call.game_id, call.request_key)
    tokens = [
        var.set(value) for (_, var), value in zip(_CALL_FIELDS, values, strict=True)
    ]
    try:
        yield
    finally:
        for (_, var), token in zip(_CALL_FIELDS, tokens, strict=True):
            # A stream closed from another context cannot reset: its own
            # context ends with it anyway.
            with suppress(ValueError):
                var.reset(token)


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object on one line."""

    def format(self, record: logging.LogRecord) -> str:
        """Returns the record as JSON, with the call's fields when there is one."""
        entry: dict[str, str] = {
            "time": rfc3339(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.processName not in {"MainProcess", None}:
            entry["process"] = str(record.processName)
        for name, var in _CALL_FIELDS:
            value = var.get()
            if value:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False)


def rfc3339(created: float) -> str:
    """Returns a time as RFC 3339 in UTC, to the millisecond (``...T12:00:00.000Z``)."""
    moment = datetime.fromtimestamp(created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def configure(level: str, log_format: str, *, process_name: bool = False) -> None:
    """Sends the root logger's records to stderr in the chosen format."""
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter(PROCESS_TEXT_FORMAT if process_name else TEXT_FORMAT)
        )
    logging.basicConfig(level=level.upper(), handlers=[handler])
