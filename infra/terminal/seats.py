"""Seats kept on disk (mode 0600) so that ``tabletop play --join`` can resume.

A seat taken by a guest, or by a signed-in player, is kept with its seat token.
One resumed with the player's session (its seat file was gone) is kept without
a token: the player's account holds it, and a session acts for it. The seats of
the bots ``tabletop play --bots`` seated are kept with the player's, so that
the game can go on after the player quits (``infra/terminal/bot_seats.py``).
A second person at the same game on this machine keeps their seat in a file of
their own, named after them (``named_seat_path``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_UNSAFE = re.compile(r"[^a-z0-9]+")
_PLAIN = re.compile(r"[a-z0-9]+")
# The most of a name a seat file's name keeps readable (its hash tells the rest).
_SLUG_LENGTH = 32
# A player resource name: ``games/<id>/players/<seat>``.
_PLAYER = re.compile(r"(games/[^/]+)/players/(0|[1-9][0-9]{0,3})")


@dataclass(frozen=True, slots=True)
class KeptBot:
    """A bot's seat at the table: its player resource name and seat token."""

    player: str
    seat_token: str = field(repr=False)  # a credential: in no log or traceback


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat at a game: the player resource name and its secret token.

    ``invite_code`` is a private table's code, kept when the caller was given it
    (as its creator, or typed with ``--code``) so that the lobby can show it.
    ``receipt_revision`` and ``receipt_digest`` are the last record digest the
    client was shown and its revision: a receipt that ``tabletop audit verify
    --kept-receipts`` checks an export against (docs/audit.md). ``name`` is the
    display name the seat was taken under (empty in files kept before it was);
    ``bots`` are the seats of the bots seated with it.
    """

    game: str
    player: str
    # Empty: the seat is the signed-in player's, played with a session. Like
    # the invite code, a credential: in no log or traceback.
    seat_token: str = field(repr=False)
    server: str
    invite_code: str = field(default="", repr=False)
    receipt_revision: int = 0
    receipt_digest: str = ""
    name: str = ""
    bots: tuple[KeptBot, ...] = ()


def state_dir() -> Path:
    """Returns ``$XDG_STATE_HOME/tabletop`` or ``~/.local/state/tabletop``."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base else Path.home() / ".local" / "state"
    return root / "tabletop"


def seat_path(game: str, override: str | None = None) -> Path:
    """Returns where the seat of a game is kept."""
    if override:
        return Path(override).expanduser()
    return state_dir() / "seats" / f"{game.removeprefix('games/')}.json"


def named_seat_path(game: str, name: str) -> Path:
    """Returns where another person's seat at a game is kept: ``<game>.<name>.json``.

    One file per person as ``kept_seats.same_name`` tells them apart (case and
    surrounding spaces aside): a name of lower-case letters and digits is used
    as it is (``ben``), any other is cut to letters and digits and followed by
    its hash (``zo-1f2e...``, ``player-9a8b...`` for ``李雷``), so that two
    names never share a file, and none leaves the seats directory.
    """
    key = name.strip().casefold()
    if _PLAIN.fullmatch(key) and len(key) <= _SLUG_LENGTH:
        slug = key
    else:
        readable = _UNSAFE.sub("-", key).strip("-")[:_SLUG_LENGTH].strip("-")
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        slug = f"{readable or 'player'}-{digest[:16]}"
    return state_dir() / "seats" / f"{game.removeprefix('games/')}.{slug}.json"


def save_seat(seat: Seat, path: Path) -> None:
    """Writes the seat readable by its owner only.

    The seat is written to a new file (mode 0600) that then takes the path's
    place: nothing is written through a link at the path, nor into a file there
    that others may read, and a reader never finds half a file.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(asdict(seat), file)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def load_seat(path: Path) -> Seat | None:
    """Returns the seat kept at ``path`` with its seat token, or None when there
    is none (or it is kept without a token, for the account that holds it)."""
    seat = load_kept(path)
    return seat if seat is not None and seat.seat_token else None


def load_kept(path: Path) -> Seat | None:
    """Returns the seat kept at ``path``, with or without a token; None if none."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    fields = ("game", "player", "seat_token", "server")
    if not all(isinstance(data.get(key), str) for key in fields):
        return None
    code = data.get("invite_code", "")
    game, player, token, server = (str(data[key]) for key in fields)
    if not _player_of(player, game):
        return None
    revision, digest = data.get("receipt_revision", 0), data.get("receipt_digest", "")
    if not isinstance(revision, int) or not isinstance(digest, str):
        revision, digest = 0, ""
    name = data.get("name", "")
    return Seat(
        game,
        player,
        token,
        server,
        code if isinstance(code, str) else "",
        revision,
        digest,
        name if isinstance(name, str) else "",
        _bots(data.get("bots", []), game),
    )


def _player_of(player: Any, game: str) -> bool:
    """Tells whether ``player`` names a seat of ``game``: ``<game>/players/<n>``."""
    found = _PLAYER.fullmatch(player) if isinstance(player, str) else None
    return found is not None and found.group(1) == game


def _bots(data: Any, game: str) -> tuple[KeptBot, ...]:
    """Returns the bots' seats at ``game`` a seat file lists; none from a file
    without them, and none that names no seat of the game."""
    if not isinstance(data, list):
        return ()
    return tuple(
        KeptBot(bot["player"], bot["seat_token"])
        for bot in data
        if isinstance(bot, dict)
        and _player_of(bot.get("player"), game)
        and isinstance(bot.get("seat_token"), str)
        and bot["seat_token"]
    )


def forget_seat(path: Path) -> None:
    """Deletes a kept seat whose token no longer works."""
    path.unlink(missing_ok=True)
