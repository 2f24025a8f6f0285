// Hues and Cues: the 16 x 30 board in the colours ListGameTypes gives, its row
// letters and column numbers, the players' pieces (cones), the cues of the
// round and, once the round is scored, the target with its scoring frame.
//
// A wide page gets the board as printed (rows A-P down, columns 1-30 across)
// with the players beside it; a phone gets it turned a quarter (A-P across,
// 1-30 down) so that its squares are larger, with the players below.
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import type { Game } from "../gen/tabletop/v1/game_pb";
import { GameState } from "../gen/tabletop/v1/game_pb";
import {
  HuesAndCuesEndReason,
  HuesAndCuesPhase,
  type HuesAndCuesPiece,
  type HuesAndCuesSquare,
  type HuesAndCuesView,
} from "../gen/tabletop/v1/hues_and_cues_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
import type { Board, BoardContext, Picker } from "./board";
import {
  MUTED,
  PLAYER_COLORS,
  chip,
  clip,
  contrast,
  describeCommon,
  isWide,
  listNames,
  movesBy,
  nameOf,
  pickOn,
  plural,
  root,
  seatOf,
  setHeight,
  svg,
  text,
  wrap,
} from "./draw";

const ROWS = 16;
const COLUMNS = 30;
const LETTERS = "ABCDEFGHIJKLMNOP";
const CELL = 24; // a square's width; a phone's squares are less tall
const LABEL = 28; // the band of labels on each side of the grid
const MARGIN = 10;

/** Where things go: the board as printed (wide) or turned a quarter (narrow). */
interface Geometry {
  readonly wide: boolean;
  /** The viewBox width. */
  readonly width: number;
  /** The width of the board with its labels. */
  readonly boardWidth: number;
  /** The top left corner of a square, in the board group's coordinates. */
  at(row: number, column: number): { x: number; y: number };
  /** The grid's size in squares across and down. */
  readonly across: number;
  readonly down: number;
  /** A square's width and height. */
  readonly cw: number;
  readonly ch: number;
}

function geometry(wide: boolean): Geometry {
  const across = wide ? COLUMNS : ROWS;
  const down = wide ? ROWS : COLUMNS;
  const boardWidth = 2 * LABEL + across * CELL;
  const ch = wide ? CELL : 18;
  return {
    wide,
    width: wide ? boardWidth + 240 : boardWidth + 8,
    boardWidth,
    across,
    down,
    cw: CELL,
    ch,
    at: wide
      ? (row, column) => ({ x: LABEL + column * CELL, y: row * ch })
      : (row, column) => ({ x: LABEL + row * CELL, y: column * ch }),
  };
}

/** A square's name, "H15". */
function squareId(row: number, column: number): string {
  return `${LETTERS[row] ?? "?"}${column + 1}`;
}

/** Each square's colour by row and column, from ListGameTypes' catalogue. */
function palette(context: BoardContext): Map<number, string> {
  const colors = new Map<number, string>();
  const info = context.info;
  if (info?.details.case !== "huesAndCues") return colors;
  for (const square of info.details.value.squares) {
    const at = square.square;
    if (at) colors.set(at.row * COLUMNS + at.column, square.hex);
  }
  return colors;
}

/** Each player's marker: the initial of their name when every initial differs, else the seat number. */
function markers(game: Game): Map<string, string> {
  const initials = game.players.map((p) => (p.displayName.trim()[0] ?? "?").toUpperCase());
  const unique = new Set(initials).size === initials.length;
  const out = new Map<string, string>();
  game.players.forEach((p, i) => out.set(p.name, unique ? (initials[i] ?? "?") : String(p.seat + 1)));
  return out;
}

function playerColor(player: string): string {
  const seat = seatOf(player);
  return PLAYER_COLORS[(seat >= 0 ? seat : 0) % PLAYER_COLORS.length] ?? "#888888";
}

const PHASE_NAMES: Record<number, string> = {
  [HuesAndCuesPhase.SETUP]: "Setting up",
  [HuesAndCuesPhase.FIRST_CUE]: "First cue",
  [HuesAndCuesPhase.FIRST_GUESSES]: "First guesses",
  [HuesAndCuesPhase.SECOND_CUE]: "Second cue",
  [HuesAndCuesPhase.SECOND_GUESSES]: "Second guesses",
  [HuesAndCuesPhase.GAME_OVER]: "Game over",
};

/** What the round waits for, in words. */
function waitingFor(game: Game, view: HuesAndCuesView, context: BoardContext): string {
  const me = context.me || game.caller;
  const mover = game.currentPlayer;
  const you = mover === me && me !== "";
  const who = nameOf(context, mover);
  const giverIsYou = view.cueGiver === me && me !== "";
  const giver = nameOf(context, view.cueGiver);
  switch (view.phase) {
    case HuesAndCuesPhase.FIRST_CUE:
      return giverIsYou
        ? "Your turn: choose a colour and give the first cue"
        : `${giver} chooses a colour and gives the first cue`;
    case HuesAndCuesPhase.FIRST_GUESSES:
      if (!mover) return "First guesses";
      return you ? "Your turn: place a first guess" : `${who} places a first guess`;
    case HuesAndCuesPhase.SECOND_CUE:
      return giverIsYou ? "Your turn: give a second cue or skip it" : `${giver} may give a second cue or skip it`;
    case HuesAndCuesPhase.SECOND_GUESSES:
      if (!mover) return "Second guesses";
      return you ? "Your turn: place a second guess" : `${who} places a second guess`;
    case HuesAndCuesPhase.GAME_OVER: {
      const winners = game.winners.map((w) => nameOf(context, w));
      if (winners.length === 0) return "The game is over";
      return `${listNames(winners)} ${winners.length > 1 ? "share the win" : "won"}`;
    }
    default:
      return game.state === GameState.WAITING_FOR_PLAYERS ? "Waiting for players" : "";
  }
}

/** What the viewer is doing this round; "" when there is nothing to add. */
function role(game: Game, view: HuesAndCuesView, context: BoardContext, wide: boolean): string {
  const me = context.me || game.caller;
  if (view.phase === HuesAndCuesPhase.GAME_OVER) return "";
  if (!me || !game.players.some((p) => p.name === me)) return wide ? "You are watching" : "";
  if (view.cueGiver !== me) return wide ? "You are guessing" : "";
  if (view.target) return `You give the cues: your target is ${view.target.id}`;
  if (view.card) {
    return `You give the cues: choose one of your card's squares (${view.card.squares.map((s) => s.id).join(", ")})`;
  }
  return "You give the cues: choose any square";
}

/** A cone: a disc for a first guess, a diamond for a second, with the player's marker. */
function cone(geo: Geometry, piece: HuesAndCuesPiece, letter: string, context: BoardContext, faded: boolean): SVGGElement {
  const at = piece.square;
  const row = at?.row ?? 0;
  const column = at?.column ?? 0;
  const corner = geo.at(row, column);
  const cx = corner.x + geo.cw / 2;
  const cy = corner.y + geo.ch / 2;
  const fill = playerColor(piece.player);
  const name = nameOf(context, piece.player);
  const id = at?.id || squareId(row, column);
  const group = svg("g", {
    "data-piece": `cone ${name} ${id}`,
    "data-guess": piece.guessNo,
    opacity: faded ? 0.85 : undefined,
  });
  const r = geo.ch < geo.cw ? 8 : 9.5;
  const shape = (grow: number, fillColor: string): SVGElement => {
    const size = r + grow;
    return piece.guessNo === 2
      ? svg("path", {
          d: `M ${cx} ${cy - size - 1.5} L ${cx + size + 1.5} ${cy} L ${cx} ${cy + size + 1.5} L ${cx - size - 1.5} ${cy} Z`,
          fill: fillColor,
        })
      : svg("circle", { cx, cy, r: size, fill: fillColor });
  };
  group.append(shape(1.5, "#000000"), shape(0.5, "#FFFFFF"), shape(-1, fill));
  group.append(
    text(cx, cy + r * 0.45, letter, {
      "text-anchor": "middle",
      "font-size": letter.length > 1 ? r * 1.05 : r * 1.35,
      "font-weight": 700,
      fill: contrast(fill),
    }),
    svg("title", {}, `${name}: ${piece.guessNo === 2 ? "second" : "first"} guess ${id}`),
  );
  return group;
}

/** The double outline of the squares from (row0, column0) to (row1, column1), clipped to the board. */
function squareOutline(geo: Geometry, row0: number, column0: number, row1: number, column1: number, dashed: boolean): SVGGElement {
  const a = geo.at(Math.max(0, row0), Math.max(0, column0));
  const b = geo.at(Math.min(ROWS - 1, row1), Math.min(COLUMNS - 1, column1));
  const box = {
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y),
    width: Math.abs(b.x - a.x) + geo.cw,
    height: Math.abs(b.y - a.y) + geo.ch,
    fill: "none",
  };
  const dash = dashed ? "5 4" : undefined;
  return svg(
    "g",
    {},
    svg("rect", { ...box, stroke: "#000000", "stroke-width": dashed ? 2 : 4, "stroke-dasharray": dash }),
    svg("rect", { ...box, stroke: "#FFFFFF", "stroke-width": dashed ? 0.8 : 1.6, "stroke-dasharray": dash }),
  );
}

/** The target with its scoring frame (distance 1) and, dashed, the ring at distance 2. */
function targetAndFrame(geo: Geometry, target: HuesAndCuesSquare, mine: boolean): SVGGElement {
  const id = target.id || squareId(target.row, target.column);
  const group = svg("g", { "data-piece": `target ${id}` });
  const frame = squareOutline(geo, target.row - 1, target.column - 1, target.row + 1, target.column + 1, false);
  frame.setAttribute("data-piece", `frame ${id}`);
  group.append(
    squareOutline(geo, target.row - 2, target.column - 2, target.row + 2, target.column + 2, true),
    frame,
    squareOutline(geo, target.row, target.column, target.row, target.column, false),
  );
  const corner = geo.at(target.row, target.column);
  group.append(
    svg("circle", {
      cx: corner.x + geo.cw / 2,
      cy: corner.y + geo.ch / 2,
      r: 4.5,
      fill: "#000000",
      stroke: "#FFFFFF",
      "stroke-width": 1.5,
    }),
    svg("title", {}, mine ? `Your target: ${id}` : `Target ${id}`),
  );
  return group;
}

/** A square of the cue giver's card: a dashed ring the target is chosen from. */
function cardSquare(geo: Geometry, square: HuesAndCuesSquare): SVGGElement {
  const id = square.id || squareId(square.row, square.column);
  const corner = geo.at(square.row, square.column);
  const cx = corner.x + geo.cw / 2;
  const cy = corner.y + geo.ch / 2;
  const r = Math.min(geo.cw, geo.ch) / 2 - 3;
  return svg(
    "g",
    { "data-piece": `cue card ${id}` },
    svg("circle", { cx, cy, r, fill: "none", stroke: "#000000", "stroke-width": 3 }),
    svg("circle", { cx, cy, r, fill: "none", stroke: "#FFFFFF", "stroke-width": 1.5, "stroke-dasharray": "3 2" }),
    svg("title", {}, `On your card: ${id}`),
  );
}

/** The board at (0, top): squares, labels on all four sides, then what lies on it. */
function boardGroup(
  geo: Geometry,
  game: Game,
  view: HuesAndCuesView,
  context: BoardContext,
  top: number,
): { element: SVGGElement; height: number } {
  const colors = palette(context);
  const group = svg("g", { transform: `translate(0 ${top + 22})`, "data-zone": "board" });
  const labelAttrs = { fill: MUTED, "text-anchor": "middle" };
  const gridWidth = geo.across * geo.cw;
  const gridHeight = geo.down * geo.ch;
  // Across the top and bottom: column numbers (wide) or row letters (narrow).
  for (let i = 0; i < geo.across; i++) {
    const x = LABEL + i * geo.cw + geo.cw / 2;
    const content = geo.wide ? String(i + 1) : (LETTERS[i] ?? "?");
    const attrs = { ...labelAttrs, "font-size": geo.wide ? 13 : 15, "font-weight": geo.wide ? 400 : 600 };
    group.append(text(x, -7, content, attrs), text(x, gridHeight + 17, content, attrs));
  }
  // Down both sides: row letters (wide) or column numbers (narrow).
  for (let i = 0; i < geo.down; i++) {
    const y = i * geo.ch + geo.ch / 2 + 5;
    const content = geo.wide ? (LETTERS[i] ?? "?") : String(i + 1);
    const attrs = { ...labelAttrs, "font-size": geo.wide ? 15 : 13, "font-weight": geo.wide ? 600 : 400 };
    group.append(text(LABEL / 2, y, content, attrs), text(LABEL + gridWidth + LABEL / 2, y, content, attrs));
  }
  const squares = svg("g", { "shape-rendering": "crispEdges" });
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLUMNS; c++) {
      const corner = geo.at(r, c);
      squares.append(
        svg("rect", {
          x: corner.x,
          y: corner.y,
          width: geo.cw,
          height: geo.ch,
          fill: colors.get(r * COLUMNS + c) ?? ((r + c) % 2 ? "#bdbdbd" : "#d0d0d0"),
          "data-square": squareId(r, c),
        }),
      );
    }
  }
  group.append(squares);
  if (colors.size === 0) {
    group.append(
      text(LABEL + gridWidth / 2, gridHeight / 2, "The board's colours have not loaded", {
        "text-anchor": "middle",
        "font-size": 20,
        fill: "#333333",
      }),
    );
  }

  const me = context.me || game.caller;
  const letters = markers(game);
  const last = view.lastRound;
  const over = view.phase === HuesAndCuesPhase.GAME_OVER;
  // The last scored round stays on the board until the next round's first cue is given.
  const showLast =
    last?.target !== undefined &&
    (over || (view.pieces.length === 0 && view.cues.length === 0 && view.target === undefined));
  if (view.card && !showLast) {
    for (const square of view.card.squares) group.append(cardSquare(geo, square));
  }
  if (showLast && last?.target) group.append(targetAndFrame(geo, last.target, false));
  else if (view.target) group.append(targetAndFrame(geo, view.target, view.cueGiver === me));
  const pieces = showLast && last ? last.pieces.flatMap((scored) => (scored.piece ? [scored.piece] : [])) : view.pieces;
  // The piece the last move placed gets a ring.
  const placed = new Set(
    (context.recent ?? []).flatMap((event) =>
      event.event.case === "huesAndCues" && event.event.value.event.case === "guessPlaced"
        ? [event.event.value.event.value.piece?.square?.id ?? ""]
        : [],
    ),
  );
  for (const piece of pieces) {
    const id = piece.square?.id ?? "";
    if (!showLast && placed.has(id)) {
      const corner = geo.at(piece.square?.row ?? 0, piece.square?.column ?? 0);
      const ring = { cx: corner.x + geo.cw / 2, cy: corner.y + geo.ch / 2, r: Math.min(geo.cw, geo.ch) / 2 + 4, fill: "none" };
      group.append(
        svg("g", { "data-recent": id }, svg("circle", { ...ring, stroke: "#000000", "stroke-width": 4 }),
          svg("circle", { ...ring, stroke: "#ffffff", "stroke-width": 2 })),
      );
    }
    group.append(cone(geo, piece, letters.get(piece.player) ?? "?", context, showLast && !over));
  }
  return { element: group, height: 22 + gridHeight + 24 };
}

/** The players: marker, name, score and role; a column beside the board (wide) or rows below it. */
function players(
  geo: Geometry,
  game: Game,
  view: HuesAndCuesView,
  context: BoardContext,
  left: number,
  top: number,
): { element: SVGGElement; height: number } {
  const group = svg("g", { "data-zone": "players" });
  const letters = markers(game);
  const me = context.me || game.caller;
  const columns = geo.wide ? 1 : 3;
  const columnWidth = geo.wide ? geo.width - left - MARGIN : (geo.width - 2 * MARGIN) / columns;
  const rowHeight = geo.wide ? 56 : 34;
  const size = geo.wide ? 20 : 16;
  if (geo.wide) group.append(text(left, top + 18, "Players", { "font-size": 18, fill: MUTED }));
  const y0 = geo.wide ? top + 30 : top;
  game.players.forEach((player, index) => {
    const x = left + (index % columns) * columnWidth;
    const y = y0 + Math.floor(index / columns) * rowHeight;
    const fill = playerColor(player.name);
    const letter = letters.get(player.name) ?? "?";
    const toMove = game.currentPlayer === player.name;
    const entry = svg("g", { "data-player": player.displayName });
    if (toMove) {
      entry.append(
        svg("rect", {
          x: x - 3,
          y,
          width: columnWidth - 4,
          height: rowHeight - 4,
          rx: 8,
          fill: "#fff3c4",
          stroke: "#c99a00",
        }),
      );
    }
    const r = geo.wide ? 14 : 11;
    const cy = y + (geo.wide ? 20 : (rowHeight - 4) / 2);
    entry.append(
      svg("circle", { cx: x + r + 2, cy, r, fill, stroke: "#000000", "stroke-width": 1.5 }),
      text(x + r + 2, cy + r * 0.38, letter, {
        "text-anchor": "middle",
        "font-size": letter.length > 1 ? r * 0.9 : r * 1.2,
        "font-weight": 700,
        fill: contrast(fill),
      }),
    );
    const nameX = x + 2 * r + 10;
    const label = `${toMove ? "▶ " : ""}${player.displayName}${player.name === me && me ? " (you)" : ""}`;
    const scoreText = `${player.score}`;
    if (geo.wide) {
      entry.append(
        text(nameX, cy + 7, clip(label, columnWidth - (nameX - x) - 6, size), {
          "font-size": size,
          "font-weight": toMove || player.name === me ? 700 : 400,
        }),
        text(nameX, cy + 29, `${scoreText} pts`, { "font-size": 16, "font-weight": 700 }),
      );
      const badge =
        player.name === view.cueGiver && view.phase !== HuesAndCuesPhase.GAME_OVER
          ? chip(nameX + 62, cy + 28, "cue giver", "#222222", "#ffffff", 13)
          : game.winners.includes(player.name)
            ? chip(nameX + 62, cy + 28, "★ won", "#8a6d00", "#ffffff", 13)
            : player.resigned
              ? chip(nameX + 62, cy + 28, "bot", "#777777", "#ffffff", 13)
              : undefined;
      if (badge) entry.append(badge.element);
    } else {
      const giver = player.name === view.cueGiver && view.phase !== HuesAndCuesPhase.GAME_OVER;
      const won = game.winners.includes(player.name);
      const suffix = `${giver ? " ✎" : ""}${won ? " ★" : ""}`;
      entry.append(
        text(nameX, cy + 6, clip(`${label}${suffix}`, columnWidth - (nameX - x) - 34, size), {
          "font-size": size,
          "font-weight": toMove || player.name === me ? 700 : 400,
        }),
        text(x + columnWidth - 10, cy + 6, scoreText, { "font-size": size, "font-weight": 700, "text-anchor": "end" }),
      );
    }
    group.append(entry);
  });
  const rows = Math.ceil(game.players.length / columns);
  let height = (y0 - top) + rows * rowHeight;
  if (!geo.wide) {
    group.append(text(MARGIN, top + height + 14, "✎ gives the cues · ★ won", { "font-size": 14, fill: MUTED }));
    height += 22;
  }
  return { element: group, height };
}

/** The header: round, phase, who acts, the cues and the viewer's role. */
function header(geo: Geometry, game: Game, view: HuesAndCuesView, context: BoardContext): { element: SVGGElement; height: number } {
  const group = svg("g", { "data-zone": "status" });
  const width = geo.boardWidth - 2 * MARGIN;
  const sizes = geo.wide ? { title: 28, line: 24, cue: 23, role: 21 } : { title: 23, line: 19, cue: 19, role: 16 };
  const rounds =
    view.round === 0
      ? "Before the first round"
      : view.tiebreak
        ? `Round ${view.round}, a tie-break`
        : geo.wide
          ? `Round ${view.round} of ${view.regularRounds}`
          : `Round ${view.round}/${view.regularRounds}`;
  const phase = PHASE_NAMES[view.phase] ?? "";
  let y = 4;
  for (const line of wrap(`${rounds}${phase ? ` · ${phase}` : ""}`, width, sizes.title * 1.1)) {
    y += sizes.title * 1.2;
    group.append(text(MARGIN, y, line, { "font-size": sizes.title, "font-weight": 700 }));
  }
  for (const line of wrap(waitingFor(game, view, context), width, sizes.line)) {
    y += sizes.line * 1.45;
    group.append(text(MARGIN, y, line, { "font-size": sizes.line }));
  }
  y += sizes.cue * 1.75;
  let x = MARGIN;
  if (view.cues.length === 0) {
    group.append(text(x, y, "No cue yet this round", { "font-size": sizes.cue, fill: MUTED, "font-style": "italic" }));
  } else {
    const word = view.cues.length > 1 ? "Cues:" : "Cue:";
    group.append(text(x, y, word, { "font-size": sizes.cue, fill: MUTED }));
    x += sizes.cue * 3;
    for (const cue of view.cues) {
      const made = chip(x, y, `“${cue}”`, "#1f3a5f", "#ffffff", sizes.cue, { "data-piece": `cue ${cue}` });
      group.append(made.element);
      x += made.width + 10;
    }
  }
  const mine = role(game, view, context, geo.wide);
  for (const line of mine ? wrap(mine, width, sizes.role) : []) {
    y += sizes.role * 1.45;
    group.append(text(MARGIN, y, line, { "font-size": sizes.role, fill: MUTED }));
  }
  return { element: group, height: y + 6 };
}

/** The last scored round in words: target, frame and everyone's points. */
function lastRoundLine(view: HuesAndCuesView, context: BoardContext): string {
  const last = view.lastRound;
  if (!last) return "";
  const points = last.points.map((p) => `${nameOf(context, p.player)} +${p.points}`);
  return (
    `Round ${last.round} was scored: the target was ${last.target?.id ?? "?"}, ` +
    `${plural(last.piecesInFrame, "piece")} in the frame for ${nameOf(context, last.cueGiver)}. ${points.join(", ")}.`
  );
}

function endReason(view: HuesAndCuesView): string {
  if (view.phase !== HuesAndCuesPhase.GAME_OVER) return "";
  switch (view.endReason) {
    case HuesAndCuesEndReason.ALL_TIED:
      return "Everyone tied on the highest score.";
    case HuesAndCuesEndReason.TIEBREAK_CAP:
      return "Ten tie-break rounds left the lead shared.";
    default:
      return "";
  }
}

function draw(game: Game, context: BoardContext): SVGSVGElement {
  const geo = geometry(isWide());
  const view = game.view.case === "huesAndCuesView" ? game.view.value : undefined;
  const element = root("hues_and_cues", geo.width, 200, "Hues and Cues board", geo.wide ? 1100 : 560);
  if (!view) {
    element.append(text(MARGIN, 40, "No board to show yet", { "font-size": 22 }));
    setHeight(element, geo.width, 60);
    return element;
  }
  const head = header(geo, game, view, context);
  element.append(head.element);
  let y = head.height + 4;
  const board = boardGroup(geo, game, view, context, y);
  element.append(board.element);
  const boardTop = y;
  y += board.height + 4;
  const textWidth = geo.boardWidth - 2 * MARGIN;
  const notes: [string, number, string][] = [];
  if (geo.wide) notes.push(["● first guess  ◆ second guess  ▣ target and its scoring frame (dashed: 2 away)", 18, MUTED]);
  const last = lastRoundLine(view, context);
  if (last && (geo.wide || view.phase === HuesAndCuesPhase.GAME_OVER)) notes.push([last, geo.wide ? 20 : 16, "#1b1b1b"]);
  const reason = endReason(view);
  if (reason) notes.push([reason, geo.wide ? 20 : 16, MUTED]);
  for (const [content, size, fill] of notes) {
    for (const line of wrap(content, textWidth, size)) {
      y += size * 1.4;
      element.append(text(MARGIN, y, line, { "font-size": size, fill }));
    }
  }
  y += 10;
  if (geo.wide) {
    const list = players(geo, game, view, context, geo.boardWidth + 14, boardTop - 10);
    element.append(list.element);
    y = Math.max(y, boardTop - 10 + list.height + 10);
  } else {
    const list = players(geo, game, view, context, MARGIN, y);
    element.append(list.element);
    y += list.height + 6;
  }
  setHeight(element, geo.width, y);
  return element;
}

/** The number of words of a cue: split on spaces and hyphens, as the rules count them. */
function words(cue: string): number {
  return cue.split(/[\s-]+/).filter((w) => w.length > 0).length;
}

function describe(event: GameEvent, context: BoardContext): string {
  const fact = event.event;
  if (fact.case !== "huesAndCues") {
    return describeCommon(event, context) || "Something happened at the table";
  }
  const who = (player: string): string => nameOf(context, player);
  const e = fact.value.event;
  switch (e.case) {
    case "deckShuffled":
      return `The ${plural(e.value.size, "cue card")} were shuffled`;
    case "firstCueGiverChosen":
      return e.value.drawn
        ? `${who(e.value.player)} was drawn to give the first cues`
        : `${who(e.value.player)} gives the first cues`;
    case "roundStarted":
      return `Round ${e.value.round}${e.value.tiebreak ? " (a tie-break)" : ""}: ${who(e.value.cueGiver)} gives the cues`;
    case "cardDrawn": {
      const card = e.value.card;
      return card
        ? `${who(e.value.player)} drew card ${card.id}: ${card.squares.map((s) => s.id).join(", ")}`
        : `${who(e.value.player)} drew a cue card`;
    }
    case "targetChosen":
      return e.value.target
        ? `${who(e.value.player)} chose the target ${e.value.target.id}`
        : `${who(e.value.player)} chose a target in secret`;
    case "cueGiven": {
      const n = words(e.value.text);
      const which = e.value.cueNo === 2 ? "a second cue" : "the cue";
      return `${who(e.value.player)} gave ${which} ‘${e.value.text}’ (${plural(n, "word")})`;
    }
    case "guessPlaced": {
      const piece = e.value.piece;
      if (!piece) return "A guess was placed";
      return `${who(piece.player)} guessed ${piece.square?.id ?? "?"}${piece.guessNo === 2 ? " (second guess)" : ""}`;
    }
    case "secondCueSkipped":
      return `${who(e.value.player)} gave no second cue`;
    case "targetRevealed":
      return `The target was ${e.value.target?.id ?? "?"}`;
    case "roundScored": {
      const points = e.value.points.map((p) => `${who(p.player)} +${p.points}`).join(", ");
      return `Round ${e.value.round} scored (${plural(e.value.piecesInFrame, "piece")} in the frame): ${points}`;
    }
    case "gameEnded": {
      const winners = listNames(e.value.winners.map(who));
      const scores = e.value.scores.map((s) => `${who(s.player)} ${s.points}`).join(", ");
      return `The game ended: ${winners} ${e.value.winners.length > 1 ? "share the win" : "won"} (${scores})`;
    }
    default:
      return "Something happened on the board";
  }
}

function label(move: Move, _context: BoardContext): string {
  if (move.game.case !== "huesAndCues") return "Move";
  const action = move.game.value.action;
  switch (action.case) {
    case "giveFirstCue":
      return `Cue ‘${action.value.cue}’ for ${action.value.target?.id ?? "?"}`;
    case "placeGuess":
      return `Guess ${action.value.square?.id ?? "?"}`;
    case "giveSecondCue":
      return `Second cue: ‘${action.value.cue}’`;
    case "skipSecondCue":
      return "Skip the second cue";
    default:
      return "Move";
  }
}

/**
 * The board with its squares to click: a guesser picks the square of a guess
 * (a second click on it places the piece), the cue giver the target, whose
 * cues the page then lists.
 */
function interactive(game: Game, context: BoardContext, picker: Picker): HTMLElement {
  const drawing = draw(game, context);
  const bySquare = movesBy(picker.moves, (move) => {
    if (move.game.case !== "huesAndCues") return [];
    const action = move.game.value.action;
    if (action.case === "placeGuess") return [action.value.square?.id ?? ""];
    if (action.case === "giveFirstCue") return [action.value.target?.id ?? ""];
    return [];
  });
  const targets = [...drawing.querySelectorAll("[data-square]")].flatMap((element) => {
    const moves = bySquare.get(element.getAttribute("data-square") ?? "");
    return moves ? [[element, moves] as const] : [];
  });
  return pickOn(drawing, picker, targets);
}

export const board: Board = { draw, describe, label, interactive };
