"""Split: pair card halves into matches, use their bonuses, empty your hand.

Section (§) and decision (D) numbers in this package refer to
``docs/rules/split.md``. ``RULES`` is the game's entry in the registry; the
stored names below never change once games are stored.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules, Modules, Option
from domain.games.split import evolve, legal, rules, setup, views
from domain.games.split.cards import (
    Card,
    Half,
    MatchType,
    Rank,
    Suit,
    card_from_id,
)
from domain.games.split.events import (
    CardDiscarded,
    CardDrawn,
    Credit,
    DiscardTaken,
    EndReason,
    Event,
    GameEnded,
    LateMeldFinished,
    MatchMade,
    MatchUpgraded,
    NegativeMarked,
    RoundDealt,
    RoundEnded,
    RoundScored,
    StrongBonusDeclined,
    WeakBonusResolved,
)
from domain.games.split.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Bonus,
    ChoosePenaltyTarget,
    Command,
    Discard,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Match,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    SplitConfig,
    State,
    TakeFromDiscard,
    Upgrade,
)
from domain.games.split.views import SplitPrivate, SplitPublic, SplitView

EVENTS: dict[str, type[Any]] = {
    "split.RoundDealt": RoundDealt,
    "split.CardDrawn": CardDrawn,
    "split.DiscardTaken": DiscardTaken,
    "split.MatchMade": MatchMade,
    "split.MatchUpgraded": MatchUpgraded,
    "split.NegativeMarked": NegativeMarked,
    "split.StrongBonusDeclined": StrongBonusDeclined,
    "split.WeakBonusResolved": WeakBonusResolved,
    "split.CardDiscarded": CardDiscarded,
    "split.RoundEnded": RoundEnded,
    "split.LateMeldFinished": LateMeldFinished,
    "split.RoundScored": RoundScored,
    "split.GameEnded": GameEnded,
}
COMMANDS: dict[str, type[Any]] = {
    "split.DrawFromPile": DrawFromPile,
    "split.TakeFromDiscard": TakeFromDiscard,
    "split.MakeMatch": MakeMatch,
    "split.Upgrade": Upgrade,
    "split.ChoosePenaltyTarget": ChoosePenaltyTarget,
    "split.ResolveStrongBonus": ResolveStrongBonus,
    "split.ResolveWeakBonus": ResolveWeakBonus,
    "split.Discard": Discard,
    "split.FinishLateMeld": FinishLateMeld,
}
VALUES: dict[str, type[Any]] = {
    "split.Card": Card,
    "split.Match": Match,
    "split.Credit": Credit,
    "split.Bonus": Bonus,
    "split.Config": SplitConfig,
}

RULES: GameRules[State, Command, Event, SplitConfig] = GameRules.declare(
    Modules(setup, rules, evolve, legal, views),
    (EVENTS, COMMANDS, VALUES),
    name="split",
    players=(MIN_PLAYERS, MAX_PLAYERS),
    config_type=SplitConfig,
    options=(
        Option(
            "first_dealer",
            "The seat that deals the first round; the first turn is to "
            "the dealer's left.",
            "0",
        ),
    ),
    self_undo=(
        "A move that drew and revealed nothing: the perfect bonus's choice, "
        "declining the strong bonus, the weak bonus's swap or not, finishing a "
        "late meld that does not end the round, and taking from the discard row"
        " when only its cards are used. Every other move needs the others' "
        "consent."
    ),
)

__all__ = [
    "COMMANDS",
    "EVENTS",
    "RULES",
    "VALUES",
    "Bonus",
    "Card",
    "CardDiscarded",
    "CardDrawn",
    "ChoosePenaltyTarget",
    "Command",
    "Credit",
    "Discard",
    "DiscardTaken",
    "DrawFromPile",
    "EndReason",
    "Event",
    "FinishLateMeld",
    "GameEnded",
    "Half",
    "LateMeldFinished",
    "MakeMatch",
    "Match",
    "MatchMade",
    "MatchType",
    "MatchUpgraded",
    "NegativeMarked",
    "Phase",
    "Rank",
    "ResolveStrongBonus",
    "ResolveWeakBonus",
    "RoundDealt",
    "RoundEnded",
    "RoundScored",
    "SplitConfig",
    "SplitPrivate",
    "SplitPublic",
    "SplitView",
    "State",
    "StrongBonusDeclined",
    "Suit",
    "TakeFromDiscard",
    "Upgrade",
    "WeakBonusResolved",
    "card_from_id",
]
