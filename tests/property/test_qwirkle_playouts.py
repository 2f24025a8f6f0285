"""Random complete Qwirkle games checking the invariants of spec §7 after each move.

Moves are drawn by a seeded ``random.Random`` from the full ``legal_moves`` list
(half of the time from its placements only, so that exchanges do not drag on);
the oracles below (lines, scores, single-tile fits) are written again here rather
than imported, so that they check the engine instead of repeating it. What every
game must do (legal moves accepted, replay, hidden racks) is checked by the
contract suite, ``tests/contract/``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import pytest

from domain.common.seats import Spectator
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import (
    EndBonusScored,
    Event,
    GameEnded,
    StartingPlayerChosen,
    TilesDealt,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.model import (
    Color,
    Command,
    EndReason,
    ExchangeTiles,
    Pass,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    State,
    Tile,
)
from tests.property.random_games import RandomGame, play, play_out, set_up

GAMES_PER_PLAYER_COUNT = 40
MAX_MOVES = 2_000
PLACE_BIAS = 0.5  # chance of drawing from the placements only
ENDGAMES = 100
STEPS = ((1, 0), (0, 1))
Cell = tuple[int, int]
ALL_TILES = Counter({Tile(c, s): 3 for c in Color for s in Shape})


def valid_line(tiles: Sequence[Tile]) -> bool:
    """Returns whether tiles are one line: no repeat, one shared attribute."""
    return len(set(tiles)) == len(tiles) <= 6 and (
        len({t.color for t in tiles}) == 1 or len({t.shape for t in tiles}) == 1
    )


def run_through(board: Mapping[Cell, Tile], cell: Cell, step: Cell) -> frozenset[Cell]:
    """Returns the maximal run of occupied cells through ``cell`` along ``step``."""
    cells = {cell}
    for sign in (1, -1):
        x, y = cell[0] + sign * step[0], cell[1] + sign * step[1]
        while (x, y) in board:
            cells.add((x, y))
            x, y = x + sign * step[0], y + sign * step[1]
    return frozenset(cells)


def expected_points(before: Mapping[Cell, Tile], placed: Sequence[TilesPlaced]) -> int:
    """Returns §5.1's points: every distinct run of 2+ through a placed tile."""
    board = dict(before)
    cells = [p.cell for event in placed for p in event.placements]
    board.update((p.cell, p.tile) for event in placed for p in event.placements)
    runs = {run_through(board, c, s) for c in cells for s in STEPS}
    lengths = [len(run) for run in runs if len(run) >= 2]
    if not lengths:
        return 1  # D4
    return sum(lengths) + 6 * lengths.count(6)


def fits_alone(board: Mapping[Cell, Tile], rack: Sequence[Tile]) -> bool:
    """Returns whether some rack tile can be laid alone next to the grid (§3)."""
    empty = {
        (x + dx, y + dy)
        for x, y in board
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
    } - set(board)
    for cell, tile in ((c, t) for c in empty for t in set(rack)):
        grid = {**board, cell: tile}
        runs = [run_through(grid, cell, s) for s in STEPS]
        if all(len(r) < 2 or valid_line([grid[c] for c in r]) for r in runs):
            return True
    return False


def starting_k(rack: Sequence[Tile]) -> int:
    """Returns §2's k: most distinct tiles sharing one colour or one shape."""
    kinds = set(rack)
    colors = Counter(t.color for t in kinds)
    shapes = Counter(t.shape for t in kinds)
    return max([*colors.values(), *shapes.values()])


@dataclass
class Tally:
    """What the checks count from the events: points, end bonuses, the bag."""

    game: RandomGame
    choose: random.Random
    points: Counter[int] = field(default_factory=Counter)
    bonuses: list[int] = field(default_factory=list)
    conserved: bool = True  # False once the bag was taken away

    def take_the_bag_away(self) -> None:
        """Empties the bag to reach an endgame; the events start again here."""
        self.game.initial = self.game.state = replace(self.game.state, bag=())
        self.game.events = []
        self.conserved = False

    def pick(self, state: State) -> Command:
        """Returns a random legal move, from the placements only half the time.

        Uniform over the whole list, exchanges (up to 63 a turn) would drag
        games out.
        """
        legal = list(RULES.legal_moves(state, state.to_move))
        places = [m for m in legal if isinstance(m, PlaceTiles)]
        bias = places and self.choose.random() < PLACE_BIAS
        return self.choose.choice(places if bias else legal)

    def check(
        self, before: State, command: Command, events: tuple[Event, ...], after: State
    ) -> None:
        """Checks every invariant after one move."""
        for event in events:
            if isinstance(event, TurnScored | EndBonusScored):
                self.points[event.seat] += event.points
            if isinstance(event, EndBonusScored):
                self.bonuses.append(event.seat)
        check_tiles(after, self.conserved)
        if isinstance(command, PlaceTiles):
            check_grid(after.board)  # only a placement changes the grid
            check_placement(before, after, events)
        else:
            assert after.board == before.board
            check_other_turns(before, after, command)


def new_game(players: int, game: int) -> Tally:
    """Returns a dealt game with a seed of its own."""
    label = f"qwirkle-playout/{players}/{game}"
    dealt = set_up(RULES, players, QwirkleConfig(), label)
    return Tally(dealt, random.Random(f"{players}/{game}"))


def check_tiles(state: State, conserved: bool = True) -> None:
    """Invariants 1-3: conservation, composition, rack sizes."""
    assert all(len(rack) <= 6 for rack in state.racks)
    if not conserved:
        return
    everywhere = Counter(state.bag) + Counter(state.board.values())
    for rack in state.racks:
        everywhere += Counter(rack)
    assert everywhere == ALL_TILES
    assert set(Counter(t.color for t in everywhere.elements()).values()) == {18}
    assert set(Counter(t.shape for t in everywhere.elements()).values()) == {18}


def check_grid(board: Mapping[Cell, Tile]) -> None:
    """Invariants 4-5: every run valid; the grid connected and holding (0, 0)."""
    for cell in board:
        for step in STEPS:
            run = run_through(board, cell, step)
            assert len(run) < 2 or valid_line([board[c] for c in run]), run
    assert (0, 0) in board
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        x, y = todo.pop()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in board and n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(board)


def check_placement(before: State, after: State, events: Sequence[Event]) -> None:
    """Invariants 3, 6, 7, 8 and 9 for a placement turn."""
    placed = [e for e in events if isinstance(e, TilesPlaced)]
    (event,) = placed
    assert event.seat == before.to_move
    cells = [p.cell for p in event.placements]
    axis = 0 if len({y for _, y in cells}) == 1 else 1
    assert len({c[1 - axis] for c in cells}) == 1  # one row or one column
    line = cells[0][1 - axis]
    first, last = min(c[axis] for c in cells), max(c[axis] for c in cells)
    between = [(a, line) if axis == 0 else (line, a) for a in range(first, last + 1)]
    assert all(c in after.board for c in between)
    if not before.board:  # invariant 7
        k = [starting_k(rack) for rack in before.racks]
        assert k[event.seat] == max(k)
        assert len(cells) == max(k)
    scored = [e for e in events if isinstance(e, TurnScored)]
    assert [e.points for e in scored] == [expected_points(before.board, placed)]
    rack = after.racks[event.seat]
    assert len(rack) == 6 or not after.bag
    bonus = [e for e in events if isinstance(e, EndBonusScored)]
    if bonus:  # invariant 9
        assert bonus == [EndBonusScored(event.seat, 6)]
        assert not rack
        assert not after.bag
        assert isinstance(events[-1], GameEnded)


def check_other_turns(before: State, after: State, command: Command) -> None:
    """Invariants 3, 10 and 11 for exchanges and passes."""
    if isinstance(command, ExchangeTiles):
        assert len(command.tiles) <= len(before.bag)
        assert len(after.bag) == len(before.bag)
        assert len(after.racks[command.seat]) == len(before.racks[command.seat])
    if isinstance(command, Pass):
        assert not before.bag
        assert not fits_alone(before.board, before.racks[command.seat])


def check_end(tally: Tally) -> None:
    """Invariants 8 and 9 at the end, the reason the game ended, every rack shown."""
    state = tally.game.state
    assert state.scores == tuple(tally.points[s] for s in range(state.players))
    assert len(tally.bonuses) <= 1
    ended = tally.game.events[-1]
    assert isinstance(ended, GameEnded)
    assert not state.bag
    if ended.reason is EndReason.HAND_EMPTIED:
        assert tally.bonuses
        assert not state.racks[tally.bonuses[0]]
    else:
        assert not tally.bonuses
        assert not any(fits_alone(state.board, rack) for rack in state.racks)
    winners = RULES.outcome(state).winners
    assert winners == tuple(
        s for s, v in enumerate(state.scores) if v == max(state.scores)
    )
    assert RULES.view(state, Spectator()).racks == state.racks


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    tally = new_game(players, game)
    check_tiles(tally.game.state)
    dealt, chosen = tally.game.events
    assert isinstance(dealt, TilesDealt)
    assert isinstance(chosen, StartingPlayerChosen)
    # Invariant 7 and D2: the largest k starts, the lowest seat on a tie.
    k = [starting_k(rack) for rack in dealt.racks]
    assert chosen == StartingPlayerChosen(tuple(k), k.index(max(k)))
    play_out(tally.game, tally.pick, tally.check, MAX_MOVES)
    check_end(tally)


def test_random_endgames_without_a_bag_pass_and_deadlock_by_the_rules() -> None:
    # Random full games never pass or deadlock, so take the bag away early:
    # the rules still hold except tile conservation, and passes happen.
    endings: Counter[object] = Counter()
    for seed in range(ENDGAMES):
        tally = new_game(2 + seed % 5, 10_000 + seed)
        tally.choose = random.Random(seed)
        play(tally.game, tally.pick, tally.check, tally.choose.randint(1, 4))
        tally.take_the_bag_away()
        play_out(tally.game, tally.pick, tally.check, MAX_MOVES)
        check_end(tally)
        endings[tally.game.state.end_reason] += 1
        endings["passes"] += sum(isinstance(e, TurnPassed) for e in tally.game.events)
    assert endings[EndReason.DEADLOCK] >= 1
    assert endings["passes"] >= 1
