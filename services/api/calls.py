"""Runs one unary call's handler off the event loop and maps its failures.

Use cases are synchronous (the event store is), so each call runs in a worker
thread. A refusal becomes its status; an unreachable store ``UNAVAILABLE`` with
retry advice; anything else is a bug: logged, and ``INTERNAL`` without details.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeVar

from eventsourcing.persistence import InterfaceError, OperationalError

from services.api.errors import ApiError, internal, unavailable

log = logging.getLogger(__name__)

Metadata: TypeAlias = Sequence[Any] | None
R = TypeVar("R")
T = TypeVar("T")


class StoreState:
    """Whether the event store answered its last probe (infra/server.py)."""

    reachable = True


STORE = StoreState()


async def serve(context: Any, handler: Callable[[R, Metadata], T], request: R) -> T:
    """Returns the handler's response, or aborts the call with the right status.

    While the store is known to be down a call is refused at once: tried, it
    would wait for a connection in each of the library's ten attempts (about
    12 s) and outlast a mobile client's deadline rather than advise a retry.
    """
    if not STORE.reachable:
        await context.abort_with_status(
            unavailable("The game store is unavailable; retry shortly.")
        )
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


def withheld_traceback(error: BaseException) -> str:
    """Returns an error's traceback (its chain included) without the messages.

    A bug's message holds whatever value the failing code had at hand: a
    ``KeyError``'s key may be a hidden tile, a ``TypeError`` may quote an event
    with every rack and the bag. Logs travel further than the event store, so
    they keep the types and the frames (code, never values) and nothing else.
    """
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = f"{type(current).__module__}.{type(current).__qualname__}"
        frames = "".join(traceback.format_tb(current.__traceback__))
        parts.append(f"Traceback (most recent call last):\n{frames}{kind}: (withheld)")
        current = current.__cause__ or current.__context__
    return "\n\nwhile handling the above, or caused by it:\n".join(reversed(parts))
