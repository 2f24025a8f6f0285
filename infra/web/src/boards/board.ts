// What every game's board module gives the page: one module per game in
// src/boards/<game>.ts, each exporting a `Board` (registered in src/boards/index.ts).
import type { Game } from "../gen/tabletop/v1/game_pb";
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import type { GameTypeInfo } from "../gen/tabletop/v1/game_type_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";

export interface BoardContext {
  /** The game type's entry from ListGameTypes (Hues and Cues' colours, ...). */
  readonly info: GameTypeInfo | undefined;
  /** Display name of each player, by player name (`games/x/players/y`). */
  readonly names: ReadonlyMap<string, string>;
  /** The player the page plays for, or "" when spectating. */
  readonly me: string;
}

export interface Board {
  /**
   * Draws the game as the viewer sees it: an <svg> whose pieces carry
   * `data-piece` attributes naming what they show (tests read them).
   */
  draw(game: Game, context: BoardContext): SVGSVGElement;
  /** One line in words for an event of this game's log ("Ann placed 3 tiles for 7"). */
  describe(event: GameEvent, context: BoardContext): string;
  /** A short label for a legal move, shown on the button that plays it. */
  label(move: Move, context: BoardContext): string;
}
