"""Request checks shared by every RPC: names, pages, filters and credentials."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any
from uuid import UUID

import grpc
import pytest
from google.rpc import code_pb2, error_details_pb2
from tabletop.v1 import game_pb2

from services.api.auth import bearer_token
from services.api.errors import DOMAIN, ApiError
from services.api.listing import GameFilter, parse_filter
from services.api.requests import (
    MAX_FILTER,
    MAX_PAGE_TOKEN,
    PageToken,
    decode_page_token,
    encode_page_token,
    page_size,
    parse_game_name,
)
from tests.helpers import error_info, status_details

GAME_ID = UUID("0f8e9a2c-52f4-4f0e-9b3a-6c1d2e3f4a5b")
QWIRKLE = game_pb2.GAME_TYPE_QWIRKLE
IN_PROGRESS = game_pb2.GAME_STATE_IN_PROGRESS
FINISHED = game_pb2.GAME_STATE_FINISHED


def api_error(call: Callable[[], Any]) -> ApiError:
    """Returns the ApiError a call raises."""
    with pytest.raises(ApiError) as caught:
        call()
    return caught.value


def assert_refused(
    error: ApiError, code: grpc.StatusCode, reason: str
) -> error_details_pb2.ErrorInfo:
    """Checks an error's status code and ErrorInfo; returns the ErrorInfo."""
    assert error.status.code is code
    info = error_info(error)
    assert info.reason == reason
    assert info.domain == DOMAIN == "tabletop.games"
    return info


def field_violations(error: ApiError) -> list[str]:
    for detail in status_details(error).details:
        request = error_details_pb2.BadRequest()
        if detail.Unpack(request):  # False when the detail is of another type
            return [violation.field for violation in request.field_violations]
    return []


# --- parse_game_name ---


def test_a_game_name_gives_its_uuid() -> None:
    assert parse_game_name(f"games/{GAME_ID}") == GAME_ID


@pytest.mark.parametrize(
    "name",
    [
        str(GAME_ID),
        f"game/{GAME_ID}",
        f"players/{GAME_ID}",
        f"/games/{GAME_ID}",
        "",
    ],
)
def test_a_game_name_without_the_games_prefix_is_invalid(name: str) -> None:
    error = api_error(lambda: parse_game_name(name))
    info = assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")
    assert info.metadata["field"] == "name"
    assert field_violations(error) == ["name"]


@pytest.mark.parametrize(
    "name",
    ["games/", "games/not-a-uuid", "games/1234", f"games/{GAME_ID}/players/0"],
)
def test_a_game_name_with_a_bad_uuid_is_invalid(name: str) -> None:
    error = api_error(lambda: parse_game_name(name))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")


def test_an_invalid_name_names_the_field_it_came_from() -> None:
    error = api_error(lambda: parse_game_name("nope", field="parent"))
    assert error_info(error).metadata["field"] == "parent"
    assert field_violations(error) == ["parent"]
    assert "parent" in error.status.details


def test_the_grpc_status_carries_the_rpc_status_code() -> None:
    error = api_error(lambda: parse_game_name("nope"))
    assert status_details(error).code == code_pb2.INVALID_ARGUMENT
    assert status_details(error).message == error.status.details == str(error)


# --- page_size ---


def test_page_size_0_is_the_default() -> None:
    assert page_size(0, default=50, maximum=200) == 50


def test_page_size_within_the_maximum_is_kept() -> None:
    assert page_size(1, default=50, maximum=200) == 1
    assert page_size(200, default=50, maximum=200) == 200


def test_page_size_above_the_maximum_is_the_maximum() -> None:
    assert page_size(201, default=50, maximum=200) == 200
    assert page_size(10**9, default=50, maximum=200) == 200


@pytest.mark.parametrize("requested", [-1, -200])
def test_a_negative_page_size_is_invalid(requested: int) -> None:
    error = api_error(lambda: page_size(requested, default=50, maximum=200))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_SIZE")
    assert field_violations(error) == ["page_size"]


# --- page tokens ---


@pytest.mark.parametrize(
    "token",
    [
        PageToken("games", 17, "state = IN_PROGRESS"),
        PageToken("legal-moves", 300, f"games/{GAME_ID}", 42),
        PageToken("games", 0, ""),
        PageToken("games", 5, "ünïcödé = ☃"),
    ],
    ids=repr,
)
def test_a_page_token_round_trips(token: PageToken) -> None:
    text = encode_page_token(token)
    assert decode_page_token(text, token.kind, token.query) == token


def test_a_page_token_is_url_safe_and_unpadded() -> None:
    text = encode_page_token(PageToken("games", 1, "x?/+&=", 3))
    assert set(text) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )


def test_an_empty_page_token_is_the_first_page() -> None:
    assert decode_page_token("", "games", "") is None


def test_a_page_token_of_another_listing_is_refused() -> None:
    text = encode_page_token(PageToken("games", 3, ""))
    error = api_error(lambda: decode_page_token(text, "legal-moves", ""))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")
    assert field_violations(error) == ["page_token"]


def test_a_page_token_of_another_query_is_refused() -> None:
    text = encode_page_token(PageToken("games", 3, "state = FINISHED"))
    error = api_error(lambda: decode_page_token(text, "games", "state = IN_PROGRESS"))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


def b64(data: object) -> str:
    raw = json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "text",
    [
        "garbage",
        "!!!!",
        "a",
        "====",
        base64.urlsafe_b64encode(b"\xff\xfe\x00").decode(),
        b64(None),
        b64(7),
        b64({"kind": "games"}),
        b64(["games", 3, ""]),  # too short
        b64(["games", "three", "", 0]),
        b64(["games", None, "", 0]),
        b64("games"),
    ],
)
def test_a_garbled_page_token_is_refused(text: str) -> None:
    error = api_error(lambda: decode_page_token(text, "games", ""))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


def test_a_page_token_with_a_negative_position_is_refused() -> None:
    # The server never issues one; ListLegalMoves would slice moves[-5:...] with it.
    text = b64(["legal-moves", -5, f"games/{GAME_ID}", 0])
    error = api_error(
        lambda: decode_page_token(text, "legal-moves", f"games/{GAME_ID}")
    )
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


@pytest.mark.parametrize("position", [2**62 + 1, 2**63 - 1, 10**30])
def test_a_page_token_with_a_position_past_any_listing_is_refused(
    position: int,
) -> None:
    # ListLegalMoves slices moves from the position: past sys.maxsize that
    # raised ValueError, an INTERNAL error, instead of refusing the token.
    text = b64(["legal-moves", position, f"games/{GAME_ID}", 0])
    error = api_error(
        lambda: decode_page_token(text, "legal-moves", f"games/{GAME_ID}")
    )
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


def test_a_page_token_longer_than_any_the_server_issues_is_refused() -> None:
    text = b64(["games", 0, "x" * MAX_PAGE_TOKEN, 0])
    error = api_error(lambda: decode_page_token(text, "games", "x" * MAX_PAGE_TOKEN))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


# --- parse_filter ---


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_an_empty_filter_keeps_everything(text: str) -> None:
    assert parse_filter(text) == GameFilter(0, 0)


@pytest.mark.parametrize(
    "text",
    [
        "game_type = QWIRKLE",
        "game_type=QWIRKLE",
        'game_type = "QWIRKLE"',
        "game_type = qwirkle",
        "game_type = GAME_TYPE_QWIRKLE",
        "  game_type   =   QWIRKLE  ",
    ],
)
def test_a_game_type_filter_names_the_game_type(text: str) -> None:
    assert parse_filter(text) == GameFilter(game_type=QWIRKLE)


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("state = IN_PROGRESS", IN_PROGRESS),
        ("state = in_progress", IN_PROGRESS),
        ("state = GAME_STATE_FINISHED", FINISHED),
        ('state="WAITING_FOR_PLAYERS"', game_pb2.GAME_STATE_WAITING_FOR_PLAYERS),
    ],
)
def test_a_state_filter_names_the_state(text: str, state: int) -> None:
    assert parse_filter(text) == GameFilter(state=state)


@pytest.mark.parametrize(
    "text",
    [
        "game_type = QWIRKLE AND state = FINISHED",
        "state = FINISHED AND game_type = QWIRKLE",
        "game_type = QWIRKLE and state = FINISHED",
        "state = finished And game_type = qwirkle",
        "game_type = GAME_TYPE_QWIRKLE   AND   state = GAME_STATE_FINISHED",
    ],
)
def test_both_clauses_join_with_and_in_any_case_and_order(text: str) -> None:
    assert parse_filter(text) == GameFilter(game_type=QWIRKLE, state=FINISHED)


@pytest.mark.parametrize(
    "text",
    [
        "game_type",
        "game_type =",
        "game_type = QWIRKLE OR state = FINISHED",
        "game_type = QWIRKLE AND",
        "AND state = FINISHED",
        "player = me",
        "state != FINISHED",
        "game_type = QWIRKLE state = FINISHED",
        "state = 2",
        "game_type = 'QWIRKLE'",
    ],
)
def test_a_clause_the_filter_cannot_read_is_invalid(text: str) -> None:
    error = api_error(lambda: parse_filter(text))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FILTER")
    assert field_violations(error) == ["filter"]


@pytest.mark.parametrize(
    "text",
    [
        "game_type = CHESS",
        "game_type = UNSPECIFIED",
        "game_type = GAME_TYPE_UNSPECIFIED",
        "state = PAUSED",
        "state = UNSPECIFIED",
        "state = QWIRKLE",
        "game_type = IN_PROGRESS",
        "game_type = GAME_STATE_FINISHED",
    ],
)
def test_an_unknown_value_is_invalid(text: str) -> None:
    error = api_error(lambda: parse_filter(text))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FILTER")


@pytest.mark.parametrize(
    "text",
    [
        "state = FINISHED AND state = IN_PROGRESS",
        "game_type = QWIRKLE AND state = FINISHED AND state = IN_PROGRESS",
    ],
)
def test_a_field_repeated_in_a_filter_is_invalid(text: str) -> None:
    # Joined by AND, two states keep no game; dropping one clause would list
    # games the filter excludes.
    error = api_error(lambda: parse_filter(text))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FILTER")


def test_an_overlong_filter_is_refused_without_quoting_it() -> None:
    # Found by fuzzing: quoting a 200 000-character clause made the error
    # larger than the client's metadata limit, so it never arrived as such.
    text = "x" * (MAX_FILTER + 1)
    error = api_error(lambda: parse_filter(text))
    assert_refused(error, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FILTER")
    assert text not in error.status.details
    assert len(error.status.details) < 200


def test_a_filter_of_the_maximum_length_is_read() -> None:
    text = "game_type = QWIRKLE" + " " * (MAX_FILTER - len("game_type = QWIRKLE"))
    assert parse_filter(text) == GameFilter(game_type=QWIRKLE)


def test_an_unknown_value_error_lists_the_known_values() -> None:
    error = api_error(lambda: parse_filter("state = PAUSED"))
    assert "WAITING_FOR_PLAYERS" in error.status.details
    assert "UNSPECIFIED" not in error.status.details


def game(game_type: int, state: int) -> game_pb2.Game:
    return game_pb2.Game(game_type=game_type, state=state)  # type: ignore[arg-type]


def test_a_filter_keeps_only_matching_games() -> None:
    wanted = parse_filter("game_type = QWIRKLE AND state = IN_PROGRESS")
    assert wanted.keeps(game(QWIRKLE, IN_PROGRESS))
    assert not wanted.keeps(game(QWIRKLE, FINISHED))
    assert parse_filter("").keeps(game(QWIRKLE, FINISHED))
    assert parse_filter("state = FINISHED").keeps(game(QWIRKLE, FINISHED))


# --- bearer_token ---


def test_no_metadata_is_no_token() -> None:
    assert bearer_token(None) is None
    assert bearer_token(()) is None


def test_metadata_without_authorization_is_no_token() -> None:
    assert bearer_token([("user-agent", "grpc-python"), ("x-request", "1")]) is None


@pytest.mark.parametrize(
    "header",
    ["Bearer abc", "bearer abc", "BEARER abc", "BeArEr abc", "Bearer   abc  "],
)
def test_a_bearer_header_gives_its_token(header: str) -> None:
    assert bearer_token([("authorization", header)]) == "abc"


def test_a_bearer_header_may_arrive_as_bytes() -> None:
    assert bearer_token([("authorization", b"Bearer abc")]) == "abc"


def test_the_header_name_is_case_insensitive() -> None:
    assert bearer_token([("Authorization", "Bearer abc")]) == "abc"


def test_the_authorization_header_is_found_among_others() -> None:
    metadata = [("user-agent", "x"), ("authorization", "Bearer tok"), ("z", "y")]
    assert bearer_token(metadata) == "tok"


@pytest.mark.parametrize(
    "header",
    [
        "Basic abc",
        "Bearer ",
        "Bearer    ",
        "Bearer",
        "abc",
        "",
        "Bearerabc",
        "Token abc",
    ],
)
def test_a_malformed_authorization_header_is_refused(header: str) -> None:
    error = api_error(lambda: bearer_token([("authorization", header)]))
    assert_refused(error, grpc.StatusCode.UNAUTHENTICATED, "MALFORMED_CREDENTIALS")
