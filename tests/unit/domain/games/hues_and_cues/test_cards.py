"""The generated cue cards (spec §1.3, D3)."""

from __future__ import annotations

import hashlib

import pytest

from domain.games.hues_and_cues.board import ALL_SQUARES
from domain.games.hues_and_cues.cards import CARDS, DECK


@pytest.mark.parametrize(
    ("card_id", "squares"),
    [
        ("C001", "A1 B18 K12 M29"),
        ("C002", "C8 E26 P14 K30"),
        ("C003", "E15 A19 N1 J16"),
        ("C050", "A14 G20 O5 O18"),
        ("C100", "E4 G30 O15 N23"),
    ],
)
def test_the_card_vectors(card_id: str, squares: str) -> None:
    assert " ".join(str(s) for s in CARDS[card_id].squares) == squares


def test_the_deck_has_100_cards_in_canonical_order() -> None:
    assert [card.id for card in DECK] == [f"C{k:03d}" for k in range(1, 101)]
    assert list(CARDS) == [card.id for card in DECK]


def test_every_card_has_four_squares_one_per_quadrant_and_400_are_distinct() -> None:
    squares = [s for card in DECK for s in card.squares]
    assert all(len(set(card.squares)) == 4 for card in DECK)
    assert len(set(squares)) == 400
    assert len(set(ALL_SQUARES) - set(squares)) == 80
    for card in DECK:
        quadrants = [(s.row >= 8, s.column >= 15) for s in card.squares]
        assert quadrants == [(False, False), (False, True), (True, False), (True, True)]


def test_the_deck_checksum() -> None:
    text = "".join(
        f"{card.id}:{','.join(str(s) for s in card.squares)}\n" for card in DECK
    )
    assert (
        hashlib.sha256(text.encode()).hexdigest()
        == "96dd889be3e6c055daf7bb3d6a0f0d066b78d33a68aa8e06143ffdbf01781bed"
    )
