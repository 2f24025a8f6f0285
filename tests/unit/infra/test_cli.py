"""The ``tabletop`` command line."""

from __future__ import annotations

import pytest

from infra.cli import build_parser, main


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
