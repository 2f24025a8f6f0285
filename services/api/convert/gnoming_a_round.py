"""Gnoming A Round values <-> ``tabletop.v1`` Gnoming A Round messages.

Positions and piles travel as plain integers; ``decide`` refuses values out of
range with its own reasons. A discard pile of 0 means "no pile" (a hazard).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tabletop.v1 import game_pb2
from tabletop.v1 import gnoming_a_round_pb2 as pb

from domain.games.gnoming_a_round import (
    Bounce,
    BounceStopped,
    Card,
    CardBounced,
    CardDiscarded,
    CardDrawn,
    CardKept,
    CardRejected,
    Command,
    Discard,
    DiscardPileRefilled,
    DiscardTaken,
    DrawFromPile,
    DrawPileReshuffled,
    FlipInitial,
    GameEnded,
    GnomingARoundConfig,
    GnomingARoundView,
    HazardDecline,
    HazardDeclined,
    HazardFlip,
    HazardFlipped,
    HazardRemoved,
    HazardTurnedUp,
    InitialCardsFlipped,
    Keep,
    Kind,
    Phase,
    Reject,
    RoundDealt,
    RoundEndTriggered,
    RoundScored,
    StopBounce,
    TakeFromDiscard,
    TurnStarted,
)
from domain.games.gnoming_a_round.views import GnomingARoundPublic
from services.api.convert.base import GameConverter, Names, Option, enum_map
from services.api.errors import FieldViolation

_KINDS: Mapping[Kind, pb.GnomingARoundCardKind] = enum_map(
    pb.GnomingARoundCardKind, "GNOMING_A_ROUND_CARD_KIND_", Kind
)
_PHASES: Mapping[Phase, pb.GnomingARoundPhase] = enum_map(
    pb.GnomingARoundPhase, "GNOMING_A_ROUND_PHASE_", Phase
)
_COMMANDS = (
    "flip_initial, draw_from_pile, take_from_discard, keep, reject, bounce, "
    "stop_bounce, discard, hazard_flip, hazard_decline"
)


def card_to_proto(card: Card) -> pb.GnomingARoundCard:
    """Returns a card message."""
    return pb.GnomingARoundCard(
        kind=_KINDS[card.kind],
        value=card.value,
        copy=card.copy,
        id=card.id,
    )


def _cards(cards: Iterable[Card]) -> list[pb.GnomingARoundCard]:
    return [card_to_proto(card) for card in cards]


def _card_lists(lists: Iterable[Iterable[Card]]) -> list[pb.GnomingARoundCards]:
    return [pb.GnomingARoundCards(cards=_cards(cards)) for cards in lists]


def move_from_proto(
    move: pb.GnomingARoundMove, seat: int, path: str
) -> Command | list[FieldViolation]:
    """Returns the command a Gnoming A Round move asks for, or what is wrong."""
    action = move.WhichOneof("action")
    match action:
        case "flip_initial":
            return FlipInitial(seat, tuple(move.flip_initial.positions))
        case "draw_from_pile":
            return DrawFromPile(seat)
        case "take_from_discard":
            return TakeFromDiscard(seat, move.take_from_discard.pile)
        case "keep":
            return Keep(seat, move.keep.position)
        case "reject":
            return Reject(seat)
        case "bounce":
            return Bounce(seat, move.bounce.position)
        case "stop_bounce":
            return StopBounce(seat)
        case "discard":
            return Discard(seat, move.discard.pile or None)
        case "hazard_flip":
            return HazardFlip(seat, move.hazard_flip.position)
        case "hazard_decline":
            return HazardDecline(seat)
    return [FieldViolation(f"{path}.action", f"set one of {_COMMANDS}")]


def move_to_proto(command: Command) -> pb.GnomingARoundMove:
    """Returns the move message of a command (for ListLegalMoves)."""
    match command:
        case FlipInitial():
            positions = list(command.positions)
            return pb.GnomingARoundMove(
                flip_initial=pb.GnomingARoundFlipInitial(positions=positions)
            )
        case DrawFromPile():
            return pb.GnomingARoundMove(draw_from_pile=pb.GnomingARoundDrawFromPile())
        case TakeFromDiscard():
            return pb.GnomingARoundMove(
                take_from_discard=pb.GnomingARoundTakeFromDiscard(pile=command.pile)
            )
        case Keep():
            return pb.GnomingARoundMove(
                keep=pb.GnomingARoundKeep(position=command.position)
            )
        case Reject():
            return pb.GnomingARoundMove(reject=pb.GnomingARoundReject())
        case Bounce():
            return pb.GnomingARoundMove(
                bounce=pb.GnomingARoundBounce(position=command.position)
            )
        case StopBounce():
            return pb.GnomingARoundMove(stop_bounce=pb.GnomingARoundStopBounce())
        case Discard():
            return pb.GnomingARoundMove(
                discard=pb.GnomingARoundDiscard(pile=command.pile or 0)
            )
        case HazardFlip():
            return pb.GnomingARoundMove(
                hazard_flip=pb.GnomingARoundHazardFlip(position=command.position)
            )
        case HazardDecline():
            return pb.GnomingARoundMove(hazard_decline=pb.GnomingARoundHazardDecline())


def _layout_to_proto(layout: Iterable[Card | None]) -> pb.GnomingARoundLayout:
    positions = [
        pb.GnomingARoundLayoutPosition(face_down=True)
        if card is None
        else pb.GnomingARoundLayoutPosition(card=card_to_proto(card))
        for card in layout
    ]
    down = sum(1 for p in positions if p.face_down)
    return pb.GnomingARoundLayout(positions=positions, face_down_count=down)


def _public_to_proto(
    public: GnomingARoundPublic, names: Names
) -> pb.GnomingARoundPublicState:
    during_turn = public.phase not in (Phase.SETUP, Phase.INITIAL_FLIP, Phase.GAME_OVER)
    message = pb.GnomingARoundPublicState(
        round=public.round,
        phase=_PHASES[public.phase],
        starting_player=names(public.starting_seat),
        active_player=names(public.active_seat) if during_turn else "",
        players_to_act=[names(s) for s in public.to_move],
        layouts=[_layout_to_proto(layout) for layout in public.layouts],
        discard_piles=[
            pb.GnomingARoundDiscardPile(
                top=None if top is None else card_to_proto(top), size=size
            )
            for top, size in zip(public.discard_tops, public.discard_sizes, strict=True)
        ],
        draw_pile_size=public.draw_pile_size,
        removed_hazards=_cards(public.removed),
        holding=public.holding,
        filled_positions=list(public.filled),
        flipped_players=[names(s) for s in public.flipped],
        hazard_responders=[names(s) for s in public.asked],
        hazard_answered=[names(s) for s in public.answered],
        round_end_trigger=(
            "" if public.round_end_trigger is None else names(public.round_end_trigger)
        ),
        round_results=[
            pb.GnomingARoundRoundResult(round=number, scores=list(scores))
            for number, scores in enumerate(public.round_scores, start=1)
        ],
        totals=list(public.totals),
    )
    if public.held_card is not None:
        message.held_card.CopyFrom(card_to_proto(public.held_card))
    return message


def view_to_proto(view: GnomingARoundView, names: Names) -> pb.GnomingARoundView:
    """Returns the caller's view message."""
    message = pb.GnomingARoundView(public_state=_public_to_proto(view.public, names))
    if view.private is not None:
        private = pb.GnomingARoundPrivateState()
        if view.private.drawn_card is not None:
            private.drawn_card.CopyFrom(card_to_proto(view.private.drawn_card))
        message.private_state.CopyFrom(private)
    if view.revealed is not None:
        revealed = pb.GnomingARoundRevealedState(
            layouts=_card_lists(view.revealed.layouts),
            draw_pile=_cards(view.revealed.draw_pile),
        )
        if view.revealed.held_card is not None:
            revealed.held_card.CopyFrom(card_to_proto(view.revealed.held_card))
        message.revealed_state.CopyFrom(revealed)
    return message


def _optional_card(card: Card | None) -> pb.GnomingARoundCard | None:
    return None if card is None else card_to_proto(card)


def _scored_to_proto(event: RoundScored, names: Names) -> pb.GnomingARoundRoundScored:
    results = []
    for seat, cards in enumerate(event.layouts):
        result = pb.GnomingARoundLayoutScore(
            cards=_cards(cards),
            base_score=event.base_scores[seat],
            score=event.scores[seat],
            total=event.totals[seat],
        )
        wild = event.wild[seat]
        if wild is not None:
            result.wild_position = wild
        results.append(result)
    return pb.GnomingARoundRoundScored(
        round=event.round,
        results=results,
        first_out_player=names(event.first_out),
        adjustment=event.adjustment,
    )


def event_to_proto(event: Any, names: Names) -> pb.GnomingARoundEvent:
    """Returns a (redacted) Gnoming A Round event message."""
    for convert in (_table_event, _draw_event, _discard_event):
        message = convert(event, names)
        if message is not None:
            return message
    msg = f"not a Gnoming A Round event: {event!r}"
    raise TypeError(msg)


def _table_event(event: Any, names: Names) -> pb.GnomingARoundEvent | None:
    """Returns the message of a deal, round or turn-order event, or None."""
    match event:
        case RoundDealt():
            return pb.GnomingARoundEvent(
                round_dealt=pb.GnomingARoundRoundDealt(
                    round=event.round,
                    starting_player=names(event.starting_seat),
                    layouts=_card_lists(event.layouts),
                    discards=_cards(event.discards),
                    removed_hazards=_cards(event.removed),
                    draw_pile=_cards(event.draw_pile),
                    draw_pile_size=event.draw_pile_size,
                )
            )
        case InitialCardsFlipped():
            return pb.GnomingARoundEvent(
                initial_cards_flipped=pb.GnomingARoundInitialCardsFlipped(
                    player=names(event.seat),
                    positions=list(event.positions),
                    cards=_cards(event.cards),
                )
            )
        case TurnStarted():
            return pb.GnomingARoundEvent(
                turn_started=pb.GnomingARoundTurnStarted(player=names(event.seat))
            )
        case DrawPileReshuffled():
            return pb.GnomingARoundEvent(
                draw_pile_reshuffled=pb.GnomingARoundDrawPileReshuffled(
                    number=event.number,
                    draw_pile=_cards(event.draw_pile),
                    draw_pile_size=event.draw_pile_size,
                )
            )
        case HazardTurnedUp():
            return pb.GnomingARoundEvent(
                hazard_turned_up=pb.GnomingARoundHazardTurnedUp(
                    card=card_to_proto(event.card)
                )
            )
        case DiscardPileRefilled():
            return pb.GnomingARoundEvent(
                discard_pile_refilled=pb.GnomingARoundDiscardPileRefilled(
                    pile=event.pile, card=card_to_proto(event.card)
                )
            )
        case RoundEndTriggered():
            return pb.GnomingARoundEvent(
                round_end_triggered=pb.GnomingARoundRoundEndTriggered(
                    player=names(event.seat)
                )
            )
        case RoundScored():
            return pb.GnomingARoundEvent(round_scored=_scored_to_proto(event, names))
        case GameEnded():
            return pb.GnomingARoundEvent(
                game_ended=pb.GnomingARoundGameEnded(
                    totals=list(event.totals),
                    winners=[names(s) for s in event.winners],
                )
            )
    return None


def _draw_event(event: Any, names: Names) -> pb.GnomingARoundEvent | None:
    """Returns the message of a DRAW, DECIDE or bounce event, or None."""
    match event:
        case CardDrawn():
            return pb.GnomingARoundEvent(
                card_drawn=pb.GnomingARoundCardDrawn(
                    player=names(event.seat), card=_optional_card(event.card)
                )
            )
        case DiscardTaken():
            return pb.GnomingARoundEvent(
                discard_taken=pb.GnomingARoundDiscardTaken(
                    player=names(event.seat),
                    pile=event.pile,
                    card=card_to_proto(event.card),
                )
            )
        case CardKept():
            return pb.GnomingARoundEvent(
                card_kept=pb.GnomingARoundCardKept(
                    player=names(event.seat),
                    position=event.position,
                    card=card_to_proto(event.card),
                    from_draw_pile=event.from_draw_pile,
                    displaced=card_to_proto(event.displaced),
                    displaced_face_down=event.displaced_face_down,
                    bounce_eligible=event.bounce_eligible,
                )
            )
        case CardRejected():
            return pb.GnomingARoundEvent(
                card_rejected=pb.GnomingARoundCardRejected(
                    player=names(event.seat), card=_optional_card(event.card)
                )
            )
        case CardBounced():
            return pb.GnomingARoundEvent(
                card_bounced=pb.GnomingARoundCardBounced(
                    player=names(event.seat),
                    position=event.position,
                    card=card_to_proto(event.card),
                    displaced=card_to_proto(event.displaced),
                    displaced_face_down=event.displaced_face_down,
                    bounce_eligible=event.bounce_eligible,
                )
            )
    return None


def _discard_event(event: Any, names: Names) -> pb.GnomingARoundEvent | None:
    """Returns the message of a DISCARD or hazard event, or None."""
    match event:
        case BounceStopped():
            return pb.GnomingARoundEvent(
                bounce_stopped=pb.GnomingARoundBounceStopped(
                    player=names(event.seat), card=card_to_proto(event.card)
                )
            )
        case CardDiscarded():
            return pb.GnomingARoundEvent(
                card_discarded=pb.GnomingARoundCardDiscarded(
                    player=names(event.seat),
                    pile=event.pile,
                    card=card_to_proto(event.card),
                    from_draw_pile=event.from_draw_pile,
                )
            )
        case HazardRemoved():
            return pb.GnomingARoundEvent(
                hazard_removed=pb.GnomingARoundHazardRemoved(
                    player=names(event.seat),
                    card=card_to_proto(event.card),
                    from_draw_pile=event.from_draw_pile,
                    responders=[names(s) for s in event.responders],
                )
            )
        case HazardFlipped():
            return pb.GnomingARoundEvent(
                hazard_flipped=pb.GnomingARoundHazardFlipped(
                    player=names(event.seat),
                    position=event.position,
                    card=card_to_proto(event.card),
                )
            )
        case HazardDeclined():
            return pb.GnomingARoundEvent(
                hazard_declined=pb.GnomingARoundHazardDeclined(player=names(event.seat))
            )
    return None


def config_from_proto(message: pb.GnomingARoundConfig) -> GnomingARoundConfig:
    """Returns the table options; ``check_config`` refuses a seat out of range."""
    return GnomingARoundConfig(first_player=message.first_player)


def config_to_proto(config: GnomingARoundConfig) -> pb.GnomingARoundConfig:
    """Returns the table options message."""
    return pb.GnomingARoundConfig(first_player=config.first_player)


CONVERTER = GameConverter(
    game_type="gnoming_a_round",
    proto_type=game_pb2.GAME_TYPE_GNOMING_A_ROUND,
    config_field="gnoming_a_round_config",
    move_field="gnoming_a_round",
    view_field="gnoming_a_round_view",
    event_field="gnoming_a_round",
    config_from_proto=config_from_proto,
    config_to_proto=config_to_proto,
    move_from_proto=move_from_proto,
    move_to_proto=move_to_proto,
    view_to_proto=view_to_proto,
    event_to_proto=event_to_proto,
    display_name="Gnoming A Round",
    options=(
        Option(
            "first_player",
            "The seat that starts round 1; later rounds start one seat to the left.",
            "0",
        ),
    ),
    self_undo=(
        "A move that drew, revealed, refilled, scored and ended nothing: taking"
        " a discard, rejecting a drawn card, stopping a bounce, declining a "
        "hazard, placing or discarding a card everyone has seen. Every other "
        "move needs the others' consent."
    ),
)
