"""``decide``: every precondition refused with its own reason, and what turns do."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.model import Command, ExchangeTiles, Pass, Phase, State
from domain.games.qwirkle.setup import initial_state
from tests.factories import (
    QWIRKLE_SECRET_TILES,
    qwirkle_first_move_state,
    qwirkle_place,
    qwirkle_tiles,
    qwirkle_turn_state,
)

RNG = Rng(bytes(range(32)))
SEVEN = tuple((name, 5 + i, 5) for i, name in enumerate(["red-circle"] * 7))

CASES: list[tuple[str, State, Command, str, str, RejectionKind]] = [
    # Each case: test id, state, command, then the expected reason, rule and kind.
    (
        "before the deal",
        initial_state(2, RULES.config_type()),
        qwirkle_place(0, ("red-circle", 0, 0)),
        "GAME_NOT_STARTED",
        "qwirkle/setup",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "after the end",
        qwirkle_turn_state(phase=Phase.GAME_OVER),
        qwirkle_place(0, ("red-circle", 0, 1)),
        "GAME_OVER",
        "qwirkle/game_end",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "another seat's turn",
        qwirkle_turn_state(),
        qwirkle_place(1, ("purple-starburst", 0, 1)),
        "NOT_YOUR_TURN",
        "common/turn_order",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "exchange as first move",
        qwirkle_first_move_state(),
        ExchangeTiles(seat=0, tiles=qwirkle_tiles("blue-clover")),
        "FIRST_MOVE_MUST_PLACE",
        "qwirkle/first_move_place",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "pass as first move",
        qwirkle_first_move_state(),
        Pass(seat=0),
        "FIRST_MOVE_MUST_PLACE",
        "qwirkle/first_move_place",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "no tile",
        qwirkle_turn_state(),
        qwirkle_place(0),
        "EMPTY_PLACEMENT",
        "qwirkle/placement_size",
        RejectionKind.MALFORMED,
    ),
    (
        "seven tiles",
        qwirkle_turn_state(),
        qwirkle_place(0, *SEVEN),
        "TOO_MANY_TILES",
        "qwirkle/placement_size",
        RejectionKind.MALFORMED,
    ),
    (
        "far cell",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 0, 109)),
        "COORDINATE_OUT_OF_RANGE",
        "qwirkle/grid_bounds",
        RejectionKind.MALFORMED,
    ),
    (
        "one cell twice",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 2, 1), ("blue-circle", 2, 1)),
        "DUPLICATE_CELL",
        "qwirkle/distinct_cells",
        RejectionKind.MALFORMED,
    ),
    (
        "one tile twice",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 2, 1), ("red-circle", 2, 2)),
        "DUPLICATE_TILE",
        "qwirkle/distinct_tiles",
        RejectionKind.MALFORMED,
    ),
    (
        "tile not held",
        qwirkle_turn_state(),
        qwirkle_place(0, ("green-crisscross", 4, 0)),
        "TILE_NOT_IN_RACK",
        "qwirkle/tiles_from_rack",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "occupied cell",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 2, 1), ("blue-circle", 2, 0)),
        "CELL_OCCUPIED",
        "qwirkle/empty_cells",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "first move of the wrong size",
        qwirkle_first_move_state(),
        qwirkle_place(0, ("red-circle", 0, 0)),
        "FIRST_MOVE_WRONG_SIZE",
        "qwirkle/first_move_size",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "first move off the origin",
        qwirkle_first_move_state(),
        qwirkle_place(0, ("red-circle", 1, 0), ("red-square", 2, 0)),
        "FIRST_MOVE_MISSES_ORIGIN",
        "qwirkle/first_move_origin",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "diagonal",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 2, 1), ("blue-circle", 3, 2)),
        "NOT_IN_ONE_LINE",
        "qwirkle/one_line",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "gap",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 2, 1), ("blue-circle", 2, 3)),
        "LINE_HAS_GAP",
        "qwirkle/no_gap",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "floating",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 7, 7)),
        "NOT_CONNECTED",
        "qwirkle/connected",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "breaks a line",
        qwirkle_turn_state(),
        qwirkle_place(0, ("red-circle", 4, 0)),
        "INVALID_LINE",
        "qwirkle/valid_line",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "exchange nothing",
        qwirkle_turn_state(),
        ExchangeTiles(seat=0, tiles=()),
        "EXCHANGE_EMPTY",
        "qwirkle/exchange_size",
        RejectionKind.MALFORMED,
    ),
    (
        "exchange seven",
        qwirkle_turn_state(),
        ExchangeTiles(seat=0, tiles=qwirkle_tiles(*["red-circle"] * 7)),
        "TOO_MANY_TILES",
        "qwirkle/exchange_size",
        RejectionKind.MALFORMED,
    ),
    (
        "exchange a third copy",
        qwirkle_turn_state(),
        ExchangeTiles(seat=0, tiles=qwirkle_tiles(*["red-circle"] * 3)),
        "TILE_NOT_IN_RACK",
        "qwirkle/tiles_from_rack",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "exchange with an empty bag",
        qwirkle_turn_state(bag=()),
        ExchangeTiles(seat=0, tiles=qwirkle_tiles("red-circle")),
        "BAG_EMPTY",
        "qwirkle/exchange_bag",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "exchange more than the bag",
        qwirkle_turn_state(bag=qwirkle_tiles("blue-diamond")),
        ExchangeTiles(seat=0, tiles=qwirkle_tiles("red-circle", "red-square")),
        "EXCHANGE_TOO_LARGE",
        "qwirkle/exchange_size",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "pass with tiles in the bag",
        qwirkle_turn_state(),
        Pass(seat=0),
        "PASS_NOT_ALLOWED",
        "qwirkle/pass",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
    (
        "pass while a tile fits",
        qwirkle_turn_state(bag=()),
        Pass(seat=0),
        "PLACEMENT_POSSIBLE",
        "qwirkle/pass",
        RejectionKind.NOT_ALLOWED_NOW,
    ),
]


@pytest.mark.parametrize(
    ("state", "command", "reason", "rule", "kind"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_broken_precondition_is_refused_with_its_own_reason(
    state: State, command: Command, reason: str, rule: str, kind: RejectionKind
) -> None:
    before = replace(state)
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Rejected)
    assert (decision.reason, decision.rule, decision.kind) == (reason, rule, kind)
    assert state == before


@pytest.mark.parametrize(
    ("state", "command"), [case[1:3] for case in CASES], ids=[c[0] for c in CASES]
)
def test_refusals_are_one_sentence_with_lower_camel_metadata_and_no_secret(
    state: State, command: Command
) -> None:
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Rejected)
    assert re.fullmatch(r"[A-Z][A-Z_]*", decision.reason)
    assert decision.message.endswith(".")
    assert decision.message.count(". ") == 0
    assert all(re.fullmatch(r"[a-z][a-zA-Z]*", key) for key in decision.metadata)
    assert all(value in decision.message for value in decision.metadata.values())
    for secret in QWIRKLE_SECRET_TILES:
        assert secret not in decision.message
        assert secret not in decision.metadata.values()


def test_the_table_covers_every_reason_of_the_rules() -> None:
    assert {case[3] for case in CASES} == {
        "GAME_NOT_STARTED",
        "GAME_OVER",
        "NOT_YOUR_TURN",
        "FIRST_MOVE_MUST_PLACE",
        "EMPTY_PLACEMENT",
        "TOO_MANY_TILES",
        "COORDINATE_OUT_OF_RANGE",
        "DUPLICATE_CELL",
        "DUPLICATE_TILE",
        "TILE_NOT_IN_RACK",
        "CELL_OCCUPIED",
        "FIRST_MOVE_WRONG_SIZE",
        "FIRST_MOVE_MISSES_ORIGIN",
        "NOT_IN_ONE_LINE",
        "LINE_HAS_GAP",
        "NOT_CONNECTED",
        "INVALID_LINE",
        "EXCHANGE_EMPTY",
        "BAG_EMPTY",
        "EXCHANGE_TOO_LARGE",
        "PASS_NOT_ALLOWED",
        "PLACEMENT_POSSIBLE",
    }


def test_the_turn_is_checked_before_the_command_is_well_formed() -> None:
    decision = RULES.decide(qwirkle_turn_state(), qwirkle_place(1), RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "NOT_YOUR_TURN"
    assert decision.metadata == {"currentPlayer": "0", "seat": "1"}


def test_a_malformed_placement_is_refused_before_the_rack_is_checked() -> None:
    command = qwirkle_place(0, ("green-clover", 2, 1), ("green-clover", 2, 1))
    decision = RULES.decide(qwirkle_turn_state(), command, RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "DUPLICATE_CELL"


def test_the_rack_is_checked_before_the_grid() -> None:
    command = qwirkle_place(0, ("green-crisscross", 0, 0))
    decision = RULES.decide(qwirkle_turn_state(), command, RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "TILE_NOT_IN_RACK"


def test_the_first_move_size_is_checked_before_its_line() -> None:
    command = qwirkle_place(
        0, ("red-circle", 0, 0), ("blue-clover", 1, 1), ("red-square", 2, 2)
    )
    decision = RULES.decide(qwirkle_first_move_state(), command, RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "FIRST_MOVE_WRONG_SIZE"
    assert decision.metadata == {"expected": "2", "placed": "3"}


def test_a_first_move_of_the_right_size_must_still_be_one_line() -> None:
    command = qwirkle_place(0, ("red-circle", 0, 0), ("red-square", 1, 1))
    decision = RULES.decide(qwirkle_first_move_state(), command, RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "NOT_IN_ONE_LINE"
