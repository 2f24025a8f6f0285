"""The command line's options for the stricter limits per address of some methods."""

from __future__ import annotations

import pytest

from infra.cli import build_parser, main
from infra.settings import DEFAULT_CREATE_LIMIT, DEFAULT_JOIN_LIMIT, DEFAULT_LIST_LIMIT


def test_per_address_limits_default_to_the_settings_defaults() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.create_rate_limit, args.create_rate_burst) == DEFAULT_CREATE_LIMIT
    assert (args.join_rate_limit, args.join_rate_burst) == DEFAULT_JOIN_LIMIT
    assert (args.list_rate_limit, args.list_rate_burst) == DEFAULT_LIST_LIMIT


def test_per_address_limits_are_options_with_defaults_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TABLETOP_JOIN_RATE_LIMIT", "3")
    monkeypatch.setenv("TABLETOP_JOIN_RATE_BURST", "6")
    args = build_parser().parse_args(["serve"])
    assert (args.join_rate_limit, args.join_rate_burst) == (3.0, 6)
    args = build_parser().parse_args(
        ["serve", "--create-rate-limit", "0.25", "--list-rate-burst", "0"]
    )
    assert (args.create_rate_limit, args.list_rate_burst) == (0.25, 0)


def test_serve_help_documents_every_per_address_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for kind, method in (("CREATE", "CreateGame"), ("JOIN", "JoinGame")):
        assert f"--{kind.lower()}-rate-limit PER_SECOND {method}" in out
        assert f"TABLETOP_{kind}_RATE_LIMIT" in out
        assert f"TABLETOP_{kind}_RATE_BURST" in out
    assert "--list-rate-burst N ListGames" in out


@pytest.mark.parametrize(
    "option",
    [
        ["--create-rate-limit", "-1"],
        ["--join-rate-burst", "1.5"],
        ["--list-rate-limit", "x"],
    ],
)
def test_a_per_address_limit_out_of_range_is_refused(option: list[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *option])


def test_a_bad_per_address_limit_in_the_environment_exits_with_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETOP_CREATE_RATE_BURST", "many")
    assert main(["serve"]) == 2
    assert "whole number of calls" in capsys.readouterr().err
