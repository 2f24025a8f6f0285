"""Gnoming A Round's departures from the converter's rules.

Positions and piles travel as plain integers; ``decide`` refuses values out of
range with its own reasons. A discard pile of 0 means "no pile" (a hazard). A
layout shows each position's card, or that it lies face down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.games.gnoming_a_round import (
    RULES,
    Card,
    GnomingARoundPublic,
    Phase,
    RoundDealt,
    RoundScored,
    State,
)
from services.api.convert.base import Declaration
from services.api.convert.mapping import Mapper, Names, Shape

_BEFORE_TURNS = (Phase.SETUP, Phase.INITIAL_FLIP, Phase.GAME_OVER)


def _layout(layout: Sequence[Card | None]) -> Mapping[str, Any]:
    return {
        "positions": [
            {"face_down": True} if c is None else {"card": c} for c in layout
        ],
        "face_down_count": sum(1 for card in layout if card is None),
    }


def _active(public: GnomingARoundPublic, _: Names) -> int | None:
    return None if public.phase in _BEFORE_TURNS else public.active_seat


def _piles(public: GnomingARoundPublic, _: Names) -> list[Mapping[str, Any]]:
    piles = zip(public.discard_tops, public.discard_sizes, strict=True)
    return [{"top": top, "size": size} for top, size in piles]


def _rounds(public: GnomingARoundPublic, _: Names) -> list[Mapping[str, Any]]:
    scores = enumerate(public.round_scores, start=1)
    return [{"round": number, "scores": each} for number, each in scores]


def _results(event: RoundScored, _: Names) -> list[Mapping[str, Any]]:
    return [
        {
            "cards": cards,
            "base_score": event.base_scores[seat],
            "score": event.scores[seat],
            "total": event.totals[seat],
            "wild_position": event.wild[seat],
        }
        for seat, cards in enumerate(event.layouts)
    ]


def _first_turn(state: State) -> int:
    """Returns round 1's first player, whose turn follows everyone's initial flip."""
    return state.starting_seat


DECLARED = Declaration(
    RULES,
    Mapper(
        shapes={
            RoundDealt: Shape(renames={"removed": "removed_hazards"}),
            RoundScored: Shape(
                renames={"first_out": "first_out_player"},
                computed={"results": _results},
            ),
            GnomingARoundPublic: Shape(
                renames={
                    "to_move": "players_to_act",
                    "removed": "removed_hazards",
                    "filled": "filled_positions",
                    "flipped": "flipped_players",
                    "asked": "hazard_responders",
                    "answered": "hazard_answered",
                },
                computed={
                    "active_player": _active,
                    "layouts": lambda p, _: [_layout(each) for each in p.layouts],
                    "discard_piles": _piles,
                    "round_results": _rounds,
                },
            ),
        },
    ),
    first_turn=_first_turn,
)
