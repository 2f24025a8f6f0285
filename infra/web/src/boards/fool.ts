// Fool!: the current trick with its lead colour, the Fool discs, each player's
// hand (face up for its owner, card backs for everyone else), scores and +10
// counts, the cards played this round and the cards in play.
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import type { Game } from "../gen/tabletop/v1/game_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
import {
  type FoolCard,
  FoolColor,
  FoolEndReason,
  type FoolPublicState,
  type FoolView,
} from "../gen/tabletop/v1/fool_pb";
import type { Board, BoardContext, Picker } from "./board";
import {
  INK,
  MUTED,
  TABLE,
  badgeRow,
  cardBack,
  clip,
  describeCommon,
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
  signed,
  svg,
  text,
  textWidth,
  wrap,
  type SeatArea,
} from "./draw";

const MARGIN = 10;
const CARD_W = 46;
const CARD_H = 66;
const GAP = 6;

interface Suit {
  letter: string;
  name: string;
  fill: string;
  ink: string;
}

const SUITS: Record<number, Suit> = {
  [FoolColor.GREEN]: { letter: "G", name: "green", fill: "#2e7d32", ink: "#ffffff" },
  [FoolColor.RED]: { letter: "R", name: "red", fill: "#c62828", ink: "#ffffff" },
  [FoolColor.YELLOW]: { letter: "Y", name: "yellow", fill: "#f9d71c", ink: "#1b1b1b" },
  [FoolColor.BLUE]: { letter: "B", name: "blue", fill: "#1565c0", ink: "#ffffff" },
  [FoolColor.WILD]: { letter: "W", name: "wild", fill: "#ffffff", ink: "#1b1b1b" },
};
const UNKNOWN: Suit = { letter: "?", name: "?", fill: "#dddddd", ink: INK };
const COLOURS = [FoolColor.GREEN, FoolColor.RED, FoolColor.YELLOW, FoolColor.BLUE];

/** A card's id as the rules write it: "G17", "W1-4". */
function cardId(card: FoolCard): string {
  if (card.color === FoolColor.WILD) return `W1-${card.copy}`;
  return `${(SUITS[card.color] ?? UNKNOWN).letter}${card.value}`;
}

/** A card in words: "red 7", "wild 1". */
function cardName(card: FoolCard | undefined): string {
  if (!card) return "a card";
  if (card.color === FoolColor.WILD) return "wild 1";
  return `${(SUITS[card.color] ?? UNKNOWN).name} ${card.value}`;
}

/** A card face up: its colour, its value large and its colour's letter in two corners. */
function faceCard(x: number, y: number, card: FoolCard, w = CARD_W, h = CARD_H): SVGGElement {
  const suit = SUITS[card.color] ?? UNKNOWN;
  const wild = card.color === FoolColor.WILD;
  const group = svg(
    "g",
    { "data-piece": `card ${cardId(card)}` },
    svg("rect", {
      x,
      y,
      width: w,
      height: h,
      rx: w * 0.13,
      fill: suit.fill,
      stroke: wild ? "#6d4c41" : "#00000066",
      "stroke-width": wild ? 2.5 : 1.2,
      "stroke-dasharray": wild ? "5 2" : undefined,
    }),
    text(x + w / 2, y + h / 2 + w * 0.2, String(card.value), {
      "text-anchor": "middle",
      "font-size": w * 0.56,
      "font-weight": 700,
      fill: suit.ink,
    }),
  );
  if (h > 40) {
    group.append(
      text(x + 4, y + w * 0.3, suit.letter, { "font-size": w * 0.27, "font-weight": 700, fill: suit.ink }),
      text(x + w - 4, y + h - 5, wild ? "★" : suit.letter, {
        "text-anchor": "end",
        "font-size": w * 0.27,
        "font-weight": 700,
        fill: suit.ink,
      }),
    );
  }
  group.append(svg("title", {}, wild ? "wild 1" : `${suit.name} ${card.value}`));
  return group;
}

/** Cards face up from (x, y), wrapping at `width`; returns the height used. */
function cardRow(parent: SVGElement, x: number, y: number, width: number, cards: readonly FoolCard[]): number {
  const step = CARD_W + GAP;
  const perLine = Math.max(1, Math.floor((width + GAP) / step));
  cards.forEach((card, i) => {
    parent.append(faceCard(x + (i % perLine) * step, y + Math.floor(i / perLine) * (CARD_H + 8), card));
  });
  return cards.length ? Math.ceil(cards.length / perLine) * (CARD_H + 8) : 0;
}

/** A Fool disc: a jester's disc with an F, held by a player or in the centre. */
function disc(cx: number, cy: number, r: number, holder: string): SVGGElement {
  return svg(
    "g",
    { "data-piece": `fool disc ${holder}` },
    svg("circle", { cx, cy, r, fill: "#6a1b9a", stroke: "#f3e5f5", "stroke-width": 2 }),
    text(cx, cy + r * 0.4, "F", { "text-anchor": "middle", "font-size": r * 1.15, "font-weight": 800, fill: "#ffffff" }),
    svg("title", {}, holder === "centre" ? "A Fool disc in the centre" : `${holder} holds a Fool disc`),
  );
}

/** What the table waits for, in words. */
function status(game: Game, pub: FoolPublicState, context: BoardContext): string {
  const me = context.me || game.caller;
  if (pub.endReasons.length > 0 || game.winners.length > 0) {
    const winners = game.winners.map((w) => nameOf(context, w));
    const why = pub.endReasons
      .map((r) =>
        r === FoolEndReason.SCORE_LIMIT
          ? "a total reached −80"
          : r === FoolEndReason.TEN_LIMIT
            ? "someone emptied their hand a sixth time"
            : "",
      )
      .filter((r) => r)
      .join(" and ");
    const who = winners.length ? `${listNames(winners)} ${winners.length > 1 ? "share the win" : "won"}` : "The game is over";
    return why ? `${who}: ${why}` : who;
  }
  const mover = game.currentPlayer;
  if (!mover) return pub.revealedHands.length ? `Round ${pub.round} is over` : "";
  const lead = SUITS[pub.leadColor];
  const follow = lead ? `: follow ${lead.name} if you can (a 1 always goes)` : pub.trick.length ? "" : " to lead the trick";
  if (mover === me && me) return `Your turn: play a card${follow}`;
  return `${nameOf(context, mover)} plays a card${pub.trick.length ? "" : " to lead the trick"}`;
}

/** The trick: cards played so far with their players, then the places still to play. */
function trickArea(
  game: Game,
  pub: FoolPublicState,
  y0: number,
  tableWidth: number,
  context: BoardContext,
): { element: SVGGElement; height: number } {
  const group = svg("g", { "data-zone": "trick" });
  const panel = svg("rect", {
    x: MARGIN,
    y: y0,
    width: tableWidth - 2 * MARGIN,
    height: 0,
    rx: 12,
    fill: "#2f6b47",
  });
  group.append(panel);
  const lead = SUITS[pub.leadColor];
  group.append(
    text(MARGIN + 12, y0 + 28, "Trick", { "font-size": 20, "font-weight": 700, fill: "#ffffff" }),
    text(MARGIN + 76, y0 + 28, lead ? `lead colour ${lead.name} (${lead.letter})` : "no lead colour yet", {
      "font-size": 18,
      fill: "#e8f5e9",
    }),
  );
  // The Fool discs: with their holders, or in the centre.
  let dx = tableWidth - MARGIN - 14;
  const holders = pub.fools.map((f) => nameOf(context, f));
  const inCentre = Math.max(0, pub.discs - holders.length);
  for (let i = 0; i < inCentre; i++) {
    group.append(disc(dx - 12, y0 + 22, 12, "centre"));
    dx -= 30;
  }
  const discNote = holders.length ? `Fool: ${listNames(holders)} (sits out)` : "Fool disc in the centre";
  group.append(
    text(dx - (inCentre ? 4 : 0), y0 + 28, clip(discNote, Math.max(120, tableWidth - 2 * MARGIN - 320), 16), { "text-anchor": "end", "font-size": 16, fill: "#f3e5f5" }),
  );
  const step = CARD_W + 28;
  const perLine = Math.max(1, Math.floor((tableWidth - 2 * MARGIN - 24 + 28) / step));
  const places: { player: string; card?: FoolCard }[] = pub.trick.map((t) => ({ player: t.player, card: t.card }));
  const played = new Set(pub.trick.map((t) => t.player));
  for (const participant of pub.participants) {
    if (!played.has(participant)) places.push({ player: participant });
  }
  const top = y0 + 46;
  places.forEach((place, i) => {
    const x = MARGIN + 18 + (i % perLine) * step + 10;
    const y = top + Math.floor(i / perLine) * (CARD_H + 34);
    if (place.card) group.append(faceCard(x, y, place.card));
    else {
      const next = place.player === game.currentPlayer;
      group.append(
        svg("rect", {
          x,
          y,
          width: CARD_W,
          height: CARD_H,
          rx: 6,
          fill: next ? "#ffffff22" : "none",
          stroke: "#ffffffaa",
          "stroke-width": next ? 2.5 : 1.5,
          "stroke-dasharray": "5 4",
        }),
      );
      if (next) group.append(text(x + CARD_W / 2, y + CARD_H / 2 + 8, "▶", { "text-anchor": "middle", "font-size": 22, fill: "#ffffff" }));
    }
    group.append(
      text(x + CARD_W / 2, y + CARD_H + 20, clip(nameOf(context, place.player), step - 6, 16), {
        "text-anchor": "middle",
        "font-size": 16,
        fill: "#ffffff",
      }),
    );
  });
  if (places.length === 0) {
    group.append(text(MARGIN + 12, top + 22, "No card in the trick", { "font-size": 17, fill: "#e8f5e9", "font-style": "italic" }));
  }
  const lines = Math.ceil(places.length / perLine);
  let height = lines ? 46 + lines * (CARD_H + 34) + 4 : 46 + 36;
  // The trick just won, from the last move's events, while the next is empty.
  const last = pub.trick.length === 0 ? lastTrick(context) : "";
  if (last) {
    for (const line of wrap(last, tableWidth - 2 * MARGIN - 24, 16)) {
      group.append(text(MARGIN + 12, y0 + height + 8, line, { "font-size": 16, fill: "#e8f5e9" }));
      height += 22;
    }
    height += 6;
  }
  panel.setAttribute("height", String(height));
  return { element: group, height };
}

/** The trick the last move completed, in words; "" when it completed none. */
function lastTrick(context: BoardContext): string {
  for (const event of context.recent ?? []) {
    if (event.event.case !== "fool" || event.event.value.event.case !== "trickResolved") continue;
    const trick = event.event.value.event.value;
    const won = trick.cards.find((c) => c.player === trick.winner)?.card;
    const fools = trick.fools.map((f) => nameOf(context, f));
    const fool = fools.length ? `; ${listNames(fools)} ${fools.length > 1 ? "are the Fools" : "is the Fool"}` : "";
    return `Last trick: ${nameOf(context, trick.winner)} won with ${cardName(won)}${fool}`;
  }
  return "";
}

/** One player's row: name and badges, score and +10s, then their hand. */
function seatArea(
  game: Game,
  view: FoolView,
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
  const display = player?.displayName ?? nameOfSeat(context, seat);
  const me = context.me || game.caller;
  const mine = name === me && me !== "";
  const acting = game.currentPlayer === name && name !== "";
  const group = svg("g", { "data-zone": `seat ${display}` });
  const inner = width - 20;
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
  let y = y0 + 30;
  const title = `${acting ? "▶ " : ""}${display}${mine ? " (you)" : ""}`;
  group.append(text(x + 10, y, clip(title, 260, 22), { "font-size": 22, "font-weight": 700 }));
  let bx = x + 22 + Math.min(260, textWidth(title, 22) * 1.12);
  const fool = pub?.fools.includes(name) ?? false;
  if (fool) {
    group.append(disc(bx + 11, y - 8, 11, display));
    bx += 28;
  }
  const badges: [string, string][] = [];
  if (fool) badges.push(["Fool: sits out", "#6a1b9a"]);
  if (pub?.dealer === name) badges.push(["dealer", "#455a64"]);
  if (pub?.leader === name && !fool && (pub?.trick.length ?? 0) > 0) badges.push(["led", "#2f6b47"]);
  if (game.winners.includes(name)) badges.push(["★ won", "#8a6d00"]);
  if (player?.resigned) badges.push(["bot", "#777777"]);
  const added = badgeRow(group, bx, y - 3, x + width - 100, x + 10, badges);
  const score = pub?.scores[seat] ?? player?.score ?? 0;
  const tens = pub?.tenCounts[seat] ?? 0;
  group.append(
    text(x + width - 10, y, `${num(score)} pts`, { "text-anchor": "end", "font-size": 22, "font-weight": 700 }),
    text(x + width - 10, y + 22, `+10 × ${tens}`, { "text-anchor": "end", "font-size": 16, fill: MUTED }),
  );
  y += 12 + added;
  const hand = svg("g", { "data-zone": `hand ${display}` });
  const revealed = (pub?.revealedHands.length ?? 0) > 0 ? pub?.revealedHands[seat] : undefined;
  const own = mine ? view.privateState?.hand : undefined;
  const count = pub?.handSizes[seat] ?? 0;
  if (revealed) {
    hand.append(
      text(x + 10, y + 18, revealed.cards.length ? "Cards left in hand:" : "Hand empty", { "font-size": 16, fill: MUTED }),
    );
    y += 26;
    y += cardRow(hand, x + 10, y, inner - 90, revealed.cards);
  } else if (own) {
    y += 4;
    y += cardRow(hand, x + 10, y, inner - 90, own);
    if (own.length === 0) {
      hand.append(text(x + 10, y + 18, "No cards in hand", { "font-size": 17, fill: MUTED }));
      y += 26;
    }
  } else {
    y += 4;
    const w = compact ? 22 : 36;
    const h = compact ? 32 : 52;
    const room = compact ? 10 : 15;
    const stepX = Math.min(room, count > 1 ? (inner - 200) / (count - 1) : room);
    for (let i = 0; i < count; i++) hand.append(cardBack(x + 10 + i * stepX, y, w, h));
    const end = x + 10 + (count ? (count - 1) * stepX + w : 0);
    hand.append(text(end + 10, y + h / 2 + 7, count ? plural(count, "card") : "no cards", { "font-size": 19, fill: MUTED }));
    y += h + 8;
  }
  group.append(hand);
  y += compact ? 2 : 6;
  background.setAttribute("height", String(y - y0));
  return { element: group, height: y - y0, background };
}

/** The cards of this round's finished tricks, by colour, as small cards. */
function playedArea(pub: FoolPublicState, y0: number, tableWidth: number): { element: SVGGElement; height: number } {
  const group = svg("g", { "data-zone": "played" });
  group.append(text(MARGIN, y0 + 18, `Played this round (${pub.played.length})`, { "font-size": 17, fill: MUTED }));
  let y = y0 + 28;
  const w = 22;
  const h = 30;
  const rows = [...COLOURS, FoolColor.WILD];
  for (const colour of rows) {
    const cards = pub.played.filter((c) => c.color === colour).sort((a, b) => a.value - b.value || a.copy - b.copy);
    if (cards.length === 0) continue;
    const perLine = Math.floor((tableWidth - 2 * MARGIN) / (w + 2));
    cards.forEach((card, i) => {
      group.append(faceCard(MARGIN + (i % perLine) * (w + 2), y + Math.floor(i / perLine) * (h + 3), card, w, h));
    });
    y += Math.ceil(cards.length / perLine) * (h + 3) + 3;
  }
  return { element: group, height: y - y0 };
}

/** The cards used at this player count, as ranges: "green 2–17, ...". */
function inPlayLine(pub: FoolPublicState): string {
  const parts: string[] = [];
  for (const colour of COLOURS) {
    const values = pub.cardsInPlay.filter((c) => c.color === colour).map((c) => c.value);
    if (values.length) parts.push(`${SUITS[colour]?.name} ${Math.min(...values)}–${Math.max(...values)}`);
  }
  const wilds = pub.cardsInPlay.filter((c) => c.color === FoolColor.WILD).length;
  if (wilds) parts.push(`${wilds} wild 1s`);
  return parts.length ? `Cards in play: ${parts.join(", ")}` : "";
}

function draw(game: Game, context: BoardContext): SVGSVGElement {
  const view = game.view.case === "foolView" ? game.view.value : undefined;
  const wide = isWide();
  const tableWidth = wide ? 1000 : 480;
  const element = root("fool", tableWidth, 200, "Fool! table", wide ? 1100 : 560);
  element.append(svg("rect", { x: 0, y: 0, width: tableWidth, height: "100%", fill: TABLE }));
  const pub = view?.publicState;
  if (!view || !pub) {
    element.append(text(MARGIN, 40, "No cards dealt yet", { "font-size": 22 }));
    setHeight(element, tableWidth, 60);
    return element;
  }
  const discs = pub.discs === 1 ? "1 Fool disc" : `${pub.discs} Fool discs`;
  const sizes = wide ? { title: 28, line: 23 } : { title: 24, line: 19 };
  const title = `Round ${pub.round}`;
  element.append(
    text(MARGIN, sizes.title + 6, title, { "font-size": sizes.title, "font-weight": 700 }),
    text(MARGIN + 10 + textWidth(title, sizes.title) * 1.1, sizes.title + 6, `· ${discs}`, { "font-size": 20, fill: MUTED }),
  );
  let y = sizes.title + 6;
  for (const line of wrap(status(game, pub, context), tableWidth - 2 * MARGIN, sizes.line)) {
    y += sizes.line * 1.4;
    element.append(text(MARGIN, y, line, { "font-size": sizes.line }));
  }
  y += wide ? 14 : 10;
  const trick = trickArea(game, pub, y, tableWidth, context);
  element.append(trick.element);
  y += trick.height + 10;
  // The players' areas: two a row on a wide page, one a row on a phone.
  const seats = game.players.map((player) => player.seat);
  y = seatRows(element, seats, y, tableWidth, MARGIN, wide, 8, (seat, x, top, columnWidth) =>
    seatArea(game, view, seat, x, top, columnWidth, !wide, context),
  );
  if (pub.played.length) {
    const played = playedArea(pub, y, tableWidth);
    element.append(played.element);
    y += played.height + 4;
  }
  for (const line of wrap(inPlayLine(pub), tableWidth - 2 * MARGIN, 16)) {
    y += 22;
    element.append(text(MARGIN, y, line, { "font-size": 16, fill: MUTED }));
  }
  y += 8;
  setHeight(element, tableWidth, y);
  return element;
}

function describe(event: GameEvent, context: BoardContext): string {
  const fact = event.event;
  if (fact.case !== "fool") return describeCommon(event, context) || "Something happened at the table";
  const who = (player: string): string => nameOf(context, player);
  const e = fact.value.event;
  switch (e.case) {
    case "handsDealt": {
      const size = e.value.handSizes[0] ?? 0;
      return `Round ${e.value.round}: ${who(e.value.dealer)} dealt ${plural(size, "card")} each; ${who(e.value.leader)} leads`;
    }
    case "cardPlayed":
      return `${who(e.value.player)} played ${cardName(e.value.card)}`;
    case "trickResolved": {
      const fools = e.value.fools.map(who);
      const lead = SUITS[e.value.leadColor];
      const foolText = fools.length === 0 ? "nobody is the Fool" : `${listNames(fools)} ${fools.length > 1 ? "are the Fools" : "is the Fool"}`;
      return `${who(e.value.winner)} won the trick${lead ? ` (lead ${lead.name})` : ""}; ${foolText}`;
    }
    case "roundScored": {
      const points = e.value.points.map((p, seat) => `${nameOfSeat(context, seat)} ${signed(p)}`).join(", ");
      return `Round ${e.value.round} scored: ${points}`;
    }
    case "gameEnded": {
      const why = e.value.reasons
        .map((r) =>
          r === FoolEndReason.SCORE_LIMIT
            ? "a total reached −80"
            : r === FoolEndReason.TEN_LIMIT
              ? "someone scored +10 for the sixth time"
              : "",
        )
        .filter((r) => r);
      return why.length ? `The game ended: ${why.join(" and ")}` : "The game ended";
    }
    default:
      return "Something happened on the table";
  }
}

function label(move: Move, _context: BoardContext): string {
  if (move.game.case !== "fool") return "Move";
  const action = move.game.value.action;
  if (action.case === "playCard") return `Play ${cardName(action.value.card)}`;
  return "Move";
}

/** The table with the player's hand to click: a card once to pick it, again to play it. */
function interactive(game: Game, context: BoardContext, picker: Picker): HTMLElement {
  const drawing = draw(game, context);
  const me = context.me || game.caller;
  const display = game.players.find((p) => p.name === me)?.displayName ?? "";
  const byCard = movesBy(picker.moves, (move) =>
    move.game.case === "fool" && move.game.value.action.case === "playCard" && move.game.value.action.value.card
      ? [cardId(move.game.value.action.value.card)]
      : [],
  );
  const targets: (readonly [Element, readonly Move[]])[] = [];
  for (const zone of findAll(drawing, "data-zone", `hand ${display}`)) {
    for (const element of zone.querySelectorAll("[data-piece]")) {
      const moves = byCard.get((element.getAttribute("data-piece") ?? "").replace(/^card /, ""));
      if (moves) targets.push([element, moves]);
      else if (picker.moves.length > 0) element.setAttribute("opacity", "0.45");
    }
  }
  return pickOn(drawing, picker, targets);
}

export const board: Board = { draw, describe, label, interactive };
