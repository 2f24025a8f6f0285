"""The ``tabletop`` command line."""

from __future__ import annotations

import pytest

from infra.cli import build_parser, main
from infra.settings import AUTO_PROCESSES


def test_help_lists_the_serve_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "serve" in capsys.readouterr().out


def test_serve_help_documents_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for option in ("--listen", "--database", "--dev", "--no-reflection"):
        assert option in out


def test_an_unusable_database_url_exits_with_a_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--database", "mysql://h/db"]) == 2
    assert "cannot use database" in capsys.readouterr().err


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_LISTEN", "127.0.0.1:6000")
    monkeypatch.setenv("TABLETOP_DATABASE", "memory:")
    monkeypatch.setenv("TABLETOP_DEV_MODE", "1")
    args = build_parser().parse_args(["serve"])
    assert (args.listen, args.database, args.dev) == ("127.0.0.1:6000", "memory:", True)


@pytest.mark.parametrize("database", ["memory:", "sqlite:///var/games.sqlite3"])
def test_several_processes_need_a_shared_database(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--processes", "2", "--database", database]) == 2
    assert "--processes above 1 needs a postgresql:// database" in (
        capsys.readouterr().err
    )


def test_a_process_count_out_of_range_is_refused() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--processes", "0"])


def test_the_process_count_may_be_auto() -> None:
    args = build_parser().parse_args(["serve", "--processes", "auto"])
    assert args.processes == AUTO_PROCESSES


def test_rate_limits_are_options_with_defaults_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "5")
    monkeypatch.setenv("TABLETOP_RATE_BURST", "9")
    args = build_parser().parse_args(["serve"])
    assert (args.rate_limit, args.rate_burst) == (5.0, 9)
    args = build_parser().parse_args(
        ["serve", "--rate-limit", "0.5", "--rate-burst", "0"]
    )
    assert (args.rate_limit, args.rate_burst) == (0.5, 0)


def test_serve_help_documents_the_rate_limits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "--rate-limit PER_SECOND" in out
    assert "--rate-burst N" in out
    assert "TABLETOP_RATE_LIMIT" in out


@pytest.mark.parametrize(
    "option", [["--rate-limit", "-1"], ["--rate-burst", "1.5"], ["--rate-limit", "x"]]
)
def test_a_rate_limit_out_of_range_is_refused(option: list[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *option])


def test_a_bad_rate_limit_in_the_environment_exits_with_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "lots")
    assert main(["serve"]) == 2
    assert "calls per second" in capsys.readouterr().err


def test_the_kept_games_memory_is_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    assert build_parser().parse_args(["serve"]).keep_memory == 256 * 1024**2
    args = build_parser().parse_args(["serve", "--keep-memory", "64MiB"])
    assert args.keep_memory == 64 * 1024**2
    monkeypatch.setenv("TABLETOP_KEEP_MEMORY", "1GiB")
    assert build_parser().parse_args(["serve"]).keep_memory == 1024**3


def test_a_bad_kept_games_memory_option_says_what_is_expected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--keep-memory", "64MB"])
    err = capsys.readouterr().err
    assert "argument --keep-memory: expected a positive number of bytes" in err
    assert "'64MB'" in err


def test_a_bad_kept_games_memory_in_the_environment_exits_with_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETOP_KEEP_MEMORY", "lots")
    assert main(["serve"]) == 2
    assert "positive number of bytes" in capsys.readouterr().err
