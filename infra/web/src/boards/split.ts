// Split: the draw pile, the discard row, and each player's area: their hand (face
// up for its owner, card backs for everyone else), their matches and score sheet.
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import type { Game } from "../gen/tabletop/v1/game_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
import {
  type SplitCard,
  SplitEndReason,
  type SplitMatch,
  SplitMatchType,
  SplitPhase,
  type SplitPublicState,
  type SplitScoreSheet,
  type SplitView,
} from "../gen/tabletop/v1/split_pb";
import type { Board, BoardContext, Picker } from "./board";
import {
  MUTED,
  TABLE,
  badgeRow,
  cardBack,
  clip,
  describeCommon,
  facedownPile,
  findAll,
  isWide,
  listNames,
  movesBy,
  nameOf,
  nameOfSeat,
  num,
  pickOn,
  plural,
  root,
  seatRows,
  setHeight,
  svg,
  text,
  textWidth,
  wrap,
  type SeatArea,
} from "./draw";

const MARGIN = 10;
const HALF_W = 34; // a half card
const HALF_H = 58;
const MATCH_W = 26; // a match's halves on a phone
const MATCH_H = 44;
const GAP = 5;
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  H: { symbol: "♥", name: "hearts", red: true },
  D: { symbol: "♦", name: "diamonds", red: true },
  C: { symbol: "♣", name: "clubs", red: false },
  S: { symbol: "♠", name: "spades", red: false },
};
const RED = "#c62828";
const BLACK = "#1b1b1b";

interface Parsed {
  rank: string;
  suit: string;
  half: "L" | "R";
}

/** Reads a card id, "10H-L": rank, suit, half. */
function parse(id: string): Parsed {
  const [face = "", half = "L"] = id.split("-");
  return { rank: face.slice(0, -1), suit: face.slice(-1), half: half === "R" ? "R" : "L" };
}

/** A card in words: "7♥L". */
function cardName(card: SplitCard | undefined): string {
  if (!card) return "a card";
  const { rank, suit, half } = parse(card.id);
  return `${rank}${SUITS[suit]?.symbol ?? suit}${half}`;
}

const TYPE_NAMES: Record<number, string> = {
  [SplitMatchType.WEAK]: "weak",
  [SplitMatchType.STRONG]: "strong",
  [SplitMatchType.PERFECT]: "perfect",
};

/** A half card face up: rounded on its outer side, a dashed cut on the inner one. */
function halfCard(x: number, y: number, card: SplitCard, w = HALF_W, h = HALF_H): SVGGElement {
  const { rank, suit, half } = parse(card.id);
  const info = SUITS[suit];
  const color = info?.red ? RED : BLACK;
  const r = 6;
  const k = w / HALF_W;
  const outline =
    half === "L"
      ? `M ${x + w} ${y} L ${x + r} ${y} Q ${x} ${y} ${x} ${y + r} L ${x} ${y + h - r} Q ${x} ${y + h} ${x + r} ${y + h} L ${x + w} ${y + h} Z`
      : `M ${x} ${y} L ${x + w - r} ${y} Q ${x + w} ${y} ${x + w} ${y + r} L ${x + w} ${y + h - r} Q ${x + w} ${y + h} ${x + w - r} ${y + h} L ${x} ${y + h} Z`;
  const cut = half === "L" ? x + w : x;
  const group = svg(
    "g",
    { "data-piece": `card ${card.id}` },
    svg("path", { d: outline, fill: "#ffffff", stroke: "#7a7a7a", "stroke-width": 1.2 }),
    svg("line", {
      x1: cut,
      y1: y + 2,
      x2: cut,
      y2: y + h - 2,
      stroke: "#b0b0b0",
      "stroke-width": 1.2,
      "stroke-dasharray": "3 3",
    }),
    text(x + w / 2, y + 20 * k, rank, {
      "text-anchor": "middle",
      "font-size": (rank.length > 1 ? 17 : 20) * k,
      "font-weight": 700,
      fill: color,
    }),
    text(x + w / 2, y + 42 * k, info?.symbol ?? suit, { "text-anchor": "middle", "font-size": 21 * k, fill: color }),
    text(half === "L" ? x + 5 * k : x + w - 5 * k, y + h - 4 * k, half, {
      "text-anchor": half === "L" ? "start" : "end",
      "font-size": 10 * k,
      fill: MUTED,
    }),
    svg("title", {}, `${rank} of ${info?.name ?? suit}, ${half === "L" ? "left" : "right"} half`),
  );
  return group;
}

/** Lays cards left to right from (x, y), wrapping at `width`; returns the height used. */
function cardRow(
  parent: SVGElement,
  x: number,
  y: number,
  width: number,
  cards: readonly SplitCard[],
  numbered = false,
): number {
  const step = HALF_W + GAP;
  const perLine = Math.max(1, Math.floor((width + GAP) / step));
  const lineHeight = HALF_H + (numbered ? 22 : 8);
  cards.forEach((card, i) => {
    const cx = x + (i % perLine) * step;
    const cy = y + Math.floor(i / perLine) * lineHeight;
    parent.append(halfCard(cx, cy, card));
    if (numbered) {
      parent.append(
        text(cx + HALF_W / 2, cy + HALF_H + 16, String(i + 1), {
          "text-anchor": "middle",
          "font-size": 14,
          fill: MUTED,
        }),
      );
    }
  });
  return cards.length === 0 ? 0 : Math.ceil(cards.length / perLine) * lineHeight;
}

/** Card backs for a hand nobody but its owner may see, overlapping, with the count. */
function backs(parent: SVGElement, x: number, y: number, count: number, width: number, small: boolean): number {
  const w = small ? 18 : HALF_W;
  const h = small ? 30 : HALF_H;
  const room = small ? 10 : 16;
  const step = Math.min(room, count > 1 ? (width - 110 - w) / (count - 1) : room);
  for (let i = 0; i < count; i++) parent.append(cardBack(x + i * step, y, w, h));
  const end = x + (count > 0 ? (count - 1) * step + w : 0);
  parent.append(
    text(end + 10, y + h / 2 + 6, count === 0 ? "no cards" : plural(count, "card"), {
      "font-size": small ? 17 : 19,
      fill: MUTED,
    }),
  );
  return h + 8;
}

/** A match: its two visible halves with the covered cards beneath, its id and type. */
function matchBlock(x: number, y: number, match: SplitMatch, pending: boolean, small: boolean): SVGGElement {
  const w = small ? MATCH_W : HALF_W;
  const h = small ? MATCH_H : HALF_H;
  const type = TYPE_NAMES[match.type] ?? "";
  const group = svg("g", { "data-piece": `match ${match.id} ${match.rank} ${type}` });
  if (pending) {
    group.append(
      svg("rect", {
        x: x - 6,
        y: y - 8,
        width: 2 * w + 12,
        height: h + (small ? 30 : 36),
        rx: 8,
        fill: "#fff3c4",
        stroke: "#c99a00",
      }),
    );
  }
  const stacks: [readonly SplitCard[], number][] = [
    [match.leftStack, x],
    [match.rightStack, x + w],
  ];
  for (const [stack, sx] of stacks) {
    const covered = Math.min(2, Math.max(0, stack.length - 1));
    for (let i = covered; i > 0; i--) {
      group.append(
        svg("rect", {
          x: sx + (sx === x ? -i * 3 : i * 3),
          y: y - i * 3,
          width: w,
          height: h,
          rx: 5,
          fill: "#e9e9e9",
          stroke: "#9a9a9a",
        }),
      );
    }
    const top = stack[stack.length - 1];
    if (top) group.append(halfCard(sx, y, top, w, h));
  }
  const depth = Math.max(match.leftStack.length, match.rightStack.length);
  const symbol = match.type === SplitMatchType.PERFECT ? "●" : match.type === SplitMatchType.STRONG ? "◑" : "○";
  group.append(
    text(x + w, y + h + (small ? 15 : 17), small ? `#${match.id} ${symbol}` : `#${match.id} ${symbol} ${type}`, {
      "text-anchor": "middle",
      "font-size": small ? 13 : 14,
      "font-weight": 600,
    }),
  );
  if (depth > 1) {
    group.append(svg("title", {}, `Match ${match.id}: ${depth - 1} covered half card(s) beneath`));
  }
  return group;
}

/** The score sheet in one line: the marked rows, the negative marks, the total. */
function sheetLine(sheet: SplitScoreSheet | undefined): string {
  if (!sheet) return "";
  const rows = sheet.rows.flatMap((marks, i) => (marks > 0 ? [`${RANKS[i] ?? "?"}×${marks}`] : []));
  const parts = [rows.length ? `Marks ${rows.join(" ")}` : "No marks yet"];
  if (sheet.negatives) parts.push(`${plural(sheet.negatives, "negative mark")} (−${2 * sheet.negatives})`);
  return parts.join(" · ");
}

/** What the table waits for, in words. */
function status(game: Game, pub: SplitPublicState, context: BoardContext): string {
  const me = context.me || game.caller;
  const mover = pub.phase === SplitPhase.LATE_MELD ? (pub.lateMelders[0] ?? "") : pub.currentPlayer;
  const you = mover === me && me !== "";
  const who = nameOf(context, mover);
  switch (pub.phase) {
    case SplitPhase.DRAW:
      return you
        ? "Your turn: draw from the pile or take from the discard row"
        : `${who} draws from the pile or takes from the discard row`;
    case SplitPhase.PLAY:
      return you ? "Your turn: make matches or upgrades, then discard" : `${who} makes matches or upgrades, then discards`;
    case SplitPhase.BONUS: {
      const match = `match #${pub.pendingMatchId}`;
      switch (pub.pendingBonus) {
        case SplitMatchType.PERFECT:
          return `${you ? "You choose" : `${who} chooses`} who marks a negative box (perfect bonus of ${match})`;
        case SplitMatchType.STRONG:
          return `${you ? "You" : who} may draw a bonus card (strong bonus of ${match})`;
        case SplitMatchType.WEAK:
          return `${you ? "You" : who} may swap a weak match for another player's (weak bonus of ${match})`;
        default:
          return `${you ? "You resolve" : `${who} resolves`} a bonus`;
      }
    }
    case SplitPhase.LATE_MELD:
      return `${you ? "You" : who} may lay down matches before the round ends (late meld)`;
    case SplitPhase.ROUND_OVER:
      return `Round ${pub.round} is over`;
    case SplitPhase.GAME_OVER: {
      const winners = pub.winners.map((w) => nameOf(context, w));
      return winners.length ? `${listNames(winners)} ${winners.length > 1 ? "share the win" : "won"}` : "The game is over";
    }
    default:
      return "Waiting for the deal";
  }
}

/** One player's area: name and badges, hand, matches and score sheet. */
function seatArea(
  game: Game,
  view: SplitView,
  seat: number,
  x: number,
  y0: number,
  width: number,
  compact: boolean,
  context: BoardContext,
): SeatArea {
  const pub = view.publicState;
  const player = game.players.find((p) => p.seat === seat);
  const name = player?.name ?? "";
  const me = context.me || game.caller;
  const mine = name === me && me !== "";
  const display = player?.displayName ?? nameOfSeat(context, seat);
  const group = svg("g", { "data-zone": `seat ${display}` });
  const over = pub?.phase === SplitPhase.GAME_OVER || pub?.phase === SplitPhase.ROUND_OVER;
  const acting =
    pub !== undefined &&
    !over &&
    (pub.phase === SplitPhase.LATE_MELD ? pub.lateMelders[0] === name : pub.currentPlayer === name);
  const inner = width - 20;
  let y = y0 + 30;
  const background = svg("rect", {
    x,
    y: y0,
    width,
    height: 0,
    rx: 10,
    fill: acting ? "#fff8dc" : "#ffffff",
    stroke: acting ? "#c99a00" : "#d6d2c4",
    "stroke-width": acting ? 2 : 1,
  });
  group.append(background);
  const title = `${acting ? "▶ " : ""}${display}${mine ? " (you)" : ""}`;
  group.append(text(x + 10, y, clip(title, 300, 22), { "font-size": 22, "font-weight": 700 }));
  const badges: [string, string][] = [];
  if (pub?.dealer === name) badges.push(["dealer", "#455a64"]);
  if (pub?.lateMelders.includes(name)) badges.push(["late meld", "#6a1b9a"]);
  if (pub?.winners.includes(name)) badges.push(["★ won", "#8a6d00"]);
  if (player?.resigned) badges.push(["bot", "#777777"]);
  const bx = x + 22 + Math.min(300, textWidth(title, 22) * 1.12);
  const added = badgeRow(group, bx, y - 3, x + width - 110, x + 10, badges);
  const sheet = pub?.scoreSheets[seat];
  group.append(
    text(x + width - 10, y, `${num(sheet?.total ?? player?.score ?? 0)} pts`, {
      "text-anchor": "end",
      "font-size": 22,
      "font-weight": 700,
    }),
  );
  y += 14 + added;

  // The hand: the owner's cards, every hand once shown at a round's end, else backs.
  const revealed = pub?.revealedHands[seat];
  const own = mine ? view.privateState?.hand : undefined;
  const hand = svg("g", { "data-zone": `hand ${display}` });
  if (revealed && (pub?.revealedHands.length ?? 0) > 0) {
    hand.append(text(x + 10, y + 16, revealed.cards.length ? "Cards left in hand:" : "Hand empty", { "font-size": 16, fill: MUTED }));
    y += 24;
    y += cardRow(hand, x + 10, y, inner, revealed.cards) || 4;
  } else if (own) {
    y += cardRow(hand, x + 10, y, inner, own) || 0;
    if (own.length === 0) {
      hand.append(text(x + 10, y + 18, "No cards in hand", { "font-size": 17, fill: MUTED }));
      y += 26;
    }
  } else {
    y += backs(hand, x + 10, y, pub?.handSizes[seat] ?? 0, inner, compact);
  }
  group.append(hand);

  // The matches this player owns.
  const matches = (pub?.matches ?? []).filter((m) => m.owner === name);
  if (matches.length) {
    y += 12;
    const area = svg("g", { "data-zone": `matches ${display}` });
    const w = compact ? MATCH_W : HALF_W;
    const lineHeight = compact ? MATCH_H + 28 : HALF_H + 34;
    const step = 2 * w + (compact ? 30 : 52);
    const perLine = Math.max(1, Math.floor((inner + step - 2 * w) / step));
    matches.forEach((match, i) => {
      const mx = x + 16 + (i % perLine) * step;
      const my = y + 6 + Math.floor(i / perLine) * lineHeight;
      const pending = pub?.pendingMatchId === match.id && pub.pendingMatchId !== 0;
      area.append(matchBlock(mx, my, match, pending, compact));
    });
    group.append(area);
    y += Math.ceil(matches.length / perLine) * lineHeight;
  }
  const line = sheetLine(sheet);
  const size = compact ? 16 : 18;
  for (const part of wrap(line, inner, size)) {
    y += size * 1.35;
    group.append(text(x + 10, y, part, { "font-size": size, fill: MUTED }));
  }
  y += compact ? 9 : 12;
  background.setAttribute("height", String(y - y0));
  return { element: group, height: y - y0, background };
}

function draw(game: Game, context: BoardContext): SVGSVGElement {
  const view = game.view.case === "splitView" ? game.view.value : undefined;
  const wide = isWide();
  const width = wide ? 1000 : 480;
  const element = root("split", width, 200, "Split table", wide ? 1100 : 560);
  element.append(svg("rect", { x: 0, y: 0, width: width, height: "100%", fill: TABLE }));
  const pub = view?.publicState;
  if (!view || !pub) {
    element.append(text(MARGIN, 40, "No cards dealt yet", { "font-size": 22 }));
    setHeight(element, width, 60);
    return element;
  }
  const phase = pub.phase === SplitPhase.GAME_OVER ? "Game over" : `Round ${pub.round} of 3`;
  const sizes = wide ? { title: 28, line: 23 } : { title: 24, line: 19 };
  element.append(text(MARGIN, sizes.title + 6, phase, { "font-size": sizes.title, "font-weight": 700 }));
  let y = sizes.title + 6;
  for (const line of wrap(status(game, pub, context), width - 2 * MARGIN, sizes.line)) {
    y += sizes.line * 1.4;
    element.append(text(MARGIN, y, line, { "font-size": sizes.line }));
  }
  y += wide ? 18 : 10;

  // The middle of the table: the draw pile and the discard row.
  const middle = svg("g", { "data-zone": "table" });
  middle.append(
    facedownPile(MARGIN + 4, y + 26, HALF_W + 8, HALF_H + 6, pub.drawPileSize, `draw pile ${pub.drawPileSize}`, `${pub.drawPileSize} left`),
    text(MARGIN, y + 14, "Draw pile", { "font-size": 16, fill: MUTED }),
  );
  const rowX = MARGIN + 100;
  middle.append(text(rowX, y + 14, "Discard row, oldest first", { "font-size": 16, fill: MUTED }));
  const row = svg("g", { "data-zone": "discard row" });
  const used = cardRow(row, rowX, y + 26, width - MARGIN - rowX, pub.discardRow, true);
  if (pub.discardRow.length === 0) {
    row.append(text(rowX, y + 50, "empty", { "font-size": 18, fill: MUTED, "font-style": "italic" }));
  }
  middle.append(row);
  element.append(middle);
  y += 26 + Math.max(used, HALF_H + 30) + 10;

  // The players' areas: two a row on a wide page, one a row on a phone.
  const seats = game.players.map((player) => player.seat);
  y = seatRows(element, seats, y, width, MARGIN, wide, 10, (seat, x, top, columnWidth) =>
    seatArea(game, view, seat, x, top, columnWidth, !wide, context),
  );
  const key = "Matches: ○ weak (colours differ) ◑ strong (same colour) ● perfect (same card)";
  for (const line of wrap(key, width - 2 * MARGIN, 15)) {
    element.append(text(MARGIN, y + 14, line, { "font-size": 15, fill: MUTED }));
    y += 21;
  }
  y += 5;
  setHeight(element, width, y);
  return element;
}

function describe(event: GameEvent, context: BoardContext): string {
  const fact = event.event;
  if (fact.case !== "split") return describeCommon(event, context) || "Something happened at the table";
  const who = (player: string): string => nameOf(context, player);
  const e = fact.value.event;
  switch (e.case) {
    case "roundDealt":
      return `Round ${e.value.round}: ${who(e.value.dealer)} dealt 9 cards each; ${who(e.value.firstPlayer)} plays first`;
    case "cardDrawn": {
      const what = e.value.card ? cardName(e.value.card) : "a card";
      return `${who(e.value.player)} drew ${e.value.bonus ? `${what === "a card" ? "a bonus card" : `${what} as a bonus`}` : what}`;
    }
    case "discardTaken":
      return `${who(e.value.player)} took ${e.value.cards.map(cardName).join(", ")} from the discard row`;
    case "matchMade":
      return (
        `${who(e.value.player)} matched ${cardName(e.value.left)} + ${cardName(e.value.right)} ` +
        `(${TYPE_NAMES[e.value.type] ?? "?"}${e.value.late ? ", late meld" : ""})`
      );
    case "matchUpgraded": {
      const taken =
        e.value.previousOwner && e.value.previousOwner !== e.value.player
          ? `, taking it from ${who(e.value.previousOwner)}`
          : "";
      return (
        `${who(e.value.player)} upgraded match #${e.value.matchId} with ${cardName(e.value.card)}: ` +
        `${TYPE_NAMES[e.value.fromType] ?? "?"} → ${TYPE_NAMES[e.value.toType] ?? "?"}${taken}`
      );
    }
    case "negativeMarked":
      return `${who(e.value.player)} marked a negative box (${who(e.value.by)}'s perfect bonus)`;
    case "strongBonusDeclined":
      return `${who(e.value.player)} drew no bonus card`;
    case "weakBonusResolved":
      return e.value.ownMatchId === 0
        ? `${who(e.value.player)} swapped no matches`
        : `${who(e.value.player)} swapped match #${e.value.ownMatchId} for ${who(e.value.otherOwner)}'s match #${e.value.otherMatchId}`;
    case "cardDiscarded":
      return `${who(e.value.player)} discarded ${cardName(e.value.card)}`;
    case "roundEnded":
      return e.value.reason === SplitEndReason.DRAW_PILE_EMPTY
        ? `Round ${e.value.round} ended: ${who(e.value.player)} drew the last card of the pile`
        : `Round ${e.value.round} ended: ${who(e.value.player)} went out`;
    case "lateMeldFinished":
      return `${who(e.value.player)} finished their late meld`;
    case "roundScored": {
      const totals = e.value.totals.map((t, seat) => `${nameOfSeat(context, seat)} ${num(t)}`).join(", ");
      return `Round ${e.value.round} scored: ${plural(e.value.credits.length, "match", "matches")} credited; totals ${totals}`;
    }
    case "gameEnded": {
      const winners = e.value.winners.map(who);
      const totals = e.value.totals.map((t, seat) => `${nameOfSeat(context, seat)} ${num(t)}`).join(", ");
      return `The game ended: ${listNames(winners)} ${winners.length > 1 ? "share the win" : "won"} (${totals})`;
    }
    default:
      return "Something happened on the table";
  }
}

function label(move: Move, context: BoardContext): string {
  if (move.game.case !== "split") return "Move";
  const action = move.game.value.action;
  switch (action.case) {
    case "drawFromPile":
      return "Draw from the pile";
    case "takeFromDiscard": {
      const take = action.value;
      const use =
        take.play.case === "partner"
          ? `match it with ${cardName(take.play.value)}`
          : take.play.case === "matchId"
            ? `upgrade match #${take.play.value}`
            : "use it";
      return `Take discards from no. ${take.index + 1}, ${use}`;
    }
    case "makeMatch":
      return `Match ${cardName(action.value.cardA)} + ${cardName(action.value.cardB)}`;
    case "upgrade":
      return `Upgrade match #${action.value.matchId} with ${cardName(action.value.card)}`;
    case "choosePenaltyTarget":
      return `Negative mark for ${nameOfSeat(context, action.value.targetSeat)}`;
    case "resolveStrongBonus":
      return action.value.draw ? "Draw a bonus card" : "No bonus card";
    case "resolveWeakBonus":
      return action.value.ownMatchId === 0 && action.value.otherMatchId === 0
        ? "No swap"
        : `Swap match #${action.value.ownMatchId} for #${action.value.otherMatchId}`;
    case "discard":
      return `Discard ${cardName(action.value.card)}`;
    case "finishLateMeld":
      return "Finish the late meld";
    default:
      return "Move";
  }
}

/** What a move involves on the table: cards of the hand, the draw pile, the discard row, matches, seats. */
function involved(move: Move): string[] {
  if (move.game.case !== "split") return [];
  const action = move.game.value.action;
  switch (action.case) {
    case "drawFromPile":
      return ["draw pile"];
    case "resolveStrongBonus":
      return action.value.draw ? ["draw pile"] : [];
    case "takeFromDiscard": {
      const play = action.value.play;
      const used = play.case === "partner" ? `card ${play.value.id}` : play.case === "matchId" ? `match ${play.value}` : "";
      return [`row ${action.value.index}`, used];
    }
    case "makeMatch":
      return [`card ${action.value.cardA?.id ?? ""}`, `card ${action.value.cardB?.id ?? ""}`];
    case "upgrade":
      return [`card ${action.value.card?.id ?? ""}`, `match ${action.value.matchId}`];
    case "choosePenaltyTarget":
      return [`seat ${action.value.targetSeat}`];
    case "resolveWeakBonus":
      return action.value.ownMatchId ? [`match ${action.value.ownMatchId}`, `match ${action.value.otherMatchId}`] : [];
    case "discard":
      return [`card ${action.value.card?.id ?? ""}`];
    default:
      return [];
  }
}

/**
 * The table with what the player may click: a card of their hand, the draw
 * pile, a card of the discard row, a match, another player's area (for a
 * negative mark); a first click lists the moves that use it, a second plays
 * the only one.
 */
function interactive(game: Game, context: BoardContext, picker: Picker): HTMLElement {
  const drawing = draw(game, context);
  const me = context.me || game.caller;
  const byThing = movesBy(picker.moves, involved);
  const targets: (readonly [Element, readonly Move[]])[] = [];
  const add = (element: Element | undefined, key: string): void => {
    const moves = byThing.get(key);
    if (element && moves) targets.push([element, moves]);
  };
  for (const player of game.players) {
    if (player.name === me) {
      for (const zone of findAll(drawing, "data-zone", `hand ${player.displayName}`)) {
        for (const card of zone.querySelectorAll("[data-piece]")) add(card, card.getAttribute("data-piece") ?? "");
      }
    } else {
      add(findAll(drawing, "data-zone", `seat ${player.displayName}`)[0], `seat ${player.seat}`);
    }
  }
  const pieces = [...drawing.querySelectorAll("[data-piece]")];
  add(pieces.find((e) => e.getAttribute("data-piece")?.startsWith("draw pile")), "draw pile");
  for (const row of findAll(drawing, "data-zone", "discard row")) {
    row.querySelectorAll("[data-piece]").forEach((card, index) => add(card, `row ${index}`));
  }
  for (const match of pieces) {
    const words = (match.getAttribute("data-piece") ?? "").split(" ");
    if (words[0] === "match") add(match, `match ${words[1]}`);
  }
  return pickOn(drawing, picker, targets);
}

export const board: Board = { draw, describe, label, interactive };
