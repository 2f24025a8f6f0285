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
  /**
   * The events of the last move up to the revision drawn (from its
   * `move_played` on), so that a board may mark what just changed; absent
   * when the page has not seen them.
   */
  readonly recent?: readonly GameEvent[];
}

/**
 * What the page hands a board that lets the player build a move by clicking
 * its drawing (`Board.interactive`).
 */
export interface Picker {
  /** The player's legal moves now; empty when they have nothing to do (or in a replay). */
  readonly moves: readonly Move[];
  /** Plays one of `moves`. */
  choose(move: Move): void;
  /**
   * Tells the page which of `moves` are still possible after the clicks so
   * far, so that it narrows its list of moves to them.
   */
  narrow(moves: readonly Move[]): void;
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
  /**
   * Optional: draws the game as `draw` does, with the player's own pieces,
   * made clickable so that the player builds one of `picker.moves` (Qwirkle:
   * a rack tile, then a cell). The page shows it instead of `draw` while a
   * seat is open; boards without it are played from the list of legal moves
   * alone, each a button labelled by `label`.
   */
  interactive?(game: Game, context: BoardContext, picker: Picker): HTMLElement;
}
