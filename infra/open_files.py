"""How many connections a server process may hold: its open files.

Every server process raises its open-file limit to the hard limit when it
starts (``raise_open_file_limit``): each connection holds a descriptor, and
the usual soft limit of 1,024 lets about a thousand idle connections lock new
clients out. The gRPC server is told to accept connections only up to that
limit less ``RESERVED_FILES`` (``connection_options``), so a flood of
connections is refused at the door instead of leaving the database pool, the
event store and the logs without descriptors.
"""

from __future__ import annotations

import logging
import resource

from infra.settings import Settings

log = logging.getLogger(__name__)

# Descriptors kept from gRPC's connections: the PostgreSQL pool (a few tens),
# the SQLite file, the logs, the metrics server, gRPC's own pipes and epoll.
RESERVED_FILES = 256
MIN_CONNECTIONS = 64  # accepted whatever the limit, or nobody could call


def raise_open_file_limit() -> tuple[int, int]:
    """Raises this process's soft open-file limit to its hard one; returns both.

    Where the hard limit is unlimited or cannot be reached (macOS refuses
    more than ``OPEN_MAX``), the soft limit stays as it was.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            log.warning("cannot raise the open-file limit from %d to %d", soft, hard)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft, hard


def connection_options(settings: Settings) -> tuple[tuple[str, int], ...]:
    """Returns the gRPC server options that bound its connections."""
    return (
        ("grpc.max_connection_idle_ms", round(settings.idle_seconds * 1000)),
        ("grpc.max_allowed_incoming_connections", connection_limit()),
    )


def connection_limit() -> int:
    """Returns how many connections a port accepts: the files left to open.

    The HTTP port (infra/http_api.py) answers ``503`` beyond it.
    """
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    most = soft - RESERVED_FILES if soft != resource.RLIM_INFINITY else 1 << 20
    return max(MIN_CONNECTIONS, most)
