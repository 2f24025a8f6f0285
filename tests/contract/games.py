"""The checklist a game passes to join the contract suite: one entry per game.

Every game of ``domain/games/registry.py`` and the example game of the tests
has an entry here. An entry says which tables to play and, as an oracle
written from the game's rulebook rather than taken from its views, what a
viewer may not see in a state. Games whose views, events and moves travel in
proto messages declare their converter: only those run the message checks.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from domain.common.rules import GameRules
from domain.common.seats import Seat, Viewer
from domain.games import fool, gnoming_a_round, hues_and_cues, qwirkle, split
from domain.games.hues_and_cues.cards import CARDS
from services.api.convert.base import GameConverter
from services.api.convert.registry import converter_for
from tests import example_game
from tests.contract.seen import pieces
from tests.example_game import convert as example_convert

Secrets = Callable[[Any, Viewer], Collection[object]]


@dataclass(frozen=True)
class ContractGame:
    """One game as the contract suite plays and checks it."""

    rules: GameRules[Any, Any, Any, Any]
    players: tuple[int, ...]  # the table sizes played
    # The pieces (leaf values: cards, tiles, squares, card ids) a viewer may not
    # see in a state of play.
    secrets: Secrets
    # Table options of game ``number`` at a table of ``players``.
    config: Callable[[int, int], Any] | None = None
    # View fields that list every piece of the game by design, left out of the
    # search for hidden pieces.
    reference_fields: frozenset[str] = field(default_factory=frozenset)
    # Returns the game's proto conversions, given its name: by default those
    # the server's API serves. None while the game has no messages; only games
    # that declare one run the message checks.
    converter: Callable[[str], GameConverter] | None = converter_for

    @property
    def name(self) -> str:
        """Returns the game type."""
        return self.rules.name

    def messages(self) -> GameConverter:
        """Returns the game's proto conversions (for a game that declares them)."""
        assert self.converter is not None, f"{self.name} declares no messages"
        return self.converter(self.name)

    def table_options(self, players: int, number: int) -> Any:
        """Returns the options of game ``number``: the defaults unless varied."""
        if self.config is None:
            return self.rules.config_type()
        return self.config(players, number)


def seat_of(viewer: Viewer) -> int | None:
    """Returns a seat's index, None for a spectator."""
    return viewer.index if isinstance(viewer, Seat) else None


def _others(hands: tuple[tuple[Any, ...], ...], viewer: Viewer) -> set[Any]:
    """Returns the pieces of every hand but the viewer's own."""
    own = seat_of(viewer)
    return {piece for seat, hand in enumerate(hands) if seat != own for piece in hand}


def _qwirkle(state: qwirkle.State, viewer: Viewer) -> set[object]:
    # Other racks and the bag; a tile with a copy in sight is no secret.
    own = seat_of(viewer)
    shown = set(state.board.values()) | set(() if own is None else state.racks[own])
    return (_others(state.racks, viewer) | set(state.bag)) - shown


def _fool(state: fool.State, viewer: Viewer) -> set[object]:
    # Other hands, until a round's scoring shows every hand left.
    if state.phase in (fool.Phase.ROUND_OVER, fool.Phase.GAME_OVER):
        return set()
    return _others(state.hands, viewer)


def _split(state: split.State, viewer: Viewer) -> set[object]:
    # The draw pile; other hands until a round's end shows them.
    hidden: set[object] = set(state.draw_pile)
    if state.phase not in (split.Phase.ROUND_OVER, split.Phase.GAME_OVER):
        hidden |= _others(state.hands, viewer)
    return hidden


def _gnoming(state: gnoming_a_round.State, viewer: Viewer) -> set[object]:
    # Face-down cards (from their owners too), the draw pile, another's draw.
    hidden: set[object] = set(state.draw_pile)
    hidden |= {s.card for layout in state.layouts for s in layout if not s.face_up}
    drawer = state.in_hand is not None and state.in_hand_drawn
    if drawer and seat_of(viewer) != state.active:
        hidden.add(state.in_hand)
    return hidden


def _hues(state: hues_and_cues.State, viewer: Viewer) -> set[object]:
    # Card ids (but the cue giver's own card) and, for guessers, the card's
    # squares and the target until revealed; guesses in sight are public.
    hidden: set[object] = {*state.deck, *state.used}
    giver = seat_of(viewer) == state.cue_giver
    if state.card is not None and not giver:
        hidden |= {state.card, *CARDS[state.card].squares}
    if state.target is not None and not giver:
        hidden.add(state.target)
    public = set(pieces(state.pieces))
    if state.last_scored is not None:  # the last round's guesses and target
        public |= set(pieces(state.last_scored))
    return hidden - public


GAMES: tuple[ContractGame, ...] = (
    ContractGame(qwirkle.RULES, (2, 4), _qwirkle),
    ContractGame(
        hues_and_cues.RULES,
        (3, 6, 10),
        _hues,
        config=lambda players, number: hues_and_cues.HuesAndCuesConfig(
            first_cue_giver=number % players, free_choice_variant=number % 2 == 1
        ),
    ),
    ContractGame(
        fool.RULES,
        (4, 8),
        _fool,
        config=lambda players, number: fool.FoolConfig(number % players),
        reference_fields=frozenset({"cards_in_play"}),
    ),
    ContractGame(
        gnoming_a_round.RULES,
        (3, 7),
        _gnoming,
        config=lambda players, number: gnoming_a_round.GnomingARoundConfig(
            first_player=number % players
        ),
    ),
    ContractGame(
        split.RULES,
        (2, 5),
        _split,
        config=lambda players, number: split.SplitConfig(first_dealer=number % players),
    ),
    # Its messages are its own (tests/example_game/protos), converted by the
    # same rules as the server's games.
    ContractGame(
        example_game.RULES,
        (2, 4),
        lambda state, viewer: (
            set() if state.finished else _others(state.hands, viewer) | set(state.pile)
        ),
        config=lambda players, number: example_game.ExampleConfig(number % players),
        converter=example_convert.converter,
    ),
)
MESSAGE_GAMES = tuple(game for game in GAMES if game.converter is not None)
# Games the server's API serves: their ``Game`` and ``GameEvent`` messages too.
SERVED_GAMES = tuple(game for game in GAMES if game.converter is converter_for)
