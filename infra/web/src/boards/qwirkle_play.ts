// Playing Qwirkle by clicking: a rack tile, then one of the cells the legal
// moves allow it, as often as the line goes on; then Play. Exchanging is
// choosing rack tiles after Exchange…; the move played is always one of the
// legal moves the server listed.
import { html, svg } from "../dom";
import type { Game } from "../gen/tabletop/v1/game_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
import type { QwirklePlacement, QwirkleTile } from "../gen/tabletop/v1/qwirkle_pb";
import type { BoardContext, Picker } from "./board";
import { bagAndRacks, cellKey, drawGrid, recentCells } from "./qwirkle_grid";
import { CELL, sameTile, tileElement, tileName } from "./qwirkle_tiles";

const RACK_TILE = 48;
/** The smallest a grid cell is drawn while playing, in CSS pixels. */
const MIN_CELL_PX = 28;
const RACK_GAP = 6;

/** A rack tile put on a cell this turn, not played yet. */
interface Staged {
  readonly rack: number;
  readonly tile: QwirkleTile;
  readonly key: string;
}

/** The clicks so far. */
interface Choice {
  selected: number | undefined;
  staged: Staged[];
  exchanging: boolean;
  exchange: Set<number>;
}

interface Placing {
  readonly move: Move;
  readonly placements: readonly QwirklePlacement[];
}

function placingOf(move: Move): Placing | undefined {
  if (move.game.case !== "qwirkle" || move.game.value.action.case !== "placeTiles") return undefined;
  return { move, placements: move.game.value.action.value.placements };
}

function exchangedOf(move: Move): readonly QwirkleTile[] | undefined {
  if (move.game.case !== "qwirkle" || move.game.value.action.case !== "exchangeTiles") return undefined;
  return move.game.value.action.value.tiles;
}

const placementKey = (placement: QwirklePlacement): string => cellKey(placement.at?.x ?? 0, placement.at?.y ?? 0);

/** Tells whether a placement move puts every staged tile where it was staged. */
function covers(placing: Placing, staged: readonly Staged[]): boolean {
  return staged.every((tile) => placing.placements.some((p) => placementKey(p) === tile.key && sameTile(p.tile, tile.tile)));
}

/** Returns tiles as a sorted list of names, to compare two sets of tiles. */
function tileNames(tiles: readonly (QwirkleTile | undefined)[]): string {
  return tiles.map(tileName).sort().join("|");
}

/** Returns the Qwirkle table a seated player plays by clicking (Board.interactive). */
export function playQwirkle(game: Game, context: BoardContext, picker: Picker): HTMLElement {
  const view = game.view.case === "qwirkleView" ? game.view.value : undefined;
  const rack = view?.privateState?.rack ?? [];
  const placings = picker.moves.map(placingOf).filter((p): p is Placing => p !== undefined);
  const exchanges = picker.moves.filter((move) => exchangedOf(move) !== undefined);
  const pass = picker.moves.find((move) => move.game.case === "qwirkle" && move.game.value.action.case === "passTurn");
  // Every cell a legal move covers stays drawn while the player picks, so the grid does not jump.
  const reach = placings.flatMap((p) => p.placements.map((q) => [q.at?.x ?? 0, q.at?.y ?? 0] as const));
  const recent = recentCells(context);
  const choice: Choice = { selected: undefined, staged: [], exchanging: false, exchange: new Set() };
  const root = html("div", { class: "qwirkle-play" });

  const fitting = (): Placing[] => placings.filter((p) => covers(p, choice.staged));
  const exchangeChosen = (): Move | undefined => {
    const chosen = tileNames([...choice.exchange].map((index) => rack[index]));
    return exchanges.find((move) => tileNames(exchangedOf(move) ?? []) === chosen);
  };

  function candidates(moves: readonly Placing[]): Set<string> {
    const cells = new Set<string>();
    const tile = choice.selected === undefined ? undefined : rack[choice.selected];
    if (tile === undefined) return cells;
    const taken = new Set(choice.staged.map((s) => s.key));
    for (const placing of moves) {
      for (const p of placing.placements) if (sameTile(p.tile, tile) && !taken.has(placementKey(p))) cells.add(placementKey(p));
    }
    return cells;
  }

  function clickRack(index: number): void {
    if (choice.exchanging) {
      if (!choice.exchange.delete(index)) choice.exchange.add(index);
    } else if (choice.staged.some((s) => s.rack === index)) {
      choice.staged = choice.staged.filter((s) => s.rack !== index);
    } else {
      choice.selected = choice.selected === index ? undefined : index;
    }
    render();
  }

  function clickCell(x: number, y: number): void {
    const key = cellKey(x, y);
    const tile = choice.selected === undefined ? undefined : rack[choice.selected];
    if (choice.staged.some((s) => s.key === key)) {
      choice.staged = choice.staged.filter((s) => s.key !== key);
    } else if (choice.selected !== undefined && tile !== undefined && candidates(fitting()).has(key)) {
      choice.staged.push({ rack: choice.selected, tile, key });
      choice.selected = undefined;
    } else {
      return;
    }
    render();
  }

  function clear(): void {
    Object.assign(choice, { selected: undefined, staged: [], exchanging: false, exchange: new Set() });
    render();
  }

  function render(): void {
    const moves = fitting();
    const cells = candidates(moves);
    const staged = new Map(choice.staged.map((s) => [s.key, s.tile]));
    const onCell = picker.moves.length > 0 ? clickCell : undefined;
    const grid = drawGrid(view?.publicState, context, { candidates: cells, staged, reach, recent, onCell, bare: true });
    // Cells stay big enough to tap on a narrow screen: the grid then scrolls in
    // its box, which keeps its place while the player clicks (centred at first).
    grid.style.minWidth = `${(grid.viewBox.baseVal.width / CELL) * MIN_CELL_PX}px`;
    const before = root.querySelector(".grid-scroll")?.scrollLeft;
    const scroller = html("div", { class: "grid-scroll" }, grid);
    if (before !== undefined) {
      requestAnimationFrame(() => scroller.scrollTo(before, 0));
    } else {
      requestAnimationFrame(() => scroller.scrollTo((scroller.scrollWidth - scroller.clientWidth) / 2, 0));
    }
    root.replaceChildren(
      scroller,
      html("p", { class: "note", id: "qwirkle-bag" }, bagAndRacks(view?.publicState, context).filter(Boolean).join(" · ")),
      html("p", { class: "hint", id: "qwirkle-hint" }, hint(moves, cells)),
      rackElement(moves),
      controls(moves),
    );
    picker.narrow(narrowed(moves));
  }

  /** Returns the legal moves the clicks so far still allow: those with the staged tiles, and the chosen one. */
  function narrowed(moves: readonly Placing[]): readonly Move[] {
    if (choice.exchanging) {
      const chosen = [...choice.exchange].map((index) => tileName(rack[index]));
      return exchanges.filter((move) => {
        const names = (exchangedOf(move) ?? []).map(tileName);
        return chosen.every((name) => {
          const at = names.indexOf(name);
          if (at >= 0) names.splice(at, 1);
          return at >= 0;
        });
      });
    }
    const tile = choice.selected === undefined ? undefined : rack[choice.selected];
    if (choice.staged.length === 0 && tile === undefined) return picker.moves;
    const taken = new Set(choice.staged.map((s) => s.key));
    return moves
      .filter((p) => tile === undefined || p.placements.some((q) => sameTile(q.tile, tile) && !taken.has(placementKey(q))))
      .map((p) => p.move);
  }

  /** Tells whether a rack tile may still go somewhere, with the tiles staged so far. */
  function fits(index: number, moves: readonly Placing[]): boolean {
    const tile = rack[index];
    const taken = new Set(choice.staged.map((s) => s.key));
    return moves.some((p) => p.placements.some((q) => sameTile(q.tile, tile) && !taken.has(placementKey(q))));
  }

  function hint(moves: readonly Placing[], cells: ReadonlySet<string>): string {
    if (rack.length === 0) return (view?.publicState?.rackSizes.length ?? 0) === 0 ? "" : "Your rack is empty.";
    if (picker.moves.length === 0) return "Your rack.";
    if (choice.exchanging) return "Choose the tiles to exchange, then press Exchange.";
    if (choice.selected !== undefined) {
      return cells.size > 0 ? "Now click a highlighted cell." : "That tile fits nowhere with the tiles placed so far.";
    }
    if (choice.staged.length > 0) {
      return moves.some((p) => p.placements.length === choice.staged.length)
        ? "Press Play, or add tiles to the line."
        : "Add tiles to the line: no move places only these.";
    }
    return "Click a tile of your rack, then a highlighted cell.";
  }

  function rackElement(moves: readonly Placing[]): SVGSVGElement {
    const width = Math.max(1, rack.length) * (RACK_TILE + RACK_GAP);
    const root = svg("svg", { class: "qwirkle-rack", viewBox: `0 0 ${width} ${RACK_TILE + 2 * RACK_GAP}`, role: "group", "aria-label": "Your rack" });
    rack.forEach((tile, index) => {
      const element = tileElement(tile, index * (RACK_TILE + RACK_GAP) + RACK_GAP / 2, RACK_GAP, RACK_TILE, {
        "data-rack-tile": tileName(tile),
        "data-rack-index": String(index),
        "data-selected": choice.selected === index || choice.exchange.has(index),
        "data-staged": choice.staged.some((s) => s.rack === index),
        "data-fits": picker.moves.length > 0 && !choice.exchanging && fits(index, moves),
      });
      if (picker.moves.length > 0) element.addEventListener("click", () => clickRack(index));
      root.append(element);
    });
    return root;
  }

  function controls(moves: readonly Placing[]): HTMLElement {
    const exact = choice.staged.length > 0 ? moves.find((p) => p.placements.length === choice.staged.length) : undefined;
    const exchange = exchangeChosen();
    const bar = html("div", { class: "controls qwirkle-controls" });
    if (picker.moves.length === 0) return bar;
    const button = (id: string, text: string, enabled: boolean, act: () => void): HTMLButtonElement => {
      const element = html("button", { id, type: "button", disabled: !enabled }, text);
      element.addEventListener("click", act);
      return element;
    };
    if (!choice.exchanging) {
      const count = choice.staged.length;
      bar.append(button("play-tiles", count > 1 ? `Play ${count} tiles` : "Play", exact !== undefined, () => exact && picker.choose(exact.move)));
    }
    if (exchanges.length > 0 && choice.staged.length === 0) {
      const chosen = choice.exchange.size;
      const text = !choice.exchanging ? "Exchange…" : chosen === 0 ? "Exchange" : `Exchange ${chosen} tile${chosen === 1 ? "" : "s"}`;
      const enabled = !choice.exchanging || exchange !== undefined;
      bar.append(button("exchange-tiles", text, enabled, () => {
        if (!choice.exchanging) {
          Object.assign(choice, { exchanging: true, selected: undefined });
          render();
        } else if (exchange !== undefined) {
          picker.choose(exchange);
        }
      }));
    }
    if (pass !== undefined) bar.append(button("pass-turn", "Pass", true, () => picker.choose(pass)));
    const busy = choice.staged.length > 0 || choice.selected !== undefined || choice.exchanging;
    bar.append(button("clear-tiles", choice.exchanging ? "Cancel" : "Clear", busy, clear));
    return bar;
  }

  render();
  return root;
}
