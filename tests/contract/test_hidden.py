"""Every game hides from each viewer what the viewer may not see (DESIGN §5).

Over random complete games, at every revision until the end and for every
viewer (the spectator, each seat): the view holds none of the pieces the
game's entry says the viewer may not see, and every piece hidden from the
spectator but not from the viewer (its own hand); every viewer sees the same
public part, and the spectator no piece a seat does not see. Every event, as
``visible`` shows it to a viewer, keeps its class and names no piece hidden
from the viewer once it happened and once its move is over, unless the viewer
saw it just before (a card taken from the public discard row).
"""

from __future__ import annotations

import pytest

from domain.common.seats import Operator, Spectator
from tests.contract.playouts import PLAYOUTS, Playout, played, playout_id
from tests.contract.seen import pieces, viewers

# Every revision of the first game of each table size is checked.
CHECKED = [key for key in PLAYOUTS if key[2] == 0]


@pytest.fixture(params=CHECKED, ids=playout_id)
def playout(request: pytest.FixtureRequest) -> Playout:
    """Returns a recorded random game."""
    return played(*request.param)


def test_each_view_shows_what_its_viewer_may_see_and_nothing_else(
    playout: Playout,
) -> None:
    game = playout.game
    for at, state in enumerate(playout.states):
        if game.rules.outcome(state).finished:
            break  # then every viewer sees everything
        spectator = playout.sight(at, Spectator())
        public = playout.view(at, Spectator()).public
        hidden = set(game.secrets(state, Spectator()))
        for viewer in viewers(playout.players):
            seen, secret = playout.sight(at, viewer), set(game.secrets(state, viewer))
            assert not set(seen) & secret, (at, viewer, set(seen) & secret)
            missing = hidden - secret - set(seen)
            assert not missing, (at, viewer, missing)
            assert spectator <= seen, (at, viewer, spectator - seen)
            assert playout.view(at, viewer).public == public, (at, viewer)


def test_no_event_shows_a_viewer_what_it_may_not_see(playout: Playout) -> None:
    game, rules = playout.game, playout.game.rules
    for revision in playout.revisions():
        after, end = playout.states[revision.at], playout.states[revision.end]
        if rules.outcome(end).finished:
            break
        assert rules.visible(revision.event, Operator()) == revision.event
        for viewer in viewers(playout.players):
            shown = rules.visible(revision.event, viewer)
            if shown is None:
                continue
            assert type(shown) is type(revision.event), (shown, viewer)
            # Hidden once the event happened and once its move is over.
            hidden = set(game.secrets(after, viewer)) & set(game.secrets(end, viewer))
            hidden -= set(playout.sight(revision.at - 1, viewer))
            named = set(pieces(shown, game.reference_fields, playout.memo))
            assert not named & hidden, (revision.event, viewer, named & hidden)
