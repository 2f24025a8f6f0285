"""docs/fairness.md against the code: its table of random labels and its example.

The table must list exactly the labels the domain code passes to the random
source. They are found by reading the code: every ``rng.shuffle`` and
``rng.stream`` call, its label followed to the constant, f-string or label
function it comes from. Every label the games actually draw with, in played
games, must match a row too. The worked example must run on the standard
library alone, print what the page shows, and deal and exchange exactly what
the game's own code decides, for the page's seed and for others.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from domain.common.decision import Accepted
from domain.common.rng import RandomStream, Rng, commitment
from domain.games.qwirkle import RULES as QWIRKLE
from domain.games.qwirkle.events import Event, TilesDealt, TilesExchanged
from domain.games.qwirkle.model import (
    Color,
    ExchangeTiles,
    Phase,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    State,
    Tile,
)
from domain.games.registry import GAMES
from tests.contract.playouts import game_named, pick

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fairness.md"
DOMAIN = ROOT / "domain"

# The random source's methods a game calls, on its ``rng`` argument.
RANDOM_METHODS = frozenset({"shuffle", "stream"})
# The only modules that may make a random source: the source itself, and the
# table, which makes the game's one ``Rng`` from its seed.
SOURCE_MODULES = frozenset(
    {DOMAIN / "common" / "rng.py", DOMAIN / "common" / "table_state.py"}
)
SOURCE_MADE = re.compile(
    r"\b(?:Rng|RandomStream)\(|\burandom\b|^\s*(?:import|from) (?:random|secrets)\b",
    re.MULTILINE,
)
RNG_USE = re.compile(r"\brng\.(\w+)")
# A label's variable part (``<r>`` in the page, ``{round_number}`` in code).
ANY = "<>"
PLACEHOLDER = re.compile(r"<[^<>]*>")

EXAMPLE_SEED = bytes(range(32))
SHUFFLE_LABEL = "qwirkle/round-1/shuffle"
SEED_LINE = re.compile(r'^SEED = bytes\.fromhex\("[0-9a-f]{64}"\)$', re.MULTILINE)
PLAYERS_LINE = re.compile(r"^PLAYERS = \d+$", re.MULTILINE)
# The page's seed, seat 0, lays three blue tiles of its rack in a row.
FIRST_MOVE = PlaceTiles(
    0,
    (
        Placement(Tile(Color.BLUE, Shape.STARBURST), 0, 0),
        Placement(Tile(Color.BLUE, Shape.CRISSCROSS), 1, 0),
        Placement(Tile(Color.BLUE, Shape.DIAMOND), 2, 0),
    ),
)


# --- The page ---


def section(title: str) -> str:
    """Returns the text of the page's ``## `` section whose heading holds ``title``."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"^## [^\n]*{re.escape(title)}[^\n]*$", text, re.MULTILINE)
    assert found is not None, f"docs/fairness.md has no section {title!r}"
    end = text.find("\n## ", found.end())
    return text[found.end() : end if end != -1 else len(text)]


def documented_labels() -> list[str]:
    """Returns the label of every row of the page's table of labels, in order."""
    labels = []
    for line in section("Every random label").splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        label = re.fullmatch(r"`([^`]+)`", cells[0])
        assert label is not None, f"a row's first cell must be one label: {line}"
        labels.append(label.group(1))
    return labels


def normalised(label: str) -> str:
    """Returns a label with every variable part written ``<>``."""
    return PLACEHOLDER.sub(ANY, label)


def row_pattern(label: str) -> re.Pattern[str]:
    """Returns the pattern of the labels a row stands for: ``<r>`` is a number."""
    parts = PLACEHOLDER.split(label)
    return re.compile("[1-9][0-9]*".join(re.escape(part) for part in parts))


def example() -> tuple[str, list[str]]:
    """Returns the worked example's script and the lines the page says it prints."""
    text = section("Worked example")
    script = re.search(r"^```python\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    printed = re.search(r"^```text\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    assert script is not None, "the worked example has no python block"
    assert printed is not None, "the worked example shows no output"
    return script.group(1), printed.group(1).splitlines()


# --- The code's labels, read from its source ---


def shown(path: Path) -> str:
    """Returns a module's path as a failure names it: from the repository's root."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def module_path(name: str) -> Path:
    """Returns the file of a ``domain`` module named with dots."""
    return ROOT.joinpath(*name.split(".")).with_suffix(".py")


@functools.cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def definition(path: Path, name: str) -> tuple[Path, ast.stmt]:
    """Returns the module-level statement that defines ``name``, imports followed."""
    for statement in parsed(path).body:
        match statement:
            case ast.Assign(targets=[ast.Name(id=target)]) if target == name:
                return path, statement
            case ast.FunctionDef(name=defined) if defined == name:
                return path, statement
            case ast.ImportFrom(module=str(module), names=aliases):
                for alias in aliases:
                    if (alias.asname or alias.name) == name:
                        return definition(module_path(module), alias.name)
    msg = f"{shown(path)}: no definition of {name}"
    raise AssertionError(msg)


def template(text: ast.JoinedStr, bound: dict[str, str]) -> str:
    """Returns an f-string's text, bound names filled in, other parts ``<>``."""
    parts = []
    for part in text.values:
        match part:
            case ast.Constant(value=str(constant)):
                parts.append(constant)
            case ast.FormattedValue(value=ast.Name(id=name)) if name in bound:
                parts.append(bound[name])
            case _:
                parts.append(ANY)
    return "".join(parts)


def call_label(path: Path, call: ast.Call) -> str:
    """Returns the label a call to a label function makes."""
    assert isinstance(call.func, ast.Name)
    where, function = definition(path, call.func.id)
    body = [
        statement
        for statement in getattr(function, "body", [])
        if not (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
        )
    ]
    match body:
        case [ast.Return(value=ast.JoinedStr() as text)]:
            assert isinstance(function, ast.FunctionDef)
            names = [argument.arg for argument in function.args.args]
            given = [*zip(names, call.args, strict=False)]
            given += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
            bound = {
                name: str(value.value)
                for name, value in given
                if isinstance(value, ast.Constant)
            }
            return template(text, bound)
    msg = f"{shown(where)}: {call.func.id} does not return an f-string"
    raise AssertionError(msg)


def label_of(path: Path, expression: ast.expr) -> str:
    """Returns the label an expression gives, ``<>`` for its variable parts."""
    match expression:
        case ast.Constant(value=str(text)):
            return text
        case ast.JoinedStr():
            return template(expression, {})
        case ast.Name(id=name):
            where, statement = definition(path, name)
            if isinstance(statement, ast.Assign):
                return label_of(where, statement.value)
        case ast.Call(func=ast.Name()):
            return call_label(path, expression)
    msg = (
        f"{shown(path)}:{expression.lineno}: cannot read the random "
        f"label {ast.unparse(expression)}"
    )
    raise AssertionError(msg)


def random_calls(path: Path) -> list[ast.Call]:
    """Returns the calls of the random source's methods on ``rng`` in a module."""
    calls = []
    for node in ast.walk(parsed(path)):
        match node:
            case ast.Call(func=ast.Attribute(value=receiver, attr=method)) if (
                method in RANDOM_METHODS
                and (
                    (isinstance(receiver, ast.Name) and receiver.id == "rng")
                    or (isinstance(receiver, ast.Attribute) and receiver.attr == "rng")
                )
            ):
                calls.append(node)
    return sorted(calls, key=lambda call: (call.lineno, call.col_offset))


def domain_modules() -> list[Path]:
    return sorted(DOMAIN.rglob("*.py"))


def module_labels(path: Path) -> list[tuple[str, int]]:
    """Returns the label and line of every random call of a module."""
    found = []
    for call in random_calls(path):
        assert call.args, f"{shown(path)}:{call.lineno}: a random call without a label"
        found.append((label_of(path, call.args[0]), call.lineno))
    return found


def code_labels() -> dict[str, str]:
    """Returns every label the domain code uses, ``<>`` for its variable parts.

    Each label maps to the first place that uses it (``path:line``).
    """
    labels: dict[str, str] = {}
    for path in domain_modules():
        for label, line in module_labels(path):
            labels.setdefault(label, f"{shown(path)}:{line}")
    return labels


# --- The table of labels ---


def test_the_code_uses_the_random_source_only_through_labelled_calls() -> None:
    for path in domain_modules():
        text = path.read_text(encoding="utf-8")
        used = RNG_USE.findall(text)
        where = shown(path)
        assert set(used) <= RANDOM_METHODS, f"{where}: rng.{used} is not documented"
        assert len(random_calls(path)) == len(used), f"{where}: an rng call unread"
        if path not in SOURCE_MODULES:
            assert not SOURCE_MADE.search(text), f"{where} makes its own randomness"


MADE_UP_GAME = """
from domain.games.qwirkle.setup import SHUFFLE_LABEL

PICK = "demo/round-1/pick-1"


def step_label(round_number: int, number: int) -> str:
    \"\"\"Returns a label made by a function.\"\"\"
    return f"demo/round-{round_number}/step-{number}"


def play(rng, table, state):
    rng.shuffle(SHUFFLE_LABEL, [])
    rng.stream(PICK).uniform(3)
    rng.shuffle(step_label(2, state.steps), [])
    table.rng.shuffle(f"demo/round-{state.round}/deal", [])
"""


def test_labels_are_read_through_constants_imports_and_label_functions(
    tmp_path: Path,
) -> None:
    module = tmp_path / "game.py"
    module.write_text(MADE_UP_GAME, encoding="utf-8")
    assert [label for label, _ in module_labels(module)] == [
        "qwirkle/round-1/shuffle",
        "demo/round-1/pick-1",
        "demo/round-2/step-<>",
        "demo/round-<>/deal",
    ]


def test_a_label_the_reader_cannot_follow_fails_loudly(tmp_path: Path) -> None:
    module = tmp_path / "game.py"
    module.write_text("def play(rng, state):\n    rng.shuffle(state.label, [])\n")
    with pytest.raises(AssertionError, match="cannot read the random label"):
        module_labels(module)


def test_the_reader_finds_labels_of_every_game_in_the_code() -> None:
    games = {label.split("/", 1)[0] for label in code_labels()}
    assert games == {name.replace("_", "-") for name in GAMES}


def test_every_label_of_the_code_is_in_the_table() -> None:
    documented = {normalised(label) for label in documented_labels()}
    missing = {
        label: where
        for label, where in code_labels().items()
        if label not in documented
    }
    assert not missing, f"labels missing from docs/fairness.md: {missing}"


def test_every_label_of_the_table_is_used_by_the_code() -> None:
    used = code_labels()
    unused = [label for label in documented_labels() if normalised(label) not in used]
    assert not unused, f"docs/fairness.md lists labels no code uses: {unused}"


def test_the_table_lists_each_label_once() -> None:
    labels = [normalised(label) for label in documented_labels()]
    assert len(labels) == len(set(labels))


def test_the_table_spells_labels_as_the_design_says() -> None:
    # DESIGN §4: <game>/round-<r>/<what>, numbered <what>-<n> when it repeats.
    spelling = re.compile(r"[a-z-]+/round-(?:1|<r>)/[a-z-]+(?:-(?:1|<[kn]>))?")
    for label in documented_labels():
        assert spelling.fullmatch(label), label


@dataclass(frozen=True, slots=True)
class RecordingRng(Rng):
    """The game's random source, noting every label it is asked for."""

    labels: list[str] = field(default_factory=list)

    def stream(self, label: str) -> RandomStream:
        self.labels.append(label)
        return Rng.stream(self, label)


def played_labels(name: str, players: int, number: int) -> list[str]:
    """Returns the labels a random game of ``name`` draws with, to its end."""
    rules, text = GAMES[name], f"fairness/{name}/{players}/{number}"
    rng = RecordingRng(hashlib.sha256(text.encode()).digest())
    choose = random.Random(text)
    state = rules.initial_state(
        players, game_named(name).table_options(players, number)
    )
    for event in rules.setup(state, rng):
        state = rules.evolve(state, event)
    while seats := rules.to_move(state):
        seat = choose.choice(seats)
        decision = rules.decide(
            state, pick(tuple(rules.legal_moves(state, seat)), choose), rng
        )
        assert isinstance(decision, Accepted), decision
        for event in decision.events:
            state = rules.evolve(state, event)
    return rng.labels


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_label_drawn_in_play_matches_a_row_of_the_table(name: str) -> None:
    rows = [row_pattern(label) for label in documented_labels()]
    rules = GAMES[name]
    drawn = [
        label
        for players in (rules.min_players, rules.max_players)
        for number in range(2)
        for label in played_labels(name, players, number)
    ]
    assert any(label.startswith(f"{name.replace('_', '-')}/") for label in drawn)
    unmatched = {label for label in drawn if not any(r.fullmatch(label) for r in rows)}
    assert not unmatched, f"{name} drew with labels the page does not list: {unmatched}"


# --- The worked example ---


def run(script: str, directory: Path) -> list[str]:
    """Runs a script in a fresh, isolated interpreter; returns the lines it prints."""
    done = subprocess.run(  # noqa: S603 (our own interpreter, the page's script)
        [sys.executable, "-I", "-c", script],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def with_table(script: str, seed: bytes, players: int) -> str:
    """Returns the script set to another seed and table size."""
    script, seeds = SEED_LINE.subn(f'SEED = bytes.fromhex("{seed.hex()}")', script)
    script, sizes = PLAYERS_LINE.subn(f"PLAYERS = {players}", script)
    assert (seeds, sizes) == (1, 1), "the example sets SEED and PLAYERS once each"
    return script


def printed(lines: list[str]) -> dict[str, str]:
    """Returns the ``name: value`` lines of the example's output."""
    found = dict(line.split(": ", 1) for line in lines)
    assert len(found) == len(lines), lines
    return found


def names(tiles: tuple[Tile, ...]) -> str:
    return ", ".join(str(tile) for tile in tiles)


def fold(state: State, events: tuple[Event, ...]) -> State:
    for event in events:
        state = QWIRKLE.evolve(state, event)
    return state


def decided(
    state: State, command: PlaceTiles | ExchangeTiles, rng: Rng
) -> tuple[Event, ...]:
    decision = QWIRKLE.decide(state, command, rng)
    assert isinstance(decision, Accepted), decision
    return decision.events


def code_deal(seed: bytes, players: int) -> tuple[State, dict[str, str]]:
    """Returns the state after the code's deal, and the example's lines of it."""
    rng = Rng(seed)
    opening = QWIRKLE.setup(QWIRKLE.initial_state(players, QwirkleConfig()), rng)
    dealt = opening[0]
    assert isinstance(dealt, TilesDealt)
    first = rng.stream(SHUFFLE_LABEL)
    block = b"".join(first.next_u64().to_bytes(8, "big") for _ in range(4))
    lines = {
        "commitment": commitment(seed),
        "block 0": block.hex(),
        "first swap": f"i = 107, j = {rng.stream(SHUFFLE_LABEL).uniform(108)}",
        **{f"seat {seat}": names(rack) for seat, rack in enumerate(dealt.racks)},
        f"bag ({len(dealt.bag)} tiles), top 6": names(dealt.bag[:6]),
    }
    return fold(QWIRKLE.initial_state(players, QwirkleConfig()), opening), lines


def code_exchange(state: State, rng: Rng) -> dict[str, str]:
    """Returns the lines the example prints of seat 1 exchanging two rack tiles."""
    returned = state.racks[1][:2]
    (exchanged,) = decided(state, ExchangeTiles(seat=1, tiles=returned), rng)
    assert isinstance(exchanged, TilesExchanged)
    return {
        "exchange 1 returns": names(exchanged.returned),
        "exchange 1 draws": names(exchanged.drawn),
        f"bag after it ({len(exchanged.bag)} tiles), top 6": names(exchanged.bag[:6]),
    }


def test_the_example_needs_nothing_but_the_standard_library() -> None:
    script, _ = example()
    imported = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported
    assert imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names


def test_the_example_prints_what_the_page_shows(tmp_path: Path) -> None:
    script, lines = example()
    assert run(script, tmp_path) == lines


def test_the_example_deals_and_exchanges_as_the_game_does(tmp_path: Path) -> None:
    script, _ = example()
    rng = Rng(EXAMPLE_SEED)
    state, expected = code_deal(EXAMPLE_SEED, 2)
    # The game the page tells: seat 0 starts, lays three tiles, then seat 1 exchanges.
    assert state.to_move == 0
    state = fold(state, decided(state, FIRST_MOVE, rng))
    assert (state.to_move, state.exchanges) == (1, 0)
    expected |= code_exchange(state, rng)
    assert printed(run(with_table(script, EXAMPLE_SEED, 2), tmp_path)) == expected


@pytest.mark.parametrize(("number", "players"), [(1, 3), (2, 4), (3, 6)])
def test_the_example_follows_the_code_for_other_seeds(
    tmp_path: Path, number: int, players: int
) -> None:
    seed = hashlib.sha256(f"fairness/example/{number}".encode()).digest()
    state, expected = code_deal(seed, players)
    # Seat 1 to move after a first placement that drew the bag's top three tiles.
    after_first_move = replace(state, phase=Phase.TURN, to_move=1, bag=state.bag[3:])
    expected |= code_exchange(after_first_move, Rng(seed))
    script, _ = example()
    assert printed(run(with_table(script, seed, players), tmp_path)) == expected


def test_the_page_shows_the_designs_test_vectors() -> None:
    text = section("From a seed and a label to integers")
    stream = Rng(EXAMPLE_SEED).stream("test")
    integers = ", ".join(str(stream.next_u64()) for _ in range(3))
    shuffled = Rng(EXAMPLE_SEED).shuffle("test", range(10))
    assert f"commitment `{commitment(EXAMPLE_SEED)}`" in text
    assert f"label `test`: {integers}" in " ".join(text.split())
    assert f"label `test`: `{shuffled}`" in text


def test_the_page_is_linked_from_the_readme_and_the_audit_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n## Verifiable randomness")
    assert "(docs/fairness.md)" in readme[start : readme.index("\n## ", start + 1)]
    assert "(fairness.md)" in (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
