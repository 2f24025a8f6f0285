"""Hues and Cues values <-> ``tabletop.v1`` Hues and Cues messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from tabletop.v1 import game_pb2, hues_and_cues_pb2

from domain.games.hues_and_cues import (
    CARDS,
    CardDrawn,
    Command,
    CueGiven,
    DeckShuffled,
    EndReason,
    FirstCueGiverChosen,
    GameEnded,
    GiveFirstCue,
    GiveSecondCue,
    GuessPlaced,
    HuesAndCuesConfig,
    HuesAndCuesView,
    Phase,
    Piece,
    PlaceGuess,
    RoundScored,
    RoundStarted,
    SecondCueSkipped,
    SkipSecondCue,
    Square,
    TargetChosen,
    TargetRevealed,
    parse_square,
)
from domain.games.hues_and_cues.board import (
    ALL_SQUARES,
    COLUMNS,
    ROWS,
    color,
    hex_color,
)
from domain.games.hues_and_cues.cues import (
    BASIC_COLOR_FORMS,
    BASIC_COLORS,
    MAX_CUE_LENGTH,
    NUMBER_WORDS,
    POSITION_WORDS,
    RELATIVE_WORDS,
)
from services.api.convert.base import GameConverter, Names, Option, enum_map
from services.api.errors import FieldViolation

_PHASES: Mapping[Phase, hues_and_cues_pb2.HuesAndCuesPhase] = enum_map(
    hues_and_cues_pb2.HuesAndCuesPhase, "HUES_AND_CUES_PHASE_", Phase
)
_REASONS: Mapping[EndReason, hues_and_cues_pb2.HuesAndCuesEndReason] = enum_map(
    hues_and_cues_pb2.HuesAndCuesEndReason, "HUES_AND_CUES_END_REASON_", EndReason
)


def square_to_proto(square: Square) -> hues_and_cues_pb2.HuesAndCuesSquare:
    """Returns a square message: its name, row and column."""
    return hues_and_cues_pb2.HuesAndCuesSquare(
        id=str(square), row=square.row, column=square.column
    )


def _square(
    message: Any, name: str, path: str, problems: list[FieldViolation]
) -> Square | None:
    where = f"{path}.{name}"
    if not message.HasField(name):
        problems.append(FieldViolation(where, "is required"))
        return None
    square = parse_square(getattr(message, name).id)
    if square is None:
        problems.append(
            FieldViolation(f"{where}.id", "must name a square from A1 to P30")
        )
    return square


def _card(card_id: str | None) -> hues_and_cues_pb2.HuesAndCuesCard | None:
    if card_id is None:
        return None
    return hues_and_cues_pb2.HuesAndCuesCard(
        id=card_id, squares=[square_to_proto(s) for s in CARDS[card_id].squares]
    )


def _piece(piece: Piece, names: Names) -> hues_and_cues_pb2.HuesAndCuesPiece:
    return hues_and_cues_pb2.HuesAndCuesPiece(
        player=names(piece.seat),
        guess_no=piece.guess_no,
        square=square_to_proto(piece.square),
    )


def _points(
    points: Sequence[int], names: Names
) -> list[hues_and_cues_pb2.HuesAndCuesPlayerPoints]:
    return [
        hues_and_cues_pb2.HuesAndCuesPlayerPoints(player=names(seat), points=value)
        for seat, value in enumerate(points)
    ]


def move_from_proto(
    move: hues_and_cues_pb2.HuesAndCuesMove, seat: int, path: str
) -> Command | list[FieldViolation]:
    """Returns the command a Hues and Cues move asks for, or what is wrong with it.

    Cue texts are checked by the rules (spec §4), which give each failure its own
    reason; here only the shape of the message is checked.
    """
    action = move.WhichOneof("action")
    problems: list[FieldViolation] = []
    where = f"{path}.{action}"
    command: Command | None = None
    match action:
        case "give_first_cue":
            target = _square(move.give_first_cue, "target", where, problems)
            cue = move.give_first_cue.cue
            command = None if target is None else GiveFirstCue(seat, target, cue)
        case "place_guess":
            square = _square(move.place_guess, "square", where, problems)
            command = None if square is None else PlaceGuess(seat, square)
        case "give_second_cue":
            command = GiveSecondCue(seat, move.give_second_cue.cue)
        case "skip_second_cue":
            command = SkipSecondCue(seat)
        case _:
            return [FieldViolation(f"{path}.action", "set one Hues and Cues action")]
    return problems if problems or command is None else command


def move_to_proto(command: Command) -> hues_and_cues_pb2.HuesAndCuesMove:
    """Returns the move message of a command (for ListLegalMoves)."""
    match command:
        case GiveFirstCue():
            first = hues_and_cues_pb2.HuesAndCuesGiveFirstCue(
                target=square_to_proto(command.target), cue=command.cue
            )
            return hues_and_cues_pb2.HuesAndCuesMove(give_first_cue=first)
        case PlaceGuess():
            guess = hues_and_cues_pb2.HuesAndCuesPlaceGuess(
                square=square_to_proto(command.square)
            )
            return hues_and_cues_pb2.HuesAndCuesMove(place_guess=guess)
        case GiveSecondCue():
            second = hues_and_cues_pb2.HuesAndCuesGiveSecondCue(cue=command.cue)
            return hues_and_cues_pb2.HuesAndCuesMove(give_second_cue=second)
        case SkipSecondCue():
            return hues_and_cues_pb2.HuesAndCuesMove(
                skip_second_cue=hues_and_cues_pb2.HuesAndCuesSkipSecondCue()
            )
        case _:
            assert_never(command)


def _round_score(
    scored: RoundScored, names: Names
) -> hues_and_cues_pb2.HuesAndCuesRoundScore:
    return hues_and_cues_pb2.HuesAndCuesRoundScore(
        round=scored.round,
        target=square_to_proto(scored.target),
        cue_giver=names(scored.cue_giver),
        pieces_in_frame=scored.pieces_in_frame,
        points=_points(scored.points, names),
        pieces=[
            hues_and_cues_pb2.HuesAndCuesPieceScore(
                piece=_piece(Piece(p.seat, p.guess_no, p.square), names),
                distance=p.distance,
                points=p.points,
            )
            for p in scored.pieces
        ],
    )


def view_to_proto(
    view: HuesAndCuesView, names: Names
) -> hues_and_cues_pb2.HuesAndCuesView:
    """Returns the caller's view message; the secret part only when it is set."""
    public = view.public
    message = hues_and_cues_pb2.HuesAndCuesView(
        phase=_PHASES[public.phase],
        round=public.round,
        regular_rounds=public.regular_rounds,
        tiebreak=public.tiebreak,
        cue_giver=names(public.cue_giver) if public.round else "",
        cues=list(public.cues),
        pieces=[_piece(piece, names) for piece in public.pieces],
        deck_size=public.deck_size,
        end_reason=(
            hues_and_cues_pb2.HUES_AND_CUES_END_REASON_UNSPECIFIED
            if public.end_reason is None
            else _REASONS[public.end_reason]
        ),
    )
    if public.last_scored is not None:
        message.last_round.CopyFrom(_round_score(public.last_scored, names))
    secret = view.secret
    if secret is not None:
        card = _card(secret.card_id)
        if card is not None:
            message.card.CopyFrom(card)
        if secret.target is not None:
            message.target.CopyFrom(square_to_proto(secret.target))
    return message


def event_to_proto(event: Any, names: Names) -> hues_and_cues_pb2.HuesAndCuesEvent:
    """Returns a (redacted) Hues and Cues event message."""
    match event:
        case DeckShuffled():
            shuffled = hues_and_cues_pb2.HuesAndCuesDeckShuffled(
                round=event.round, size=event.size, card_ids=list(event.cards)
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(deck_shuffled=shuffled)
        case FirstCueGiverChosen():
            chosen = hues_and_cues_pb2.HuesAndCuesFirstCueGiverChosen(
                player=names(event.seat), drawn=event.drawn
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(first_cue_giver_chosen=chosen)
        case RoundStarted():
            started = hues_and_cues_pb2.HuesAndCuesRoundStarted(
                round=event.round,
                cue_giver=names(event.cue_giver),
                tiebreak=event.tiebreak,
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(round_started=started)
        case CardDrawn():
            drawn = hues_and_cues_pb2.HuesAndCuesCardDrawn(
                round=event.round, player=names(event.seat)
            )
            card = _card(event.card_id)
            if card is not None:
                drawn.card.CopyFrom(card)
            return hues_and_cues_pb2.HuesAndCuesEvent(card_drawn=drawn)
        case TargetChosen():
            chosen_target = hues_and_cues_pb2.HuesAndCuesTargetChosen(
                round=event.round, player=names(event.seat)
            )
            if event.target is not None:
                chosen_target.target.CopyFrom(square_to_proto(event.target))
            return hues_and_cues_pb2.HuesAndCuesEvent(target_chosen=chosen_target)
    return _play_event_to_proto(event, names)


def _play_event_to_proto(
    event: Any, names: Names
) -> hues_and_cues_pb2.HuesAndCuesEvent:
    match event:
        case CueGiven():
            cue = hues_and_cues_pb2.HuesAndCuesCueGiven(
                round=event.round,
                player=names(event.seat),
                cue_no=event.cue_no,
                text=event.text,
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(cue_given=cue)
        case GuessPlaced():
            piece = _piece(Piece(event.seat, event.guess_no, event.square), names)
            placed = hues_and_cues_pb2.HuesAndCuesGuessPlaced(
                round=event.round, piece=piece
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(guess_placed=placed)
        case SecondCueSkipped():
            skipped = hues_and_cues_pb2.HuesAndCuesSecondCueSkipped(
                round=event.round, player=names(event.seat)
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(second_cue_skipped=skipped)
        case TargetRevealed():
            revealed = hues_and_cues_pb2.HuesAndCuesTargetRevealed(
                round=event.round, target=square_to_proto(event.target)
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(target_revealed=revealed)
        case RoundScored():
            return hues_and_cues_pb2.HuesAndCuesEvent(
                round_scored=_round_score(event, names)
            )
        case GameEnded():
            ended = hues_and_cues_pb2.HuesAndCuesGameEnded(
                scores=_points(event.scores, names),
                winners=[names(seat) for seat in event.winners],
                reason=_REASONS[event.reason],
            )
            return hues_and_cues_pb2.HuesAndCuesEvent(game_ended=ended)
    msg = f"not a Hues and Cues event: {event!r}"
    raise TypeError(msg)


def config_from_proto(
    message: hues_and_cues_pb2.HuesAndCuesConfig,
) -> HuesAndCuesConfig:
    """Returns the table options; ``check_config`` refuses a seat off the table."""
    return HuesAndCuesConfig(
        first_cue_giver=(
            message.first_cue_giver if message.HasField("first_cue_giver") else None
        ),
        free_choice_variant=message.free_choice_variant,
    )


def config_to_proto(config: HuesAndCuesConfig) -> hues_and_cues_pb2.HuesAndCuesConfig:
    """Returns the table options message."""
    message = hues_and_cues_pb2.HuesAndCuesConfig(
        free_choice_variant=config.free_choice_variant
    )
    if config.first_cue_giver is not None:
        message.first_cue_giver = config.first_cue_giver
    return message


def catalog() -> hues_and_cues_pb2.HuesAndCuesCatalog:
    """Returns the board's colours and the cue word lists, for ``ListGameTypes``."""
    squares = []
    for square in ALL_SQUARES:
        red, green, blue = color(square)
        squares.append(
            hues_and_cues_pb2.HuesAndCuesSquareColor(
                square=square_to_proto(square),
                hex=hex_color(square),
                red=red,
                green=green,
                blue=blue,
            )
        )
    return hues_and_cues_pb2.HuesAndCuesCatalog(
        rows=ROWS,
        columns=COLUMNS,
        squares=squares,
        max_cue_length=MAX_CUE_LENGTH,
        basic_color_words=sorted(BASIC_COLOR_FORMS),
        basic_color_parts=list(BASIC_COLORS),
        board_words=sorted(NUMBER_WORDS | POSITION_WORDS),
        relative_words=sorted(RELATIVE_WORDS),
    )


CONVERTER = GameConverter(
    game_type="hues_and_cues",
    proto_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
    config_field="hues_and_cues_config",
    move_field="hues_and_cues",
    view_field="hues_and_cues_view",
    event_field="hues_and_cues",
    config_from_proto=config_from_proto,
    config_to_proto=config_to_proto,
    move_from_proto=move_from_proto,
    move_to_proto=move_to_proto,
    view_to_proto=view_to_proto,
    event_to_proto=event_to_proto,
    display_name="Hues and Cues",
    options=(
        Option(
            "first_cue_giver",
            "The seat that gives the first cue; the role then passes clockwise.",
            "drawn with the game's seed",
        ),
        Option(
            "free_choice_variant",
            "The cue giver may choose any square as the target and draws no card.",
            "false",
        ),
    ),
    self_undo=(
        "A cue (first or second) and a guess that does not complete the round. "
        "Skipping the second cue and the guess that completes the round reveal "
        "the target, so taking them back needs the others' consent."
    ),
    details=catalog,
)
