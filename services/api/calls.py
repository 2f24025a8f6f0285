"""Runs one unary call's handler off the event loop and maps its failures.

Use cases are synchronous (the event store is), so each call runs in a worker
thread. A refusal becomes its status; an unreachable store ``UNAVAILABLE`` with
retry advice; anything else is a bug: logged, and ``INTERNAL`` without details.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeVar

from eventsourcing.persistence import InterfaceError, OperationalError

from services.api.errors import ApiError, internal, unavailable
from services.tracebacks import withheld_traceback

log = logging.getLogger(__name__)

Metadata: TypeAlias = Sequence[Any] | None
R = TypeVar("R")
T = TypeVar("T")


async def serve(context: Any, handler: Callable[[R, Metadata], T], request: R) -> T:
    """Returns the handler's response, or aborts the call with the right status.

    While the store is known to be down the call never gets here: the server's
    gate (services/api/gate.py) refuses it at once.
    """
    try:
        return await asyncio.to_thread(handler, request, context.invocation_metadata())
    except ApiError as error:
        await context.abort_with_status(error.status)
    except (OperationalError, InterfaceError):
        log.warning("event store unavailable", exc_info=True)
        await context.abort_with_status(
            unavailable("The game store is unavailable; retry shortly.")
        )
    except Exception as error:  # noqa: BLE001 (a bug, whatever its type)
        log.error(  # noqa: TRY400 (the traceback is logged, without messages)
            "unhandled error in %s\n%s", handler.__name__, withheld_traceback(error)
        )
        await context.abort_with_status(internal())
    raise AssertionError  # abort_with_status always raises
