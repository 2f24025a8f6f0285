"""Rounds, guess order, the second cue, deck reshuffles, ties and self-undo (§3, §5)."""

from __future__ import annotations

from dataclasses import replace

from domain.common.decision import Accepted
from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.board import ALL_SQUARES
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.events import (
    CardDrawn,
    CueGiven,
    DeckShuffled,
    EndReason,
    GameEnded,
    GuessPlaced,
    RoundScored,
    RoundStarted,
    SecondCueSkipped,
    TargetChosen,
    TargetRevealed,
)
from domain.games.hues_and_cues.model import (
    GiveFirstCue,
    GiveSecondCue,
    Phase,
    PlaceGuess,
    SkipSecondCue,
)
from domain.games.hues_and_cues.steps import shuffle_label
from domain.games.hues_and_cues.vocabulary import (
    CUES_PER_TARGET,
    nearest_cues,
    ranked_cues,
)
from tests.unit.domain.games.hues_and_cues.hues import (
    HUES_RNG,
    far_round,
    game_target,
    play_round,
    sq,
    start,
)


def test_first_guesses_go_clockwise_and_second_guesses_counter_clockwise() -> None:
    # D6: cue giver 2 of 5 -> first 3, 4, 0, 1; second 1, 0, 4, 3.
    game = start(5, first=2, variant=True)
    game.play(GiveFirstCue(2, sq("H15"), "tomato"))
    order = []
    for name in ("A1", "A2", "A3", "A4"):
        (seat,) = RULES.to_move(game.state)
        order.append(seat)
        game.play(PlaceGuess(seat, sq(name)))
    assert order == [3, 4, 0, 1]
    assert game.state.phase is Phase.SECOND_CUE
    assert RULES.to_move(game.state) == (2,)
    cue = game.play(GiveSecondCue(2, "Sea-Foam"))
    assert cue == (CueGiven(1, 2, 2, "Sea-Foam", "sea foam"),)
    order = []
    for name in ("B1", "B2", "B3", "B4"):
        (seat,) = RULES.to_move(game.state)
        order.append(seat)
        game.play(PlaceGuess(seat, sq(name)))
    assert order == [1, 0, 4, 3]
    placed = [e for e in game.events if isinstance(e, GuessPlaced)]
    assert [(e.seat, e.guess_no) for e in placed] == [
        (3, 1),
        (4, 1),
        (0, 1),
        (1, 1),
        (1, 2),
        (0, 2),
        (4, 2),
        (3, 2),
    ]


def test_the_move_that_completes_a_round_scores_it_and_starts_the_next() -> None:
    game = start(4, first=1)
    target = game_target(game)
    last = play_round(
        game, target, {2: "A1", 3: "A2", 0: "A3"}, {0: "B1", 3: "B2", 2: "B3"}
    )
    kinds = [type(e) for e in last]
    assert kinds == [
        GuessPlaced,
        TargetRevealed,
        RoundScored,
        RoundStarted,
        CardDrawn,
    ]
    assert last[3] == RoundStarted(round=2, cue_giver=2, tiebreak=False)
    state = game.state
    assert (state.phase, state.round, state.cue_giver) == (Phase.FIRST_CUE, 2, 2)
    assert state.pieces == ()
    assert state.round_cues == ()
    assert state.target is None
    assert state.last_scored is not None
    assert state.last_scored.target == target
    assert len(state.cues) == 2


def test_skipping_the_second_cue_scores_the_round_at_once() -> None:
    game = start(3, first=0, variant=True)
    game.play(GiveFirstCue(0, sq("H15"), "tomato"))
    game.play(PlaceGuess(1, sq("H15")))
    game.play(PlaceGuess(2, sq("H17")))
    events = game.play(SkipSecondCue(0))
    assert events[0] == SecondCueSkipped(round=1, seat=0)
    assert events[1] == TargetRevealed(1, sq("H15"))
    scored = events[2]
    assert isinstance(scored, RoundScored)
    assert scored.points == (2, 3, 1)  # one piece in the frame, 2 points (D16)
    assert len(scored.pieces) == 2
    assert events[3] == RoundStarted(round=2, cue_giver=1, tiebreak=False)


def test_regular_rounds_pass_the_cue_clockwise() -> None:
    game = start(7, first=5, variant=True)
    for _ in range(7):
        far_round(game)
    givers = [e.cue_giver for e in game.events if isinstance(e, RoundStarted)]
    assert givers == [5, 6, 0, 1, 2, 3, 4]
    assert game.events[-1] == GameEnded(
        scores=(0,) * 7, winners=tuple(range(7)), reason=EndReason.ALL_TIED
    )
    assert game.state.tiebreak_rounds == 0


def test_an_empty_deck_is_reshuffled_from_the_used_cards() -> None:
    # D15: only a very long game empties the deck, so the deck is cut short here.
    game = start(3, first=0)
    state = game.state
    assert state.card is not None
    last = state.deck[-1]
    game.state = replace(state, deck=(last,), used=state.deck[:-1])
    far_round(game)
    assert (game.state.card, game.state.deck) == (last, ())
    events = far_round(game)
    shuffled = next(e for e in events if isinstance(e, DeckShuffled))
    expected = HUES_RNG.shuffle(shuffle_label(3), sorted(CARDS))
    assert shuffled == DeckShuffled(round=3, cards=tuple(expected), size=100)
    assert shuffle_label(3) == "hues-and-cues/round-3/shuffle"
    assert [type(e) for e in events[-3:]] == [RoundStarted, DeckShuffled, CardDrawn]
    state = game.state
    assert state.card == expected[0]
    assert state.deck == tuple(expected[1:])
    assert state.used == ()
    assert state.shuffles == 2


def test_cards_are_conserved_between_deck_round_and_used_pile() -> None:
    game = start(4, first=0)
    for _ in range(3):
        far_round(game)
        state = game.state
        assert state.card is not None
        cards = [*state.deck, state.card, *state.used]
        assert sorted(cards) == sorted(CARDS)
        assert len(state.used) == state.round - 1


def test_a_tie_for_the_lead_is_broken_by_a_player_outside_it() -> None:
    # D14: the non-tied C gives the cue, D lands twice in the frame, so C leads.
    game = start(4, first=0, variant=True)
    game.state = replace(game.state, scores=(10, 10, 9, 0))  # set, not played
    for _ in range(8):
        far_round(game)
    assert game.state.tiebreak
    assert game.state.cue_giver == 2
    events = play_round(
        game,
        sq("H15"),
        {3: "H15", 0: "A1", 1: "A2"},
        {1: "A3", 0: "A4", 3: "H16"},
    )
    assert events[-1] == GameEnded(
        scores=(10, 10, 11, 5), winners=(2,), reason=EndReason.SOLE_LEADER
    )


def test_ten_tie_break_rounds_without_a_single_leader_share_the_win() -> None:
    game = start(4, first=0, variant=True)
    game.state = replace(game.state, scores=(10, 10, 0, 0))  # set, not played
    for _ in range(8 + 10):
        assert not game.state.finished
        far_round(game)
    tiebreaks = [e for e in game.events if isinstance(e, RoundStarted) and e.tiebreak]
    assert len(tiebreaks) == 10
    assert {e.cue_giver for e in tiebreaks} == {2, 3}
    assert game.events[-1] == GameEnded(
        scores=(10, 10, 0, 0), winners=(0, 1), reason=EndReason.TIEBREAK_CAP
    )
    outcome = RULES.outcome(game.state)
    assert (outcome.finished, outcome.winners) == (True, (0, 1))
    assert RULES.to_move(game.state) == ()
    assert not list(RULES.legal_moves(game.state, 2))


def test_a_sole_leader_after_the_regular_rounds_wins_at_once() -> None:
    game = start(3, first=0, variant=True)
    game.state = replace(game.state, scores=(0, 1, 0))  # set, not played
    for _ in range(6):
        far_round(game)
    assert game.events[-1] == GameEnded(
        scores=(0, 1, 0), winners=(1,), reason=EndReason.SOLE_LEADER
    )


def test_self_undo_covers_cues_and_guesses_that_do_not_end_the_round() -> None:
    game = start(3, first=0)
    target = game_target(game)
    assert RULES.self_undoable(game.play(GiveFirstCue(0, target, "tomato")))
    assert RULES.self_undoable(game.play(PlaceGuess(1, sq("A1"))))
    assert RULES.self_undoable(game.play(PlaceGuess(2, sq("A2"))))  # ends 1st guesses
    second = game.state
    assert RULES.self_undoable(game.play(GiveSecondCue(0, "pig snout")))
    assert RULES.self_undoable(game.play(PlaceGuess(2, sq("A3"))))
    assert not RULES.self_undoable(game.play(PlaceGuess(1, sq("A4"))))  # ends round
    skipped = RULES.decide(second, SkipSecondCue(0), HUES_RNG)
    assert isinstance(skipped, Accepted)
    assert not RULES.self_undoable(skipped.events)
    assert not RULES.self_undoable(tuple(start(3).events))
    assert RULES.self_undoable((TargetChosen(1, 0, target),))
    assert not RULES.self_undoable((GameEnded((1, 0, 0), (0,), EndReason.SOLE_LEADER),))


def test_only_the_end_of_a_round_shows_others_what_was_hidden() -> None:
    # T19: the target and the next cue giver's card; cues and guesses show nothing.
    game = start(3, first=0)
    target = game_target(game)
    assert not RULES.reveals_to_others(game.play(GiveFirstCue(0, target, "tomato")))
    assert not RULES.reveals_to_others(game.play(PlaceGuess(1, sq("A1"))))
    assert not RULES.reveals_to_others(game.play(PlaceGuess(2, sq("A2"))))
    assert not RULES.reveals_to_others(game.play(GiveSecondCue(0, "pig snout")))
    assert not RULES.reveals_to_others(game.play(PlaceGuess(2, sq("A3"))))
    assert RULES.reveals_to_others(game.play(PlaceGuess(1, sq("A4"))))  # ends round


def test_legal_moves_suggest_each_target_its_nearest_words_nearest_first() -> None:
    game = start(4, first=0)
    assert game.state.card is not None
    squares = CARDS[game.state.card].squares
    moves = list(RULES.legal_moves(game.state, 0))
    assert moves == [
        GiveFirstCue(0, square, ranked_cues(square)[rank])
        for rank in range(CUES_PER_TARGET)
        for square in squares
    ]
    assert not list(RULES.legal_moves(game.state, 1))
    for move in moves:
        assert isinstance(RULES.decide(game.state, move, HUES_RNG), Accepted)


def test_legal_moves_never_suggest_a_cue_given_earlier_in_the_game() -> None:
    game = start(4, first=0)
    assert game.state.card is not None
    square = CARDS[game.state.card].squares[0]
    ranked = ranked_cues(square)
    given = (ranked[0], ranked[2])  # set, not played: as if given in earlier rounds
    state = replace(game.state, cues=given)
    offered = [
        m.cue
        for m in RULES.legal_moves(state, 0)
        if isinstance(m, GiveFirstCue) and m.target == square
    ]
    assert offered[0] == ranked[1]  # the nearest word not given yet
    assert offered == [w for w in ranked if w not in given][:CUES_PER_TARGET]
    assert nearest_cues(square, given) == tuple(offered)


def test_legal_moves_with_the_variant_offer_every_square() -> None:
    game = start(4, first=0, variant=True)
    moves = list(RULES.legal_moves(game.state, 0))
    targets = [m.target for m in moves if isinstance(m, GiveFirstCue)]
    assert targets == list(ALL_SQUARES) * CUES_PER_TARGET


def test_legal_moves_of_a_guesser_are_the_empty_squares_in_row_major_order() -> None:
    game = start(4, first=0, variant=True)
    first = ranked_cues(sq("H15"))[0]  # the word nearest the target's colour
    game.play(GiveFirstCue(0, sq("H15"), first))
    game.play(PlaceGuess(1, sq("A2")))
    moves = list(RULES.legal_moves(game.state, 2))
    assert len(moves) == 479
    assert moves[:2] == [PlaceGuess(2, sq("A1")), PlaceGuess(2, sq("A3"))]
    assert not list(RULES.legal_moves(game.state, 3))
    game.play(PlaceGuess(2, sq("A3")))
    game.play(PlaceGuess(3, sq("A4")))
    # The second cue: every word not given yet, nearest the target's first.
    assert list(RULES.legal_moves(game.state, 0)) == [
        *(GiveSecondCue(0, word) for word in ranked_cues(sq("H15"))[1:]),
        SkipSecondCue(0),
    ]
    game.play(GiveSecondCue(0, ranked_cues(sq("H15"))[1]))
    assert len(list(RULES.legal_moves(game.state, 3))) == 477
