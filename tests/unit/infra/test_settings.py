"""Server settings: the database URL and the event store it selects."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from infra.databases import (
    describe,
    persistence_env,
    resolve_processes,
    sqlite_path,
    usable_cores,
    where,
)
from infra.settings import (
    AUTO_PROCESSES,
    DEFAULT_CREATE_LIMIT,
    DEFAULT_DATABASE,
    DEFAULT_JOIN_LIMIT,
    DEFAULT_KEEP_MEMORY,
    DEFAULT_LIST_LIMIT,
    DEFAULT_LISTEN,
    DEFAULT_RATE_BURST,
    DEFAULT_RATE_LIMIT,
    DEFAULT_SIGN_IN_LIMIT,
    DEFAULT_WORKERS,
    MIN_WEBHOOK_SECRET,
    SIGN_IN_CALLS,
    Settings,
    SettingsError,
    memory_size,
    webhook,
)
from services.kept import KEEP_MEMORY

# --- PostgreSQL ---


def test_a_postgresql_url_selects_postgres_with_every_part() -> None:
    assert persistence_env("postgresql://alice:s3cret@db.example:6543/games") == {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_HOST": "db.example",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "alice",
        "POSTGRES_PASSWORD": "s3cret",
        "POSTGRES_DBNAME": "games",
    }


def test_the_postgres_scheme_is_accepted_too() -> None:
    env = persistence_env("postgres://alice@db.example/games")
    assert env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert env["POSTGRES_DBNAME"] == "games"


def test_percent_escapes_in_user_and_password_are_decoded() -> None:
    env = persistence_env("postgresql://al%40ice:p%40ss%3Aw%2Frd%25@localhost/games")
    assert env["POSTGRES_USER"] == "al@ice"
    assert env["POSTGRES_PASSWORD"] == "p@ss:w/rd%"


def test_percent_escapes_in_the_database_name_are_decoded() -> None:
    env = persistence_env("postgresql://alice@localhost/my%20games")
    assert env["POSTGRES_DBNAME"] == "my games"


def test_a_bare_postgresql_url_uses_the_defaults() -> None:
    assert persistence_env("postgresql://") == {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
        "POSTGRES_DBNAME": "postgres",
    }


def test_a_url_with_only_a_host_defaults_port_user_password_and_database() -> None:
    env = persistence_env("postgresql://db.example")
    assert env["POSTGRES_HOST"] == "db.example"
    assert env["POSTGRES_PORT"] == "5432"
    assert env["POSTGRES_USER"] == "postgres"
    assert env["POSTGRES_PASSWORD"] == ""
    assert env["POSTGRES_DBNAME"] == "postgres"


def test_an_ipv6_host_loses_its_brackets() -> None:
    env = persistence_env("postgresql://[::1]:5433/games")
    assert (env["POSTGRES_HOST"], env["POSTGRES_PORT"]) == ("::1", "5433")


def test_a_schema_query_parameter_selects_the_schema() -> None:
    env = persistence_env("postgresql://localhost/games?schema=tabletop_test")
    assert env["POSTGRES_SCHEMA"] == "tabletop_test"
    assert "POSTGRES_SCHEMA" not in persistence_env("postgresql://localhost/games")


@pytest.mark.parametrize(
    "url", ["postgresql://localhost:notaport/games", "postgresql://localhost:70000/g"]
)
def test_a_bad_port_is_a_settings_error(url: str) -> None:
    with pytest.raises(SettingsError):
        persistence_env(url)


# --- SQLite and memory ---


def test_a_relative_sqlite_path_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = persistence_env("sqlite:///var/tabletop.sqlite3")
    # Resolved once, at start: the store and its lock stay put whatever the
    # working directory later becomes.
    assert env == {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path.resolve() / "var" / "tabletop.sqlite3"),
    }
    assert (tmp_path / "var").is_dir()


def test_the_default_database_is_a_file_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = sqlite_path(DEFAULT_DATABASE)
    assert path == tmp_path.resolve() / "var" / "tabletop.sqlite3"
    assert path is not None
    assert path.is_absolute()


@pytest.mark.parametrize(
    "url", ["sqlite://var/x.sqlite3", "sqlite://localhost/x.sqlite3", "sqlite://x"]
)
def test_a_sqlite_url_with_a_host_is_refused_with_the_right_spellings(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two slashes make "var" a host: the file used to land in the working
    # directory as x.sqlite3, far from where the operator looks for it.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError) as refused:
        persistence_env(url)
    message = str(refused.value)
    assert url in message
    assert "sqlite:///var/x.sqlite3" in message
    assert "sqlite:////" in message
    assert list(tmp_path.iterdir()) == []  # nothing created anywhere


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite://", "sqlite:", "sqlite:////"])
def test_a_sqlite_url_without_a_file_is_refused(url: str) -> None:
    with pytest.raises(SettingsError, match="names no file"):
        persistence_env(url)


def test_where_names_the_absolute_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    expected = tmp_path.resolve() / "var" / "t.sqlite3"
    assert where("sqlite:///var/t.sqlite3") == f"SQLite file {expected}"


def test_where_describes_other_stores_without_their_password() -> None:
    assert where("postgresql://a:pw@h/g") == "postgresql://a:***@h/g"
    assert where("memory:") == "memory:"
    assert sqlite_path("memory:") is None


def test_an_absolute_sqlite_path_keeps_its_leading_slash(tmp_path: Path) -> None:
    database = tmp_path / "nested" / "dir" / "games.sqlite3"
    env = persistence_env(f"sqlite:///{database}")
    assert str(database).startswith("/")
    assert env == {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(database),
    }
    assert database.parent.is_dir()
    assert not database.exists()


def test_a_sqlite_directory_that_cannot_be_made_is_a_settings_error(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(SettingsError, match="cannot make its directory"):
        persistence_env(f"sqlite:///{tmp_path}/file/games.sqlite3")


def test_percent_escapes_in_a_sqlite_path_are_decoded(tmp_path: Path) -> None:
    env = persistence_env(f"sqlite:///{tmp_path}/my%20games.sqlite3")
    assert env["SQLITE_DBNAME"] == f"{tmp_path}/my games.sqlite3"


def test_memory_selects_the_in_memory_store() -> None:
    assert persistence_env("memory:") == {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@pytest.mark.parametrize(
    "url", ["mysql://localhost/games", "", "games.sqlite3", "memory", "http://x/y"]
)
def test_an_unknown_scheme_is_a_settings_error(url: str) -> None:
    with pytest.raises(SettingsError, match="cannot use database"):
        persistence_env(url)


def test_a_settings_error_is_a_value_error() -> None:
    assert issubclass(SettingsError, ValueError)


# --- describe ---


def test_describe_hides_the_password() -> None:
    url = "postgresql://alice:s3cret@db.example:6543/games"
    assert describe(url) == "postgresql://alice:***@db.example:6543/games"


def test_describe_hides_a_percent_escaped_password() -> None:
    described = describe("postgresql://alice:p%40ss%3Aword@localhost/games")
    assert described == "postgresql://alice:***@localhost/games"
    assert "p%40ss" not in described


def test_describe_hides_a_password_equal_to_the_user_name() -> None:
    assert (
        describe("postgresql://pw:pw@localhost/g") == "postgresql://pw:***@localhost/g"
    )


@pytest.mark.parametrize(
    "url",
    ["postgresql://alice@localhost/games", "sqlite:///var/t.sqlite3", "memory:"],
)
def test_describe_leaves_a_url_without_a_password_unchanged(url: str) -> None:
    assert describe(url) == url


# --- Settings ---


def test_settings_default_to_loopback_and_the_embedded_database() -> None:
    settings = Settings.from_env({})
    assert settings == Settings(DEFAULT_LISTEN, DEFAULT_DATABASE, False, True)
    assert DEFAULT_DATABASE.startswith("sqlite:///")


def test_settings_come_from_tabletop_environment_variables() -> None:
    settings = Settings.from_env(
        {
            "TABLETOP_LISTEN": "0.0.0.0:6000",
            "TABLETOP_DATABASE": "memory:",
            "TABLETOP_DEV_MODE": " Yes ",
            "TABLETOP_REFLECTION": "off",
        }
    )
    assert settings == Settings("0.0.0.0:6000", "memory:", True, False)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", True),
        ("true", True),
        ("ON", True),
        ("0", False),
        ("no", False),
        ("", False),
        ("maybe", False),
    ],
)
def test_a_flag_is_on_only_for_a_yes_word(value: str, expected: bool) -> None:
    assert Settings.from_env({"TABLETOP_DEV_MODE": value}).dev_mode is expected


def test_the_worker_threads_come_from_the_environment() -> None:
    assert Settings.from_env({}).workers == DEFAULT_WORKERS
    assert Settings.from_env({"TABLETOP_WORKERS": "64"}).workers == 64


@pytest.mark.parametrize("value", ["0", "-3", "1001", "many", "2.5", ""])
def test_a_worker_count_out_of_range_is_a_settings_error(value: str) -> None:
    with pytest.raises(SettingsError, match="whole number from 1 to 1000"):
        Settings.from_env({"TABLETOP_WORKERS": value})


def test_the_server_processes_come_from_the_environment() -> None:
    assert Settings.from_env({}).processes == 1
    assert Settings.from_env({"TABLETOP_PROCESSES": "2"}).processes == 2


@pytest.mark.parametrize(
    ("database", "processes"),
    [
        ("postgresql://postgres@127.0.0.1:5432/postgres", usable_cores()),
        ("sqlite:///var/games.sqlite3", 1),
        ("memory:", 1),
    ],
)
def test_auto_processes_are_one_per_core_on_postgresql_else_one(
    database: str, processes: int
) -> None:
    auto = Settings.from_env({"TABLETOP_PROCESSES": "auto"})
    assert auto.processes == AUTO_PROCESSES
    resolved = resolve_processes(replace(auto, database=database))
    assert resolved.processes == processes
    two = Settings(database=database, processes=2)
    assert resolve_processes(two) == two  # a number stays as given


# --- rate limits ---


def test_rate_limits_are_on_by_default() -> None:
    settings = Settings.from_env({})
    assert (settings.rate_limit, settings.rate_burst) == (
        DEFAULT_RATE_LIMIT,
        DEFAULT_RATE_BURST,
    )
    assert settings.rate_limited


def test_rate_limits_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {"TABLETOP_RATE_LIMIT": "2.5", "TABLETOP_RATE_BURST": "7"}
    )
    assert (settings.rate_limit, settings.rate_burst) == (2.5, 7)


@pytest.mark.parametrize(
    "env", [{"TABLETOP_RATE_LIMIT": "0"}, {"TABLETOP_RATE_BURST": "0"}]
)
def test_a_zero_rate_or_burst_turns_limiting_off(env: dict[str, str]) -> None:
    assert not Settings.from_env(env).rate_limited


@pytest.mark.parametrize("value", ["-1", "fast", "inf", "nan", ""])
def test_a_rate_that_is_not_a_number_of_calls_is_a_settings_error(value: str) -> None:
    with pytest.raises(SettingsError, match="calls per second"):
        Settings.from_env({"TABLETOP_RATE_LIMIT": value})


@pytest.mark.parametrize("value", ["-1", "2.5", "many", ""])
def test_a_burst_that_is_not_a_whole_number_is_a_settings_error(value: str) -> None:
    with pytest.raises(SettingsError, match="whole number of calls"):
        Settings.from_env({"TABLETOP_RATE_BURST": value})


# --- the stricter limits per address of CreateGame, JoinGame and ListGames ---


def test_create_join_list_and_sign_in_have_their_own_limits_by_default() -> None:
    assert Settings.from_env({}).per_address_limits == {
        "CreateGame": DEFAULT_CREATE_LIMIT,
        "JoinGame": DEFAULT_JOIN_LIMIT,
        "ListGames": DEFAULT_LIST_LIMIT,
        "SignInWithDevice": DEFAULT_SIGN_IN_LIMIT,
        "SignInWithIdToken": DEFAULT_SIGN_IN_LIMIT,
        "RefreshSession": DEFAULT_SIGN_IN_LIMIT,
        "SignOut": DEFAULT_SIGN_IN_LIMIT,
    }


def test_the_per_address_limits_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "TABLETOP_CREATE_RATE_LIMIT": "0.5",
            "TABLETOP_CREATE_RATE_BURST": "3",
            "TABLETOP_JOIN_RATE_LIMIT": "4",
            "TABLETOP_LIST_RATE_BURST": "7",
        }
    )
    assert settings.create_limit == (0.5, 3)
    assert settings.join_limit == (4.0, DEFAULT_JOIN_LIMIT[1])
    assert settings.list_limit == (DEFAULT_LIST_LIMIT[0], 7)


@pytest.mark.parametrize(
    "env", [{"TABLETOP_LIST_RATE_LIMIT": "0"}, {"TABLETOP_LIST_RATE_BURST": "0"}]
)
def test_a_zero_turns_one_per_address_limit_off(env: dict[str, str]) -> None:
    limits = Settings.from_env(env).per_address_limits
    assert set(limits) == {"CreateGame", "JoinGame", *SIGN_IN_CALLS}


@pytest.mark.parametrize(
    "env",
    [
        {"TABLETOP_CREATE_RATE_LIMIT": "-1"},
        {"TABLETOP_JOIN_RATE_BURST": "2.5"},
        {"TABLETOP_LIST_RATE_LIMIT": "often"},
    ],
)
def test_a_bad_per_address_limit_is_refused(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_sign_in_limits_come_from_the_environment() -> None:
    env = {"TABLETOP_SIGN_IN_RATE_LIMIT": "3", "TABLETOP_SIGN_IN_RATE_BURST": "9"}
    assert Settings.from_env(env).sign_in_limit == (3.0, 9)


# --- the push gateway ---


def test_a_push_gateway_comes_with_its_secret(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s" * MIN_WEBHOOK_SECRET + "\n")
    env = {
        "TABLETOP_NOTIFY_WEBHOOK": "https://push.example.test/tabletop",
        "TABLETOP_NOTIFY_SECRET_FILE": str(secret),
    }
    assert Settings.from_env(env).notify_webhook == (
        "https://push.example.test/tabletop",
        "s" * MIN_WEBHOOK_SECRET,
    )
    assert Settings.from_env({}).notify_webhook is None
    assert "s" * MIN_WEBHOOK_SECRET not in repr(Settings.from_env(env))


@pytest.mark.parametrize(
    ("url", "secret", "complaint"),
    [
        ("https://push.example.test/", None, "needs --notify-secret-file"),
        ("https://push.example.test/", "short", "at least 32"),
        ("ftp://push.example.test/", "s" * 40, "http:// or https://"),
        (None, "s" * 40, "needs --notify-webhook"),
    ],
)
def test_a_half_or_wrongly_set_push_gateway_is_refused(
    url: str | None, secret: str | None, complaint: str
) -> None:
    with pytest.raises(SettingsError, match=complaint):
        webhook(url, secret)


# --- kept games' memory ---


def test_the_kept_games_memory_defaults_to_the_kept_games_default() -> None:
    assert Settings.from_env({}).keep_memory == DEFAULT_KEEP_MEMORY == KEEP_MEMORY


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("268435456", 268_435_456),
        ("64MiB", 64 * 1024**2),
        ("64 mib", 64 * 1024**2),
        (" 512KiB ", 512 * 1024),
        ("1.5GiB", 3 * 1024**3 // 2),
        ("4096B", 4096),
        ("1", 1),
    ],
)
def test_the_kept_games_memory_reads_bytes_and_units(value: str, expected: int) -> None:
    assert memory_size(value) == expected
    environ = {"TABLETOP_KEEP_MEMORY": value}
    assert Settings.from_env(environ).keep_memory == expected


@pytest.mark.parametrize(
    "value",
    ["", "0", "-1", "0MiB", "64MB", "64M", "12XB", "MiB", "1.5", "nan", "infGiB"],
)
def test_a_bad_kept_games_memory_is_refused_with_the_units(value: str) -> None:
    with pytest.raises(SettingsError, match="positive number of bytes, with B, KiB"):
        memory_size(value)
    with pytest.raises(SettingsError, match=repr(value).replace(".", r"\.")):
        Settings.from_env({"TABLETOP_KEEP_MEMORY": value})


def test_auto_processes_count_the_cores_this_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--processes auto`` counts the cores the server may run on, not the host's.

    A server pinned (taskset, a container's cpuset) to 2 of 64 cores that
    started 64 processes, each with its own connection pool and LISTEN
    connection, could exhaust PostgreSQL's max_connections (100 by default).
    """
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    settings = Settings(
        database="postgresql://u:p@localhost:5432/db", processes=AUTO_PROCESSES
    )
    assert resolve_processes(settings).processes == 2
