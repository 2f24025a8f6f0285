// Qwirkle: the grid with its tiles in colour and shape, the log in words, the
// moves labelled, and play by clicking a rack tile, then a cell.
import type { Board, BoardContext } from "./board";
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import type { Game } from "../gen/tabletop/v1/game_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
import { QwirkleEndReason, type QwirklePlacement, type QwirkleTile } from "../gen/tabletop/v1/qwirkle_pb";
import { nameOf } from "../events";
import { drawGrid, recentCells } from "./qwirkle_grid";
import { playQwirkle } from "./qwirkle_play";
import { tileName } from "./qwirkle_tiles";

/** Returns a placement in words: "red circle at 0,1". */
export function placementText(placement: QwirklePlacement): string {
  return `${tileName(placement.tile)} at ${placement.at?.x ?? 0},${placement.at?.y ?? 0}`;
}

function tilesText(tiles: readonly QwirkleTile[]): string {
  return tiles.map(tileName).join(", ");
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function draw(game: Game, context: BoardContext): SVGSVGElement {
  const view = game.view.case === "qwirkleView" ? game.view.value : undefined;
  return drawGrid(view?.publicState, context, { candidates: new Set(), staged: new Map(), reach: [], recent: recentCells(context) });
}

function describe(event: GameEvent, context: BoardContext): string {
  if (event.event.case !== "qwirkle") return "";
  const fact = event.event.value.event;
  switch (fact.case) {
    case "tilesDealt": {
      const mine = fact.value.racks.find((rack) => rack.tiles.length > 0);
      const yours = mine ? `; you hold ${tilesText(mine.tiles)}` : "";
      return `Tiles dealt: ${count(fact.value.rackSizes[0] ?? 0, "tile")} each, ${fact.value.bagSize} left in the bag${yours}`;
    }
    case "startingPlayerChosen":
      return `${nameOf(fact.value.player, context)} starts (the most tiles sharing a colour or shape)`;
    case "tilesPlaced":
      return `${nameOf(fact.value.player, context)} placed ${fact.value.placements.map(placementText).join(", ")}`;
    case "turnScored": {
      const qwirkles = fact.value.qwirkles > 0 ? ` with ${count(fact.value.qwirkles, "Qwirkle")}!` : "";
      return `${nameOf(fact.value.player, context)} scored ${fact.value.points}${qwirkles}`;
    }
    case "tilesDrawn": {
      const which = fact.value.tiles.length > 0 ? `: ${tilesText(fact.value.tiles)}` : "";
      return `${nameOf(fact.value.player, context)} drew ${count(fact.value.count, "tile")}${which}`;
    }
    case "tilesExchanged": {
      const which = fact.value.returned.length > 0 ? ` (gave ${tilesText(fact.value.returned)}, got ${tilesText(fact.value.drawn)})` : "";
      return `${nameOf(fact.value.player, context)} exchanged ${count(fact.value.count, "tile")}${which}`;
    }
    case "turnPassed":
      return `${nameOf(fact.value.player, context)} passed (the bag is empty and no tile fits)`;
    case "endBonusScored":
      return `${nameOf(fact.value.player, context)} emptied their hand first: +${fact.value.points}`;
    case "gameEnded":
      return fact.value.reason === QwirkleEndReason.DEADLOCK
        ? "The game ended: nobody could place a tile"
        : "The game ended: a hand was emptied after the bag ran out";
    default:
      return "";
  }
}

function label(move: Move, _context: BoardContext): string {
  if (move.game.case !== "qwirkle") return "?";
  const action = move.game.value.action;
  switch (action.case) {
    case "placeTiles":
      return `Place ${action.value.placements.map(placementText).join(" + ")}`;
    case "exchangeTiles":
      return `Exchange ${tilesText(action.value.tiles)}`;
    case "passTurn":
      return "Pass";
    default:
      return "?";
  }
}

export const board: Board = { draw, describe, label, interactive: playQwirkle };
