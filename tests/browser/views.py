"""What each game's board must show of a game, and what it must never show.

``expected_pieces`` reads a ``Game`` (as GetGame or GetGameRevision return
it) the way a spectator's board must draw it; ``shown_pieces`` reads the same
out of the board's DOM, from the ``data-piece`` attributes the boards set
(infra/web/src/boards/*.ts). ``leaks`` finds hidden information in the
messages a spectator's page received while the game was in progress.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from tabletop.v1 import (
    fool_pb2,
    game_pb2,
    gnoming_a_round_pb2,
    hues_and_cues_pb2,
    qwirkle_pb2,
    split_pb2,
)

from tests.browser.pages import Node

FOOL_LETTERS = {
    fool_pb2.FOOL_COLOR_GREEN: "G",
    fool_pb2.FOOL_COLOR_RED: "R",
    fool_pb2.FOOL_COLOR_YELLOW: "Y",
    fool_pb2.FOOL_COLOR_BLUE: "B",
}


def tile_name(tile: qwirkle_pb2.QwirkleTile) -> str:
    """A Qwirkle tile as the page names it: "red circle"."""
    color = qwirkle_pb2.QwirkleColor.Name(tile.color).removeprefix("QWIRKLE_COLOR_")
    shape = qwirkle_pb2.QwirkleShape.Name(tile.shape).removeprefix("QWIRKLE_SHAPE_")
    return f"{color} {shape}".lower()


def fool_card(card: fool_pb2.FoolCard) -> str:
    """A Fool! card as the page names it: "card G17", "card W1-3"."""
    if card.color == fool_pb2.FOOL_COLOR_WILD:
        return f"card W1-{card.copy}"
    return f"card {FOOL_LETTERS[card.color]}{card.value}"


# ---------------------------------------------------------------------------
# What a spectator's board shows.


def shown_pieces(slug: str, board: Node) -> Counter[str]:
    """The pieces the board's DOM shows, named as ``expected_pieces`` names them."""
    shown: Counter[str] = Counter()
    for node in board.walk():
        piece = node.get("data-piece")
        if slug == "qwirkle":
            if piece:
                shown[f"{node.get('data-cell')} {piece}"] += 1
            if "data-revealed-piece" in node.attrs:
                shown[f"revealed {node.get('data-revealed-piece')}"] += 1
        elif slug == "hues_and_cues":
            if piece.startswith("cone "):
                shown[f"cone {piece.rsplit(' ', 1)[1]}"] += 1
            elif piece.startswith(("target ", "cue card ", "cue ")):
                shown[piece] += 1
        elif piece.startswith(("card ", "draw pile ")):
            shown[piece] += 1
    return shown


def expected_pieces(slug: str, game: game_pb2.Game) -> Counter[str]:
    """The pieces a board must show of ``game``, face-down cards left out."""
    match slug:
        case "qwirkle":
            return _qwirkle(game.qwirkle_view)
        case "hues_and_cues":
            return _hues_and_cues(game.hues_and_cues_view)
        case "split":
            return _split(game.split_view.public_state)
        case "gnoming_a_round":
            return _gnoming(game.gnoming_a_round_view)
        case "fool":
            return _fool(game.fool_view.public_state)
    msg = f"no board for {slug}"
    raise AssertionError(msg)


def _qwirkle(view: qwirkle_pb2.QwirkleView) -> Counter[str]:
    pieces: Counter[str] = Counter(
        f"{p.at.x},{p.at.y} {tile_name(p.tile)}" for p in view.public_state.board
    )
    for rack in view.public_state.revealed_racks:
        pieces.update(f"revealed {tile_name(tile)}" for tile in rack.tiles)
    return pieces


def _hues_and_cues(view: hues_and_cues_pb2.HuesAndCuesView) -> Counter[str]:
    # The last round scored stays on the board until the next round's first
    # cue: its target and its pieces (hues_and_cues.ts, boardGroup).
    last = view.last_round
    show_last = (
        view.HasField("last_round")
        and last.HasField("target")
        and (
            view.phase == hues_and_cues_pb2.HUES_AND_CUES_PHASE_GAME_OVER
            or (not view.pieces and not view.cues and not view.HasField("target"))
        )
    )
    pieces: Counter[str] = Counter(f"cue {cue}" for cue in view.cues)
    if show_last:
        pieces[f"target {last.target.id}"] += 1
        pieces.update(f"cone {scored.piece.square.id}" for scored in last.pieces)
    else:
        if view.HasField("target"):
            pieces[f"target {view.target.id}"] += 1
        if view.HasField("card"):
            pieces.update(f"cue card {square.id}" for square in view.card.squares)
        pieces.update(f"cone {piece.square.id}" for piece in view.pieces)
    return pieces


def _split(state: split_pb2.SplitPublicState) -> Counter[str]:
    pieces: Counter[str] = Counter(f"card {card.id}" for card in state.discard_row)
    for match in state.matches:
        for stack in (match.left_stack, match.right_stack):
            if stack:
                pieces[f"card {stack[-1].id}"] += 1
    for hand in state.revealed_hands:
        pieces.update(f"card {card.id}" for card in hand.cards)
    pieces[f"draw pile {state.draw_pile_size}"] += 1
    return pieces


def _gnoming(view: gnoming_a_round_pb2.GnomingARoundView) -> Counter[str]:
    state = view.public_state
    revealed = view.revealed_state.layouts
    pieces: Counter[str] = Counter()
    for seat, layout in enumerate(state.layouts):
        for position, slot in enumerate(layout.positions):
            if not slot.face_down and slot.HasField("card"):
                pieces[f"card {slot.card.id}"] += 1
            elif seat < len(revealed) and position < len(revealed[seat].cards):
                pieces[f"card {revealed[seat].cards[position].id}"] += 1
    pieces.update(
        f"card {pile.top.id}" for pile in state.discard_piles if pile.HasField("top")
    )
    if state.HasField("held_card"):
        pieces[f"card {state.held_card.id}"] += 1
    pieces.update(f"card {card.id}" for card in state.removed_hazards)
    pieces[f"draw pile {state.draw_pile_size}"] += 1
    return pieces


def _fool(state: fool_pb2.FoolPublicState) -> Counter[str]:
    pieces: Counter[str] = Counter(fool_card(played.card) for played in state.trick)
    pieces.update(fool_card(card) for card in state.played)
    for hand in state.revealed_hands:
        pieces.update(fool_card(card) for card in hand.cards)
    return pieces


# ---------------------------------------------------------------------------
# What a spectator must not see while the game is in progress.


def hidden_pieces(
    slug: str, revealed: game_pb2.Game, seats: list[game_pb2.Game]
) -> set[str]:
    """The faces a spectator's board must not show at a revision in progress.

    ``revealed`` is that revision as GetGameRevision gives it once the game
    finished (every hidden card shown), or as a spectator sees it meanwhile;
    ``seats`` is the game at the same revision as each seat saw it then
    (GetGame with its seat token). Qwirkle's tiles are not told apart (three
    of each): its racks are checked otherwise.
    """
    hiders = {
        "hues_and_cues": _hidden_hues_and_cues,
        "split": _hidden_split,
        "gnoming_a_round": _hidden_gnoming,
        "fool": _hidden_fool,
    }
    hider = hiders.get(slug)
    return set() if hider is None else hider(revealed, seats)


def _hidden_hues_and_cues(
    revealed: game_pb2.Game, seats: list[game_pb2.Game]
) -> set[str]:
    hidden: set[str] = set()
    public = revealed.hues_and_cues_view.last_round.target.id
    for view in [revealed.hues_and_cues_view] + [s.hues_and_cues_view for s in seats]:
        hidden.update(f"cue card {square.id}" for square in view.card.squares)
        if view.HasField("target") and view.target.id != public:
            hidden.add(f"target {view.target.id}")
    return hidden


def _hidden_split(revealed: game_pb2.Game, seats: list[game_pb2.Game]) -> set[str]:
    hands = list(revealed.split_view.public_state.revealed_hands)
    cards = [card for hand in hands for card in hand.cards]
    cards += [card for seat in seats for card in seat.split_view.private_state.hand]
    return {f"card {card.id}" for card in cards}


def _hidden_gnoming(revealed: game_pb2.Game, seats: list[game_pb2.Game]) -> set[str]:
    view = revealed.gnoming_a_round_view
    layouts = view.revealed_state.layouts
    hidden = {f"card {card.id}" for card in view.revealed_state.draw_pile}
    for seat, layout in enumerate(view.public_state.layouts[: len(layouts)]):
        hidden.update(
            f"card {layouts[seat].cards[position].id}"
            for position, slot in enumerate(layout.positions)
            if slot.face_down
        )
    for game in seats:
        private = game.gnoming_a_round_view.private_state
        if private.HasField("drawn_card"):
            hidden.add(f"card {private.drawn_card.id}")
    return hidden


def _hidden_fool(revealed: game_pb2.Game, seats: list[game_pb2.Game]) -> set[str]:
    hands = list(revealed.fool_view.public_state.revealed_hands)
    cards = [card for hand in hands for card in hand.cards]
    cards += [card for seat in seats for card in seat.fool_view.private_state.hand]
    return {fool_card(card) for card in cards}


def backs_with_identity(board: Node) -> list[str]:
    """Card backs (``data-piece="back"``) that carry anything naming a card."""
    found = []
    for back in board.find_all(attribute="data-piece"):
        if back.get("data-piece") != "back":
            continue
        named = [
            f"{node.tag} {key}={value!r}"
            for node in back.walk()
            for key, value in node.attrs.items()
            if (key.startswith(("data-", "aria-")) and node is not back)
            or (node is back and key not in ("data-piece", "class", "transform"))
        ]
        if named or back.text() or back.find_all("title"):
            found.append(f"a back with {named or back.text()!r}")
    return found


# Parts of a message that hold hidden information while the game goes on:
# (the field's parent, the field), in the JSON names of toJson. Each is empty
# or absent in what a spectator may receive before the game is over.
SECRET_FIELDS = {
    ("*", "privateState"),
    ("*", "revealedState"),
    ("*", "revealedRacks"),
    ("*", "revealedHands"),
    ("tilesDealt", "racks"),
    ("tilesDrawn", "tiles"),
    ("tilesExchanged", "returned"),
    ("tilesExchanged", "drawn"),
    ("roundDealt", "hands"),
    ("roundDealt", "layouts"),
    ("roundDealt", "drawPile"),
    ("drawPileReshuffled", "drawPile"),
    ("handsDealt", "hands"),
    ("cardDrawn", "card"),
    ("cardRejected", "card"),
    ("deckShuffled", "cardIds"),
    ("targetChosen", "target"),
    ("huesAndCuesView", "card"),
    ("huesAndCuesView", "target"),
}


def _holds_anything(value: Any) -> bool:
    """Whether a JSON value holds something besides empty lists and objects."""
    if isinstance(value, dict):
        return any(_holds_anything(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_anything(item) for item in value)
    return value not in (None, "", 0, False)


def _fields(value: Any, parent: str = "") -> Iterator[tuple[str, str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield parent, key, item
            yield from _fields(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _fields(item, parent)


def leaks(message: dict[str, Any]) -> list[str]:
    """The hidden information a received message holds, in words."""
    return [
        f"{parent}.{key} = {str(value)[:120]}"
        for parent, key, value in _fields(message)
        if ((parent, key) in SECRET_FIELDS or ("*", key) in SECRET_FIELDS)
        and _holds_anything(value)
    ]


def sent_in_progress(message: dict[str, Any]) -> bool:
    """Whether a received message was sent while the game was in progress.

    The games (GetGame) say so; a stream's batch of events did unless it
    finished the game (once it is over every hand and rack is public). Replays
    (GetGameRevision) are left out: the tests make them once the game is over.
    """
    if "snapshot" in message:
        return False
    game = message.get("game")
    if isinstance(game, dict):
        return game.get("state") == "GAME_STATE_IN_PROGRESS"
    batch = message.get("events", {}).get("events", [])
    events = [message["event"]] if "event" in message else batch
    return not any("gameFinished" in event for event in events)
