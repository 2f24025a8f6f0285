"""The Hues and Cues bot: cue words read as colours, guesses on the nearest square."""

from __future__ import annotations

from domain.bots import choose_move, hues_and_cues
from domain.bots.cue_colors import CUE_COLORS, color_distance
from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.board import (
    ALL_SQUARES,
    Square,
    color,
    distance,
    parse_square,
)
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.cues import SUGGESTED_CUES
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.scoring import guess_points

GAME = "hues_and_cues"
RNG = Rng(bytes(range(32)))


def sq(name: str) -> Square:
    """Returns the square a name such as ``"H15"`` names."""
    square = parse_square(name)
    assert square is not None, name
    return square


def started(players: int = 4, *, variant: bool = False) -> State:
    """Returns a game waiting for seat 0's first cue."""
    config = HuesAndCuesConfig(first_cue_giver=0, free_choice_variant=variant)
    state = RULES.initial_state(players, config)
    return RULES.fold(state, RULES.setup(state, RNG))


def played(state: State, *commands: Command) -> State:
    """Returns the state after commands that must all be accepted."""
    for command in commands:
        decision = RULES.decide(state, command, RNG)
        assert isinstance(decision, Accepted), (command, decision)
        state = RULES.fold(state, decision.events)
    return state


def bot_turns(state: State, turns: int) -> State:
    """Returns the state after ``turns`` bot moves."""
    for _ in range(turns):
        (seat,) = RULES.to_move(state)
        command = choose_move(GAME, state, seat)
        assert command is not None
        state = played(state, command)
    return state


def test_every_suggested_cue_has_a_colour() -> None:
    assert set(SUGGESTED_CUES) <= set(CUE_COLORS)


def test_with_free_choice_a_guesser_lands_on_the_square_nearest_the_cue() -> None:
    state = played(started(variant=True), GiveFirstCue(0, sq("H15"), "tomato"))

    assert choose_move(GAME, state, 1) == PlaceGuess(1, sq("G2"))
    tomato = CUE_COLORS["tomato"]
    closest = min(color_distance(color(s), tomato) for s in ALL_SQUARES)
    assert color_distance(color(sq("G2")), tomato) == closest


def test_the_next_guesser_takes_the_nearest_free_square() -> None:
    state = played(
        started(variant=True),
        GiveFirstCue(0, sq("H15"), "tomato"),
        PlaceGuess(1, sq("G2")),
    )

    assert choose_move(GAME, state, 2) == PlaceGuess(2, sq("F1"))


def test_a_guesser_plays_the_odds_of_the_card_squares_near_the_cue() -> None:
    # G2, at the board's edge, is tomato's square; a cue giver holding any card
    # of the deck picks its square nearest G2, and D4 covers most of those.
    state = started()
    target = CARDS[state.card or ""].squares[0]
    state = played(state, GiveFirstCue(0, target, "tomato"))
    targets = hues_and_cues.likely_targets(sq("G2"))

    def expected(square: Square) -> int:
        return sum(guess_points(distance(square, t)) for t in targets)

    assert choose_move(GAME, state, 1) == PlaceGuess(1, sq("D4"))
    assert expected(sq("D4")) > expected(sq("G2"))
    assert distance(sq("D4"), sq("G2")) <= hues_and_cues.SEARCH_RADIUS


def test_a_cue_it_cannot_read_sends_the_guess_to_the_other_pieces() -> None:
    state = started()
    target = CARDS[state.card or ""].squares[0]
    state = played(state, GiveFirstCue(0, target, "quokka"))

    assert choose_move(GAME, state, 1) == PlaceGuess(1, sq("H15"))
    state = played(state, PlaceGuess(1, sq("C3")))
    guess = choose_move(GAME, state, 2)
    assert isinstance(guess, PlaceGuess)
    assert distance(guess.square, sq("C3")) == 1


def test_the_cue_giver_picks_the_card_square_nearest_the_expected_guess() -> None:
    state = started()
    squares = CARDS[state.card or ""].squares

    cue = choose_move(GAME, state, 0)

    assert isinstance(cue, GiveFirstCue)
    assert cue.cue == SUGGESTED_CUES[0]
    guess = hues_and_cues.best_guess(
        CUE_COLORS[cue.cue], ALL_SQUARES, free_choice=False
    )
    assert distance(cue.target, guess) == min(distance(s, guess) for s in squares)


def test_with_free_choice_the_target_is_where_the_guesses_will_land() -> None:
    state = bot_turns(started(variant=True), 4)

    assert state.target == sq("G2")
    assert all(distance(p.square, sq("G2")) <= 1 for p in state.pieces)


def test_gives_a_second_cue_that_brings_the_guesses_into_the_frame() -> None:
    # "scarlet" then "tomato" point at I2 together; the target is I2.
    state = played(started(variant=True), GiveFirstCue(0, sq("I2"), "scarlet"))
    state = bot_turns(state, 3)

    assert choose_move(GAME, state, 0) == GiveSecondCue(0, "tomato")


def test_skips_a_second_cue_that_would_lead_the_guesses_away() -> None:
    state = played(started(variant=True), GiveFirstCue(0, sq("N20"), "midnight"))
    state = bot_turns(state, 3)

    assert choose_move(GAME, state, 0) == SkipSecondCue(0)
