"""What the observation interceptor reads from a call: its game, request id, ending."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as api

from services.api.errors import unavailable
from services.api.observe import ending, game_id_of, reason_of, request_key_of
from services.request_ids import request_key

GAME = "0b5f4c1e-0d7a-4c1f-9a55-3f0e9b6f2a11"


class Ended:
    """The parts of a grpc.aio servicer context read once a call has ended."""

    def __init__(
        self, code: grpc.StatusCode | None, status: grpc.Status | None = None
    ) -> None:
        self._code = code
        self._trailing = status.trailing_metadata if status else ()

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def trailing_metadata(self) -> object:
        return self._trailing


@pytest.mark.parametrize(
    "request_message",
    [
        api.GetGameRequest(name=f"games/{GAME}"),
        api.GetGameRevisionRequest(name=f"games/{GAME}/revisions/3"),
        api.ListGameEventsRequest(parent=f"games/{GAME}"),
    ],
)
def test_the_game_comes_from_the_name_or_parent(request_message: object) -> None:
    assert game_id_of(request_message) == GAME


@pytest.mark.parametrize(
    "request_message",
    [
        api.GetGameRequest(name="games/not-a-game"),
        api.GetGameRequest(name=f"games/{GAME}x"),
        api.CreateGameRequest(),
        api.ListGamesRequest(),
    ],
)
def test_a_request_without_a_valid_game_name_names_no_game(
    request_message: object,
) -> None:
    assert game_id_of(request_message) == ""


def test_a_request_id_is_observed_only_by_its_key() -> None:
    key = request_key_of(api.SubmitMoveRequest(request_id="retry-1"))
    assert key == request_key("retry-1")
    assert "retry-1" not in key


def test_a_request_id_the_server_would_refuse_has_no_key() -> None:
    assert request_key_of(api.SubmitMoveRequest(request_id="x" * 101)) == ""
    assert request_key_of(api.SubmitMoveRequest(request_id="a\nb")) == ""
    assert request_key_of(api.GetGameRequest()) == ""


def test_an_aborted_call_ends_with_its_code_and_error_info_reason() -> None:
    status = unavailable("down", reason="SERVER_SHUTTING_DOWN")
    context = Ended(grpc.StatusCode.UNAVAILABLE, status)
    assert ending(context, RuntimeError("aborted")) == (
        grpc.StatusCode.UNAVAILABLE,
        "SERVER_SHUTTING_DOWN",
    )


def test_a_call_that_returned_ended_ok() -> None:
    assert ending(Ended(None), None) == (grpc.StatusCode.OK, "")


def test_a_cancelled_call_and_an_escaped_exception_have_no_reason() -> None:
    cancelled = ending(Ended(None), asyncio.CancelledError())
    assert cancelled == (grpc.StatusCode.CANCELLED, "")
    assert ending(Ended(None), KeyError("x")) == (grpc.StatusCode.UNKNOWN, "")


def test_details_that_do_not_decode_give_no_reason() -> None:
    assert reason_of((("grpc-status-details-bin", b"\xff\xff"),)) == ""
    assert reason_of((("other", "value"),)) == ""
