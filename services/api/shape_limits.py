"""How many values each repeated field, and how long each string, a request may hold.

Every limit follows from the rules or from what the server itself writes: the
longest valid value, or the most values a valid request or a view can hold.
A request past one is refused by shape before any costly work
(services/api/shapes.py); anything within them is still checked in full by
the conversion and the rules.

Keys are ``<Message>.<field>`` in package ``tabletop.v1``; the value is the
most values of a repeated field, or the most characters of a string (bytes of
a ``bytes`` field). ``<Message>.<field>[]`` is the most characters of each
value of a repeated string. ``Game``'s output-only fields (its view among
them) are never read from a request, but a client may send back a ``Game`` the
server returned (AIP-203), so they are allowed what the server writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from domain.common.rng import SEED_BYTES
from domain.common.table import MAX_DISPLAY_NAME
from domain.games.fool import model as fool
from domain.games.fool.setup import CARDS_IN_PLAY, LOWEST_COLOURED
from domain.games.gnoming_a_round import cards as gnoming_cards
from domain.games.gnoming_a_round import model as gnoming
from domain.games.hues_and_cues import cards as cue_cards
from domain.games.hues_and_cues import model as hues
from domain.games.hues_and_cues.cues import MAX_CUE_LENGTH, SECOND_CUE
from domain.games.qwirkle import model as qwirkle
from domain.games.registry import GAMES
from domain.games.split import model as split
from domain.games.split.cards import Rank, Suit
from domain.games.split.setup import DECK as SPLIT_DECK
from services.api.requests import MAX_FILTER, MAX_PAGE_TOKEN, MAX_REQUEST_ID
from services.players import (
    MAX_DEVICE_ID,
    MAX_ID_TOKEN,
    MAX_IDENTITIES,
    REFRESH_TOKEN_LENGTH,
)
from services.tokens import MAX_INVITE_CODE

_UUID = 36  # characters of a UUID's one spelling (AIP-122)
GAME_NAME = len("games/") + _UUID
# The revision is an int64 of at most 19 digits (services/api/requests.py).
REVISION_NAME = GAME_NAME + len("/revisions/") + 19
SEATS = max(rules.max_players for rules in GAMES.values())
PLAYER_NAME = GAME_NAME + len("/players/") + len(str(SEATS - 1))
# The table trims a display name, and a cue is normalised (NFKC, spaces
# collapsed), before its length is counted; the raw text may carry that much
# more, so it is allowed four times the counted length.
_ROOM = 4
DISPLAY_NAME = _ROOM * MAX_DISPLAY_NAME
CUE = _ROOM * MAX_CUE_LENGTH
ETAG = len('W/""') + 19  # W/"<revision>"
HEX_DIGEST = 64  # a seed commitment, a revealed seed or a record digest, in hex

QWIRKLE_TILES = len(qwirkle.Color) * len(qwirkle.Shape) * qwirkle.COPIES
SPLIT_CARD_ID = len("10H-L")
GNOMING_CARD_ID = len("P07-3")
CUE_CARD_ID = len("C001")
SQUARE_ID = len("h 15")  # input may be lower case and hold one space
# Each guesser places one piece per guessing phase, two a round.
HUES_PIECES = 2 * (hues.MAX_PLAYERS - 1)
_FOOL_HIGHEST, _FOOL_WILDS = CARDS_IN_PLAY[fool.MAX_PLAYERS]
FOOL_DECK = sum(v - LOWEST_COLOURED + 1 for v in _FOOL_HIGHEST) + _FOOL_WILDS

PLAYER_ACCOUNT_NAME = len("players/") + _UUID
# An OpenID issuer is a URL, a subject at most 255 characters (OIDC Core §2).
ISSUER = SUBJECT = 255

LIMITS: Mapping[str, int] = MappingProxyType(
    {
        # AuthService: credentials, names, and an account sent back (AIP-134).
        "SignInWithDeviceRequest.device_id": MAX_DEVICE_ID,
        "SignInWithDeviceRequest.display_name": DISPLAY_NAME,
        "SignInWithIdTokenRequest.id_token": MAX_ID_TOKEN,
        "SignInWithIdTokenRequest.display_name": DISPLAY_NAME,
        "RefreshSessionRequest.refresh_token": REFRESH_TOKEN_LENGTH,
        "SignOutRequest.refresh_token": REFRESH_TOKEN_LENGTH,
        "GetPlayerRequest.name": PLAYER_ACCOUNT_NAME,
        "DeletePlayerRequest.name": PLAYER_ACCOUNT_NAME,
        "PlayerAccount.name": PLAYER_ACCOUNT_NAME,
        "PlayerAccount.display_name": DISPLAY_NAME,
        "PlayerAccount.identities": MAX_IDENTITIES,
        "LinkedIdentity.issuer": ISSUER,
        "LinkedIdentity.subject": SUBJECT,
        "google.protobuf.FieldMask.paths": 4,
        "google.protobuf.FieldMask.paths[]": 64,
        # Requests' own fields: names, ids, tokens, filters, the creator's seed.
        "CreateGameRequest.request_id": MAX_REQUEST_ID,
        "CreateGameRequest.display_name": DISPLAY_NAME,
        "CreateGameRequest.seed": SEED_BYTES,
        "GetGameRequest.name": GAME_NAME,
        "ListGamesRequest.page_token": MAX_PAGE_TOKEN,
        "ListGamesRequest.filter": MAX_FILTER,
        "ListMyGamesRequest.page_token": MAX_PAGE_TOKEN,
        "JoinGameRequest.name": GAME_NAME,
        "JoinGameRequest.display_name": DISPLAY_NAME,
        "JoinGameRequest.request_id": MAX_REQUEST_ID,
        "JoinGameRequest.invite_code": MAX_INVITE_CODE,
        "LeaveGameRequest.name": GAME_NAME,
        "LeaveGameRequest.request_id": MAX_REQUEST_ID,
        "RemovePlayerRequest.name": PLAYER_NAME,
        "RemovePlayerRequest.request_id": MAX_REQUEST_ID,
        "RotateInviteCodeRequest.name": GAME_NAME,
        "RotateInviteCodeRequest.request_id": MAX_REQUEST_ID,
        "ResignGameRequest.name": GAME_NAME,
        "ResignGameRequest.request_id": MAX_REQUEST_ID,
        "StartGameRequest.name": GAME_NAME,
        "StartGameRequest.request_id": MAX_REQUEST_ID,
        "SubmitMoveRequest.name": GAME_NAME,
        "SubmitMoveRequest.request_id": MAX_REQUEST_ID,
        "ListLegalMovesRequest.name": GAME_NAME,
        "ListLegalMovesRequest.page_token": MAX_PAGE_TOKEN,
        "SuggestMoveRequest.name": GAME_NAME,
        "UndoMoveRequest.name": GAME_NAME,
        "UndoMoveRequest.request_id": MAX_REQUEST_ID,
        "ProposeUndoRequest.name": GAME_NAME,
        "ProposeUndoRequest.request_id": MAX_REQUEST_ID,
        "RespondUndoRequest.name": GAME_NAME,
        "RespondUndoRequest.request_id": MAX_REQUEST_ID,
        "StreamGameRequest.name": GAME_NAME,
        "GetGameRevisionRequest.name": REVISION_NAME,
        "ListGameEventsRequest.parent": GAME_NAME,
        "ListGameEventsRequest.page_token": MAX_PAGE_TOKEN,
        "ExportGameRequest.name": GAME_NAME,
        # What a move may carry: one turn's worth of the rules. Qwirkle §3,
        # §4.2: a turn places 1 to 6 tiles, or exchanges tiles of a hand of 6.
        "QwirklePlaceTiles.placements": qwirkle.RACK_SIZE,
        "QwirkleExchangeTiles.tiles": qwirkle.RACK_SIZE,
        "HuesAndCuesGiveFirstCue.cue": CUE,
        "HuesAndCuesGiveSecondCue.cue": CUE,
        "HuesAndCuesSquare.id": SQUARE_ID,
        "SplitCard.id": SPLIT_CARD_ID,
        # Gnoming A Round §2 step 4: two cards are turned face up.
        "GnomingARoundFlipInitial.positions": gnoming.INITIAL_FLIPS,
        # Game's output-only fields: what the server writes, per seat.
        "Game.name": GAME_NAME,
        "Game.players": SEATS,
        "Player.name": PLAYER_NAME,
        "Player.display_name": DISPLAY_NAME,
        "Game.current_player": PLAYER_NAME,
        "Game.players_to_act": SEATS,
        "Game.players_to_act[]": PLAYER_NAME,
        "Game.etag": ETAG,
        "UndoProposal.proposer": PLAYER_NAME,
        "UndoProposal.accepted_by": SEATS,
        "UndoProposal.accepted_by[]": PLAYER_NAME,
        "Game.seed_commitment": HEX_DIGEST,
        "Game.seed": HEX_DIGEST,
        "Game.record_digest": HEX_DIGEST,
        "Game.winners": SEATS,
        "Game.winners[]": PLAYER_NAME,
        "Game.host": PLAYER_NAME,
        "Game.caller": PLAYER_NAME,
        # The games' views (output only), per seat and per deck.
        "QwirklePublicState.board": QWIRKLE_TILES,
        "QwirklePublicState.rack_sizes": qwirkle.MAX_PLAYERS,
        "QwirklePublicState.starting_numbers": qwirkle.MAX_PLAYERS,
        "QwirklePublicState.revealed_racks": qwirkle.MAX_PLAYERS,
        "QwirkleRack.tiles": qwirkle.RACK_SIZE,
        "QwirklePrivateState.rack": qwirkle.RACK_SIZE,
        "HuesAndCuesView.cue_giver": PLAYER_NAME,
        "HuesAndCuesView.cues": SECOND_CUE,
        "HuesAndCuesView.cues[]": CUE,
        "HuesAndCuesView.pieces": HUES_PIECES,
        "HuesAndCuesPiece.player": PLAYER_NAME,
        "HuesAndCuesRoundScore.cue_giver": PLAYER_NAME,
        "HuesAndCuesRoundScore.points": hues.MAX_PLAYERS,
        "HuesAndCuesPlayerPoints.player": PLAYER_NAME,
        "HuesAndCuesRoundScore.pieces": HUES_PIECES,
        "HuesAndCuesCard.id": CUE_CARD_ID,
        "HuesAndCuesCard.squares": cue_cards.SQUARES_PER_CARD,
        "SplitPublicState.dealer": PLAYER_NAME,
        "SplitPublicState.current_player": PLAYER_NAME,
        "SplitPublicState.discard_row": len(SPLIT_DECK),
        "SplitPublicState.matches": len(SPLIT_DECK) // 2,
        "SplitMatch.owner": PLAYER_NAME,
        "SplitMatch.rank": len("10"),
        # A match is of one rank: one half of each suit on a side at most.
        "SplitMatch.left_stack": len(Suit),
        "SplitMatch.right_stack": len(Suit),
        "SplitPublicState.hand_sizes": split.MAX_PLAYERS,
        "SplitPublicState.late_melders": split.MAX_PLAYERS,
        "SplitPublicState.late_melders[]": PLAYER_NAME,
        "SplitPublicState.score_sheets": split.MAX_PLAYERS,
        "SplitScoreSheet.rows": len(Rank),
        "SplitPublicState.revealed_hands": split.MAX_PLAYERS,
        "SplitHand.cards": len(SPLIT_DECK),
        "SplitPublicState.winners": split.MAX_PLAYERS,
        "SplitPublicState.winners[]": PLAYER_NAME,
        "SplitPrivateState.hand": len(SPLIT_DECK),
        "GnomingARoundPublicState.starting_player": PLAYER_NAME,
        "GnomingARoundPublicState.active_player": PLAYER_NAME,
        "GnomingARoundPublicState.players_to_act": gnoming.MAX_PLAYERS,
        "GnomingARoundPublicState.players_to_act[]": PLAYER_NAME,
        "GnomingARoundPublicState.layouts": gnoming.MAX_PLAYERS,
        "GnomingARoundLayout.positions": gnoming.POSITIONS,
        "GnomingARoundCard.id": GNOMING_CARD_ID,
        "GnomingARoundPublicState.discard_piles": len(gnoming.PILES),
        "GnomingARoundPublicState.removed_hazards": gnoming_cards.HAZARD_COPIES,
        "GnomingARoundPublicState.filled_positions": gnoming.POSITIONS,
        "GnomingARoundPublicState.flipped_players": gnoming.MAX_PLAYERS,
        "GnomingARoundPublicState.flipped_players[]": PLAYER_NAME,
        "GnomingARoundPublicState.hazard_responders": gnoming.MAX_PLAYERS,
        "GnomingARoundPublicState.hazard_responders[]": PLAYER_NAME,
        "GnomingARoundPublicState.hazard_answered": gnoming.MAX_PLAYERS,
        "GnomingARoundPublicState.hazard_answered[]": PLAYER_NAME,
        "GnomingARoundPublicState.round_end_trigger": PLAYER_NAME,
        "GnomingARoundPublicState.round_results": gnoming.ROUNDS,
        "GnomingARoundRoundResult.scores": gnoming.MAX_PLAYERS,
        "GnomingARoundPublicState.totals": gnoming.MAX_PLAYERS,
        "GnomingARoundRevealedState.layouts": gnoming.MAX_PLAYERS,
        "GnomingARoundCards.cards": gnoming_cards.DECK_SIZE,
        "GnomingARoundRevealedState.draw_pile": gnoming_cards.DECK_SIZE,
        "FoolPublicState.dealer": PLAYER_NAME,
        "FoolPublicState.leader": PLAYER_NAME,
        "FoolPublicState.participants": fool.MAX_PLAYERS,
        "FoolPublicState.participants[]": PLAYER_NAME,
        "FoolPublicState.trick": fool.MAX_PLAYERS,
        "FoolTrickCard.player": PLAYER_NAME,
        "FoolPublicState.fools": fool.MAX_PLAYERS,
        "FoolPublicState.fools[]": PLAYER_NAME,
        "FoolPublicState.hand_sizes": fool.MAX_PLAYERS,
        "FoolPublicState.cards_in_play": FOOL_DECK,
        "FoolPublicState.played": FOOL_DECK,
        "FoolPublicState.scores": fool.MAX_PLAYERS,
        "FoolPublicState.ten_counts": fool.MAX_PLAYERS,
        "FoolPublicState.revealed_hands": fool.MAX_PLAYERS,
        "FoolHand.cards": FOOL_DECK,
        "FoolPublicState.end_reasons": len(fool.EndReason),
        "FoolPrivateState.hand": FOOL_DECK,
    }
)
