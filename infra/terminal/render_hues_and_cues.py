"""Hues and Cues: the board in true colour, the guesses, the frame and the cues."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import Group, RenderableType
from rich.text import Text
from tabletop.v1 import (
    event_pb2,
    game_pb2,
    game_type_pb2,
    hues_and_cues_pb2,
    move_pb2,
)

from infra.terminal.header import header
from infra.terminal.render_common import (
    Board,
    Focus,
    Renderer,
    contrast,
    scores,
    seat_of,
)
from infra.terminal.typed_hues_and_cues import hint, typed_move

ROWS, COLUMNS = 16, 30
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
MARKERS = "abcdefghij"  # one letter per seat
TARGET, FRAME, CARD = "()", "..", "<>"
PHASES = {
    hues_and_cues_pb2.HUES_AND_CUES_PHASE_SETUP: "setup",
    hues_and_cues_pb2.HUES_AND_CUES_PHASE_FIRST_CUE: "first cue",
    hues_and_cues_pb2.HUES_AND_CUES_PHASE_FIRST_GUESSES: "first guesses",
    hues_and_cues_pb2.HUES_AND_CUES_PHASE_SECOND_CUE: "second cue",
    hues_and_cues_pb2.HUES_AND_CUES_PHASE_SECOND_GUESSES: "second guesses",
    hues_and_cues_pb2.HUES_AND_CUES_PHASE_GAME_OVER: "game over",
}
END_REASONS = {
    hues_and_cues_pb2.HUES_AND_CUES_END_REASON_SOLE_LEADER: "the sole leader",
    hues_and_cues_pb2.HUES_AND_CUES_END_REASON_ALL_TIED: (
        "every player tied, so no tie-break round"
    ),
    hues_and_cues_pb2.HUES_AND_CUES_END_REASON_TIEBREAK_CAP: (
        "still tied after ten tie-break rounds"
    ),
}
Cell = tuple[int, int]


def square_id(row: int, column: int) -> str:
    """Returns a square's name, e.g. ``H15``."""
    return f"{ROW_LETTERS[row]}{column + 1}"


def marker(piece: hues_and_cues_pb2.HuesAndCuesPiece) -> str:
    """Returns a piece's two-character marker: its seat's letter and guess number."""
    seat = seat_of(piece.player)
    letter = MARKERS[seat] if 0 <= seat < len(MARKERS) else "?"
    return f"{letter}{piece.guess_no}"


def colours(info: game_type_pb2.GameTypeInfo | None) -> dict[Cell, tuple[int, ...]]:
    """Returns each square's (red, green, blue) from ListGameTypes' catalogue."""
    if info is None or not info.HasField("hues_and_cues"):
        return {}
    return {
        (s.square.row, s.square.column): (s.red, s.green, s.blue)
        for s in info.hues_and_cues.squares
    }


def _cell(text: str, rgb: tuple[int, ...] | None, *, bold: bool = False) -> Text:
    if rgb is None:
        return Text(text or "  ", style="on grey23")
    red, green, blue = rgb
    style = f"{contrast(red, green, blue)} on #{red:02X}{green:02X}{blue:02X}"
    return Text(text or "  ", style=f"bold {style}" if bold else style)


def _frame(target: hues_and_cues_pb2.HuesAndCuesSquare) -> set[Cell]:
    return {
        (target.row + dr, target.column + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
    }


def board(
    rgb: Mapping[Cell, tuple[int, ...]],
    marks: Mapping[Cell, str],
) -> Text:
    """Returns the board, rows A-P by columns 1-30, with a mark on some squares."""
    tens = "".join(f" {(c + 1) // 10 or ' '}" for c in range(COLUMNS))
    units = "".join(f" {(c + 1) % 10}" for c in range(COLUMNS))
    out = Text.assemble((f" {tens}\n {units}", "dim"))
    for row in range(ROWS):
        out.append(f"\n{ROW_LETTERS[row]} ", style="dim")
        for column in range(COLUMNS):
            text = marks.get((row, column), "")
            out.append_text(_cell(text, rgb.get((row, column)), bold=bool(text)))
    return out


def _marks(view: hues_and_cues_pb2.HuesAndCuesView) -> dict[Cell, str]:
    """Returns what to draw on squares: card, target, frame and pieces."""
    marks: dict[Cell, str] = {}
    pieces: Iterable[hues_and_cues_pb2.HuesAndCuesPiece] = view.pieces
    if view.HasField("card"):
        marks.update({(s.row, s.column): CARD for s in view.card.squares})
    if not view.pieces and view.HasField("last_round"):
        frame = _frame(view.last_round.target)
        marks.update(dict.fromkeys(frame, FRAME))
        marks[view.last_round.target.row, view.last_round.target.column] = TARGET
        pieces = [scored.piece for scored in view.last_round.pieces]
    if view.HasField("target"):
        marks[view.target.row, view.target.column] = TARGET
    for piece in pieces:
        marks[piece.square.row, piece.square.column] = marker(piece)
    return marks


def focus(game: game_pb2.Game) -> Focus | None:
    """Returns where the board shows the action: the caller's target, else the
    piece placed last, else the last round's target, else the caller's card."""
    view = game.hues_and_cues_view
    square: hues_and_cues_pb2.HuesAndCuesSquare | None = None
    if view.HasField("target"):
        square = view.target
    elif view.pieces:
        square = view.pieces[-1].square
    elif view.HasField("last_round"):
        square = view.last_round.target
    elif view.HasField("card") and view.card.squares:
        square = view.card.squares[0]
    if square is None:
        return None
    return Focus(2 + square.row, 2 + 2 * square.column)


def _round_line(game: game_pb2.Game, view: hues_and_cues_pb2.HuesAndCuesView) -> Text:
    names = {p.name: p.display_name for p in game.players}
    out = Text.assemble((f"round {view.round}/{view.regular_rounds}", "bold"))
    if view.tiebreak:
        out.append(" (tie-break)", style="yellow")
    out.append(f"  {PHASES.get(view.phase, '?')}  cue giver ")
    out.append(names.get(view.cue_giver, "-"), style="bold")
    cues = " / ".join(f'"{cue}"' for cue in view.cues) or "none yet"
    out.append(f"  cues: {cues}", style="italic")
    if view.HasField("target"):
        out.append(f"  your target {view.target.id}", style="bold magenta")
    return out


def _legend(game: game_pb2.Game, view: hues_and_cues_pb2.HuesAndCuesView) -> Text:
    out = Text.assemble(("markers: ", "dim"))
    out.append(
        "  ".join(
            f"{MARKERS[p.seat]}1/{MARKERS[p.seat]}2 {p.display_name}"
            for p in game.players
            if p.seat < len(MARKERS)
        )
    )
    out.append(f"   {TARGET} target  {FRAME} scoring frame", style="dim")
    if view.HasField("card"):
        out.append(f"  {CARD} your card", style="dim")
    return out


def _last_round(
    game: game_pb2.Game, view: hues_and_cues_pb2.HuesAndCuesView
) -> Text | None:
    if not view.HasField("last_round"):
        return None
    last = view.last_round
    names = {p.name: p.display_name for p in game.players}
    points = ", ".join(f"{names.get(p.player, '?')} +{p.points}" for p in last.points)
    return Text(
        f"round {last.round} scored: target {last.target.id}, "
        f"{last.pieces_in_frame} piece(s) in the frame; {points}",
        style="dim",
    )


def render(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> RenderableType:
    """Returns the Hues and Cues table as the caller sees it."""
    view = game.hues_and_cues_view
    parts: list[RenderableType] = [
        header(game, info, me),
        Board(board(colours(info), _marks(view)), label_lines=2, label_columns=2),
        _legend(game, view),
        _round_line(game, view),
    ]
    last = _last_round(game, view)
    if last is not None:
        parts.append(last)
    parts.append(scores(game, me))
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list."""
    action = move.hues_and_cues
    kind = action.WhichOneof("action")
    if kind == "give_first_cue":
        first = action.give_first_cue
        return Text(f'target {first.target.id}, cue "{first.cue}"')
    if kind == "place_guess":
        return Text(f"guess {action.place_guess.square.id}")
    if kind == "give_second_cue":
        return Text(f'second cue "{action.give_second_cue.cue}"')
    return Text("skip the second cue")


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str:
    """Describes a Hues and Cues event for the log, every kind in words."""
    fact = event.hues_and_cues
    kind = fact.WhichOneof("event")
    if kind == "cue_given":
        cue = fact.cue_given
        return f'{names.get(cue.player, "?")} gave cue {cue.cue_no}: "{cue.text}"'
    if kind == "guess_placed":
        piece = fact.guess_placed.piece
        return f"{names.get(piece.player, '?')} guessed {piece.square.id}"
    if kind == "second_cue_skipped":
        return (
            f"{names.get(fact.second_cue_skipped.player, '?')} skipped the second cue"
        )
    if kind == "round_scored":
        scored = fact.round_scored
        return f"round {scored.round} scored: the target was {scored.target.id}"
    if kind == "round_started":
        started = fact.round_started
        return f"round {started.round}: {names.get(started.cue_giver, '?')} gives cues"
    return _describe_secret(fact, names) or _describe_start_or_end(fact, names)


def _describe_secret(
    fact: hues_and_cues_pb2.HuesAndCuesEvent, names: Mapping[str, str]
) -> str | None:
    """Describes the card drawn and the target, naming them only where the
    event carries them (the cue giver's own view, or once they are public)."""
    kind = fact.WhichOneof("event")
    if kind == "card_drawn":
        drawn = fact.card_drawn
        card = ""
        if drawn.HasField("card"):
            squares = ", ".join(square.id for square in drawn.card.squares)
            card = f" {drawn.card.id} ({squares})"
        who = names.get(drawn.player, "?")
        return f"{who} drew a card{card} for round {drawn.round}"
    if kind == "target_chosen":
        chosen = fact.target_chosen
        target = f" {chosen.target.id}" if chosen.HasField("target") else ""
        who = names.get(chosen.player, "?")
        return f"{who} chose the target{target} for round {chosen.round}"
    if kind == "target_revealed":
        revealed = fact.target_revealed
        return f"round {revealed.round}'s target revealed: {revealed.target.id}"
    return None


def _describe_start_or_end(
    fact: hues_and_cues_pb2.HuesAndCuesEvent, names: Mapping[str, str]
) -> str:
    """Describes the deck shuffled, the first cue giver and the game's end."""
    kind = fact.WhichOneof("event")
    if kind == "deck_shuffled":
        shuffled = fact.deck_shuffled
        return (
            f"the {shuffled.size} cue cards were shuffled into a deck "
            f"for round {shuffled.round}"
        )
    if kind == "first_cue_giver_chosen":
        chosen = fact.first_cue_giver_chosen
        how = "drawn by lot" if chosen.drawn else "as the table was set up"
        return f"{names.get(chosen.player, '?')} gives the first cue ({how})"
    if kind == "game_ended":
        ended = fact.game_ended
        won = ", ".join(names.get(w, "?") for w in ended.winners) or "nobody"
        why = END_REASONS.get(ended.reason)
        final = ended.scores
        points = ", ".join(f"{names.get(p.player, '?')} {p.points}" for p in final)
        return f"the game ended: won by {won}{f' ({why})' if why else ''}; {points}"
    return "a Hues and Cues event this client does not know"


RENDERER = Renderer(
    "hues_and_cues", render, describe_move, describe_event, typed_move, hint, focus
)
