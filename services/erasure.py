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
from services.calls import Call, SeatRequest
from services.games import GamesApp
from services.players import Players
from services.players_view import players_view_for
from services.sessions import SessionClaims


def delete_player(
    app: GamesApp, players: Players, session: SessionClaims, token: str
) -> Rejected | None:
    """Deletes the session's player, after giving up every seat they hold.

    The player's games are read from the players' view, all at once (where a
    game stands in the listing moves while it is played); a table joined in the
    moment before (which the view has not yet shown) keeps the seat, shown
    as the deleted player's, and closes or is played on like any other.
    """
    refused = players.stale(session)
    if refused is not None:
        return refused
    seat = Call(token)
    for game_id in players_view_for(app).unfinished(session.player_id):
        request = SeatRequest(game_id, seat)
        # The view may lag: a table left in vain has started, so resign;
        # a refused resignation is of a game already over or resigned.
        if isinstance(app.leave_game(request), Rejected):
            app.resign(request)
    return players.delete(session.player_id)
