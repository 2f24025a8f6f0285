"""Every game ends, ranks its seats one way, and judges its undos by what it showed.

Over random complete games (DESIGN §2, §6): play stops only with a finished
outcome whose winners are the game's leaders; ``leaders`` picks among the seats
it is given. A move its mover may take back alone showed the mover nothing
hidden from it (no draw); a move that showed a seat or the spectators
something hidden that the mover did not hold (a card turned up, a deal) is one
no takeback crosses; so is the move that ends the game, which shows
everything. Games may judge more strictly than that (a card played from a hand
may need consent), never less.
"""

from __future__ import annotations

from domain.common.seats import Seat, Viewer
from tests.contract.playouts import Move, Playout
from tests.contract.seen import pieces, viewers


def test_the_game_ends_and_its_winners_are_its_leaders(playout: Playout) -> None:
    rules, everyone = playout.game.rules, tuple(range(playout.players))
    for move in playout.moves:
        current = rules.outcome(move.before)
        assert not current.finished
        assert len(current.scores) == playout.players
        leading = rules.leaders(move.before, everyone)
        assert leading
        assert set(leading) <= set(everyone)
        assert set(rules.leaders(move.before, everyone[1:])) <= set(everyone[1:])
        assert rules.leaders(move.before, ()) == ()
    final = rules.outcome(playout.final)
    assert final.finished
    assert len(final.scores) == playout.players
    assert final.winners
    assert final.winners == rules.leaders(playout.final, everyone)


def newly_seen(playout: Playout, move: Move, viewer: Viewer) -> set[object]:
    """Returns the pieces hidden from ``viewer`` that its view shows after a move.

    What the command names (a square guessed, a card played) is the mover's
    choice, not something the move turned up.
    """
    shown = set(playout.sight(move.end, viewer)) - set(playout.sight(move.at, viewer))
    shown -= set(pieces(move.command))
    return shown & set(playout.game.secrets(move.before, viewer))


def test_undo_verdicts_match_what_each_move_showed(playout: Playout) -> None:
    rules = playout.game.rules
    shown_moves = 0
    for move in playout.moves:
        mover = Seat(move.seat)
        alone = rules.self_undoable(move.events)
        shown = rules.reveals_to_others(move.events)
        assert not (alone and shown), move.events
        if rules.outcome(move.after).finished:
            assert shown, move.events
        if alone:  # the mover drew or turned up nothing
            assert not newly_seen(playout, move, mover), move.events
        if not shown:  # the others saw only what the mover held
            held = set(playout.sight(move.at, mover))
            for viewer in viewers(playout.players):
                if viewer != mover:
                    news = newly_seen(playout, move, viewer)
                    assert news <= held, (move.events, viewer, news - held)
        shown_moves += shown
    assert shown_moves >= 1
