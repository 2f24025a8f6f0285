"""The example game's converter: its messages, compiled from its own proto.

A game the server plays declares its departures in ``services/api/convert/``
and its messages live in ``tabletop.v1``; the example's live in
``protos/example/v1/example.proto`` beside this module, compiled once per test
session, and its only departure is a real game's: a view's revealed hands.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from functools import cache
from pathlib import Path
from types import ModuleType

from grpc_tools import protoc  # type: ignore[import-untyped]

from services.api.convert.base import Api, Declaration, GameConverter
from services.api.convert.mapping import Mapper, Shape
from tests.example_game import RULES
from tests.example_game.model import Pass
from tests.example_game.views import ExampleView

PROTOS = Path(__file__).parent / "protos"


@cache
def messages() -> ModuleType:
    """Returns the generated module of ``example.proto``, compiled on first use."""
    out = tempfile.mkdtemp(prefix="example-proto-")
    source = "example/v1/example.proto"
    if protoc.main(["protoc", f"-I{PROTOS}", f"--python_out={out}", source]) != 0:
        msg = f"protoc could not compile {PROTOS / source}"
        raise RuntimeError(msg)
    sys.path.insert(0, out)
    return importlib.import_module("example.v1.example_pb2")


@cache
def converter(game_type: str = RULES.name) -> GameConverter:
    """Returns the example game's converter (``game_type`` is always its own)."""
    assert game_type == RULES.name, game_type
    pb = messages()
    api = Api(pb.Game, pb.Move, pb.GameEvent, pb.GameTypeInfo, pb.GameType)
    mapper = Mapper(
        shapes={ExampleView: Shape(renames={"hands": "public_state.revealed_hands"})}
    )
    return GameConverter(Declaration(RULES, mapper, {Pass: "pass_turn"}, api))
