// Gnoming A Round: the draw pile, the two discard piles, the card in the active
// player's hand, and every player's 3 x 3 layout (face-down cards as card backs),
// with totals, round scores and who is to act.
import type { GameEvent } from "../gen/tabletop/v1/event_pb";
import type { Game } from "../gen/tabletop/v1/game_pb";
import {
  type GnomingARoundCard,
  GnomingARoundCardKind,
  GnomingARoundPhase,
  type GnomingARoundPublicState,
  type GnomingARoundView,
} from "../gen/tabletop/v1/gnoming_a_round_pb";
import type { Move } from "../gen/tabletop/v1/move_pb";
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
  setHeight,
  svg,
  text,
  wrap,
} from "./draw";

const MARGIN = 10;
const CARD_W = 42;
const CARD_H = 60;
const GAP = 4;
const BLOCK_W = 3 * CARD_W + 2 * GAP + 12; // one layout with its padding
const POSITIONS = [
  "top left",
  "top middle",
  "top right",
  "middle left",
  "centre",
  "middle right",
  "bottom left",
  "bottom middle",
  "bottom right",
];

function positionName(position: number): string {
  return POSITIONS[position] ?? `position ${position}`;
}

/** A card in words: "a 7", "an 8", "a −3", "a hazard", "a mulligan". */
function cardName(card: GnomingARoundCard | undefined): string {
  if (!card) return "a card";
  switch (card.kind) {
    case GnomingARoundCardKind.HAZARD:
      return "a hazard";
    case GnomingARoundCardKind.MULLIGAN:
      return "a mulligan";
    default:
      return `${card.value === 8 || card.value === 11 ? "an" : "a"} ${num(card.value)}`;
  }
}

interface Look {
  fill: string;
  stroke: string;
  ink: string;
  big: string;
  small: string;
  name: string;
}

function look(card: GnomingARoundCard): Look {
  switch (card.kind) {
    case GnomingARoundCardKind.POSITIVE:
      return { fill: "#e8f5e9", stroke: "#2e7d32", ink: "#1b5e20", big: String(card.value), small: "+", name: `${card.value}` };
    case GnomingARoundCardKind.NEGATIVE:
      return { fill: "#ffebee", stroke: "#c62828", ink: "#b71c1c", big: num(card.value), small: "−", name: num(card.value) };
    case GnomingARoundCardKind.HAZARD:
      return { fill: "#fdd835", stroke: "#8d6e00", ink: "#1b1b1b", big: "⚠", small: "+10", name: "hazard (+10)" };
    case GnomingARoundCardKind.MULLIGAN:
      return { fill: "#7b1fa2", stroke: "#4a148c", ink: "#ffffff", big: "M", small: "wild", name: "mulligan (wild, 0)" };
    default:
      return { fill: "#eeeeee", stroke: "#999999", ink: "#333333", big: "?", small: "", name: "?" };
  }
}

/** A card face up: its value (or hazard / mulligan sign) large, a hint small. */
function faceCard(x: number, y: number, card: GnomingARoundCard, w = CARD_W, h = CARD_H): SVGGElement {
  const l = look(card);
  return svg(
    "g",
    { "data-piece": `card ${card.id}` },
    svg("rect", { x, y, width: w, height: h, rx: w * 0.14, fill: l.fill, stroke: l.stroke, "stroke-width": 2 }),
    text(x + w / 2, y + h / 2 + w * 0.2, l.big, {
      "text-anchor": "middle",
      "font-size": l.big.length > 2 ? w * 0.45 : w * 0.56,
      "font-weight": 700,
      fill: l.ink,
    }),
    text(x + w / 2, y + h - 5, l.small, { "text-anchor": "middle", "font-size": w * 0.26, fill: l.ink }),
    svg("title", {}, l.name),
  );
}

/** An empty place (a discard pile with no card, an empty hand). */
function emptySlot(x: number, y: number, w = CARD_W, h = CARD_H): SVGRectElement {
  return svg("rect", { x, y, width: w, height: h, rx: w * 0.14, fill: "none", stroke: MUTED, "stroke-dasharray": "4 3" });
}

/** What the game waits for, in words. */
function status(game: Game, pub: GnomingARoundPublicState, context: BoardContext): string {
  const me = context.me || game.caller;
  const active = pub.activePlayer;
  const you = active === me && me !== "";
  const who = nameOf(context, active);
  switch (pub.phase) {
    case GnomingARoundPhase.INITIAL_FLIP: {
      if (me && pub.playersToAct.includes(me)) return "Your turn: turn two of your cards face up";
      const waiting = pub.playersToAct.map((p) => nameOf(context, p));
      return waiting.length ? `${listNames(waiting)} still to turn two cards face up` : "Turning cards face up";
    }
    case GnomingARoundPhase.DRAW:
      return you ? "Your turn: draw from the pile or take a discard pile's top card" : `${who} draws from the pile or takes a discard`;
    case GnomingARoundPhase.DECIDE:
      return you ? "Your turn: keep the card in your layout, or reject a drawn card" : `${who} keeps the card or rejects it`;
    case GnomingARoundPhase.BOUNCE:
      return you ? "Your turn: bounce the displaced card to another place, or stop" : `${who} may bounce the displaced card`;
    case GnomingARoundPhase.DISCARD:
      return you ? "Your turn: discard the card" : `${who} discards the card`;
    case GnomingARoundPhase.HAZARD_RESPONSES: {
      const waiting = pub.hazardResponders.filter((p) => !pub.hazardAnswered.includes(p));
      if (me && waiting.includes(me)) return "A hazard! You may turn one of your cards face up, or not";
      return `A hazard! ${listNames(waiting.map((p) => nameOf(context, p)))} may turn a card face up`;
    }
    case GnomingARoundPhase.GAME_OVER: {
      const winners = game.winners.map((w) => nameOf(context, w));
      return winners.length
        ? `${listNames(winners)} ${winners.length > 1 ? "share the win" : "won"} with the lowest total`
        : "The game is over";
    }
    default:
      return "Waiting for the deal";
  }
}

/** The middle of the table: draw pile, discard piles 1 and 2, the card in hand, hazards out. */
function middle(
  game: Game,
  view: GnomingARoundView,
  y0: number,
  tableWidth: number,
  context: BoardContext,
): { element: SVGGElement; height: number } {
  const pub = view.publicState;
  const group = svg("g", { "data-zone": "table" });
  if (!pub) return { element: group, height: 0 };
  const label = (x: number, content: string): SVGTextElement => text(x, y0 + 14, content, { "font-size": 16, fill: MUTED });
  const top = y0 + 24;
  let x = MARGIN + 4;
  group.append(
    label(MARGIN, "Draw pile"),
    facedownPile(x, top + 2, CARD_W, CARD_H, pub.drawPileSize, `draw pile ${pub.drawPileSize}`, `${pub.drawPileSize} left`),
  );
  x += 92;
  pub.discardPiles.forEach((pile, i) => {
    const px = x + i * 84;
    group.append(label(px, `Discard ${i + 1}`));
    const slot = svg("g", { "data-zone": `discard pile ${i + 1}` });
    if (pile.top) slot.append(faceCard(px, top, pile.top));
    else slot.append(emptySlot(px, top));
    slot.append(
      text(px + CARD_W / 2, top + CARD_H + 19, pile.size ? plural(pile.size, "card") : "empty", {
        "text-anchor": "middle",
        "font-size": 15,
        fill: MUTED,
      }),
    );
    group.append(slot);
  });
  x += 176;
  // The card in the active player's hand: face up once everyone has seen it; the
  // drawer alone sees a card just drawn; everyone else sees its back.
  const me = context.me || game.caller;
  const drawn = view.privateState?.drawnCard;
  const handNames: Record<number, string> = {
    [GnomingARoundPhase.DECIDE]: "held",
    [GnomingARoundPhase.BOUNCE]: "to bounce",
    [GnomingARoundPhase.DISCARD]: "to discard",
  };
  let extra = 0;
  if (pub.holding || pub.heldCard || drawn) {
    const owner = pub.activePlayer === me && me ? "Your card" : `${clip(nameOf(context, pub.activePlayer), 110, 16)}'s card`;
    group.append(label(x, owner));
    const slot = svg("g", { "data-zone": "in hand" });
    if (pub.heldCard) slot.append(faceCard(x, top, pub.heldCard));
    else if (drawn) slot.append(faceCard(x, top, drawn));
    else slot.append(cardBack(x, top, CARD_W, CARD_H));
    slot.append(
      text(x + CARD_W / 2, top + CARD_H + 19, handNames[pub.phase] ?? "in hand", {
        "text-anchor": "middle",
        "font-size": 15,
        fill: MUTED,
      }),
    );
    if (!pub.heldCard && drawn) {
      slot.append(
        text(x + CARD_W / 2, top + CARD_H + 37, "only you see it", { "text-anchor": "middle", "font-size": 14, fill: MUTED }),
      );
      extra = 18;
    }
    group.append(slot);
  }
  if (pub.removedHazards.length) {
    const hx = tableWidth - MARGIN - 76;
    group.append(text(tableWidth - MARGIN, y0 + 14, "Hazards out", { "text-anchor": "end", "font-size": 16, fill: MUTED }));
    const out = svg("g", { "data-zone": "hazards out" });
    pub.removedHazards.forEach((card, i) => out.append(faceCard(hx + i * 10, top + i * 4, card, 30, 43)));
    group.append(out);
  }
  return { element: group, height: 24 + CARD_H + 30 + extra };
}

/** One player's layout block: name, the nine positions, total and round score. */
function layoutBlock(
  game: Game,
  view: GnomingARoundView,
  seat: number,
  x0: number,
  y0: number,
  context: BoardContext,
): SVGGElement {
  const pub = view.publicState;
  const player = game.players.find((p) => p.seat === seat);
  const name = player?.name ?? "";
  const display = player?.displayName ?? nameOfSeat(context, seat);
  const me = context.me || game.caller;
  const mine = name === me && me !== "";
  const toAct = pub?.playersToAct.includes(name) ?? false;
  const group = svg("g", { "data-zone": `layout ${display}` });
  group.append(
    svg("rect", {
      x: x0,
      y: y0,
      width: BLOCK_W,
      height: blockHeight(),
      rx: 10,
      fill: toAct ? "#fff8dc" : "#ffffff",
      stroke: toAct ? "#c99a00" : "#d6d2c4",
      "stroke-width": toAct ? 2 : 1,
    }),
  );
  const title = `${toAct ? "▶ " : ""}${display}${mine ? " (you)" : ""}`;
  group.append(
    text(x0 + 8, y0 + 22, clip(title, BLOCK_W - 16, 17), { "font-size": 17, "font-weight": mine || toAct ? 700 : 600 }),
  );
  const layout = pub?.layouts[seat];
  const revealed = view.revealedState?.layouts[seat]?.cards;
  const filled = pub && pub.activePlayer === name ? pub.filledPositions : [];
  const gx = x0 + 6;
  const gy = y0 + 32;
  for (let position = 0; position < 9; position++) {
    const x = gx + (position % 3) * (CARD_W + GAP);
    const y = gy + Math.floor(position / 3) * (CARD_H + GAP);
    const slot = layout?.positions[position];
    const hidden = revealed?.[position];
    const place = svg("g", { "data-position": position });
    if (slot && !slot.faceDown && slot.card) place.append(faceCard(x, y, slot.card));
    else if (hidden) {
      place.append(
        faceCard(x, y, hidden),
        svg("rect", {
          x: x + 2,
          y: y + 2,
          width: CARD_W - 4,
          height: CARD_H - 4,
          rx: 4,
          fill: "none",
          stroke: "#3b4f8a",
          "stroke-width": 1.5,
          "stroke-dasharray": "3 2",
        }),
      );
    } else if (slot) place.append(cardBack(x, y, CARD_W, CARD_H));
    else place.append(emptySlot(x, y));
    if (filled.includes(position)) {
      place.append(
        svg("rect", {
          x: x - 2,
          y: y - 2,
          width: CARD_W + 4,
          height: CARD_H + 4,
          rx: 7,
          fill: "none",
          stroke: "#00897b",
          "stroke-width": 2.5,
          "stroke-dasharray": "6 3",
        }),
      );
    }
    group.append(place);
  }
  const total = pub?.totals[seat] ?? 0;
  const lastRound = pub?.roundResults[pub.roundResults.length - 1];
  const ty = gy + 3 * (CARD_H + GAP) + 16;
  group.append(text(x0 + 7, ty, `Total ${num(total)}`, { "font-size": 15, "font-weight": 700 }));
  if (lastRound) {
    const note = `R${lastRound.round} ${num(lastRound.scores[seat] ?? 0)}`;
    group.append(text(x0 + BLOCK_W - 6, ty, note, { "text-anchor": "end", "font-size": 12, fill: MUTED }));
  }
  const badges: [string, string][] = [];
  if (pub?.startingPlayer === name) badges.push(["started", "#455a64"]);
  if (pub?.roundEndTrigger === name) badges.push(["went out", "#e65100"]);
  if (game.winners.includes(name)) badges.push(["★ won", "#8a6d00"]);
  if (player?.resigned) badges.push(["bot", "#777777"]);
  badgeRow(group, x0 + 8, ty + 21, x0 + BLOCK_W - 6, x0 + 8, badges, 12);
  return group;
}

/** A layout block's height: name, the nine places, the total and up to two lines of badges. */
function blockHeight(): number {
  return 32 + 3 * (CARD_H + GAP) + 66;
}

function draw(game: Game, context: BoardContext): SVGSVGElement {
  const view = game.view.case === "gnomingARoundView" ? game.view.value : undefined;
  const wide = isWide();
  // A wide page has every layout in one row; a phone three a row.
  const perLine = wide ? Math.max(4, game.players.length) : 3;
  const tableWidth = Math.max(wide ? 640 : 480, perLine * (BLOCK_W + 8) + 12);
  const element = root("gnoming_a_round", tableWidth, 200, "Gnoming A Round table", wide ? 1100 : 560);
  element.append(svg("rect", { x: 0, y: 0, width: tableWidth, height: "100%", fill: TABLE }));
  const pub = view?.publicState;
  if (!view || !pub) {
    element.append(text(MARGIN, 40, "No cards dealt yet", { "font-size": 22 }));
    setHeight(element, tableWidth, 60);
    return element;
  }
  const title = pub.phase === GnomingARoundPhase.GAME_OVER ? "Game over" : `Round ${pub.round} of 3`;
  const sizes = wide ? { title: 28, line: 22 } : { title: 24, line: 19 };
  element.append(text(MARGIN, sizes.title + 6, title, { "font-size": sizes.title, "font-weight": 700 }));
  let y = sizes.title + 6;
  const lines = [status(game, pub, context)];
  if (pub.roundEndTrigger && pub.phase !== GnomingARoundPhase.GAME_OVER) {
    lines.push(`Last turns: ${nameOf(context, pub.roundEndTrigger)} has no face-down card left`);
  }
  for (const line of lines.flatMap((l) => wrap(l, tableWidth - 2 * MARGIN, sizes.line))) {
    y += sizes.line * 1.4;
    element.append(text(MARGIN, y, line, { "font-size": sizes.line }));
  }
  y += wide ? 12 : 8;
  const mid = middle(game, view, y, tableWidth, context);
  element.append(mid.element);
  y += mid.height + 8;
  const span = perLine * BLOCK_W + (perLine - 1) * 8;
  const left = (tableWidth - span) / 2;
  game.players.forEach((player, i) => {
    const bx = left + (i % perLine) * (BLOCK_W + 8);
    const by = y + Math.floor(i / perLine) * (blockHeight() + 8);
    element.append(layoutBlock(game, view, player.seat, bx, by, context));
  });
  y += Math.ceil(game.players.length / perLine) * (blockHeight() + 8);
  const results = pub.roundResults.map(
    (r) => `Round ${r.round}: ${r.scores.map((s, seat) => `${nameOfSeat(context, seat)} ${num(s)}`).join(", ")}`,
  );
  for (const line of [...results, "The lowest total after three rounds wins."].flatMap((l) => wrap(l, tableWidth - 2 * MARGIN, 16))) {
    y += 22;
    element.append(text(MARGIN, y, line, { "font-size": 16, fill: MUTED }));
  }
  y += 10;
  setHeight(element, tableWidth, y);
  return element;
}

function describe(event: GameEvent, context: BoardContext): string {
  const fact = event.event;
  if (fact.case !== "gnomingARound") return describeCommon(event, context) || "Something happened at the table";
  const who = (player: string): string => nameOf(context, player);
  const e = fact.value.event;
  switch (e.case) {
    case "roundDealt": {
      const starts = `${who(e.value.startingPlayer)} starts`;
      const set = e.value.removedHazards.length ? `; ${plural(e.value.removedHazards.length, "hazard")} turned up and set aside` : "";
      return `Round ${e.value.round} dealt: nine cards face down each; ${starts}${set}`;
    }
    case "initialCardsFlipped":
      return `${who(e.value.player)} turned up ${e.value.cards.map(cardName).join(" and ")} (${e.value.positions.map(positionName).join(", ")})`;
    case "turnStarted":
      return `${who(e.value.player)}'s turn`;
    case "drawPileReshuffled":
      return `The discards were shuffled into a new draw pile of ${plural(e.value.drawPileSize, "card")}`;
    case "cardDrawn":
      return e.value.card
        ? `${who(e.value.player)} drew ${cardName(e.value.card)} from the pile`
        : `${who(e.value.player)} drew a card from the pile`;
    case "discardTaken":
      return `${who(e.value.player)} took ${cardName(e.value.card)} from discard pile ${e.value.pile}`;
    case "cardKept": {
      const out = e.value.displaced ? `, turning out ${cardName(e.value.displaced)}` : "";
      return `${who(e.value.player)} kept ${cardName(e.value.card)} at ${positionName(e.value.position)}${out}`;
    }
    case "cardRejected":
      return e.value.card
        ? `${who(e.value.player)} rejected ${cardName(e.value.card)}`
        : `${who(e.value.player)} rejected the card they drew`;
    case "cardBounced": {
      const out = e.value.displaced ? `, turning out ${cardName(e.value.displaced)}` : "";
      return `${who(e.value.player)} bounced ${cardName(e.value.card)} to ${positionName(e.value.position)}${out}`;
    }
    case "bounceStopped":
      return `${who(e.value.player)} stopped bouncing`;
    case "cardDiscarded":
      return `${who(e.value.player)} discarded ${cardName(e.value.card)} on pile ${e.value.pile}`;
    case "hazardRemoved": {
      const asked = e.value.responders.map(who);
      return `${who(e.value.player)} discarded a hazard${asked.length ? `: ${listNames(asked)} may turn a card face up` : ""}`;
    }
    case "hazardFlipped":
      return `${who(e.value.player)} answered the hazard, turning up ${cardName(e.value.card)} (${positionName(e.value.position)})`;
    case "hazardDeclined":
      return `${who(e.value.player)} turned no card up`;
    case "hazardTurnedUp":
      return "A hazard turned up from the pile and was set aside";
    case "discardPileRefilled":
      return `Discard pile ${e.value.pile} restarted with ${cardName(e.value.card)}`;
    case "roundEndTriggered":
      return `${who(e.value.player)} has no face-down card left: everyone else has one more turn`;
    case "roundScored": {
      const scores = e.value.results.map((r, seat) => `${nameOfSeat(context, seat)} ${num(r.score)}`).join(", ");
      return `Round ${e.value.round} scored: ${scores}`;
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

function label(move: Move, _context: BoardContext): string {
  if (move.game.case !== "gnomingARound") return "Move";
  const action = move.game.value.action;
  switch (action.case) {
    case "flipInitial":
      return `Turn up ${action.value.positions.map(positionName).join(" and ")}`;
    case "drawFromPile":
      return "Draw from the pile";
    case "takeFromDiscard":
      return `Take from discard pile ${action.value.pile}`;
    case "keep":
      return `Keep it at ${positionName(action.value.position)}`;
    case "reject":
      return "Reject the card";
    case "bounce":
      return `Bounce it to ${positionName(action.value.position)}`;
    case "stopBounce":
      return "Stop bouncing";
    case "discard":
      return action.value.pile ? `Discard on pile ${action.value.pile}` : "Discard the hazard";
    case "hazardFlip":
      return `Turn up ${positionName(action.value.position)}`;
    case "hazardDecline":
      return "Turn no card up";
    default:
      return "Move";
  }
}

/** What a move involves on the table: a place of the player's layout, a pile or the card in hand. */
function involved(move: Move): string[] {
  if (move.game.case !== "gnomingARound") return [];
  const action = move.game.value.action;
  switch (action.case) {
    case "flipInitial":
      return action.value.positions.map((p) => `place ${p}`);
    case "keep":
    case "bounce":
    case "hazardFlip":
      return [`place ${action.value.position}`];
    case "drawFromPile":
      return ["draw pile"];
    case "takeFromDiscard":
      return [`discard pile ${action.value.pile}`];
    case "discard":
      return [action.value.pile ? `discard pile ${action.value.pile}` : "in hand"];
    case "reject":
    case "stopBounce":
      return ["in hand"];
    default:
      return [];
  }
}

/**
 * The table with what the player may click: the places of their layout, the
 * draw pile, the discard piles and the card in hand; a first click lists the
 * moves that use it, a second plays the only one.
 */
function interactive(game: Game, context: BoardContext, picker: Picker): HTMLElement {
  const drawing = draw(game, context);
  const me = context.me || game.caller;
  const display = game.players.find((p) => p.name === me)?.displayName ?? "";
  const byThing = movesBy(picker.moves, involved);
  const targets: (readonly [Element, readonly Move[]])[] = [];
  const add = (element: Element | undefined, key: string): void => {
    const moves = byThing.get(key);
    if (element && moves) targets.push([element, moves]);
  };
  for (const zone of findAll(drawing, "data-zone", `layout ${display}`)) {
    for (const place of zone.querySelectorAll("[data-position]")) add(place, `place ${place.getAttribute("data-position")}`);
  }
  add([...drawing.querySelectorAll("[data-piece]")].find((e) => e.getAttribute("data-piece")?.startsWith("draw pile")), "draw pile");
  for (const key of ["discard pile 1", "discard pile 2", "in hand"]) add(findAll(drawing, "data-zone", key)[0], key);
  return pickOn(drawing, picker, targets);
}

export const board: Board = { draw, describe, label, interactive };
