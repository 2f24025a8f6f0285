"""The events of a turn's steps and of a round's end (spec §4.1-§4.8, D7, D13)."""

from __future__ import annotations

from domain.common.rng import Rng
from domain.common.seats import next_seat
from domain.games.split.cards import (
    Half,
    pair_type,
)
from domain.games.split.checks import upgraded_type
from domain.games.split.events import (
    CardDrawn,
    Credit,
    EndReason,
    Event,
    GameEnded,
    MatchMade,
    MatchUpgraded,
    RoundEnded,
    RoundScored,
)
from domain.games.split.evolve import evolve
from domain.games.split.model import (
    ROUNDS,
    MakeMatch,
    State,
    Upgrade,
)
from domain.games.split.scoring import totals, winners
from domain.games.split.setup import deal


def draw(state: State, seat: int, *, bonus: bool, rng: Rng) -> tuple[Event, ...]:
    """Returns a draw of the pile's top card; the last card ends the round (D7)."""
    drawn = CardDrawn(seat, state.draw_pile[0], bonus)
    if len(state.draw_pile) > 1:
        return (drawn,)
    return (drawn, *round_end(evolve(state, drawn), seat, rng))


def make_match(state: State, command: MakeMatch, *, late: bool) -> MatchMade:
    """Returns the new match of two checked halves (§2, §4.3)."""
    a, b = command.card_a, command.card_b
    left, right = (a, b) if a.half is Half.LEFT else (b, a)
    return MatchMade(
        seat=command.seat,
        match_id=state.next_match_id,
        left=left,
        right=right,
        type=pair_type(left, right),
        late=late,
    )


def upgrade(state: State, command: Upgrade) -> MatchUpgraded:
    """Returns the upgrade of a checked match; the upgrader takes it over (D3)."""
    match = next(m for m in state.matches if m.id == command.match_id)
    return MatchUpgraded(
        seat=command.seat,
        match_id=match.id,
        card=command.card,
        from_type=match.type,
        to_type=upgraded_type(match, command.card),
        previous_owner=match.owner,
    )


def round_end(state: State, seat: int, rng: Rng) -> tuple[Event, ...]:
    """Returns the end of the round ``seat``'s draw or discard ended (§4.1, §4.6).

    Going out on one's first turn lets every seat that has not had a turn meld
    first, clockwise from the player who went out (§4.7, D14).
    """
    went_out = not state.hands[seat]
    late: list[int] = []
    if went_out and state.turns[seat] == 1:
        other = next_seat(seat, state.players)
        while other != seat:
            if state.turns[other] == 0:
                late.append(other)
            other = next_seat(other, state.players)
    ended = RoundEnded(
        round=state.round,
        reason=EndReason.WENT_OUT if went_out else EndReason.DRAW_PILE_EMPTY,
        seat=seat,
        late_melders=tuple(late),
        next_dealer=seat if went_out else next_seat(state.dealer, state.players),
    )
    if late:
        return (ended,)
    return (ended, *scoring_and_next(evolve(state, ended), rng))


def scoring_and_next(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the round's scoring (§4.8), then the next deal or the game's end."""
    given = tuple(Credit(m.owner, m.rank, m.type) for m in state.matches)
    # evolve reads only the credits and the hands; the totals follow from them.
    after = evolve(state, RoundScored(state.round, given, state.hands, ()))
    result = totals(after.marks, after.negatives)
    scored = RoundScored(state.round, given, state.hands, result)
    if state.round >= ROUNDS:
        return (scored, GameEnded(result, winners(result, after.negatives)))
    return (scored, deal(state.players, state.round + 1, state.next_dealer, rng))
