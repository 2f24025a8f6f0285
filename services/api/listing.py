"""The RPCs that show games as they are now: GetGame, and ListGames with its filter.

A filter reads ``game_type = QWIRKLE AND state = IN_PROGRESS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from domain.common.seats import Seat, Spectator
from domain.common.table_state import TableStatus
from services.api.auth import session_claims
from services.api.convert.game import game_to_proto
from services.api.errors import ApiError, FieldViolation, bad_request, rejection_status
from services.api.mutations import caller
from services.api.requests import (
    MAX_FILTER,
    PageToken,
    decode_page_token,
    encode_page_token,
    page_size,
    parse_game_name,
)
from services.games import GamesApp, game_not_found
from services.records import GameRecord
from services.store import GameStore

_CLAUSE = re.compile(r"^\s*(game_type|state)\s*=\s*\"?([A-Za-z_]+)\"?\s*$")
_AND = re.compile(r"\s+AND\s+", re.IGNORECASE)


def get_game(
    app: GamesApp, request: api.GetGameRequest, token: str | None
) -> api.GetGameResponse:
    """Returns the game as the caller may see it."""
    game_id = parse_game_name(request.name)
    record = app.get_game(game_id)
    if record is None:
        raise ApiError(rejection_status(game_not_found(game_id)))
    viewer = caller(app, record, token)
    full = request.view != api.GAME_VIEW_BASIC
    return api.GetGameResponse(game=game_to_proto(record, viewer, full=full))


def list_games(
    app: GamesApp, request: api.ListGamesRequest, token: str | None
) -> api.ListGamesResponse:
    """Returns one page of the games, oldest first, as a spectator sees them.

    The caller's token shows its own private tables, if any; an access token
    that does not verify is refused rather than taken for a spectator's.
    """
    session_claims(app.sessions, token)
    size = page_size(request.page_size, default=50, maximum=200)
    wanted = parse_filter(request.filter)
    page = decode_page_token(request.page_token, "games", request.filter)
    full = request.view == api.GAME_VIEW_FULL
    found = app.game_ids(page.position if page else 0, size)
    response = api.ListGamesResponse()
    for _, game_id in found:
        record = app.get_game(game_id)
        if record is None or not listed(app, record, token):
            continue
        game = game_to_proto(record, Spectator(), full=full)
        if wanted.keeps(game):
            response.games.append(game)
    if len(found) == size:
        last = PageToken("games", found[-1][0], request.filter)
        response.next_page_token = encode_page_token(last)
    return response


@dataclass(frozen=True, slots=True)
class GameFilter:
    """What a listing keeps: a game type and/or a lifecycle state (0 = any)."""

    game_type: int = 0
    state: int = 0

    def keeps(self, game: game_pb2.Game) -> bool:
        """Tells whether a game passes the filter."""
        return (not self.game_type or game.game_type == self.game_type) and (
            not self.state or game.state == self.state
        )


def listed(store: GameStore, record: GameRecord, token: str | None) -> bool:
    """Tells whether ``ListGames`` shows a game to a caller with ``token``.

    A closed table is shown to nobody; a private table only to a caller whose
    token acts for one of its seats (its invite code stays with its players).
    """
    table = record.table
    if table.status is TableStatus.CLOSED:
        return False
    if not table.private:
        return True
    return token is not None and isinstance(store.viewer_for(record, token), Seat)


def parse_filter(text: str) -> GameFilter:
    """Returns the filter a ``ListGames`` request asks for.

    Its length is checked first: the refusal quotes the clause it cannot read,
    and an unbounded quote would make the error itself too large to deliver.
    """
    if len(text) > MAX_FILTER:
        raise _invalid(f"it is longer than {MAX_FILTER} characters")
    if not text.strip():
        return GameFilter()
    game_type = state = 0
    for clause in _AND.split(text.strip()):
        match = _CLAUSE.match(clause)
        if match is None:
            raise _invalid(f"cannot read {clause.strip()!r}")
        key, value = match.group(1), match.group(2).upper()
        if (game_type if key == "game_type" else state) != 0:
            raise _invalid(f"{key} appears twice")
        if key == "game_type":
            game_type = _enum_value(game_pb2.GameType, "GAME_TYPE_", value)
        else:
            state = _enum_value(game_pb2.GameState, "GAME_STATE_", value)
    return GameFilter(game_type, state)


def _enum_value(enum: EnumTypeWrapper, prefix: str, value: str) -> int:
    names: dict[str, int] = dict(enum.items())
    number = names.get(value if value.startswith(prefix) else prefix + value, 0)
    if not number:
        known = ", ".join(n.removeprefix(prefix) for n, v in names.items() if v)
        raise _invalid(f"{value} is not one of {known}")
    return number


def _invalid(problem: str) -> ApiError:
    return ApiError(
        bad_request(
            "INVALID_FILTER",
            "filter supports 'game_type = <TYPE>' and 'state = <STATE>' joined by "
            f"AND; {problem}.",
            [FieldViolation("filter", problem)],
        )
    )
