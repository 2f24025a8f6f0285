"""The codec that stores domain values as JSON under stable names."""

from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest

from domain.common import table as tables
from domain.common.undo import (
    UNDO_EVENTS,
    MovePlayed,
    MovesUndone,
    UndoAccepted,
    UndoOutcome,
    UndoProposed,
    UndoResolved,
)
from domain.games.qwirkle import (
    RULES,
    Color,
    EndReason,
    ExchangeTiles,
    GameEnded,
    Pass,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    Tile,
    TilesPlaced,
    TurnPassed,
)
from services.codec import TYPE_KEY, VERSION_KEY, Codec
from services.records import CODEC
from tests.helpers import play_to_end, random_legal_move, started_table

GAMES = [(1, 2), (2, 3), (3, 4)]  # (random.Random seed, players)
STABLE_NAME = re.compile(r"^(table|qwirkle)\.[A-Z][A-Za-z]*$")
RED_CIRCLE = Tile(Color.RED, Shape.CIRCLE)
BLUE_CLOVER = Tile(Color.BLUE, Shape.CLOVER)


@dataclass(frozen=True, slots=True)
class Unregistered:
    value: int


def round_trip(value: object) -> Any:
    return CODEC.decode(json.loads(json.dumps(CODEC.encode(value))))


@pytest.fixture(scope="module")
def played() -> tuple[list[Any], list[Any]]:
    """Every event and command of a few complete games between random bots."""
    events: list[Any] = []
    commands: list[Any] = []
    for game_seed, players in GAMES:
        rnd = random.Random(game_seed)
        table, opening = started_table(players, seed=rnd.randbytes(32))
        _, played_events, played_commands = play_to_end(table, random_legal_move(rnd))
        events += opening + played_events
        commands += played_commands
    return events, commands


RARE_VALUES: list[Any] = [
    TurnPassed(seat=1),
    GameEnded(EndReason.DEADLOCK, ((RED_CIRCLE, BLUE_CLOVER), ())),
    GameEnded(EndReason.HAND_EMPTIED, ((), (RED_CIRCLE,))),
    Pass(seat=0),
    PlaceTiles(1, (Placement(RED_CIRCLE, 0, 0), Placement(BLUE_CLOVER, -1, 5))),
    ExchangeTiles(2, (RED_CIRCLE, RED_CIRCLE)),
    tables.GameCreated("qwirkle", QwirkleConfig(), 4, "ab" * 32, ""),
    tables.PlayerJoined(3, "Zoë — ☃", "f" * 64),
    tables.GameStarted(4),
    tables.GameFinished((0, 12, 12), (1, 2), "00" * 32),
    Placement(BLUE_CLOVER, -107, 108),
    QwirkleConfig(),
    MovePlayed(2, undoable=True, reveals=False),
    MovePlayed(1, undoable=False, reveals=None),
    UndoProposed(3, 1, 40, datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    UndoAccepted(3, 0),
    UndoResolved(3, UndoOutcome.REJECTED, 0, datetime(2026, 1, 2, tzinfo=UTC)),
    UndoResolved(4, UndoOutcome.WITHDRAWN, None, None),
    MovesUndone(40, 1, 1, 3),
    tables.TurnTimerStarted(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    tables.TurnTimedOut(1),
    tables.GameCreated(
        "qwirkle",
        QwirkleConfig(),
        2,
        "ab" * 32,
        "",
        private=True,
        expires_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    ),
    tables.InviteCodeSet("c" * 64),
    tables.PlayerLeft(2, "Ben", removed=True),
    tables.TableClosed(tables.ClosedBecause.EXPIRED),
    tables.PlayerResigned(1),
    tables.ResignedSeatPlayed(1),
    tables.GameFinished((3, 9), (1,), "00" * 32, resigned=(0,), abandoned=True),
]


def test_every_event_of_real_play_survives_a_json_round_trip(
    played: tuple[list[Any], list[Any]],
) -> None:
    events, _ = played
    for event in events:
        assert round_trip(event) == event


def test_every_command_of_real_play_survives_a_json_round_trip(
    played: tuple[list[Any], list[Any]],
) -> None:
    _, commands = played
    for command in commands:
        assert round_trip(command) == command


def test_real_play_produces_every_stored_event_but_a_pass_and_undos(
    played: tuple[list[Any], list[Any]],
) -> None:
    events, commands = played
    seen = {CODEC.name_of(event) for event in events}
    undos = {name for name in UNDO_EVENTS if name != "table.MovePlayed"}
    timers = {"table.TurnTimerStarted", "table.TurnTimedOut"}  # untimed play
    # A public table that nobody leaves and nobody resigns.
    seats = {
        "table.InviteCodeSet",
        "table.PlayerLeft",
        "table.TableClosed",
        "table.PlayerResigned",
        "table.ResignedSeatPlayed",
    }
    rare = {"qwirkle.TurnPassed", *undos, *timers, *seats}
    expected = {*tables.TABLE_EVENTS, *RULES.events} - rare
    assert seen == expected
    assert {type(c) for c in commands} == {PlaceTiles, ExchangeTiles}


@pytest.mark.parametrize("value", RARE_VALUES, ids=lambda v: type(v).__name__)
def test_one_of_each_value_play_rarely_makes_survives_a_json_round_trip(
    value: Any,
) -> None:
    assert round_trip(value) == value


def test_decoding_restores_tuples_and_enums_not_lists_and_strings() -> None:
    decoded = round_trip(GameEnded(EndReason.DEADLOCK, ((RED_CIRCLE,), ())))
    assert isinstance(decoded.reason, EndReason)
    assert isinstance(decoded.racks, tuple)
    assert all(isinstance(rack, tuple) for rack in decoded.racks)
    assert isinstance(decoded.racks[0][0].color, Color)


def test_the_stored_form_names_classes_by_their_stable_names() -> None:
    event = TilesPlaced(2, (Placement(RED_CIRCLE, 0, -1),))
    assert CODEC.encode(event) == {
        TYPE_KEY: "qwirkle.TilesPlaced",
        "seat": 2,
        "placements": [
            {
                TYPE_KEY: "qwirkle.Placement",
                "tile": {TYPE_KEY: "qwirkle.Tile", "color": "red", "shape": "circle"},
                "x": 0,
                "y": -1,
            }
        ],
    }


def test_table_events_are_stored_under_table_names() -> None:
    created = tables.GameCreated("qwirkle", QwirkleConfig(), 2, "c", "s")
    assert CODEC.encode(created) == {
        TYPE_KEY: "table.GameCreated",
        "game_type": "qwirkle",
        "config": {TYPE_KEY: "qwirkle.Config"},
        "max_players": 2,
        "commitment": "c",
        "seed": "s",
        "turn_seconds": 0,
        "private": False,
        "expires_at": None,
    }


def collect_type_names(data: Any) -> set[str]:
    if isinstance(data, dict):
        names = {data[TYPE_KEY]} if TYPE_KEY in data else set()
        for value in data.values():
            names |= collect_type_names(value)
        return names
    if isinstance(data, list):
        return set().union(*(collect_type_names(item) for item in data))
    return set()


def test_no_stored_form_holds_a_python_module_path(
    played: tuple[list[Any], list[Any]],
) -> None:
    events, commands = played
    encoded = [CODEC.encode(value) for value in [*events, *commands, *RARE_VALUES]]
    names = collect_type_names(encoded)
    assert names
    assert all(STABLE_NAME.match(name) for name in names), names
    text = json.dumps(encoded)
    for module_path in ("domain.", "services.", "__main__", "model."):
        assert module_path not in text


def test_every_registered_name_is_stable_and_names_one_class() -> None:
    registered = {
        **tables.TABLE_EVENTS,
        **RULES.events,
        **RULES.commands,
        **RULES.values,
    }
    assert all(STABLE_NAME.match(name) for name in registered)
    for name, cls in registered.items():
        assert CODEC._by_type[cls] == name


def test_an_unknown_stored_type_name_raises_value_error() -> None:
    with pytest.raises(ValueError, match=r"qwirkle\.TilesStolen"):
        CODEC.decode({TYPE_KEY: "qwirkle.TilesStolen", "seat": 0})


def test_a_module_path_is_not_a_stored_type_name() -> None:
    with pytest.raises(ValueError, match="unknown stored type"):
        CODEC.decode({TYPE_KEY: "domain.games.qwirkle.model:TurnPassed", "seat": 0})


def test_an_unregistered_class_raises_type_error() -> None:
    with pytest.raises(TypeError, match="Unregistered"):
        CODEC.encode(Unregistered(1))


def test_an_unregistered_class_inside_a_registered_one_raises_type_error() -> None:
    with pytest.raises(TypeError, match="Unregistered"):
        CODEC.encode(TilesPlaced(0, (Unregistered(1),)))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value", [object(), {1, 2}, b"bytes"], ids=["object", "set", "bytes"]
)
def test_a_value_json_cannot_hold_raises_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="cannot encode"):
        CODEC.encode(value)


def test_a_codec_refuses_one_class_under_two_names() -> None:
    with pytest.raises(ValueError, match="two names"):
        Codec({"test.One": Unregistered, "test.Two": Unregistered})


def test_a_codec_round_trips_mappings_as_pairs() -> None:
    @dataclass(frozen=True)
    class Board:
        cells: dict[tuple[int, int], Tile]

    codec = Codec({"test.Board": Board, "qwirkle.Tile": Tile})
    board = Board({(0, 0): RED_CIRCLE, (-1, 0): BLUE_CLOVER})
    encoded = codec.encode(board)
    assert encoded["cells"][0][0] == [0, 0]
    assert codec.decode(json.loads(json.dumps(encoded))) == board


def test_a_move_stored_before_the_reveal_verdict_reads_as_unknown() -> None:
    stored = {TYPE_KEY: "table.MovePlayed", "seat": 1, "undoable": False}
    before = dict(stored)
    assert CODEC.decode(stored) == MovePlayed(1, undoable=False, reveals=None)
    assert stored == before
    assert CODEC.encode(MovePlayed(1, undoable=True, reveals=True)) == {
        TYPE_KEY: "table.MovePlayed",
        VERSION_KEY: 2,
        "seat": 1,
        "undoable": True,
        "reveals": True,
    }


# --- Schema versions ---


@dataclass(frozen=True, slots=True)
class Spot:
    """Version 1 stored ``row`` and ``col``; version 2 ``x`` and ``y``; version 3
    the owner's name inside a nested ``owner`` dict."""

    SCHEMA_VERSION: ClassVar[int] = 3

    x: int
    y: int
    owner: tuple[str, ...]

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> None:
        data["x"] = data.pop("col")
        data["y"] = data.pop("row")

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> None:
        data["owner"]["names"].append("(none)")
        data["owner"] = data["owner"]["names"]


@dataclass(frozen=True, slots=True)
class Board:
    spots: tuple[Spot, ...]


@dataclass(frozen=True, slots=True)
class Skipped:
    SCHEMA_VERSION: ClassVar[int] = 3

    value: int

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> None:
        data["value"] = 0


@dataclass(frozen=True, slots=True)
class Flag:
    """Version 1 throughout; every field but ``name`` was added with a default."""

    name: str
    shown: bool = True
    note: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    at: Spot | None = None


VERSIONED = Codec({"test.Spot": Spot, "test.Board": Board, "test.Flag": Flag})
SPOT_V1 = {TYPE_KEY: "test.Spot", "row": 2, "col": 5, "owner": {"names": ["Ana"]}}
SPOT_V2 = {
    TYPE_KEY: "test.Spot",
    VERSION_KEY: 2,
    "x": 5,
    "y": 2,
    "owner": {"names": ["Ana"]},
}


def test_a_later_version_is_written_under_the_version_key_and_round_trips() -> None:
    spot = Spot(1, -1, ("Ana",))
    encoded = VERSIONED.encode(spot)
    assert encoded == {
        TYPE_KEY: "test.Spot",
        VERSION_KEY: 3,
        "x": 1,
        "y": -1,
        "owner": ["Ana"],
    }
    assert VERSIONED.decode(json.loads(json.dumps(encoded))) == spot


def test_version_one_writes_no_version_key(played: tuple[list[Any], list[Any]]) -> None:
    events, commands = played
    unversioned = [e for e in [*events, *commands] if not isinstance(e, MovePlayed)]
    assert unversioned
    assert VERSION_KEY not in json.dumps([CODEC.encode(v) for v in unversioned])
    assert VERSION_KEY not in VERSIONED.encode(Board(()))


@pytest.mark.parametrize("stored", [SPOT_V1, SPOT_V2], ids=["v1", "v2"])
def test_an_older_stored_dict_is_upcast_step_by_step(stored: dict[str, Any]) -> None:
    assert VERSIONED.decode(stored) == Spot(5, 2, ("Ana", "(none)"))


def test_a_stored_dict_without_a_version_key_is_version_one() -> None:
    board = {TYPE_KEY: "test.Board", "spots": [SPOT_V1, SPOT_V2]}
    expected = Spot(5, 2, ("Ana", "(none)"))
    assert VERSIONED.decode(board) == Board((expected, expected))


def test_upcasting_never_changes_the_callers_dict() -> None:
    board = {TYPE_KEY: "test.Board", "spots": [SPOT_V1, SPOT_V2]}
    before = copy.deepcopy(board)
    VERSIONED.decode(board)
    VERSIONED.decode(board)
    assert board == before


def test_a_dict_stored_by_newer_code_is_refused() -> None:
    newer = {**SPOT_V2, VERSION_KEY: 4}
    with pytest.raises(ValueError, match=r"test\.Spot.*stored by newer code"):
        VERSIONED.decode(newer)


@pytest.mark.parametrize("version", [0, -1, "2", None, 1.5])
def test_a_stored_version_that_is_no_version_is_refused(version: object) -> None:
    with pytest.raises(ValueError, match="no valid schema version"):
        VERSIONED.decode({**SPOT_V2, VERSION_KEY: version})


def test_a_codec_refuses_a_class_missing_an_upcaster() -> None:
    with pytest.raises(ValueError, match=r"Skipped .*version 3.*upcast_v2_v3"):
        Codec({"test.Skipped": Skipped})


def test_a_codec_refuses_a_schema_version_below_one() -> None:
    @dataclass(frozen=True)
    class Zero:
        SCHEMA_VERSION: ClassVar[int] = 0

    with pytest.raises(ValueError, match="SCHEMA_VERSION must be an int >= 1"):
        Codec({"test.Zero": Zero})


FLAG_BEFORE_ITS_DEFAULTS = {TYPE_KEY: "test.Flag", "name": "x"}
FLAG_AT_A_V1_SPOT = {TYPE_KEY: "test.Flag", "name": "y", "at": SPOT_V1}


@pytest.mark.parametrize(
    "stored",
    [
        SPOT_V1,
        SPOT_V2,
        {TYPE_KEY: "test.Board", "spots": [SPOT_V1, SPOT_V2]},
        FLAG_BEFORE_ITS_DEFAULTS,
        FLAG_AT_A_V1_SPOT,
        VERSIONED.encode(Flag("z", shown=False, tags=("a",), at=Spot(0, 0, ()))),
    ],
    ids=["v1", "v2", "nested", "defaults", "nested-v1", "current"],
)
def test_the_current_form_of_stored_data_is_what_its_value_encodes_to(
    stored: dict[str, Any],
) -> None:
    before = copy.deepcopy(stored)
    current = VERSIONED.current_form(stored)
    assert current == VERSIONED.encode(VERSIONED.decode(stored))
    assert stored == before


def test_the_current_form_fills_defaults_and_keeps_keys_no_class_defines() -> None:
    assert VERSIONED.current_form(FLAG_BEFORE_ITS_DEFAULTS) == {
        TYPE_KEY: "test.Flag",
        "name": "x",
        "shown": True,
        "note": None,
        "tags": [],
        "at": None,
    }
    stored = {**FLAG_BEFORE_ITS_DEFAULTS, "stolen": 1}
    current = VERSIONED.current_form(stored)
    assert current["stolen"] == 1
    assert current != VERSIONED.encode(VERSIONED.decode(stored))


def test_a_field_added_later_is_stored_only_when_it_says_something() -> None:
    guest = tables.PlayerJoined(1, "Ben", "hash")
    signed_in = tables.PlayerJoined(
        1, "", "hash", "0b7e3c2a-5d1f-4c4e-9a53-2f7d3c6b8e10"
    )
    assert CODEC.encode(guest) == {
        TYPE_KEY: "table.PlayerJoined",
        "seat": 1,
        "display_name": "Ben",
        "token_hash": "hash",
    }  # as stored before seats had accounts: the same digests
    assert CODEC.encode(signed_in)["player_id"] == signed_in.player_id
    for value in (guest, signed_in):
        stored = json.loads(json.dumps(CODEC.encode(value)))
        assert CODEC.decode(stored) == value
        assert CODEC.current_form(stored) == CODEC.encode(value)
