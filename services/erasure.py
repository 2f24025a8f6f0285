"""Deleting a player: their seats given up, then their account erased.

The event log is immutable, so a player's personal data was only ever stored
sealed under their own key (``services/personal.py``). Deleting the player
first gives up the player's seats, as the player would (tables waiting for
players are left, games in progress resigned, so the others can finish with
the server's bot in that seat), then erases the account (``Players.delete``):
the key is destroyed and the credential index forgets the player. From then
on every view, replay, stream and export shows the seats as "deleted player
N" (``services/player_names.py``), and the games still replay and verify.
"""

from __future__ import annotations

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from services.calls import Call, SeatRequest
from services.games import GamesApp
from services.players import Players
from services.players_view import players_view_for
from services.sessions import SessionClaims

PAGE = 200
_OVER = (TableStatus.FINISHED, TableStatus.CLOSED)


def delete_player(
    app: GamesApp, players: Players, session: SessionClaims, token: str
) -> Rejected | None:
    """Deletes the session's player, after giving up every seat they hold.

    The player's games are read from the players' view; a table joined in the
    moment before (which the view has not yet shown) keeps the seat, shown
    as the deleted player's, and closes or is played on like any other.
    """
    refused = players.stale(session)
    if refused is not None:
        return refused
    seat = Call(token)
    view = players_view_for(app)
    after = None
    while True:
        rows = view.page(session.player_id, after, PAGE)
        for row in rows:
            if row.status in _OVER:
                continue
            request = SeatRequest(row.game_id, seat)
            # The view may lag: a table left in vain has started, so resign;
            # a refused resignation is of a game already over or resigned.
            if isinstance(app.leave_game(request), Rejected):
                app.resign(request)
        if len(rows) < PAGE:
            break
        after = rows[-1].key
    return players.delete(session.player_id)
