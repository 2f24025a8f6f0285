// The web page of Tabletop: the lobby at /, a game at /games/{id} (watched
// live, replayed, or played from a seat), all through the Connect API of the
// server's HTTP port. Routing is on location.pathname, with history.pushState;
// /games/{id}?code=CODE fills in a private table's invite code.
//
// What tests may rely on (ids in index.html, attributes set by the code):
// - #lobby: a[data-game="games/{id}"][data-state="waiting|in-progress|finished"],
//   in sections [data-section]; #create-form opens a table (#create-type,
//   #create-seats, #create-private, #create-name, #create-game).
// - #board[data-revision][data-mode="live|replay"] holds the board's <svg>;
//   #scores li[data-player][data-score] (with data-to-act, data-me,
//   data-winner); #log li[data-revision][data-kind] (data-undone on moves
//   taken back); #game-summary.
// - Replay: #revision-slider (input type=range), #step-back, #step-forward,
//   #live, #revision-label; clicking a #log line replays its revision.
// - Play: #seat-token + #open-seat, #display-name + #invite-code +
//   #join-with-code, #seat-info, #start-game, #undo, #undo-accept,
//   #undo-reject, #resign, #close-seat; #legal-moves button[data-move] (the
//   move's JSON), #move-filter.
// - #status[data-kind="info|error"][data-code][data-reason] (the ErrorInfo reason).
// - Qwirkle: cells [data-cell="x,y"] (placed tiles add data-piece="red
//   circle", staged ones data-staged-piece, allowed ones data-candidate), rack
//   tiles [data-rack-tile="red circle"][data-rack-index], #play-tiles,
//   #exchange-tiles (once to choose tiles, again to exchange), #pass-turn,
//   #clear-tiles.
// - window.tabletop.received: the last 2,000 responses as JSON (api.ts).
import { client, refusal, useSeatToken } from "./api";
import { byId } from "./dom";
import { GamePage } from "./game_page";
import type { GameType } from "./gen/tabletop/v1/game_pb";
import type { GameTypeInfo } from "./gen/tabletop/v1/game_type_pb";
import { createTable, fillGameTypes, keepLobbyFresh, loadLobby } from "./lobby";
import { seatKey } from "./seat";
import { setStatus, showRefusal } from "./status";

const lobbyPage = byId("lobby-page");
const gamePage = byId("game-page");

/** What ListGameTypes said of each game type; empty until it answered. */
const types = new Map<GameType, GameTypeInfo>();
let typesRead: Promise<void> | undefined;

/** The page shown: the game's, or the lobby's calls to abort on leaving it. */
let current: GamePage | undefined;
let lobbyCalls: AbortController | undefined;

function readTypes(): Promise<void> {
  typesRead ??= client.listGameTypes({}).then(
    (response) => {
      for (const info of response.gameTypes) types.set(info.gameType, info);
      fillGameTypes(types);
    },
    (error: unknown) => {
      typesRead = undefined;
      showRefusal(refusal(error));
    },
  );
  return typesRead;
}

/** Returns the game's resource name of a path /games/{id}[/...], or undefined for any other path. */
function gameOf(path: string): string | undefined {
  const match = /^\/games\/([^/]+)/.exec(path);
  return match?.[1] === undefined ? undefined : `games/${decodeURIComponent(match[1])}`;
}

/** Shows the page of the current location. */
async function route(): Promise<void> {
  current?.stop();
  current = undefined;
  lobbyCalls?.abort();
  lobbyCalls = undefined;
  useSeatToken(""); // a page presents a seat token only once it opened that game's seat
  await readTypes();
  const name = gameOf(location.pathname);
  lobbyPage.hidden = name !== undefined;
  gamePage.hidden = name === undefined;
  if (name === undefined) {
    document.title = "Tabletop";
    lobbyCalls = new AbortController();
    keepLobbyFresh(types, lobbyCalls.signal);
    await loadLobby(types, lobbyCalls.signal);
  } else {
    byId<HTMLInputElement>("invite-code").value = new URLSearchParams(location.search).get("code") ?? "";
    await openGame(name);
  }
}

/** Enables the seat forms once a game's page can act on them; until then a
 * click would reach no page (the buttons start disabled in index.html). */
function seatFormsReady(ready: boolean): void {
  for (const id of ["open-seat", "join-with-code"]) byId<HTMLButtonElement>(id).disabled = !ready;
}

/** Opens a game's page, with the seat this tab holds there if any. */
async function openGame(name: string): Promise<void> {
  current?.stop();
  seatFormsReady(false);
  useSeatToken("");
  // The game's type picks its board; GetGame tells it (the page reads the game again when it starts).
  let gameType: GameType | undefined;
  try {
    gameType = (await client.getGame({ name })).game?.gameType;
  } catch (error) {
    showRefusal(refusal(error));
    byId("game-summary").textContent = refusal(error).text;
    return;
  }
  if (gameType === undefined || gameOf(location.pathname) !== name) return;
  const token = sessionStorage.getItem(seatKey(name)) ?? "";
  const page = new GamePage(name, types.get(gameType), gameType, token, () => void openGame(name));
  current = page;
  seatFormsReady(true);
  await page.start();
}

/** Goes to a path of this page without reloading it. */
function navigate(path: string): void {
  history.pushState(null, "", path);
  setStatus("");
  void route();
}

function on<K extends keyof HTMLElementEventMap>(id: string, type: K, handler: (event: HTMLElementEventMap[K]) => void): void {
  byId(id).addEventListener(type, handler);
}

/** Wires the page's controls once; they act on the page shown. */
function wire(): void {
  document.addEventListener("click", (event) => {
    const link = (event.target as Element | null)?.closest?.("a");
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || link.target !== "") return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
  window.addEventListener("popstate", () => void route());
  on("lobby-refresh", "click", () => lobbyCalls && void loadLobby(types, lobbyCalls.signal));
  on("create-form", "submit", (event) => {
    event.preventDefault();
    void createTable(types).then((name) => name && navigate(`/${name}`));
  });
  on("seat-form", "submit", (event) => {
    event.preventDefault();
    void current?.seat.openSeat(byId<HTMLInputElement>("seat-token").value);
  });
  on("join-form", "submit", (event) => {
    event.preventDefault();
    void current?.seat.join();
  });
  on("start-game", "click", () => void current?.seat.startGame());
  on("undo", "click", () => void current?.seat.undo());
  on("undo-accept", "click", () => void current?.seat.respond(true));
  on("undo-reject", "click", () => void current?.seat.respond(false));
  on("resign", "click", () => void current?.seat.resign());
  on("close-seat", "click", () => current?.seat.forget("You are watching as a spectator; the seat is still yours."));
  on("step-back", "click", () => current?.step(-1));
  on("step-forward", "click", () => current?.step(1));
  on("live", "click", () => current?.goLive());
  on("revision-slider", "input", () => current?.slide(false));
  on("revision-slider", "change", () => current?.slide(true));
  on("move-filter", "input", () => current?.renderMoves());
  on("log", "click", (event) => {
    const item = (event.target as Element | null)?.closest?.("li[data-revision]");
    const revision = item?.getAttribute("data-revision");
    if (revision) void current?.showRevision(BigInt(revision));
  });
}

wire();
void route();
