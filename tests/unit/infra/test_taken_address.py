"""Addresses to listen on that are taken: refused in one line, nothing left open."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from infra.server import serve
from infra.settings import (
    AddressInUseError,
    Settings,
    SettingsError,
    check_addresses,
    check_free,
)
from infra.store_lock import lock_store


@pytest.fixture
def taken() -> Iterator[str]:
    """Yields the ``host:port`` of a loopback socket that listens."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield f"127.0.0.1:{held.getsockname()[1]}"


def free_address() -> str:
    """Returns a loopback ``host:port`` that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def test_a_taken_address_is_refused_naming_the_flag(taken: str) -> None:
    with pytest.raises(AddressInUseError) as refused:
        check_free(taken, "--http-listen")
    assert str(refused.value) == (
        f"{taken} is in use: is a server already running? "
        "(--http-listen HOST:PORT picks another)"
    )


def test_a_free_address_and_port_0_pass(taken: str) -> None:
    check_free(free_address(), "--listen")
    check_free(taken.rsplit(":", 1)[0] + ":0", "--listen")


def test_an_address_of_another_host_is_refused_with_the_reason() -> None:
    # 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
    with pytest.raises(SettingsError) as refused:
        check_free("192.0.2.1:50051", "--listen")
    assert not isinstance(refused.value, AddressInUseError)
    assert str(refused.value).startswith("cannot listen on 192.0.2.1:50051 (--listen):")


@pytest.mark.parametrize("flag", ["--listen", "--http-listen", "--metrics-listen"])
def test_every_address_of_the_settings_is_checked(taken: str, flag: str) -> None:
    any_port = "127.0.0.1:0"
    settings = {
        "--listen": Settings(listen=taken),
        "--http-listen": Settings(listen=any_port, http_listen=taken),
        "--metrics-listen": Settings(listen=any_port, metrics_listen=taken),
    }[flag]
    with pytest.raises(AddressInUseError) as refused:
        check_addresses(settings)
    assert f"({flag} HOST:PORT picks another)" in str(refused.value)


async def test_a_port_taken_after_the_check_stops_what_had_started(
    taken: str, tmp_path: Path
) -> None:
    # serve() binds the gRPC port, then finds the HTTP port taken.
    listen = free_address()
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    settings = Settings(listen=listen, database=database, http_listen=taken)
    with pytest.raises(AddressInUseError, match="--http-listen"):
        await serve(settings)
    check_free(listen, "--listen")  # the gRPC server let its port go
    lock = lock_store(database)  # and the store its lock
    assert lock is not None
    lock.release()
