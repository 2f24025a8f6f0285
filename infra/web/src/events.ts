// The log's lines for the events every game shares (seats, start, end,
// takebacks, turn timer); each board describes its own game's events.
import { timestampDate } from "@bufbuild/protobuf/wkt";

import type { Board, BoardContext } from "./boards/board";
import { ClosedReason, Visibility } from "./gen/tabletop/v1/game_pb";
import { UndoOutcome, type GameEvent } from "./gen/tabletop/v1/event_pb";

/** The event cases a game's board describes; every other case is described here. */
const GAME_CASES: ReadonlySet<string> = new Set(["qwirkle", "huesAndCues", "split", "gnomingARound", "fool"]);

/** Returns the name a player resource name is shown under. */
export function nameOf(player: string, context: BoardContext): string {
  if (player === "") return "nobody";
  const name = context.names.get(player) ?? `seat ${player.split("/").pop() ?? "?"}`;
  return player === context.me ? `${name} (you)` : name;
}

function names(players: readonly string[], context: BoardContext): string {
  return players.map((player) => nameOf(player, context)).join(", ") || "nobody";
}

/** Returns one line in words for any event of a game's log. */
export function describeEvent(event: GameEvent, board: Board, context: BoardContext): string {
  const kind = event.event.case;
  if (kind !== undefined && GAME_CASES.has(kind)) {
    return board.describe(event, context) || kind;
  }
  return describeTableEvent(event, context) ?? kind ?? "(an event this page does not know)";
}

function describeTableEvent(event: GameEvent, context: BoardContext): string | undefined {
  const fact = event.event;
  switch (fact.case) {
    case "gameCreated": {
      const privately = fact.value.visibility === Visibility.PRIVATE ? "private " : "";
      return `A ${privately}table for ${fact.value.maxPlayers} opened`;
    }
    case "playerJoined":
      return `${fact.value.displayName} joined`;
    case "gameStarted":
      return `The game started; order of play: ${names(fact.value.turnOrder, context)}`;
    case "movePlayed":
      return `Move ${event.moveNumber}: ${nameOf(fact.value.player, context)}`;
    case "gameFinished": {
      const how = fact.value.abandoned ? "The game was abandoned (no seat left playing)" : "The game finished";
      const resigned = fact.value.resigned.length > 0 ? ` (${names(fact.value.resigned, context)} resigned)` : "";
      return `${how}; won by ${names(fact.value.winners, context)}${resigned}`;
    }
    case "turnTimerStarted": {
      const deadline = fact.value.deadline;
      return deadline ? `Turn timer: act by ${timestampDate(deadline).toLocaleTimeString()}` : "Turn timer started";
    }
    case "turnTimedOut":
      return `${nameOf(fact.value.player, context)} ran out of time; the server's bot plays the turn`;
    case "inviteCodeSet":
      return "The table's invite code was set";
    case "playerLeft":
      return `${fact.value.displayName} ${fact.value.removed ? "was removed by the host" : "left the table"}`;
    case "tableClosed":
      return closedText(fact.value.reason);
    case "playerResigned":
      return `${nameOf(fact.value.player, context)} resigned; the server's bot plays their seat`;
    case "resignedSeatPlayed":
      return `The bot played for ${nameOf(fact.value.player, context)} (resigned)`;
    default:
      return describeUndoEvent(event, context);
  }
}

function describeUndoEvent(event: GameEvent, context: BoardContext): string | undefined {
  const fact = event.event;
  switch (fact.case) {
    case "undoProposed":
      return `${nameOf(fact.value.proposer, context)} asked to take back their last move`;
    case "undoAccepted":
      return `${nameOf(fact.value.player, context)} agreed to the takeback`;
    case "undoResolved":
      return resolvedText(fact.value.outcome, nameOf(fact.value.player, context));
    case "movesUndone": {
      const count = fact.value.moves === 1 ? "1 move" : `${fact.value.moves} moves`;
      const alone = fact.value.proposalId === 0n ? " alone" : "";
      return `${nameOf(fact.value.player, context)} took back ${count}${alone} (back to revision ${fact.value.targetRevision})`;
    }
    default:
      return undefined;
  }
}

function resolvedText(outcome: UndoOutcome, who: string): string {
  switch (outcome) {
    case UndoOutcome.ACCEPTED:
      return `Takeback accepted by ${who}`;
    case UndoOutcome.REJECTED:
      return `Takeback declined by ${who}`;
    case UndoOutcome.EXPIRED:
      return "The takeback proposal expired";
    case UndoOutcome.WITHDRAWN:
      return "The takeback proposal was withdrawn";
    default:
      return "The takeback proposal closed";
  }
}

/** Returns why a table closed, in words. */
export function closedText(reason: ClosedReason): string {
  switch (reason) {
    case ClosedReason.EXPIRED:
      return "The table closed: nobody started it in time";
    case ClosedReason.EMPTY:
      return "The table closed: its last player left";
    default:
      return "The table closed";
  }
}
