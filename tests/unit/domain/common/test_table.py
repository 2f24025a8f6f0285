"""The table around every game, with Qwirkle as the game: lobby, start, play, end."""

from __future__ import annotations

from typing import Any

import pytest

from domain.common import table as tables
from domain.common.decision import Decision, RejectionKind
from domain.common.rng import commitment
from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.common.undo import MovePlayed
from domain.games.qwirkle import (
    RULES,
    GameEnded,
    PlaceTiles,
    QwirkleConfig,
    StartingPlayerChosen,
    TilesDealt,
)
from tests.helpers import (
    SEED,
    accepted,
    first_legal_move,
    fold_table,
    open_table,
    play_to_end,
    refused,
    seat_to_move,
    started_table,
)

VIEWERS: list[Viewer] = [Seat(0), Seat(1), Spectator(), Operator()]


def create(max_players: int = 0, name: str = "Ada") -> Decision[tables.TableEvent]:
    opening = tables.GameCreated(
        RULES.name, QwirkleConfig(), max_players, commitment(SEED), SEED.hex()
    )
    return tables.create(RULES, opening, tables.SeatHolder(name, "hash-0"))


@pytest.fixture
def finished() -> tuple[tables.Table, list[Any]]:
    """A two-player game played to its end by always taking the first legal move."""
    table, events = started_table(2)
    table, played, _ = play_to_end(table)
    return table, events + played


# --- create ---


def test_create_opens_a_table_and_seats_the_creator_in_seat_0() -> None:
    created, joined = accepted(create())
    assert created == tables.GameCreated(
        "qwirkle", QwirkleConfig(), 6, commitment(SEED), SEED.hex()
    )
    assert joined == tables.PlayerJoined(0, "Ada", "hash-0")
    table = fold_table((created, joined))
    assert table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    assert table.seats == (tables.SeatHolder("Ada", "hash-0"),)
    assert table.game is None


def test_max_players_0_means_the_games_maximum() -> None:
    created, _ = accepted(create(max_players=0))
    assert isinstance(created, tables.GameCreated)
    assert created.max_players == RULES.max_players


@pytest.mark.parametrize("max_players", [2, 4, 6])
def test_max_players_in_the_games_range_is_kept(max_players: int) -> None:
    created, _ = accepted(create(max_players=max_players))
    assert isinstance(created, tables.GameCreated)
    assert created.max_players == max_players


@pytest.mark.parametrize("max_players", [1, 7, -1, 100])
def test_max_players_outside_the_games_range_is_refused_as_malformed(
    max_players: int,
) -> None:
    rejected = refused(create(max_players=max_players))
    assert rejected.reason == "INVALID_PLAYER_COUNT"
    assert rejected.kind is RejectionKind.MALFORMED
    assert rejected.metadata["minPlayers"] == "2"
    assert rejected.metadata["maxPlayers"] == "6"
    assert rejected.metadata["maxPlayersRequested"] == str(max_players)


BAD_NAMES = [
    "",
    "   ",
    "\t\n",
    "x" * 41,
    "Ada\x00",
    "Ada\nLovelace",
    "Ada\x1b[31m",
    "Ada\u200bLovelace",  # zero-width space: a format character
    "Ada\x7f",
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_creator_name_is_refused(name: str) -> None:
    rejected = refused(create(name=name))
    assert rejected.reason == "INVALID_DISPLAY_NAME"
    assert rejected.kind is RejectionKind.MALFORMED


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_joiner_name_is_refused(name: str) -> None:
    table, _ = open_table(1)
    rejected = refused(tables.join(table, name, "hash-1"))
    assert rejected.reason == "INVALID_DISPLAY_NAME"
    assert rejected.kind is RejectionKind.MALFORMED


@pytest.mark.parametrize("name", ["A", "x" * 40, "Zoë Ł", "Ada Lovelace", "棋士"])
def test_a_name_of_1_to_40_printable_characters_is_accepted(name: str) -> None:
    _, joined = accepted(create(name=name))
    assert joined == tables.PlayerJoined(0, name, "hash-0")


def test_a_name_is_stored_without_surrounding_whitespace() -> None:
    table, _ = open_table(1)
    (joined,) = accepted(tables.join(table, "  Grace \n", "hash-1"))
    assert joined == tables.PlayerJoined(1, "Grace", "hash-1")


# --- join ---


def test_join_seats_players_in_order() -> None:
    table, _ = open_table(3)
    assert [holder.display_name for holder in table.seats] == [
        "Player 0",
        "Player 1",
        "Player 2",
    ]
    assert [holder.token_hash for holder in table.seats] == [
        "hash-0",
        "hash-1",
        "hash-2",
    ]


def test_join_is_refused_when_every_seat_is_taken() -> None:
    table, _ = open_table(2, max_players=2)
    rejected = refused(tables.join(table, "Late", "hash-2"))
    assert rejected.reason == "TABLE_FULL"
    assert rejected.kind is RejectionKind.NOT_ALLOWED_NOW
    assert rejected.metadata["maxPlayers"] == "2"


def test_join_is_refused_once_the_game_has_started() -> None:
    table, _ = started_table(2)
    rejected = refused(tables.join(table, "Late", "hash-2"))
    assert rejected.reason == "GAME_ALREADY_STARTED"
    assert rejected.kind is RejectionKind.NOT_ALLOWED_NOW


# --- start ---


def test_start_appends_game_started_then_the_deal_and_the_starting_player() -> None:
    table, _ = open_table(3)
    events = accepted(tables.start(table, RULES, 0))
    assert events[0] == tables.GameStarted(3, tables.MISSED_TURNS_GONE)
    assert [type(event) for event in events[1:]] == [TilesDealt, StartingPlayerChosen]
    started = fold_table(events, table)
    assert started.status is tables.TableStatus.IN_PROGRESS
    assert started.game.players == 3


def test_the_deal_is_drawn_from_the_tables_seed() -> None:
    first = accepted(tables.start(open_table(2)[0], RULES, 0))
    again = accepted(tables.start(open_table(2)[0], RULES, 0))
    other = accepted(tables.start(open_table(2, seed=bytes(32))[0], RULES, 0))
    assert first == again
    assert first != other


def test_start_with_fewer_players_than_the_game_needs_is_refused() -> None:
    table, _ = open_table(1)
    rejected = refused(tables.start(table, RULES, 0))
    assert rejected.reason == "NOT_ENOUGH_PLAYERS"
    assert rejected.kind is RejectionKind.NOT_ALLOWED_NOW
    assert rejected.metadata == {"minPlayers": "2", "seatedPlayers": "1"}


@pytest.mark.parametrize("seat", [2, 5, -1])
def test_start_by_a_seat_nobody_holds_is_refused(seat: int) -> None:
    table, _ = open_table(2)
    rejected = refused(tables.start(table, RULES, seat))
    assert rejected.reason == "NOT_A_PARTICIPANT"
    assert rejected.kind is RejectionKind.NOT_A_PARTICIPANT


def test_start_is_refused_once_the_game_has_started() -> None:
    table, _ = started_table(2)
    rejected = refused(tables.start(table, RULES, 0))
    assert rejected.reason == "GAME_ALREADY_STARTED"


def test_start_checks_the_participant_before_the_lifecycle() -> None:
    table, _ = started_table(2)
    assert refused(tables.start(table, RULES, 5)).reason == "NOT_A_PARTICIPANT"


# --- play ---


def test_play_before_start_is_refused_as_not_in_progress() -> None:
    table, _ = open_table(2)
    command = PlaceTiles(0, ())
    rejected = refused(tables.play(table, RULES, 0, command))
    assert rejected.reason == "GAME_NOT_IN_PROGRESS"
    assert rejected.kind is RejectionKind.NOT_ALLOWED_NOW
    assert rejected.metadata["state"] == "WAITING_FOR_PLAYERS"


def test_play_of_a_command_for_another_seat_is_refused() -> None:
    table, _ = started_table(2)
    seat = seat_to_move(table)
    command = first_legal_move(table.game, seat)
    rejected = refused(tables.play(table, RULES, 1 - seat, command))
    assert rejected.reason == "NOT_A_PARTICIPANT"
    assert rejected.kind is RejectionKind.NOT_A_PARTICIPANT


@pytest.mark.parametrize("seat", [2, -1])
def test_play_by_a_seat_nobody_holds_is_refused(seat: int) -> None:
    table, _ = started_table(2)
    rejected = refused(tables.play(table, RULES, seat, PlaceTiles(seat, ())))
    assert rejected.reason == "NOT_A_PARTICIPANT"


def test_play_hands_the_command_to_the_games_rules() -> None:
    table, _ = started_table(2)
    seat = seat_to_move(table)
    command = first_legal_move(table.game, seat)
    events = accepted(tables.play(table, RULES, seat, command))
    game_events = accepted(RULES.decide(table.game, command, table.rng))
    # The table marks the move first (for undo), then records the game's events.
    played = MovePlayed(
        seat, RULES.self_undoable(game_events), RULES.reveals_to_others(game_events)
    )
    assert events == (played, *game_events)
    assert fold_table(events, table).game == RULES.fold(table.game, game_events)


def test_play_returns_the_games_refusal_unchanged() -> None:
    table, _ = started_table(2)
    seat = seat_to_move(table)
    other = 1 - seat
    # The seat that is not on turn holds its seat, so the rules refuse, not the table.
    command = PlaceTiles(other, ())
    assert tables.play(table, RULES, other, command) == RULES.decide(
        table.game, command, table.rng
    )


# --- the end of the game ---


def test_a_game_played_to_its_end_finishes_the_table(
    finished: tuple[tables.Table, list[Any]],
) -> None:
    table, _ = finished
    assert table.status is tables.TableStatus.FINISHED
    assert RULES.outcome(table.game).finished


def test_game_finished_is_the_last_event_with_scores_winners_and_the_seed(
    finished: tuple[tables.Table, list[Any]],
) -> None:
    table, events = finished
    outcome = RULES.outcome(table.game)
    assert events[-1] == tables.GameFinished(
        outcome.scores, outcome.winners, SEED.hex()
    )
    assert isinstance(events[-2], GameEnded)
    assert sum(isinstance(e, tables.GameFinished) for e in events) == 1
    assert table.final == events[-1]
    assert outcome.winners
    assert all(outcome.scores[w] == max(outcome.scores) for w in outcome.winners)


def test_the_revealed_seed_matches_the_commitment_published_at_creation(
    finished: tuple[tables.Table, list[Any]],
) -> None:
    _, events = finished
    created, final = events[0], events[-1]
    assert isinstance(created, tables.GameCreated)
    assert isinstance(final, tables.GameFinished)
    assert commitment(bytes.fromhex(final.seed)) == created.commitment


def test_play_after_the_end_is_refused_as_not_in_progress(
    finished: tuple[tables.Table, list[Any]],
) -> None:
    table, _ = finished
    rejected = refused(tables.play(table, RULES, 0, PlaceTiles(0, ())))
    assert rejected.reason == "GAME_NOT_IN_PROGRESS"
    assert rejected.metadata["state"] == "FINISHED"


def test_outcome_is_none_before_start_and_the_games_outcome_after() -> None:
    table, _ = open_table(2)
    assert tables.outcome(table, RULES) is None
    started, _ = started_table(2)
    assert tables.outcome(started, RULES) == RULES.outcome(started.game)


# --- evolve ---


def test_evolve_refuses_a_stream_that_does_not_start_with_game_created() -> None:
    with pytest.raises(ValueError, match="GameCreated"):
        tables.evolve(None, tables.GameStarted(2), RULES)


def test_folding_a_whole_game_again_gives_the_same_table(
    finished: tuple[tables.Table, list[Any]],
) -> None:
    table, events = finished
    assert fold_table(events) == table


# --- what each viewer sees ---


@pytest.mark.parametrize("viewer", [Seat(0), Seat(1), Spectator()], ids=repr)
def test_the_seed_in_game_created_is_hidden_from_seats_and_spectators(
    viewer: Viewer,
) -> None:
    created, _ = accepted(create())
    shown = tables.visible(created, viewer, RULES)
    assert shown == tables.GameCreated(
        "qwirkle", QwirkleConfig(), 6, commitment(SEED), ""
    )
    assert SEED.hex() not in repr(shown)


def test_the_seed_in_game_created_is_shown_to_the_operator() -> None:
    created, _ = accepted(create())
    assert tables.visible(created, Operator(), RULES) == created


@pytest.mark.parametrize("viewer", VIEWERS, ids=repr)
def test_a_token_hash_is_never_visible(viewer: Viewer) -> None:
    joined = tables.PlayerJoined(1, "Bo", "hash-1")
    assert tables.visible(joined, viewer, RULES) == tables.PlayerJoined(1, "Bo", "")


@pytest.mark.parametrize("viewer", VIEWERS, ids=repr)
def test_game_started_and_game_finished_are_visible_to_everybody(
    viewer: Viewer,
) -> None:
    started = tables.GameStarted(2)
    final = tables.GameFinished((10, 12), (1,), SEED.hex())
    assert tables.visible(started, viewer, RULES) == started
    assert tables.visible(final, viewer, RULES) == final


@pytest.mark.parametrize("viewer", VIEWERS, ids=repr)
def test_game_events_are_redacted_by_the_games_visible(viewer: Viewer) -> None:
    _, events = started_table(2)
    dealt = next(e for e in events if isinstance(e, TilesDealt))
    assert tables.visible(dealt, viewer, RULES) == RULES.visible(dealt, viewer)


@pytest.mark.parametrize("viewer", VIEWERS, ids=repr)
def test_the_viewer_is_unchanged_while_the_game_is_not_finished(viewer: Viewer) -> None:
    waiting, _ = open_table(2)
    started, _ = started_table(2)
    assert tables.effective_viewer(waiting, viewer) == viewer
    assert tables.effective_viewer(started, viewer) == viewer


@pytest.mark.parametrize("viewer", VIEWERS, ids=repr)
def test_everybody_is_the_operator_once_the_game_is_finished(
    viewer: Viewer, finished: tuple[tables.Table, list[Any]]
) -> None:
    table, events = finished
    effective = tables.effective_viewer(table, viewer)
    assert effective == Operator()
    assert tables.visible(events[0], effective, RULES) == events[0]
