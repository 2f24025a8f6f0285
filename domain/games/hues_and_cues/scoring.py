"""Round scoring, leaders and the order of play (spec §2, §3, §5; pure helpers)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.common.rules import top_seats
from domain.games.hues_and_cues.board import Square, distance
from domain.games.hues_and_cues.events import PieceScored
from domain.games.hues_and_cues.model import (
    CUE_POINTS,
    GUESS_POINTS,
    MIN_PLAYERS,
    THREE_PLAYER_CUE_POINTS,
    TWICE_UP_TO,
    Piece,
)

FRAME = 1  # §1.4: inside the frame means d <= 1


def regular_round_count(players: int) -> int:
    """Returns the regular rounds: 2N with up to 6 players, else N (§2)."""
    return 2 * players if players <= TWICE_UP_TO else players


def regular_cue_giver(first: int, index: int, players: int) -> int:
    """Returns the cue giver of regular round ``index`` (0-based, §2)."""
    return (first + index) % players


def first_guess_order(cue_giver: int, players: int) -> tuple[int, ...]:
    """Returns §3.2's order: clockwise from the cue giver's left (D6)."""
    return tuple((cue_giver + k) % players for k in range(1, players))


def second_guess_order(cue_giver: int, players: int) -> tuple[int, ...]:
    """Returns §3.4's order: counter-clockwise from the cue giver's right (D6)."""
    return tuple((cue_giver - k) % players for k in range(1, players))


def guess_points(d: int) -> int:
    """Returns a piece's points at distance ``d``: 3, 2, 1, then 0 (§5.1)."""
    return GUESS_POINTS[d] if d < len(GUESS_POINTS) else 0


def cue_points_per_piece(players: int) -> int:
    """Returns the cue giver's points per piece in the frame: 2 with 3 players (D16)."""
    return THREE_PLAYER_CUE_POINTS if players == MIN_PLAYERS else CUE_POINTS


def score_pieces(target: Square, pieces: Sequence[Piece]) -> tuple[PieceScored, ...]:
    """Returns each piece's distance and points, in placing order (§5.1, D7)."""
    return tuple(
        PieceScored(
            seat=piece.seat,
            guess_no=piece.guess_no,
            square=piece.square,
            distance=distance(piece.square, target),
            points=guess_points(distance(piece.square, target)),
        )
        for piece in pieces
    )


def round_points(
    players: int, cue_giver: int, scored: Sequence[PieceScored]
) -> tuple[tuple[int, ...], int]:
    """Returns every seat's points for a round and the pieces in the frame (§5.1)."""
    points = [0] * players
    for piece in scored:
        points[piece.seat] += piece.points
    in_frame = sum(1 for piece in scored if piece.distance <= FRAME)
    points[cue_giver] += in_frame * cue_points_per_piece(players)
    return tuple(points), in_frame


def leaders(
    scores: Sequence[int], seats: Iterable[int] | None = None
) -> tuple[int, ...]:
    """Returns the seats with the highest score (§5.2's T).

    Only ``seats`` compete when given; by default every seat does.
    """
    among = range(len(scores)) if seats is None else seats
    return top_seats(among, lambda seat: (scores[seat],))


def tiebreak_cue_giver(previous: int, tied: Sequence[int], players: int) -> int | None:
    """Returns the first seat clockwise after ``previous`` not tied (D14), or None."""
    for k in range(1, players + 1):
        seat = (previous + k) % players
        if seat not in tied:
            return seat
    return None
