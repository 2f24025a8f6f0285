// The parts of a game's page drawn from a Game: its title line, the scores,
// the log of events and the list of legal moves.
import { timestampDate } from "@bufbuild/protobuf/wkt";

import type { Board, BoardContext } from "./boards/board";
import { html, replaceChildren } from "./dom";
import { describeEvent, nameOf } from "./events";
import type { GameEvent } from "./gen/tabletop/v1/event_pb";
import { GameState, Visibility, type Game } from "./gen/tabletop/v1/game_pb";
import type { Move } from "./gen/tabletop/v1/move_pb";
import { toJsonString } from "@bufbuild/protobuf";
import { MoveSchema } from "./gen/tabletop/v1/move_pb";

/** The most move buttons drawn at once; the filter finds the others. */
const MOVE_BUTTONS = 400;

/** Returns a game state in words. */
export function stateText(state: GameState): string {
  switch (state) {
    case GameState.WAITING_FOR_PLAYERS:
      return "waiting for players";
    case GameState.IN_PROGRESS:
      return "in progress";
    case GameState.FINISHED:
      return "finished";
    case GameState.CLOSED:
      return "closed";
    default:
      return "unknown";
  }
}

/** Returns a short name for the `data-state` attributes: waiting, in-progress, finished, closed. */
export function stateKey(state: GameState): string {
  return stateText(state).replace(" for players", "").replaceAll(" ", "-");
}

/** Returns the players the game waits for: `players_to_act` (several in a
 * simultaneous phase), or `current_player` from a server that predates it. */
export function playersToAct(game: Game): string[] {
  if (game.state !== GameState.IN_PROGRESS) return [];
  if (game.playersToAct.length > 0) return game.playersToAct;
  return game.currentPlayer === "" ? [] : [game.currentPlayer];
}

/** Returns the line under the title: state, revision, whose turn, seats, visibility. */
export function summaryText(game: Game, context: BoardContext): string {
  const parts = [stateText(game.state), `revision ${game.revision}`, `move ${game.moveCount}`];
  const acting = playersToAct(game);
  if (acting.includes(context.me)) parts.push("your turn");
  else if (acting.length > 0) parts.push(`${acting.map((p) => nameOf(p, context)).join(", ")} to play`);
  if (game.state === GameState.WAITING_FOR_PLAYERS) parts.push(`${game.players.length} of ${game.maxPlayers} seats taken`);
  if (game.turnDeadline !== undefined && game.state === GameState.IN_PROGRESS) {
    parts.push(`turn ends ${timestampDate(game.turnDeadline).toLocaleTimeString()}`);
  }
  if (game.visibility === Visibility.PRIVATE) parts.push("private table");
  if (game.abandoned) parts.push("abandoned");
  return parts.join(" · ");
}

/** Draws the players with their scores into #scores: one `li[data-player][data-score]` each. */
export function renderScores(list: HTMLElement, game: Game, context: BoardContext): void {
  replaceChildren(
    list,
    ...game.players.map((player) => {
      const winner = game.winners.includes(player.name);
      const toAct = playersToAct(game).includes(player.name);
      const marks = [
        player.name === context.me ? "you" : "",
        winner ? "★ winner" : "",
        player.resigned ? "resigned; the bot plays" : "",
        player.name === game.host && game.state === GameState.WAITING_FOR_PLAYERS ? "host" : "",
      ].filter(Boolean);
      return html(
        "li",
        {
          "data-player": player.name,
          "data-score": player.score,
          "data-to-act": toAct,
          "data-me": player.name === context.me,
          "data-winner": winner,
          class: toAct ? "to-act" : undefined,
        },
        html("span", { class: "turn-mark", "aria-hidden": "true" }, toAct ? "▶" : ""),
        html("span", { class: "player-name" }, player.displayName || `seat ${player.seat}`),
        marks.length > 0 ? html("span", { class: "marks" }, ` (${marks.join(", ")})`) : null,
        html("span", { class: "score" }, String(player.score)),
      );
    }),
  );
}

/** Returns the event's kind for `data-kind`: "movePlayed", "qwirkle.tilesPlaced", ... */
function kindOf(event: GameEvent): string {
  const fact = event.event;
  const inner = (fact.value as { event?: { case?: string } } | undefined)?.event?.case;
  return inner === undefined ? (fact.case ?? "unknown") : `${fact.case}.${inner}`;
}

/** Returns the log's line for an event: `li[data-revision][data-kind]`. */
export function logEntry(event: GameEvent, board: Board, context: BoardContext): HTMLLIElement {
  const kind = kindOf(event);
  return html(
    "li",
    { "data-revision": String(event.revision), "data-kind": kind, class: kind === "movePlayed" ? "move" : undefined },
    html("span", { class: "revision" }, String(event.revision)),
    " ",
    describeEvent(event, board, context),
  );
}

const UNDO_BOOKKEEPING: ReadonlySet<string> = new Set(["undoProposed", "undoAccepted", "undoResolved"]);

/** Marks the log's lines of moves taken back (between an undo's target and the undo). */
export function markUndone(log: HTMLElement, events: readonly GameEvent[]): void {
  const undone: [bigint, bigint][] = [];
  for (const event of events) {
    if (event.event.case === "movesUndone") undone.push([event.event.value.targetRevision, event.revision]);
  }
  for (const item of Array.from(log.children) as HTMLElement[]) {
    const revision = BigInt(item.dataset["revision"] ?? "0");
    // The takeback's own proposal and answers stand: only the moves are undone.
    const bookkeeping = UNDO_BOOKKEEPING.has(item.dataset["kind"] ?? "");
    const isUndone = !bookkeeping && undone.some(([target, at]) => revision > target && revision < at);
    item.classList.toggle("undone", isUndone);
    item.toggleAttribute("data-undone", isUndone);
  }
}

/** Returns the events of the last move up to `revision`, from its move_played on. */
export function recentEvents(events: readonly GameEvent[], revision: bigint): GameEvent[] {
  let start = -1;
  for (let i = 0; i < events.length && (events[i]?.revision ?? 0n) <= revision; i++) {
    const kind = events[i]?.event.case;
    if (kind === "movePlayed") start = i;
    if (kind === "movesUndone") start = -1;
  }
  return start < 0 ? [] : events.slice(start).filter((event) => event.revision <= revision);
}

/** Draws the legal moves into #legal-moves: one `button[data-move]` each, the move's JSON in `data-move`. */
export function renderMoves(
  list: HTMLElement,
  moves: readonly Move[],
  filter: string,
  board: Board,
  context: BoardContext,
  choose: (move: Move) => void,
): { shown: number; matching: number } {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const labelled = moves.map((move) => ({ move, text: board.label(move, context) }));
  const matching = labelled.filter(({ text }) => words.every((word) => text.toLowerCase().includes(word)));
  const shown = matching.slice(0, MOVE_BUTTONS);
  replaceChildren(
    list,
    ...shown.map(({ move, text }) => {
      const button = html("button", { type: "button", "data-move": toJsonString(MoveSchema, move) }, text);
      button.addEventListener("click", () => choose(move));
      return html("li", {}, button);
    }),
  );
  return { shown: shown.length, matching: matching.length };
}
