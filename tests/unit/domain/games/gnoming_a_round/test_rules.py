"""Every precondition of the spec is refused with its own reason and rule.

A refusal changes nothing: ``decide`` returns a value and the state it was
given is left as it was (spec §2-§3, D5-D12, D20, D22).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.common.rng import Rng
from domain.games.gnoming_a_round import RULES, GnomingARoundConfig
from domain.games.gnoming_a_round.model import (
    Bounce,
    Command,
    Discard,
    DrawFromPile,
    FlipInitial,
    HazardDecline,
    HazardFlip,
    Keep,
    Phase,
    Reject,
    State,
    StopBounce,
    TakeFromDiscard,
)
from domain.games.gnoming_a_round.setup import initial_state
from tests.factories_gnoming import FRESH, gnoming_state

RNG = Rng(bytes(range(32)))
MALFORMED = RejectionKind.MALFORMED
NOW = RejectionKind.NOT_ALLOWED_NOW


def flipping() -> State:
    layout = " ".join(["~5"] * 9)
    return gnoming_state((layout,) * 3, phase=Phase.INITIAL_FLIP, flipped=(1,))


def deciding(hand: str = "4", *, drawn: bool = True, layout: str = FRESH) -> State:
    return gnoming_state(
        (layout, FRESH, FRESH), phase=Phase.DECIDE, in_hand=hand, drawn=drawn
    )


def bouncing() -> State:
    return gnoming_state(phase=Phase.BOUNCE, in_hand="3", filled=(2, 4))


def discarding(hand: str = "4", discards: tuple[str, str] = ("10", "11")) -> State:
    return gnoming_state(phase=Phase.DISCARD, in_hand=hand, discards=discards)


def responding() -> State:
    layouts = (FRESH, FRESH, FRESH, "1 2 3 4 5 6 7 8 ~9")
    return gnoming_state(
        layouts, phase=Phase.HAZARD_RESPONSES, asked=(1, 2), answered=(2,)
    )


CASES: list[tuple[str, Callable[[], State], Command, str, str, RejectionKind]] = [
    # Each case: its name, state, command, then the reason, rule and kind.
    ("seat out of range", gnoming_state, DrawFromPile(3), "NOT_A_PARTICIPANT",
     "gnoming_a_round/seats", RejectionKind.NOT_A_PARTICIPANT),
    ("before the deal", lambda: initial_state(3, GnomingARoundConfig()),
     DrawFromPile(0), "GAME_NOT_STARTED", "gnoming_a_round/setup", NOW),
    ("after the end", lambda: replace(gnoming_state(), phase=Phase.GAME_OVER),
     DrawFromPile(0), "GAME_OVER", "gnoming_a_round/game_end", NOW),
    ("draw during the initial flip", flipping, DrawFromPile(0), "WRONG_PHASE",
     "gnoming_a_round/turn_phases", NOW),
    ("flip outside the initial flip", gnoming_state, FlipInitial(0, (2, 3)),
     "WRONG_PHASE", "gnoming_a_round/turn_phases", NOW),
    ("keep before drawing", gnoming_state, Keep(0, 3), "WRONG_PHASE",
     "gnoming_a_round/turn_phases", NOW),
    ("draw twice", deciding, DrawFromPile(0), "WRONG_PHASE",
     "gnoming_a_round/turn_phases", NOW),
    ("bounce while deciding", deciding, Bounce(0, 3), "WRONG_PHASE",
     "gnoming_a_round/turn_phases", NOW),
    ("discard while bouncing", bouncing, Discard(0, 1), "WRONG_PHASE",
     "gnoming_a_round/turn_phases", NOW),
    ("stop a bounce while discarding", discarding, StopBounce(0), "WRONG_PHASE",
     "gnoming_a_round/turn_phases", NOW),
    ("answer a hazard nobody discarded", gnoming_state, HazardDecline(1),
     "WRONG_PHASE", "gnoming_a_round/turn_phases", NOW),
    ("draw while hazards are answered", responding, DrawFromPile(0),
     "WRONG_PHASE", "gnoming_a_round/turn_phases", NOW),
    ("draw out of turn", gnoming_state, DrawFromPile(1), "NOT_YOUR_TURN",
     "common/turn_order", NOW),
    ("discard out of turn", discarding, Discard(2, 1), "NOT_YOUR_TURN",
     "common/turn_order", NOW),
    ("flip twice", flipping, FlipInitial(1, (0, 1)), "ALREADY_FLIPPED",
     "gnoming_a_round/initial_flip", NOW),
    ("flip one card", flipping, FlipInitial(0, (4,)), "WRONG_NUMBER_OF_POSITIONS",
     "gnoming_a_round/initial_flip", MALFORMED),
    ("flip three cards", flipping, FlipInitial(0, (1, 2, 3)),
     "WRONG_NUMBER_OF_POSITIONS", "gnoming_a_round/initial_flip", MALFORMED),
    ("flip off the layout", flipping, FlipInitial(0, (4, 9)), "INVALID_POSITION",
     "gnoming_a_round/positions", MALFORMED),
    ("flip one position twice", flipping, FlipInitial(0, (4, 4)),
     "SAME_POSITION_TWICE", "gnoming_a_round/initial_flip", MALFORMED),
    ("draw from nothing", lambda: gnoming_state(draw="", discards=("5", "6")),
     DrawFromPile(0), "DRAW_PILE_EMPTY", "gnoming_a_round/draw_pile_exhausted",
     NOW),
    ("take from pile 3", gnoming_state, TakeFromDiscard(0, 3), "INVALID_PILE",
     "gnoming_a_round/discard_piles", MALFORMED),
    ("take from pile 0", gnoming_state, TakeFromDiscard(0, 0), "INVALID_PILE",
     "gnoming_a_round/discard_piles", MALFORMED),
    ("take from an empty pile", lambda: gnoming_state(discards=("", "6")),
     TakeFromDiscard(0, 1), "DISCARD_PILE_EMPTY",
     "gnoming_a_round/take_from_discard", NOW),
    ("take a second mulligan",
     lambda: gnoming_state(("M 2 ~3 ~4 ~5 ~6 ~7 ~8 ~9", FRESH, FRESH),
                           discards=("5", "M")),
     TakeFromDiscard(0, 2), "MULLIGAN_ALREADY_SHOWN",
     "gnoming_a_round/one_mulligan", NOW),
    ("keep off the layout", deciding, Keep(0, -1), "INVALID_POSITION",
     "gnoming_a_round/positions", MALFORMED),
    ("keep a second mulligan",
     lambda: deciding("M", layout="1 2 ~3 ~4 M ~6 ~7 ~8 ~9"), Keep(0, 2),
     "MULLIGAN_ALREADY_SHOWN", "gnoming_a_round/one_mulligan", NOW),
    ("keep a mulligan over the shown one (D21)",
     lambda: deciding("M", layout="1 2 ~3 ~4 M ~6 ~7 ~8 ~9"), Keep(0, 4),
     "MULLIGAN_ALREADY_SHOWN", "gnoming_a_round/one_mulligan", NOW),
    ("reject a taken discard", lambda: deciding(drawn=False), Reject(0),
     "MUST_KEEP_TAKEN_CARD", "gnoming_a_round/keep_taken_discard", NOW),
    ("bounce off the layout", bouncing, Bounce(0, 9), "INVALID_POSITION",
     "gnoming_a_round/positions", MALFORMED),
    ("bounce where the held card went", bouncing, Bounce(0, 2),
     "POSITION_FILLED_THIS_TURN", "gnoming_a_round/bounce_target", NOW),
    ("bounce where a bounced card went", bouncing, Bounce(0, 4),
     "POSITION_FILLED_THIS_TURN", "gnoming_a_round/bounce_target", NOW),
    ("discard on pile 3", discarding, Discard(0, 3), "INVALID_PILE",
     "gnoming_a_round/discard_piles", MALFORMED),
    ("discard a hazard on a pile", lambda: discarding("H"), Discard(0, 1),
     "HAZARD_TAKES_NO_PILE", "gnoming_a_round/discard_hazard", NOW),
    ("discard without a pile", discarding, Discard(0, None), "PILE_REQUIRED",
     "gnoming_a_round/discard_pile", NOW),
    ("discard beside an empty pile", lambda: discarding(discards=("5", "")),
     Discard(0, 1), "MUST_USE_EMPTY_PILE", "gnoming_a_round/empty_discard_pile",
     NOW),
    ("answer a hazard twice", responding, HazardDecline(2), "ALREADY_RESPONDED",
     "gnoming_a_round/hazard_responses", NOW),
    ("the active seat answers its hazard", responding, HazardDecline(0),
     "NOT_ASKED_TO_RESPOND", "gnoming_a_round/hazard_responses", NOW),
    ("a seat with one face-down card answers", responding, HazardFlip(3, 8),
     "NOT_ASKED_TO_RESPOND", "gnoming_a_round/hazard_responses", NOW),
    ("a hazard flip off the layout", responding, HazardFlip(1, 10),
     "INVALID_POSITION", "gnoming_a_round/positions", MALFORMED),
    ("a hazard flip of a face-up card", responding, HazardFlip(1, 0),
     "POSITION_FACE_UP", "gnoming_a_round/hazard_flip", NOW),
]  # fmt: skip


@pytest.mark.parametrize(
    ("state", "command", "reason", "rule", "kind"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_a_broken_precondition_is_refused_and_changes_nothing(
    state: Callable[[], State],
    command: Command,
    reason: str,
    rule: str,
    kind: RejectionKind,
) -> None:
    before = state()
    decision = RULES.decide(before, command, RNG)
    assert isinstance(decision, Rejected), decision
    assert (decision.reason, decision.rule, decision.kind) == (reason, rule, kind)
    assert before == state()
    assert decision.message.endswith(".")


def test_every_reason_has_one_rule() -> None:
    rules: dict[str, set[str]] = {}
    for case in CASES:
        rules.setdefault(case[3], set()).add(case[4])
    assert all(len(found) == 1 for found in rules.values()), rules


def test_refusal_messages_never_name_a_card() -> None:
    # DESIGN §5: a refusal must not reveal a hidden card.
    for case in CASES:
        decision = RULES.decide(case[1](), case[2], RNG)
        assert isinstance(decision, Rejected)
        assert not any(
            mark in decision.message for mark in ("P0", "P1", "N0", "HZ-", "MU-")
        )
