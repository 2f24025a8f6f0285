// Small SVG helpers shared by the boards of Hues and Cues, Split, Gnoming A Round
// and Fool!: element building, the root <svg>, card backs, names of players and
// the one-line descriptions of the events every game has.
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import { UndoOutcome } from "../gen/tabletop/v1/event_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
import type { BoardContext, Picker } from "./board";

export const SVG_NS = "http://www.w3.org/2000/svg";

/** Attribute values; undefined leaves the attribute out. */
export type Attrs = Record<string, string | number | undefined>;
type Child = SVGElement | string | null | undefined | false;

/** Creates an SVG element with attributes and children (strings become text). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined) element.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/** A <text> element; `anchor` is start, middle or end. */
export function text(
  x: number,
  y: number,
  content: string,
  attrs: Attrs = {},
): SVGTextElement {
  return svg("text", { x, y, ...attrs }, content);
}

/** The usual text styles: sizes in viewBox units. */
export const FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif";
export const INK = "#1b1b1b";
export const MUTED = "#5a5a5a";
export const TABLE = "#f4f1e8";

/**
 * The root <svg>: scales to its container's width (a 360 px phone as well as a
 * desktop) with `viewBox`, at most `maxWidth` CSS pixels wide.
 */
export function root(
  board: string,
  width: number,
  height: number,
  label: string,
  maxWidth: number,
): SVGSVGElement {
  const element = svg("svg", {
    xmlns: SVG_NS,
    viewBox: `0 0 ${width} ${Math.ceil(height)}`,
    width: "100%",
    preserveAspectRatio: "xMidYMin meet",
    role: "img",
    "aria-label": label,
    "data-board": board,
    "font-family": FONT,
    fill: INK,
  });
  element.style.maxWidth = `${maxWidth}px`;
  element.style.height = "auto";
  element.style.display = "block";
  return element;
}

/**
 * Whether the page is wide enough for a board's landscape layout (a desktop or a
 * tablet) rather than a phone's portrait one. Boards are drawn again at every
 * change, so a turned phone gets its layout at the next move.
 */
export function isWide(): boolean {
  if (typeof window === "undefined" || typeof window.matchMedia !== "function") return true;
  return window.matchMedia("(min-width: 600px)").matches;
}

/** Sets the viewBox height once everything is laid out. */
export function setHeight(element: SVGSVGElement, width: number, height: number): void {
  element.setAttribute("viewBox", `0 0 ${width} ${Math.ceil(height)}`);
}

/**
 * A face-down card: it carries `data-piece="back"` and nothing else, so no
 * hidden card's identity is ever in the page.
 */
export function cardBack(x: number, y: number, w: number, h: number): SVGGElement {
  const r = Math.min(w, h) * 0.12;
  const inset = Math.max(2, w * 0.1);
  return svg(
    "g",
    { "data-piece": "back" },
    svg("rect", {
      x,
      y,
      width: w,
      height: h,
      rx: r,
      fill: "#3b4f8a",
      stroke: "#1d2747",
      "stroke-width": 1.5,
    }),
    svg("rect", {
      x: x + inset,
      y: y + inset,
      width: w - 2 * inset,
      height: h - 2 * inset,
      rx: r * 0.6,
      fill: "none",
      stroke: "#c9d3f2",
      "stroke-width": 1.2,
      "stroke-dasharray": "3 2",
    }),
  );
}

/**
 * A pile of `count` face-down cards with its count written under it; `piece`
 * names the pile (`draw pile 40`). The pile itself is not a card back.
 */
export function facedownPile(
  x: number,
  y: number,
  w: number,
  h: number,
  count: number,
  piece: string,
  caption: string,
): SVGGElement {
  const group = svg("g", { "data-piece": piece });
  const layers = Math.min(3, count);
  if (count === 0) {
    group.append(
      svg("rect", {
        x,
        y,
        width: w,
        height: h,
        rx: Math.min(w, h) * 0.12,
        fill: "none",
        stroke: MUTED,
        "stroke-dasharray": "4 3",
      }),
    );
  }
  for (let i = layers - 1; i >= 0; i--) {
    group.append(cardBack(x + i * 2, y - i * 2, w, h));
  }
  group.append(
    text(x + w / 2, y + h + 17, caption, {
      "text-anchor": "middle",
      "font-size": 15,
      fill: MUTED,
    }),
  );
  return group;
}

/** A rounded chip of text (a badge such as "dealer"); returns it and its width. */
export function chip(
  x: number,
  y: number,
  label: string,
  fill: string,
  color: string,
  size = 14,
  attrs: Attrs = {},
): { element: SVGGElement; width: number } {
  const width = textWidth(label, size) + size;
  const height = size * 1.5;
  const element = svg(
    "g",
    attrs,
    svg("rect", { x, y: y - height * 0.75, width, height, rx: height / 2, fill }),
    text(x + width / 2, y, label, {
      "text-anchor": "middle",
      "font-size": size,
      "font-weight": 600,
      fill: color,
    }),
  );
  return { element, width };
}

/**
 * Badges (chips of a label on a colour) from (x, y) rightwards, carried to a
 * new line at `wrapX` when one would pass `maxX`; returns the height added.
 */
export function badgeRow(
  parent: SVGElement,
  x: number,
  y: number,
  maxX: number,
  wrapX: number,
  badges: readonly (readonly [string, string])[],
  size = 14,
): number {
  let bx = x;
  let added = 0;
  for (const [label, fill] of badges) {
    const width = textWidth(label, size) * 1.1 + size;
    if (bx + width > maxX && bx > wrapX) {
      bx = wrapX;
      added += size * 1.8;
    }
    const made = chip(bx, y + added, label, fill, "#ffffff", size);
    parent.append(made.element);
    bx += made.width + 6;
  }
  return added;
}

/** A rough width of a line of text in the UI font, for laying out without measuring. */
export function textWidth(content: string, size: number): number {
  let units = 0;
  for (const ch of content) {
    if ("il.,:;'|!".includes(ch)) units += 0.3;
    else if (ch === " ") units += 0.32;
    else if ("mwMW@×—".includes(ch)) units += 0.86;
    else if (ch >= "0" && ch <= "9") units += 0.64;
    else if (ch >= "A" && ch <= "Z") units += 0.72;
    else units += 0.6;
  }
  return units * size;
}

/** Splits words into lines no wider than `width` at `size`. */
export function wrap(content: string, width: number, size: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of content.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Shortens a text to fit `width` at `size`, ending it with an ellipsis. */
export function clip(content: string, width: number, size: number): string {
  if (textWidth(content, size) <= width) return content;
  let out = content;
  while (out.length > 1 && textWidth(`${out}…`, size) > width) out = out.slice(0, -1);
  return `${out}…`;
}

/** The seat index of a player resource name (`games/x/players/2` is 2), or -1. */
export function seatOf(player: string): number {
  const tail = player.slice(player.lastIndexOf("/") + 1);
  return /^\d+$/.test(tail) ? Number(tail) : -1;
}

/** A player's display name; a seat's number when the name is unknown. */
export function nameOf(context: BoardContext, player: string): string {
  const known = context.names.get(player);
  if (known) return known;
  const seat = seatOf(player);
  return seat >= 0 ? `seat ${seat + 1}` : "someone";
}

/** The display name of a seat index, looked up among the known players. */
export function nameOfSeat(context: BoardContext, seat: number): string {
  for (const [player, name] of context.names) {
    if (seatOf(player) === seat) return name;
  }
  return `seat ${seat + 1}`;
}

/** "Ann", "Ann and Ben", "Ann, Ben and Cleo". */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** "1 card", "3 cards". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A number with a true minus sign: "3", "−4". */
export function num(value: number): string {
  return value < 0 ? `−${-value}` : String(value);
}

/** A score with its sign: "+3", "0", "−4". */
export function signed(value: number): string {
  if (value > 0) return `+${value}`;
  if (value < 0) return `−${-value}`;
  return "0";
}

/**
 * A line for the events every game shares (the table's life, undo, timers,
 * resignations); "" for a game's own events, which its board describes.
 */
export function describeCommon(event: GameEvent, context: BoardContext): string {
  const fact = event.event;
  const who = (player: string): string => nameOf(context, player);
  switch (fact.case) {
    case "gameCreated":
      return "The table was opened";
    case "playerJoined":
      return `${fact.value.displayName || who(fact.value.player)} took a seat`;
    case "playerLeft":
      return fact.value.removed
        ? `${fact.value.displayName} was removed from the table`
        : `${fact.value.displayName} left the table`;
    case "gameStarted":
      return "The game started";
    case "gameFinished": {
      const winners = listNames(fact.value.winners.map(who));
      if (fact.value.abandoned) return "Play stopped early: every seat had resigned or run out of time";
      if (!winners) return "The game ended";
      return `The game ended: ${winners} ${fact.value.winners.length > 1 ? "share the win" : "won"}`;
    }
    case "movePlayed":
      return `${who(fact.value.player)} moved`;
    case "undoProposed":
      return `${who(fact.value.proposer)} asked to take back their last move`;
    case "undoAccepted":
      return `${who(fact.value.player)} agreed to take the move back`;
    case "undoResolved":
      switch (fact.value.outcome) {
        case UndoOutcome.ACCEPTED:
          return "Everyone agreed: the move is taken back";
        case UndoOutcome.REJECTED:
          return `${who(fact.value.player)} declined to take the move back`;
        case UndoOutcome.EXPIRED:
          return "Nobody answered in time: the move stands";
        case UndoOutcome.WITHDRAWN:
          return "The request to take the move back was withdrawn";
        default:
          return "The request to take the move back ended";
      }
    case "movesUndone":
      return `${plural(fact.value.moves, "move")} of ${who(fact.value.player)} taken back`;
    case "turnTimerStarted":
      return "The turn clock started";
    case "turnTimedOut":
      return `${who(fact.value.player)} ran out of time; a bot moved for them`;
    case "inviteCodeSet":
      return "The invite code was set";
    case "tableClosed":
      return "The table closed before play began";
    case "playerResigned":
      return `${who(fact.value.player)} resigned; a bot plays their seat`;
    case "resignedSeatPlayed":
      return `A bot moved for ${who(fact.value.player)}`;
    default:
      return "";
  }
}

/** Okabe–Ito colours and two more, for up to 10 players; each has a letter too. */
export const PLAYER_COLORS = [
  "#E69F00",
  "#56B4E9",
  "#009E73",
  "#F0E442",
  "#0072B2",
  "#D55E00",
  "#CC79A7",
  "#FFFFFF",
  "#000000",
  "#999999",
];

/** Black or white, whichever reads better on a "#RRGGBB" colour. */
export function contrast(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  const r = (value >> 16) & 255;
  const g = (value >> 8) & 255;
  const b = value & 255;
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#000000" : "#FFFFFF";
}

/**
 * Makes a drawing playable by clicking: each target element stands for the
 * legal moves that involve it. A first click on a target narrows the page's
 * list of moves to its moves and outlines it; a second click on it plays its
 * move when it has only one. A click on another target keeps the moves both
 * involve (two halves make a match, a card and a match an upgrade): when one
 * move is left it is played, when several the list shows them. A click
 * elsewhere on the board shows every move again. Targets get `data-candidate`
 * (the number of their moves) and `data-selected` while chosen.
 */
export function pickOn(
  drawing: SVGSVGElement,
  picker: Picker,
  targets: readonly (readonly [Element, readonly Move[]])[],
): HTMLElement {
  const wrapper = document.createElement("div");
  wrapper.className = "board-pick";
  wrapper.append(drawing);
  let selected: Element[] = [];
  let narrowed: readonly Move[] = picker.moves;
  let marks: SVGElement[] = [];
  const clear = (): void => {
    for (const mark of marks) mark.remove();
    for (const element of selected) element.removeAttribute("data-selected");
    marks = [];
    selected = [];
    narrowed = picker.moves;
  };
  const select = (element: Element, moves: readonly Move[]): void => {
    selected.push(element);
    element.setAttribute("data-selected", "");
    const mark = outline(element);
    if (mark) marks.push(mark);
    narrowed = moves;
    picker.narrow(moves);
  };
  for (const [element, moves] of targets) {
    const only = moves.length === 1 ? moves[0] : undefined;
    if (moves.length === 0) continue;
    element.setAttribute("data-candidate", String(moves.length));
    if (element instanceof SVGElement) element.style.cursor = "pointer";
    element.addEventListener("click", (event) => {
      event.stopPropagation();
      if (selected.includes(element)) {
        if (only && selected.length === 1) picker.choose(only);
        return;
      }
      if (selected.length > 0) {
        const both = moves.filter((move) => narrowed.includes(move));
        const single = both.length === 1 ? both[0] : undefined;
        if (single) {
          picker.choose(single);
          return;
        }
        if (both.length > 1) {
          select(element, both);
          return;
        }
      }
      clear();
      select(element, moves);
    });
  }
  drawing.addEventListener("click", () => {
    if (selected.length === 0) return;
    clear();
    picker.narrow(picker.moves);
  });
  return wrapper;
}

/** Outlines an element drawn in the page (its bounding box, a little larger). */
function outline(element: Element): SVGElement | undefined {
  if (!(element instanceof SVGGraphicsElement) || !element.parentNode) return undefined;
  const box = element.getBBox();
  const mark = svg("rect", {
    x: box.x - 3,
    y: box.y - 3,
    width: box.width + 6,
    height: box.height + 6,
    rx: 5,
    fill: "none",
    stroke: "#e65100",
    "stroke-width": 3.5,
    "pointer-events": "none",
  });
  element.parentNode.append(mark);
  return mark;
}

/** The elements of a drawing whose `attribute` is `value` exactly. */
export function findAll(drawing: Element, attribute: string, value: string): Element[] {
  return [...drawing.querySelectorAll(`[${attribute}]`)].filter((e) => e.getAttribute(attribute) === value);
}

/** Groups moves by a key; a move with no key is left out. */
export function movesBy(moves: readonly Move[], key: (move: Move) => readonly string[]): Map<string, Move[]> {
  const out = new Map<string, Move[]>();
  for (const move of moves) {
    for (const k of new Set(key(move))) {
      const list = out.get(k);
      if (list) list.push(move);
      else out.set(k, [move]);
    }
  }
  return out;
}

/** A player's area of a card table, drawn at a given place. */
export interface SeatArea {
  readonly element: SVGGElement;
  readonly height: number;
  /** Stretched to the tallest area of its row. */
  readonly background: SVGRectElement;
}

/**
 * Lays out one area per seat from `y`, between margins of `margin` in a table
 * `width` wide, two a row on a wide page and one a row on a phone, each row as
 * tall as its tallest area; returns the `y` below them.
 */
export function seatRows(
  parent: SVGElement,
  seats: readonly number[],
  y: number,
  width: number,
  margin: number,
  wide: boolean,
  gap: number,
  area: (seat: number, x: number, y: number, width: number) => SeatArea,
): number {
  const columns = wide ? 2 : 1;
  const columnWidth = (width - 2 * margin - (columns - 1) * 10) / columns;
  for (let first = 0; first < seats.length; first += columns) {
    const row = seats.slice(first, first + columns).map((seat, i) => area(seat, margin + i * (columnWidth + 10), y, columnWidth));
    const height = Math.max(...row.map((drawn) => drawn.height));
    for (const drawn of row) {
      drawn.background.setAttribute("height", String(height));
      parent.append(drawn.element);
    }
    y += height + gap;
  }
  return y;
}
