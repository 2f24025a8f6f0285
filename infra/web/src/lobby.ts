// The lobby, at /: the tables waiting for players, the games in progress and
// the finished ones (ListGames), each a link to its page; and opening a table.
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";

import { client, refusal, requestId, useSeatToken } from "./api";
import { byId, html, replaceChildren } from "./dom";
import { GameSchema, GameState, Visibility, type Game, type GameType } from "./gen/tabletop/v1/game_pb";
import type { GameTypeInfo } from "./gen/tabletop/v1/game_type_pb";
import { inviteKey, seatKey } from "./seat";
import { setStatus, showRefusal } from "./status";
import { stateKey } from "./views";

/** ListGames pages read at most (of 200 games each); the newest games come last. */
const PAGES = 5;
const PAGE_SIZE = 200;
/** How often the lobby reads the games again while it is shown. */
const REFRESH_MS = 20_000;

const lobby = {
  list: byId("lobby"),
  type: byId<HTMLSelectElement>("create-type"),
  seats: byId<HTMLInputElement>("create-seats"),
  private: byId<HTMLInputElement>("create-private"),
  name: byId<HTMLInputElement>("create-name"),
};

const SECTIONS: readonly [GameState, string, string][] = [
  [GameState.WAITING_FOR_PLAYERS, "waiting", "Waiting for players"],
  [GameState.IN_PROGRESS, "in-progress", "In progress"],
  [GameState.FINISHED, "finished", "Finished"],
];

const updated = (game: Game): number => (game.updateTime ? timestampDate(game.updateTime).getTime() : 0);

/** Returns the link to a game's page: `a[data-game="games/{id}"][data-state]`. */
function gameLink(game: Game, types: ReadonlyMap<GameType, GameTypeInfo>): HTMLElement {
  const players = game.players.map((p) => (game.state === GameState.WAITING_FOR_PLAYERS ? p.displayName : `${p.displayName} ${p.score}`));
  const details = [
    players.join(", ") || "no players",
    game.state === GameState.WAITING_FOR_PLAYERS ? `${game.players.length} of ${game.maxPlayers} seats` : `move ${game.moveCount}`,
    game.visibility === Visibility.PRIVATE ? "private" : "",
    game.abandoned ? "abandoned" : "",
    game.updateTime ? timestampDate(game.updateTime).toLocaleString() : "",
  ].filter(Boolean);
  return html(
    "li",
    {},
    html(
      "a",
      { href: `/${game.name}`, "data-game": game.name, "data-state": stateKey(game.state) },
      html("strong", {}, types.get(game.gameType)?.displayName ?? "Game"),
      html("span", { class: "game-id" }, ` ${game.name.slice("games/".length, "games/".length + 8)}`),
      html("span", { class: "details" }, details.join(" · ")),
    ),
  );
}

/** Reads the games and draws them into #lobby, newest activity first in each state. */
export async function loadLobby(types: ReadonlyMap<GameType, GameTypeInfo>, signal: AbortSignal): Promise<void> {
  useSeatToken("");
  const games: Game[] = [];
  let pageToken = "";
  let more = false;
  try {
    for (let page = 0; page < PAGES; page++) {
      const response = await client.listGames({ pageSize: PAGE_SIZE, pageToken }, { signal });
      games.push(...response.games);
      pageToken = response.nextPageToken;
      more = pageToken !== "";
      if (!more) break;
    }
  } catch (error) {
    if (signal.aborted) return;
    showRefusal(refusal(error));
    if (games.length === 0) return;
  }
  if (signal.aborted) return;
  replaceChildren(
    lobby.list,
    ...SECTIONS.map(([state, key, title]) => {
      const these = games.filter((game) => game.state === state).sort((a, b) => updated(b) - updated(a));
      return html(
        "section",
        { "data-section": key },
        html("h2", {}, `${title} (${these.length})`),
        these.length === 0
          ? html("p", { class: "note" }, "None.")
          : html("ul", { class: "games" }, ...these.map((game) => gameLink(game, types))),
      );
    }),
    more ? html("p", { class: "note" }, `Showing the first ${games.length} games.`) : null,
  );
}

/** Fills the game types of the form that opens a table. */
export function fillGameTypes(types: ReadonlyMap<GameType, GameTypeInfo>): void {
  replaceChildren(
    lobby.type,
    ...[...types.values()].map((info) =>
      html("option", { value: String(info.gameType) }, `${info.displayName} (${info.minPlayers}–${info.maxPlayers} players)`),
    ),
  );
}

/** Opens a table from the form; returns the new game's name, its seat kept in this tab. */
export async function createTable(types: ReadonlyMap<GameType, GameTypeInfo>): Promise<string | undefined> {
  const info = types.get(Number(lobby.type.value) as GameType);
  if (info === undefined) return undefined;
  // The table options message of this game, empty: every option at its default.
  const configField = GameSchema.fields.find((field) => field.name === info.configField);
  const game = create(GameSchema, {
    gameType: info.gameType,
    maxPlayers: Math.max(0, Number(lobby.seats.value) || 0),
    visibility: lobby.private.checked ? Visibility.PRIVATE : Visibility.PUBLIC,
  });
  if (configField?.fieldKind === "message" && configField.oneof !== undefined) {
    (game as { config: unknown }).config = { case: configField.localName, value: create(configField.message) };
  }
  setStatus("Opening the table…");
  useSeatToken("");
  try {
    const response = await client.createGame(
      { game, displayName: lobby.name.value.trim(), requestId: requestId() },
      { timeoutMs: 10_000 },
    );
    const name = response.game?.name ?? "";
    sessionStorage.setItem(seatKey(name), response.seatToken);
    if (response.inviteCode !== "") sessionStorage.setItem(inviteKey(name), response.inviteCode);
    setStatus("Table open: share its link, and start the game once enough players sit.");
    return name;
  } catch (error) {
    showRefusal(refusal(error));
    return undefined;
  }
}

/** Reads the lobby again every REFRESH_MS until `signal` aborts. */
export function keepLobbyFresh(types: ReadonlyMap<GameType, GameTypeInfo>, signal: AbortSignal): void {
  const timer = window.setInterval(() => {
    if (document.visibilityState === "visible") void loadLobby(types, signal);
  }, REFRESH_MS);
  signal.addEventListener("abort", () => window.clearInterval(timer), { once: true });
}
