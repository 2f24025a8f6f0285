// Hues and Cues: the 16 x 30 board in the colours ListGameTypes gives, its row
// letters and column numbers, the players' pieces (cones), the cues of the
// round and, once the round is scored, the target with its scoring frame.
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
import type { Board, BoardContext } from "./board";
import {
  MUTED,
  PLAYER_COLORS,
  chip,
  clip,
  contrast,
  describeCommon,
  listNames,
  nameOf,
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
const CELL = 24;
const WIDTH = 780;
const X0 = 30; // left edge of the grid, after the row letters
const MARGIN = 10;
const MAX_WIDTH = 780;

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
  const who = mover === me && me ? "You" : nameOf(context, mover);
  const giver = view.cueGiver === me && me ? "You" : nameOf(context, view.cueGiver);
  switch (view.phase) {
    case HuesAndCuesPhase.FIRST_CUE:
      return giver === "You" ? "Your turn: choose a colour and give the first cue" : `${giver} chooses a colour and gives the first cue`;
    case HuesAndCuesPhase.FIRST_GUESSES:
      return mover ? (who === "You" ? "Your turn: place a first guess" : `${who} places a first guess`) : "First guesses";
    case HuesAndCuesPhase.SECOND_CUE:
      return giver === "You" ? "Your turn: give a second cue or skip it" : `${giver} may give a second cue or skip it`;
    case HuesAndCuesPhase.SECOND_GUESSES:
      return mover ? (who === "You" ? "Your turn: place a second guess" : `${who} places a second guess`) : "Second guesses";
    case HuesAndCuesPhase.GAME_OVER: {
      const winners = game.winners.map((w) => nameOf(context, w));
      if (winners.length === 0) return "The game is over";
      return `${listNames(winners)} ${winners.length > 1 ? "share the win" : "won"}`;
    }
    default:
      return game.state === GameState.WAITING_FOR_PLAYERS ? "Waiting for players" : "";
  }
}

/** A cone: a disc for a first guess, a diamond for a second, with the player's marker. */
function cone(
  piece: HuesAndCuesPiece,
  letter: string,
  context: BoardContext,
  faded = false,
): SVGGElement {
  const at = piece.square;
  const row = at?.row ?? 0;
  const column = at?.column ?? 0;
  const cx = X0 + column * CELL + CELL / 2;
  const cy = row * CELL + CELL / 2;
  const fill = playerColor(piece.player);
  const name = nameOf(context, piece.player);
  const id = at?.id || squareId(row, column);
  const group = svg("g", {
    "data-piece": `cone ${name} ${id}`,
    "data-guess": piece.guessNo,
    opacity: faded ? 0.85 : undefined,
  });
  const r = 9.5;
  const outline =
    piece.guessNo === 2
      ? (grow: number) =>
          svg("path", {
            d: `M ${cx} ${cy - r - grow - 1.5} L ${cx + r + grow + 1.5} ${cy} L ${cx} ${cy + r + grow + 1.5} L ${cx - r - grow - 1.5} ${cy} Z`,
          })
      : (grow: number) => svg("circle", { cx, cy, r: r + grow });
  const halo = outline(1.5);
  halo.setAttribute("fill", "#000000");
  const ring = outline(0.5);
  ring.setAttribute("fill", "#FFFFFF");
  const body = outline(-1);
  body.setAttribute("fill", fill);
  group.append(halo, ring, body);
  group.append(
    text(cx, cy + 4.5, letter, {
      "text-anchor": "middle",
      "font-size": letter.length > 1 ? 10 : 13,
      "font-weight": 700,
      fill: contrast(fill),
    }),
  );
  group.append(svg("title", {}, `${name}: ${piece.guessNo === 2 ? "second" : "first"} guess ${id}`));
  return group;
}

/** The double outline of a rectangle of squares, clipped to the board. */
function squareOutline(
  row0: number,
  column0: number,
  row1: number,
  column1: number,
  dashed: boolean,
): SVGGElement {
  const r0 = Math.max(0, row0);
  const c0 = Math.max(0, column0);
  const r1 = Math.min(ROWS - 1, row1);
  const c1 = Math.min(COLUMNS - 1, column1);
  const box = {
    x: X0 + c0 * CELL,
    y: r0 * CELL,
    width: (c1 - c0 + 1) * CELL,
    height: (r1 - r0 + 1) * CELL,
    fill: "none",
  };
  return svg(
    "g",
    {},
    svg("rect", {
      ...box,
      stroke: "#000000",
      "stroke-width": dashed ? 2 : 4,
      "stroke-dasharray": dashed ? "5 4" : undefined,
    }),
    svg("rect", {
      ...box,
      stroke: "#FFFFFF",
      "stroke-width": dashed ? 0.8 : 1.6,
      "stroke-dasharray": dashed ? "5 4" : undefined,
    }),
  );
}

/** The target with its scoring frame (distance 1) and, dashed, the ring at distance 2. */
function targetAndFrame(target: HuesAndCuesSquare, mine: boolean): SVGGElement {
  const id = target.id || squareId(target.row, target.column);
  const group = svg("g", { "data-piece": `target ${id}` });
  const frame = squareOutline(target.row - 1, target.column - 1, target.row + 1, target.column + 1, false);
  frame.setAttribute("data-piece", `frame ${id}`);
  group.append(
    squareOutline(target.row - 2, target.column - 2, target.row + 2, target.column + 2, true),
    frame,
    squareOutline(target.row, target.column, target.row, target.column, false),
  );
  const cx = X0 + target.column * CELL + CELL / 2;
  const cy = target.row * CELL + CELL / 2;
  group.append(
    svg("circle", { cx, cy, r: 4.5, fill: "#000000", stroke: "#FFFFFF", "stroke-width": 1.5 }),
    svg("title", {}, mine ? `Your target: ${id}` : `Target ${id}`),
  );
  return group;
}

/** A square of the cue giver's card: a dashed ring the target is chosen from. */
function cardSquare(square: HuesAndCuesSquare): SVGGElement {
  const id = square.id || squareId(square.row, square.column);
  const cx = X0 + square.column * CELL + CELL / 2;
  const cy = square.row * CELL + CELL / 2;
  return svg(
    "g",
    { "data-piece": `cue card ${id}` },
    svg("circle", { cx, cy, r: 9, fill: "none", stroke: "#000000", "stroke-width": 3 }),
    svg("circle", {
      cx,
      cy,
      r: 9,
      fill: "none",
      stroke: "#FFFFFF",
      "stroke-width": 1.5,
      "stroke-dasharray": "3 2",
    }),
    svg("title", {}, `On your card: ${id}`),
  );
}

/** The board: squares, labels on all four sides, then what lies on it. */
function boardGroup(
  game: Game,
  view: HuesAndCuesView,
  context: BoardContext,
  top: number,
): { element: SVGGElement; height: number } {
  const colors = palette(context);
  const group = svg("g", { transform: `translate(0 ${top + 22})`, "data-zone": "board" });
  const labelAttrs = { "font-size": 13, fill: MUTED, "text-anchor": "middle" };
  for (let c = 0; c < COLUMNS; c++) {
    const x = X0 + c * CELL + CELL / 2;
    const cls = (c + 1) % 2 === 0 ? "hc-label hc-even" : "hc-label";
    group.append(text(x, -7, String(c + 1), { ...labelAttrs, class: cls }));
    group.append(text(x, ROWS * CELL + 17, String(c + 1), { ...labelAttrs, class: cls }));
  }
  for (let r = 0; r < ROWS; r++) {
    const y = r * CELL + CELL / 2 + 5;
    const letter = LETTERS[r] ?? "?";
    const attrs = { ...labelAttrs, "font-size": 15, "font-weight": 600, class: "hc-row" };
    group.append(text(X0 / 2, y, letter, attrs), text(X0 + COLUMNS * CELL + X0 / 2, y, letter, attrs));
  }
  const squares = svg("g", { "shape-rendering": "crispEdges" });
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLUMNS; c++) {
      const id = squareId(r, c);
      squares.append(
        svg("rect", {
          x: X0 + c * CELL,
          y: r * CELL,
          width: CELL,
          height: CELL,
          fill: colors.get(r * COLUMNS + c) ?? ((r + c) % 2 ? "#bdbdbd" : "#d0d0d0"),
          "data-square": id,
        }),
      );
    }
  }
  group.append(squares);
  if (colors.size === 0) {
    group.append(
      text(X0 + (COLUMNS * CELL) / 2, (ROWS * CELL) / 2, "The board's colours have not loaded", {
        "text-anchor": "middle",
        "font-size": 22,
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
    last !== undefined &&
    last.target !== undefined &&
    (over || (view.pieces.length === 0 && view.cues.length === 0 && view.target === undefined));
  if (view.card && !showLast) {
    for (const square of view.card.squares) group.append(cardSquare(square));
  }
  if (showLast && last?.target) {
    group.append(targetAndFrame(last.target, false));
  } else if (view.target) {
    group.append(targetAndFrame(view.target, view.cueGiver === me));
  }
  const pieces = showLast && last ? last.pieces.flatMap((scored) => (scored.piece ? [scored.piece] : [])) : view.pieces;
  for (const piece of pieces) {
    group.append(cone(piece, letters.get(piece.player) ?? "?", context, showLast && !over));
  }
  return { element: group, height: 22 + ROWS * CELL + 24 };
}

/** The players: marker, name, score and role, in two columns. */
function legend(
  game: Game,
  view: HuesAndCuesView,
  context: BoardContext,
  top: number,
): { element: SVGGElement; height: number } {
  const group = svg("g", { "data-zone": "players" });
  const letters = markers(game);
  const me = context.me || game.caller;
  const columnWidth = (WIDTH - 2 * MARGIN) / 2;
  const rowHeight = 44;
  game.players.forEach((player, index) => {
    const x = MARGIN + (index % 2) * columnWidth;
    const y = top + Math.floor(index / 2) * rowHeight + 30;
    const fill = playerColor(player.name);
    const letter = letters.get(player.name) ?? "?";
    const toMove = game.currentPlayer === player.name;
    const entry = svg("g", { "data-player": player.displayName });
    if (toMove) {
      entry.append(
        svg("rect", {
          x: x - 2,
          y: y - 30,
          width: columnWidth - 8,
          height: rowHeight - 4,
          rx: 8,
          fill: "#fff3c4",
          stroke: "#c99a00",
        }),
      );
    }
    entry.append(
      svg("circle", { cx: x + 17, cy: y - 8, r: 15, fill, stroke: "#000000", "stroke-width": 1.5 }),
      text(x + 17, y - 2, letter, {
        "text-anchor": "middle",
        "font-size": letter.length > 1 ? 14 : 18,
        "font-weight": 700,
        fill: contrast(fill),
      }),
    );
    const label = `${toMove ? "▶ " : ""}${player.displayName}${player.name === me && me ? " (you)" : ""}`;
    const score = `${player.score}`;
    const nameWidth = columnWidth - 40 - 170;
    entry.append(
      text(x + 38, y, clip(label, nameWidth, 23), {
        "font-size": 23,
        "font-weight": toMove || player.name === me ? 700 : 400,
      }),
      text(x + columnWidth - 122, y, score, { "font-size": 23, "font-weight": 700, "text-anchor": "end" }),
      text(x + columnWidth - 118, y, "pts", { "font-size": 17, fill: MUTED }),
    );
    if (player.name === view.cueGiver && view.phase !== HuesAndCuesPhase.GAME_OVER) {
      entry.append(chip(x + columnWidth - 80, y - 2, "cues", "#222222", "#ffffff", 16).element);
    } else if (game.winners.includes(player.name)) {
      entry.append(chip(x + columnWidth - 80, y - 2, "★ won", "#8a6d00", "#ffffff", 16).element);
    }
    if (player.resigned) {
      entry.append(chip(x + columnWidth - 80, y - 2, "bot", "#777777", "#ffffff", 16).element);
    }
    group.append(entry);
  });
  const rows = Math.ceil(game.players.length / 2);
  return { element: group, height: rows * rowHeight + 8 };
}

/** The header: round, phase, who acts, the cues and the viewer's role. */
function header(
  game: Game,
  view: HuesAndCuesView,
  context: BoardContext,
): { element: SVGGElement; height: number } {
  const group = svg("g", { "data-zone": "status" });
  const me = context.me || game.caller;
  const rounds =
    view.round === 0
      ? "Before the first round"
      : view.tiebreak
        ? `Round ${view.round}, a tie-break`
        : `Round ${view.round} of ${view.regularRounds}`;
  const phase = PHASE_NAMES[view.phase] ?? "";
  group.append(
    text(MARGIN, 32, `${rounds}${phase ? ` · ${phase}` : ""}`, { "font-size": 28, "font-weight": 700 }),
  );
  let y = 70;
  const waiting = waitingFor(game, view, context);
  if (waiting) {
    group.append(text(MARGIN, y, waiting, { "font-size": 25 }));
    y += 42;
  }
  // The cues as speech chips.
  let x = MARGIN;
  if (view.cues.length === 0) {
    group.append(text(x, y, "No cue yet this round", { "font-size": 24, fill: MUTED, "font-style": "italic" }));
  } else {
    group.append(text(x, y, view.cues.length > 1 ? "Cues:" : "Cue:", { "font-size": 24, fill: MUTED }));
    x += 72;
    for (const cue of view.cues) {
      const made = chip(x, y, `“${cue}”`, "#1f3a5f", "#ffffff", 24, { "data-piece": `cue ${cue}` });
      group.append(made.element);
      x += made.width + 10;
    }
  }
  y += 38;
  let role = "You are watching";
  if (view.phase === HuesAndCuesPhase.GAME_OVER) role = "";
  else if (me && game.players.some((p) => p.name === me)) {
    if (view.cueGiver !== me) role = "You are guessing";
    else if (view.target) role = `You give the cues: your target is ${view.target.id}`;
    else if (view.card) {
      const squares = view.card.squares.map((s) => s.id).join(", ");
      role = `You give the cues: choose one of your card's squares (${squares})`;
    } else role = "You give the cues: choose any square";
  }
  for (const line of role ? wrap(role, WIDTH - 2 * MARGIN, 22) : []) {
    group.append(text(MARGIN, y, line, { "font-size": 22, fill: MUTED }));
    y += 30;
  }
  return { element: group, height: y - 8 };
}

/** The last scored round in words: target, frame and everyone's points. */
function lastRoundLines(view: HuesAndCuesView, context: BoardContext): string[] {
  const last = view.lastRound;
  if (!last) return [];
  const points = last.points.map((p) => `${nameOf(context, p.player)} ${p.points > 0 ? "+" : ""}${p.points}`);
  return [
    `Round ${last.round} was scored: the target was ${last.target?.id ?? "?"}, ` +
      `${plural(last.piecesInFrame, "piece")} in the frame for ${nameOf(context, last.cueGiver)}. ` +
      `${points.join(", ")}.`,
  ];
}

function draw(game: Game, context: BoardContext): SVGSVGElement {
  const view = game.view.case === "huesAndCuesView" ? game.view.value : undefined;
  const element = root("hues_and_cues", WIDTH, 200, "Hues and Cues board", MAX_WIDTH);
  // Narrow screens: every other column number, larger, so the labels stay readable.
  element.append(
    svg(
      "style",
      {},
      "@media (max-width: 560px) { svg[data-board=hues_and_cues] .hc-even { display: none } " +
        "svg[data-board=hues_and_cues] .hc-label { font-size: 20px } " +
        "svg[data-board=hues_and_cues] .hc-row { font-size: 20px } }",
    ),
  );
  if (!view) {
    element.append(text(MARGIN, 40, "No board to show yet", { "font-size": 22 }));
    setHeight(element, WIDTH, 60);
    return element;
  }
  const head = header(game, view, context);
  element.append(head.element);
  let y = head.height + 6;
  const board = boardGroup(game, view, context, y);
  element.append(board.element);
  y += board.height + 8;
  // The legend of the marks.
  const keyAttrs = { "font-size": 19, fill: MUTED };
  element.append(
    text(MARGIN, y + 12, "● first guess  ◆ second guess  ▣ target and scoring frame (dashed: 2 away)", keyAttrs),
  );
  y += 30;
  for (const line of lastRoundLines(view, context).flatMap((l) => wrap(l, WIDTH - 2 * MARGIN, 21))) {
    element.append(text(MARGIN, y + 16, line, { "font-size": 21 }));
    y += 29;
  }
  const players = legend(game, view, context, y);
  element.append(players.element);
  y += players.height;
  if (view.phase === HuesAndCuesPhase.GAME_OVER && view.endReason !== HuesAndCuesEndReason.UNSPECIFIED) {
    const reason =
      view.endReason === HuesAndCuesEndReason.ALL_TIED
        ? "Everyone tied on the highest score"
        : view.endReason === HuesAndCuesEndReason.TIEBREAK_CAP
          ? "Ten tie-break rounds left the lead shared"
          : "";
    if (reason) {
      element.append(text(MARGIN, y + 16, reason, { "font-size": 21, fill: MUTED }));
      y += 26;
    }
  }
  setHeight(element, WIDTH, y + 6);
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

export const board: Board = { draw, describe, label };
