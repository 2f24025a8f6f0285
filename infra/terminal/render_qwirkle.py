"""Qwirkle: the grid with coordinates, tiles in colour and shape, and the rack."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2, qwirkle_pb2

from infra.terminal.header import header
from infra.terminal.render_common import (
    Board,
    Focus,
    Renderer,
    scores,
    seat_of,
)

COLORS = {
    qwirkle_pb2.QWIRKLE_COLOR_RED: ("red", "#E53935"),
    qwirkle_pb2.QWIRKLE_COLOR_ORANGE: ("orange", "#FB8C00"),
    qwirkle_pb2.QWIRKLE_COLOR_YELLOW: ("yellow", "#FDD835"),
    qwirkle_pb2.QWIRKLE_COLOR_GREEN: ("green", "#43A047"),
    qwirkle_pb2.QWIRKLE_COLOR_BLUE: ("blue", "#1E88E5"),
    qwirkle_pb2.QWIRKLE_COLOR_PURPLE: ("purple", "#8E24AA"),
}
SHAPES = {
    qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE: ("circle", "●"),
    qwirkle_pb2.QWIRKLE_SHAPE_CRISSCROSS: ("crisscross", "✚"),
    qwirkle_pb2.QWIRKLE_SHAPE_DIAMOND: ("diamond", "◆"),
    qwirkle_pb2.QWIRKLE_SHAPE_SQUARE: ("square", "■"),
    qwirkle_pb2.QWIRKLE_SHAPE_STARBURST: ("starburst", "✸"),
    qwirkle_pb2.QWIRKLE_SHAPE_CLOVER: ("clover", "♣"),
}
END_REASONS = {
    qwirkle_pb2.QWIRKLE_END_REASON_HAND_EMPTIED: (
        "a player emptied their hand once the bag was empty"
    ),
    qwirkle_pb2.QWIRKLE_END_REASON_DEADLOCK: (
        "the bag was empty and nobody could place a tile"
    ),
}
CELL = 3  # characters per grid column, at least: one more than its widest label
Y_LABEL = 4  # characters of the y labels before the grid


def tile_text(tile: qwirkle_pb2.QwirkleTile) -> Text:
    """Returns the tile's glyph in its colour."""
    _, hex_colour = COLORS.get(tile.color, ("?", "#FFFFFF"))
    _, glyph = SHAPES.get(tile.shape, ("?", "?"))
    return Text(glyph, style=f"bold {hex_colour}")


def tile_name(tile: qwirkle_pb2.QwirkleTile) -> str:
    """Returns the tile in words, e.g. ``red circle``."""
    colour, _ = COLORS.get(tile.color, ("?", ""))
    shape, _ = SHAPES.get(tile.shape, ("?", ""))
    return f"{colour} {shape}"


def labelled(tile: qwirkle_pb2.QwirkleTile) -> Text:
    """Returns the glyph followed by the tile's name."""
    return Text.assemble(tile_text(tile), f" {tile_name(tile)}")


def _span(board: Sequence[qwirkle_pb2.QwirklePlacement]) -> tuple[range, range, int]:
    """Returns the columns and rows drawn (the tiles and a free ring) and the
    characters per column, so that labels such as -10 and -9 stay apart."""
    cells = [(p.at.x, p.at.y) for p in board]
    xs = range(min(x for x, _ in cells) - 1, max(x for x, _ in cells) + 2)
    ys = range(min(y for _, y in cells) - 1, max(y for _, y in cells) + 2)
    return xs, ys, max(CELL, *(len(str(x)) + 1 for x in xs))


def grid(board: Sequence[qwirkle_pb2.QwirklePlacement]) -> Text:
    """Returns the grid with a free ring around the tiles and x/y labels."""
    cells = {(p.at.x, p.at.y): p.tile for p in board}
    if not cells:
        return Text("(empty grid: the first move covers 0,0)", style="dim")
    xs, ys, cell = _span(board)
    out = Text.assemble(("y\\x ", "dim"))
    for x in xs:
        out.append(f"{x:>{cell}}", style="dim")
    for y in ys:
        out.append(f"\n{y:>{Y_LABEL - 1}} ", style="dim")
        for x in xs:
            tile = cells.get((x, y))
            out.append(" " * (cell - 1))
            out.append(tile_text(tile) if tile is not None else Text("·", style="dim"))
    return out


def focus(game: game_pb2.Game) -> Focus | None:
    """Returns where the grid shows the tile placed last (the board lists the
    tiles in the order they were placed); None on an empty grid."""
    board = game.qwirkle_view.public_state.board
    if not board:
        return None
    xs, ys, cell = _span(board)
    last = board[-1].at
    return Focus(1 + ys.index(last.y), Y_LABEL + cell * (xs.index(last.x) + 1) - 1)


def rack(tiles: Iterable[qwirkle_pb2.QwirkleTile]) -> Text:
    """Returns the caller's rack, glyphs and names."""
    out = Text.assemble(("Your rack: ", "bold"))
    for index, tile in enumerate(tiles):
        if index:
            out.append("  ")
        out.append_text(labelled(tile))
    return out


def render(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> RenderableType:
    """Returns the Qwirkle table as the caller sees it."""
    public = game.qwirkle_view.public_state
    racks = ", ".join(
        f"{p.display_name} {public.rack_sizes[p.seat]}"
        for p in game.players
        if p.seat < len(public.rack_sizes)
    )
    parts: list[RenderableType] = [
        header(game, info, me),
        Board(grid(public.board), label_lines=1, label_columns=Y_LABEL),
        Text(f"bag {public.bag_size} tiles; racks: {racks or '-'}", style="dim"),
        scores(game, me),
    ]
    if game.qwirkle_view.HasField("private_state"):
        parts.append(rack(game.qwirkle_view.private_state.rack))
    return Group(*parts)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as a line of the move list."""
    action = move.qwirkle.WhichOneof("action")
    if action == "place_tiles":
        out = Text("place ")
        for index, placement in enumerate(move.qwirkle.place_tiles.placements):
            out.append(" + " if index else "")
            out.append_text(labelled(placement.tile))
            out.append(f" at {placement.at.x},{placement.at.y}")
        return out
    if action == "exchange_tiles":
        out = Text("exchange ")
        for index, tile in enumerate(move.qwirkle.exchange_tiles.tiles):
            out.append(", " if index else "")
            out.append_text(labelled(tile))
        return out
    return Text("pass")


def _by_seat(names: Mapping[str, str], values: Iterable[int]) -> str:
    """Returns values indexed by seat with the seats' names: ``Ana 2, Ben 3``."""
    seats = {seat_of(player): name for player, name in names.items()}
    return ", ".join(f"{seats.get(s, f'seat {s}')} {v}" for s, v in enumerate(values))


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str:
    """Describes a Qwirkle event for the log, every kind in words."""
    fact = event.qwirkle
    kind = fact.WhichOneof("event")
    if kind == "tiles_placed":
        placed = fact.tiles_placed
        where = ", ".join(
            f"{tile_name(p.tile)} at {p.at.x},{p.at.y}" for p in placed.placements
        )
        return f"{names.get(placed.player, '?')} placed {where}"
    if kind == "turn_scored":
        scored = fact.turn_scored
        return f"{names.get(scored.player, '?')} scored {scored.points}"
    if kind == "tiles_drawn":
        drawn = fact.tiles_drawn
        tiles = ", ".join(tile_name(tile) for tile in drawn.tiles)  # the drawer sees
        what = f": {tiles}" if tiles else ""
        return f"{names.get(drawn.player, '?')} drew {drawn.count} tile(s){what}"
    if kind == "tiles_exchanged":
        done = fact.tiles_exchanged
        return f"{names.get(done.player, '?')} exchanged {done.count} tile(s)"
    if kind == "turn_passed":
        return f"{names.get(fact.turn_passed.player, '?')} passed"
    if kind == "end_bonus_scored":
        bonus = fact.end_bonus_scored
        return f"{names.get(bonus.player, '?')} emptied their hand: +{bonus.points}"
    return _describe_start_or_end(fact, names)


def _describe_start_or_end(
    fact: qwirkle_pb2.QwirkleEvent, names: Mapping[str, str]
) -> str:
    """Describes the deal, the starting player and the game's end."""
    kind = fact.WhichOneof("event")
    if kind == "tiles_dealt":
        dealt = fact.tiles_dealt
        left = f"{dealt.bag_size} tiles left in the bag"
        sizes = set(dealt.rack_sizes)  # the tiles are for their rack's owner only
        if len(sizes) == 1:
            return f"{min(sizes)} tiles dealt to each rack; {left}"
        return f"the racks dealt ({_by_seat(names, dealt.rack_sizes)}); {left}"
    if kind == "starting_player_chosen":
        chosen = fact.starting_player_chosen
        numbers = _by_seat(names, chosen.starting_numbers)
        return (
            f"{names.get(chosen.player, '?')} starts, with the most tiles sharing "
            f"a colour or a shape ({numbers})"
        )
    if kind == "game_ended":
        ended = fact.game_ended
        why = END_REASONS.get(ended.reason, "its end was reached")
        left = _by_seat(names, (len(rack.tiles) for rack in ended.racks))
        return f"the game ended: {why}{f'; tiles left: {left}' if left else ''}"
    return "a Qwirkle event this client does not know"


RENDERER = Renderer("qwirkle", render, describe_move, describe_event, focus=focus)
