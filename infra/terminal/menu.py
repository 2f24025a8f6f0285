"""The numbered list of legal moves: filtering, paging and reading a choice.

A page holds ``PAGE_SIZE`` moves unless the screen sizes it to the terminal
(``with_page_size``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.console import Group, RenderableType
from rich.text import Text
from tabletop.v1 import game_pb2, move_pb2

from infra.terminal.render import describe_move, hint, typed_move
from infra.terminal.resign import HELP as RESIGN_HELP
from infra.terminal.screen import Keys
from infra.terminal.undo import TAKEBACK_KEY, UNDO_KEY

PAGE_SIZE = 12
QUIT_WORDS = {"q", "quit", "exit"}


@dataclass(frozen=True, slots=True)
class Menu:
    """The legal moves at a revision and how the list is filtered and paged."""

    moves: tuple[move_pb2.Move, ...]
    revision: int
    labels: tuple[Text, ...] = ()
    query: str = ""
    page: int = 0
    page_size: int = PAGE_SIZE


@dataclass(frozen=True, slots=True)
class Submit:
    """Send this move."""

    move: move_pb2.Move


@dataclass(frozen=True, slots=True)
class Show:
    """Redraw with this menu and, if set, a message."""

    menu: Menu
    message: str = ""


@dataclass(frozen=True, slots=True)
class Quit:
    """Leave."""


Choice = Submit | Show | Quit


def menu_of(moves: list[move_pb2.Move], revision: int) -> Menu:
    """Returns a menu of moves with their labels."""
    labels = tuple(describe_move(move) for move in moves)
    return Menu(tuple(moves), revision, labels)


def matching(menu: Menu) -> list[int]:
    """Returns the indexes of the moves whose label holds every word of the query."""
    words = menu.query.lower().split()
    return [
        index
        for index, label in enumerate(menu.labels)
        if all(word in label.plain.lower() for word in words)
    ]


def pages(menu: Menu) -> int:
    """Returns the number of pages the filtered list takes."""
    return max(1, -(-len(matching(menu)) // menu.page_size))


def with_page_size(menu: Menu, rows: int) -> Menu:
    """Returns the menu paged by ``rows`` moves, its page's first move still shown."""
    if rows == menu.page_size:
        return menu
    first = min(menu.page, pages(menu) - 1) * menu.page_size
    return replace(menu, page_size=rows, page=first // rows)


def render_menu(
    menu: Menu, game: game_pb2.Game, *, answering: bool = False
) -> RenderableType:
    """Returns the visible page of the list, numbered, and how to move about it.

    While a takeback awaits the caller's answer ``n`` declines it, not paging.
    """
    shown = matching(menu)
    page = min(menu.page, pages(menu) - 1)
    start = page * menu.page_size
    lines: list[RenderableType] = [
        Text.assemble((f"{index + 1:>4}  ", "bold"), menu.labels[index])
        for index in shown[start : start + menu.page_size]
    ]
    status = f"{len(menu.moves)} legal moves"
    if menu.query:
        status += f", {len(shown)} matching '{menu.query}'"
    status += f"; page {page + 1}/{pages(menu)}"
    paging = "p: previous page" if answering else "n/p: next/previous page"
    answer = "y/n: accept/decline the takeback" if answering else ""
    # As many to a line as fit: on a small screen the rows go to the table.
    keys = ("q: quit", "number: play it", "/words: filter (/ clears)", paging)
    undo = (answer, UNDO_KEY, TAKEBACK_KEY, RESIGN_HELP)
    lines.append(Keys((status,), (*keys, hint(game), *undo)))
    return Group(*lines)


def choose(menu: Menu, text: str, game: game_pb2.Game) -> Choice:
    """Returns what a typed line asks for."""
    text = text.strip()
    if text.lower() in QUIT_WORDS:
        return Quit()
    if text.startswith("/"):
        return Show(replace(menu, query=text[1:].strip(), page=0))
    if text.lower() in {"n", "p", ""}:
        step = {"n": 1, "p": -1, "": 0}[text.lower()]
        return Show(replace(menu, page=max(0, min(menu.page + step, pages(menu) - 1))))
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(menu.moves):
            return Submit(menu.moves[number - 1])
        return Show(menu, f"no move {number}: choose 1 to {len(menu.moves)}")
    typed = typed_move(game, text, list(menu.moves))
    if typed is not None:
        return Submit(typed)
    return Show(menu, f"not understood: {text!r}")
