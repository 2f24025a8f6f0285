"""The Hues and Cues bot: cues that describe the target, guesses on their colour."""

from __future__ import annotations

from domain.bots import choose_move, hues_and_cues
from domain.bots.cue_colors import CUE_COLORS, color_distance
from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.seats import Seat
from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.board import (
    ALL_SQUARES,
    Square,
    color,
    distance,
    parse_square,
)
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.cues import Cue, check_cue
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.scoring import FRAME, guess_points
from domain.games.hues_and_cues.vocabulary import (
    SUGGESTED_CUES,
    nearest_cues,
    ranked_cues,
)

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


def test_the_cue_giver_describes_each_card_square_and_takes_the_best_guessed() -> None:
    state = started()
    squares = CARDS[state.card or ""].squares

    cue = choose_move(GAME, state, 0)

    assert isinstance(cue, GiveFirstCue)
    assert cue.cue == ranked_cues(cue.target)[0]  # its nearest word

    def miss(square: Square) -> int:
        word = ranked_cues(square)[0]
        guess = hues_and_cues.best_guess(
            CUE_COLORS[word], ALL_SQUARES, free_choice=False
        )
        return distance(square, guess)

    assert miss(cue.target) == min(miss(s) for s in squares)


def test_the_cue_giver_says_another_word_for_another_target() -> None:
    state = started()
    card = CARDS[state.card or ""]
    chosen = choose_move(GAME, state, 0)
    assert isinstance(chosen, GiveFirstCue)
    others = [s for s in card.squares if ranked_cues(s)[0] != chosen.cue]
    assert len(others) == len(card.squares) - 1
    for other in others:
        # The same card with ``other`` alone on it: the bot must name ``other``.
        alone = hues_and_cues.choose(
            RULES.view(state, Seat(0)),
            [GiveFirstCue(0, other, word) for word in nearest_cues(other, ())],
        )
        assert alone == GiveFirstCue(0, other, ranked_cues(other)[0])
        assert alone.cue != chosen.cue


def test_with_free_choice_the_target_is_where_the_guesses_will_land() -> None:
    state = started(variant=True)
    cue = choose_move(GAME, state, 0)
    assert isinstance(cue, GiveFirstCue)
    assert cue.cue == ranked_cues(cue.target)[0]

    state = bot_turns(state, 4)

    assert all(distance(p.square, cue.target) <= 1 for p in state.pieces)


def test_over_whole_games_the_cues_describe_each_target_and_never_repeat() -> None:
    for players, variant in ((6, False), (5, True)):
        state = started(players, variant=variant)
        given: list[tuple[str, Square]] = []  # (normalised cue, its target)
        while not state.finished:
            (seat,) = RULES.to_move(state)
            command = choose_move(GAME, state, seat)
            assert command is not None
            if isinstance(command, GiveFirstCue | GiveSecondCue):
                cue_no = 1 if isinstance(command, GiveFirstCue) else 2
                earlier = [word for word, _ in given]
                checked = check_cue(command.cue, cue_no, earlier)
                assert isinstance(checked, Cue), (command, checked)
                target = (
                    command.target
                    if isinstance(command, GiveFirstCue)
                    else state.target
                )
                assert target is not None
                given.append((checked.normalized, target))
            state = played(state, command)

        rounds = state.round
        words = [word for word, _ in given]
        assert len(set(words)) == len(words) >= rounds  # never the same cue twice
        targets = {target for _, target in given}
        assert len(targets) >= rounds - 1  # the targets differ round to round
        for word, target in given:
            # Nearer the target's colour than nine words in ten of the vocabulary.
            assert ranked_cues(target).index(word) < len(SUGGESTED_CUES) // 10
            assert (
                color_distance(CUE_COLORS[word], color(target))
                <= sorted(
                    color_distance(CUE_COLORS[w], color(target)) for w in SUGGESTED_CUES
                )[len(SUGGESTED_CUES) // 10]
            )


def test_the_same_game_gets_the_same_cues() -> None:
    first = bot_turns(started(3), 20)
    again = bot_turns(started(3), 20)
    assert first == again


def test_gives_a_second_cue_that_brings_the_guesses_into_the_frame() -> None:
    # "scarlet" alone draws guesses two columns off I2; with a second word of
    # I2's colour they land in the frame.
    state = played(started(variant=True), GiveFirstCue(0, sq("I2"), "scarlet"))
    state = bot_turns(state, 3)

    second = choose_move(GAME, state, 0)

    assert isinstance(second, GiveSecondCue)
    assert second.cue in nearest_cues(sq("I2"), ("scarlet",))
    colour = hues_and_cues.aim(("scarlet", second.cue))
    assert colour is not None
    taken = [p.square for p in state.pieces]
    free = [s for s in ALL_SQUARES if s not in taken]
    spot = hues_and_cues.best_guess(colour, free, free_choice=True)
    assert distance(spot, sq("I2")) <= FRAME


def test_skips_a_second_cue_that_cannot_bring_the_guesses_back() -> None:
    # A first cue far off the target's colour: no listed word for N20, a dark
    # blue, pulls the mean of both cues back into the frame.
    state = played(started(variant=True), GiveFirstCue(0, sq("N20"), "lemon"))
    state = bot_turns(state, 3)

    assert choose_move(GAME, state, 0) == SkipSecondCue(0)
