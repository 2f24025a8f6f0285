// The Qwirkle grid in SVG: the tiles played, a margin of free cells, the
// cells a chosen tile may go to and the tiles placed but not yet played.
import { svg } from "../dom";
import type { BoardContext } from "./board";
import type { QwirklePublicState, QwirkleTile } from "../gen/tabletop/v1/qwirkle_pb";
import { CELL, tileElement, tileName } from "./qwirkle_tiles";

/** What the player's clicks add to the drawing. */
export interface GridMarks {
  /** Cells ("x,y") where the chosen rack tile may go. */
  readonly candidates: ReadonlySet<string>;
  /** Tiles placed on cells this turn, not yet played. */
  readonly staged: ReadonlyMap<string, QwirkleTile>;
  /** Cells the grid must show besides the tiles: every cell a legal move covers. */
  readonly reach: readonly (readonly [number, number])[];
  /** Cells ("x,y") of the last placement, outlined. */
  readonly recent: ReadonlySet<string>;
  /** Called with a cell's coordinates when it is clicked. */
  readonly onCell?: (x: number, y: number) => void;
  /** Leaves out the bag and racks under the grid (the page shows them itself). */
  readonly bare?: boolean;
}

const NO_MARKS: GridMarks = { candidates: new Set(), staged: new Map(), reach: [], recent: new Set() };
/** The fewest columns and rows drawn, so that an early grid is not drawn huge. */
const MIN_COLUMNS = 7;
const MIN_ROWS = 5;
const FOOTER = 44;
/** The largest a cell is drawn, in CSS pixels. */
const MAX_CELL_PX = 56;

export const cellKey = (x: number, y: number): string => `${x},${y}`;

/** Returns the cells the game's last placement covered, from the events of its last move. */
export function recentCells(context: BoardContext): Set<string> {
  const cells = new Set<string>();
  for (const event of context.recent ?? []) {
    const fact = event.event;
    if (fact.case !== "qwirkle" || fact.value.event.case !== "tilesPlaced") continue;
    for (const placement of fact.value.event.value.placements) cells.add(cellKey(placement.at?.x ?? 0, placement.at?.y ?? 0));
  }
  return cells;
}

interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** Returns the cells to draw: everything shown, one free cell around, at least MIN_COLUMNS × MIN_ROWS. */
function bounds(cells: readonly (readonly [number, number])[]): Bounds {
  const xs = cells.map(([x]) => x).concat(0);
  const ys = cells.map(([, y]) => y).concat(0);
  const box = { minX: Math.min(...xs) - 1, maxX: Math.max(...xs) + 1, minY: Math.min(...ys) - 1, maxY: Math.max(...ys) + 1 };
  const grow = (low: number, high: number, least: number): [number, number] => {
    const missing = Math.max(0, least - (high - low + 1));
    return [low - Math.floor(missing / 2), high + Math.ceil(missing / 2)];
  };
  [box.minX, box.maxX] = grow(box.minX, box.maxX, MIN_COLUMNS);
  [box.minY, box.maxY] = grow(box.minY, box.maxY, MIN_ROWS);
  return box;
}

/** Returns the grid of a Qwirkle game as an <svg>, with the bag and racks under it. */
export function drawGrid(
  state: QwirklePublicState | undefined,
  context: BoardContext,
  marks: GridMarks = NO_MARKS,
): SVGSVGElement {
  const placed = new Map<string, QwirkleTile | undefined>();
  const cells: [number, number][] = [];
  for (const placement of state?.board ?? []) {
    const x = placement.at?.x ?? 0;
    const y = placement.at?.y ?? 0;
    placed.set(cellKey(x, y), placement.tile);
    cells.push([x, y]);
  }
  for (const key of marks.staged.keys()) cells.push(key.split(",").map(Number) as [number, number]);
  const box = bounds(cells.concat(marks.reach.map(([x, y]) => [x, y] as [number, number])));
  const width = (box.maxX - box.minX + 1) * CELL;
  const height = (box.maxY - box.minY + 1) * CELL;
  const footerHeight = marks.bare === true ? 0 : FOOTER;
  const revealed = revealedRows(state, context, box.minX * CELL, box.maxY * CELL + CELL + footerHeight);
  const root = svg("svg", {
    class: "qwirkle-grid",
    viewBox: `${box.minX * CELL} ${box.minY * CELL} ${width} ${height + footerHeight + revealed.height}`,
    role: "img",
    "aria-label": `Qwirkle grid with ${placed.size} tiles`,
  });
  // A small grid is not blown up to the width of a desktop's screen.
  root.style.maxWidth = `${(width / CELL) * MAX_CELL_PX}px`;
  for (let y = box.minY; y <= box.maxY; y++) {
    for (let x = box.minX; x <= box.maxX; x++) root.append(cellElement(x, y, placed, marks));
  }
  if (marks.bare !== true) root.append(footer(state, context, box.minX * CELL, box.maxY * CELL + CELL));
  root.append(...revealed.rows);
  return root;
}

function cellElement(x: number, y: number, placed: ReadonlyMap<string, QwirkleTile | undefined>, marks: GridMarks): SVGGElement {
  const key = cellKey(x, y);
  const left = x * CELL;
  const top = y * CELL;
  let element: SVGGElement;
  if (placed.has(key)) {
    const tile = placed.get(key);
    element = tileElement(tile, left, top, CELL, { "data-cell": key, "data-piece": tileName(tile) });
    if (marks.recent.has(key)) element.classList.add("recent");
  } else if (marks.staged.has(key)) {
    const tile = marks.staged.get(key);
    element = tileElement(tile, left, top, CELL, { "data-cell": key, "data-staged-piece": tileName(tile) });
    element.classList.add("staged");
  } else {
    const candidate = marks.candidates.has(key);
    element = svg(
      "g",
      { class: candidate ? "cell candidate" : "cell", "data-cell": key, "data-candidate": candidate },
      svg("title", {}, key),
      svg("rect", { x: left + 1, y: top + 1, width: CELL - 2, height: CELL - 2, rx: 4 }),
    );
  }
  const onCell = marks.onCell;
  if (onCell !== undefined) element.addEventListener("click", () => onCell(x, y));
  return element;
}

/** Returns the bag's and racks' sizes in words: ["Bag: 60 tiles", "Racks: Ann 6 · Ben 6"]. */
export function bagAndRacks(state: QwirklePublicState | undefined, context: BoardContext): [string, string] {
  if ((state?.rackSizes.length ?? 0) === 0) return ["The tiles are dealt when the game starts.", ""];
  const racks = [...context.names.entries()]
    .map(([player, name], index) => `${name} ${state?.rackSizes[seatOf(player, index)] ?? 0}`)
    .join(" · ");
  return [`Bag: ${state?.bagSize ?? 0} tiles`, racks ? `Racks: ${racks}` : ""];
}

function footer(state: QwirklePublicState | undefined, context: BoardContext, left: number, top: number): SVGTextElement {
  const [bag, racks] = bagAndRacks(state, context);
  return svg(
    "text",
    { class: "grid-footer", x: left + 6, y: top + 18, "font-size": 14 },
    svg("tspan", { x: left + 6, dy: 0 }, bag),
    svg("tspan", { x: left + 6, dy: 18 }, racks),
  );
}

function seatOf(player: string, fallback: number): number {
  const seat = Number(player.split("/").pop());
  return Number.isInteger(seat) ? seat : fallback;
}

/** Returns the racks every seat held when the game ended, one row each. */
function revealedRows(
  state: QwirklePublicState | undefined,
  context: BoardContext,
  left: number,
  top: number,
): { rows: SVGGElement[]; height: number } {
  const size = CELL * 0.75;
  const rowHeight = size + 22;
  const players = [...context.names.entries()];
  const rows: SVGGElement[] = [];
  (state?.revealedRacks ?? []).forEach((rack, seat) => {
    const y = top + rows.length * rowHeight;
    const name = players.find(([player]) => seatOf(player, -1) === seat)?.[1] ?? `seat ${seat}`;
    const tiles = rack.tiles.map((tile, index) =>
      tileElement(tile, left + 6 + index * size, y + 18, size, { "data-revealed-piece": tileName(tile) }),
    );
    const kept = rack.tiles.length === 0 ? `${name}'s rack is empty` : `${name}'s rack:`;
    rows.push(
      svg(
        "g",
        { class: "revealed-rack", "data-revealed-rack": seat },
        svg("text", { x: left + 6, y: y + 14, "font-size": 13 }, kept),
        ...tiles,
      ),
    );
  });
  return { rows, height: rows.length * rowHeight };
}
