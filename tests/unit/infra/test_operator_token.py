"""An operator token no gRPC call can carry is refused in one line that does not
show it, by ``tabletop audit export`` and by ``tabletop serve``."""

from __future__ import annotations

from pathlib import Path

import pytest

from infra.cli import main

GAME = "00000000-0000-4000-8000-000000000000"
# Tokens a header cannot carry: a second line, a control character, non-ASCII.
UNSENDABLE = ["first-part\nsecond-part", "first-part\x01second-part", "first-pärt"]


def _refused(err: str, where: str) -> None:
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"tabletop: the operator token {where}"), err
    assert "first-p" not in err
    assert "second-part" not in err


@pytest.mark.parametrize("token", UNSENDABLE)
def test_audit_export_refuses_a_token_file_no_call_can_carry(
    token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "operator-token"
    path.write_text(token + "\n", encoding="utf-8")
    arguments = ["--server", "127.0.0.1:1", "--operator-token-file", str(path)]
    assert main(["audit", "export", GAME, *arguments]) == 2
    _refused(capsys.readouterr().err, f"file {str(path)!r}")


@pytest.mark.parametrize("token", UNSENDABLE)
def test_audit_export_refuses_such_a_token_from_the_environment(
    token: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETOP_OPERATOR_TOKEN", token)
    assert main(["audit", "export", GAME, "--server", "127.0.0.1:1"]) == 2
    _refused(capsys.readouterr().err, "in TABLETOP_OPERATOR_TOKEN")


def test_serve_refuses_an_operator_token_no_client_could_send(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "operator-token"
    path.write_text("first-part\nsecond-part\n", encoding="utf-8")
    # An unusable database too: were the token taken, the refusal would name it.
    serve = ["serve", "--database", "mysql://h/db", "--operator-token-file", str(path)]
    assert main(serve) == 2
    _refused(capsys.readouterr().err, f"file {str(path)!r}")
