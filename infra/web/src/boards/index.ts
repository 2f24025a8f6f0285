// The board of each game type (one module per game), and a plain one for a
// game type this page does not know yet (a newer server's).
import { svg } from "../dom";
import { GameType } from "../gen/tabletop/v1/game_pb";
import type { Board } from "./board";
import { board as fool } from "./fool";
import { board as gnomingARound } from "./gnoming_a_round";
import { board as huesAndCues } from "./hues_and_cues";
import { board as qwirkle } from "./qwirkle";
import { board as split } from "./split";

const BOARDS: ReadonlyMap<GameType, Board> = new Map([
  [GameType.QWIRKLE, qwirkle],
  [GameType.HUES_AND_CUES, huesAndCues],
  [GameType.SPLIT, split],
  [GameType.GNOMING_A_ROUND, gnomingARound],
  [GameType.FOOL, fool],
]);

/** Draws nothing but a sentence: the log and the scores still tell the game. */
const UNKNOWN: Board = {
  draw: () =>
    svg(
      "svg",
      { viewBox: "0 0 320 40", role: "img" },
      svg("text", { x: 8, y: 24, "font-size": 14 }, "This page cannot draw this game."),
    ),
  describe: (event) => event.event.case ?? "",
  label: () => "a move",
};

/** Returns the board that draws games of this type. */
export function boardFor(type: GameType): Board {
  return BOARDS.get(type) ?? UNKNOWN;
}
