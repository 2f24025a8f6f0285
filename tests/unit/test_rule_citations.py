"""Every rule section (§) and decision (D) a game's code cites is in the repository.

A game's package and its converter cite sections and numbered decisions of the
game's rules; they refer to ``docs/rules/<game>.md``, where each section is a
heading (``### 4.1 ...``) and each decision a bold label (``**D3 ...**``). A
citation of ``DESIGN §n`` (or ``DESIGN §2, §4``) is cross-game: it refers to
``docs/design.md``, where each section is a heading (``## 4. ...``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain.games.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
DECISION = re.compile(r"\bD(\d+)\b")
DESIGN = re.compile(r"DESIGN (§\d+(?:\.\d+)*(?:, §\d+(?:\.\d+)*)*)")
NUMBER = re.compile(r"§(\d+(?:\.\d+)*)")


def _cited(package: str) -> tuple[set[str], set[str]]:
    files = [*(ROOT / "domain" / "games" / package).rglob("*.py")]
    converter = ROOT / "services" / "api" / "convert" / f"{package}.py"
    if converter.exists():
        files.append(converter)
    text = "\n".join(path.read_text(encoding="utf-8") for path in files)
    own = DESIGN.sub("", text)  # "DESIGN §2, §4" cites no rule of the game
    return set(SECTION.findall(own)), set(DECISION.findall(own))


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_every_citation_of_a_game_resolves_in_its_rules(game_type: str) -> None:
    rules = ROOT / "docs" / "rules" / f"{game_type.replace('_', '-')}.md"
    doc = rules.read_text(encoding="utf-8")
    sections, decisions = _cited(game_type)
    assert sections, f"{game_type} cites no section: is the pattern right?"
    missing = [
        f"§{section}"
        for section in sorted(sections)
        if not re.search(rf"^#{{2,6}} {re.escape(section)}\.? ", doc, re.MULTILINE)
    ]
    missing += [
        f"D{number}"
        for number in sorted(decisions, key=int)
        if not re.search(rf"\*\*D{number}\b", doc)
    ]
    assert not missing, f"{rules.name} lacks what the code cites: {missing}"


def test_every_design_citation_resolves_in_docs_design() -> None:
    doc = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    cited: dict[str, set[str]] = {}
    for layer in ("domain", "services", "infra"):
        for path in (ROOT / layer).rglob("*.py"):
            for group in DESIGN.findall(path.read_text(encoding="utf-8")):
                for section in NUMBER.findall(group):
                    cited.setdefault(section, set()).add(str(path.relative_to(ROOT)))
    assert cited, "no DESIGN citation found: is the pattern right?"
    missing = {
        f"§{section}": sorted(paths)
        for section, paths in sorted(cited.items())
        if not re.search(rf"^#{{2,3}} {re.escape(section)}\.? ", doc, re.MULTILINE)
    }
    assert not missing, f"docs/design.md lacks what the code cites: {missing}"
