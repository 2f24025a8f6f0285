// One game's page, /games/{id}: the board drawn live from StreamGame, the
// scores and the log, replay to any revision, and play for an open seat.
import { Code } from "@connectrpc/connect";

import { client, refusal, useSeatToken, type Refusal } from "./api";
import type { Board, BoardContext, Picker } from "./boards/board";
import { boardFor } from "./boards/index";
import { byId, replaceChildren } from "./dom";
import { follow } from "./feed";
import type { GameEvent } from "./gen/tabletop/v1/event_pb";
import { GameState, type Game } from "./gen/tabletop/v1/game_pb";
import { GameView } from "./gen/tabletop/v1/game_service_pb";
import type { GameTypeInfo } from "./gen/tabletop/v1/game_type_pb";
import type { Move } from "./gen/tabletop/v1/move_pb";
import { SeatActions } from "./seat";
import { setStatus, showRefusal } from "./status";
import { logEntry, markUndone, recentEvents, renderMoves, renderScores, summaryText } from "./views";

/** ListLegalMoves pages read at most (of 1,000 moves each). */
const MOVE_PAGES = 20;
/** How long the slider rests before the revision it points at is fetched. */
const SLIDER_REST_MS = 150;

/** The page's elements, looked up once. */
const page = {
  title: byId("game-title"),
  summary: byId("game-summary"),
  board: byId("board"),
  scores: byId("scores"),
  log: byId("log"),
  slider: byId<HTMLInputElement>("revision-slider"),
  stepBack: byId<HTMLButtonElement>("step-back"),
  stepForward: byId<HTMLButtonElement>("step-forward"),
  live: byId<HTMLButtonElement>("live"),
  revisionLabel: byId("revision-label"),
  movesPanel: byId("moves-panel"),
  movesNote: byId("moves-note"),
  moveFilter: byId<HTMLInputElement>("move-filter"),
  legalMoves: byId("legal-moves"),
};

const maxOf = (...values: bigint[]): bigint => values.reduce((a, b) => (a > b ? a : b), 0n);

export class GamePage {
  readonly abort = new AbortController();
  readonly board: Board;
  /** The game as GetGame last returned it. */
  live: Game | undefined;
  /** The game drawn: `live`, or a past revision while replaying. */
  private shown: Game | undefined;
  /** The revision replayed; undefined while following the game live. */
  private replayAt: bigint | undefined;
  private replayRequest = 0;
  private sliderTimer: number | undefined;
  readonly events: GameEvent[] = [];
  /** The highest revision heard of (events, heartbeats, catch-ups, games). */
  private latest = 0n;
  moves: readonly Move[] = [];
  movesRevision = 0n;
  private narrowed: readonly Move[] | undefined;
  /** The player the open seat is, "" while spectating. */
  me = "";
  private loading = false;
  private loadAgain = false;
  private drawnKey = "";
  private namesKey = "";
  private reconnecting = false;
  readonly seat: SeatActions;

  constructor(
    readonly name: string,
    readonly info: GameTypeInfo | undefined,
    gameType: Game["gameType"],
    readonly token: string,
    private readonly reopen: () => void,
  ) {
    this.board = boardFor(gameType);
    this.seat = new SeatActions(this);
  }

  /** Shows the game and follows it until `stop`. */
  async start(): Promise<void> {
    useSeatToken(this.token);
    page.title.textContent = this.info?.displayName ?? "Game";
    page.summary.textContent = "Loading…";
    replaceChildren(page.board);
    replaceChildren(page.scores);
    replaceChildren(page.log);
    replaceChildren(page.legalMoves);
    page.board.dataset["revision"] = "";
    page.board.dataset["mode"] = "live";
    page.moveFilter.value = "";
    this.seat.render();
    await this.refresh();
    if (this.live === undefined || this.abort.signal.aborted) return;
    void follow(this.name, 0n, this.abort.signal, {
      events: (events) => this.onEvents(events),
      heartbeat: (revision) => this.onRevision(revision),
      caughtUp: (revision) => this.onRevision(revision),
      end: () => this.onEnd(),
      trouble: (refused, retrying) => this.onTrouble(refused, retrying),
    });
  }

  /** Ends the feed and every call in flight. */
  stop(): void {
    this.abort.abort();
    window.clearTimeout(this.sliderTimer);
  }

  /** Opens the page again from scratch (after the seat changed). */
  restart(): void {
    this.reopen();
  }

  /** What a board needs besides the game. */
  context(game: Game): BoardContext {
    return {
      info: this.info,
      names: new Map(game.players.map((player) => [player.name, player.displayName])),
      me: this.me,
      recent: recentEvents(this.events, game.revision),
    };
  }

  // --- following the game ---------------------------------------------------

  private onEvents(events: readonly GameEvent[]): void {
    this.clearReconnecting();
    this.events.push(...events);
    const live = this.live;
    if (live === undefined) return; // the feed opens only once the game was read
    const context = this.context(live);
    const atBottom = page.log.scrollHeight - page.log.scrollTop - page.log.clientHeight < 40;
    page.log.append(...events.map((event) => logEntry(event, this.board, context)));
    if (events.some((event) => event.event.case === "movesUndone")) markUndone(page.log, this.events);
    this.markReplayed();
    if (atBottom) page.log.scrollTop = page.log.scrollHeight;
    const shown = this.shown;
    if (shown !== undefined && this.replayAt === undefined && events.some((event) => event.revision === shown.revision)) {
      this.drawBoard(shown, this.context(shown));
    }
    this.onRevision(events[events.length - 1]?.revision ?? 0n);
  }

  private onRevision(revision: bigint): void {
    this.clearReconnecting();
    this.latest = maxOf(this.latest, revision);
    this.renderReplay();
    if (this.live === undefined || revision > this.live.revision) void this.refresh();
  }

  /** Tells whether the feed should go on after its stream ended: only when the events do not say the game is over. */
  private onEnd(): boolean {
    void this.refresh();
    return !this.events.some((event) => event.event.case === "gameFinished" || event.event.case === "tableClosed");
  }

  private onTrouble(refused: Refusal, retrying: boolean): boolean {
    const tokenRefused = refused.code === Code.Unauthenticated || refused.reason === "SEAT_GIVEN_UP";
    if (this.token !== "" && this.me !== "" && tokenRefused) {
      this.seat.forget("Your seat token no longer works here; you are watching as a spectator.");
      return true;
    }
    if (retrying) {
      this.reconnecting = true;
      setStatus("The live feed was interrupted; reconnecting…");
    } else {
      showRefusal(refused);
    }
    return false;
  }

  private clearReconnecting(): void {
    if (!this.reconnecting) return;
    this.reconnecting = false;
    setStatus("");
  }

  /** Reads the game (and the seat's legal moves) again; calls made meanwhile coalesce into one more. */
  async refresh(): Promise<void> {
    if (this.loading) {
      this.loadAgain = true;
      return;
    }
    this.loading = true;
    try {
      do {
        this.loadAgain = false;
        await this.load();
      } while (this.loadAgain && !this.abort.signal.aborted);
    } finally {
      this.loading = false;
    }
  }

  private async load(): Promise<void> {
    const signal = this.abort.signal;
    let game: Game | undefined;
    let moves: Move[] = [];
    let movesRevision = 0n;
    try {
      game = (await client.getGame({ name: this.name, view: GameView.FULL }, { signal })).game;
      if (game === undefined) return;
      if (game.caller !== "" && game.state === GameState.IN_PROGRESS) {
        [moves, movesRevision] = await this.listMoves(signal);
      }
    } catch (error) {
      if (signal.aborted) return;
      const refused = refusal(error);
      if (this.token !== "" && refused.code === Code.Unauthenticated) {
        this.seat.forget("That seat token no longer works; you are watching as a spectator.");
        return;
      }
      if (refused.code === Code.Aborted) {
        this.loadAgain = true; // the game moved on while the moves were listed
        return;
      }
      showRefusal(refused);
      if (this.live === undefined) page.summary.textContent = refused.text;
      return;
    }
    if (signal.aborted) return;
    this.live = game;
    this.me = game.caller;
    this.latest = maxOf(this.latest, game.revision, movesRevision);
    if (movesRevision > game.revision) {
      // The moves are a later revision's: draw this one without them, then load again.
      this.loadAgain = true;
      this.moves = [];
      this.movesRevision = game.revision;
    } else {
      this.moves = moves;
      this.movesRevision = movesRevision || game.revision;
    }
    this.render();
  }

  private async listMoves(signal: AbortSignal): Promise<[Move[], bigint]> {
    const moves: Move[] = [];
    let pageToken = "";
    let revision = 0n;
    for (let pages = 0; pages < MOVE_PAGES; pages++) {
      const response = await client.listLegalMoves({ name: this.name, pageSize: 1000, pageToken }, { signal });
      moves.push(...response.moves);
      revision = response.revision;
      pageToken = response.nextPageToken;
      if (pageToken === "") break;
    }
    return [moves, revision];
  }

  /** Shows a game the server returned after a call of this page (SubmitMove, JoinGame...). */
  adopt(game: Game | undefined): void {
    if (game === undefined || (this.live !== undefined && game.revision < this.live.revision)) return;
    this.live = game;
    this.moves = [];
    this.latest = maxOf(this.latest, game.revision);
    this.render();
    void this.refresh();
  }

  // --- drawing ------------------------------------------------------------------

  private render(): void {
    const live = this.live;
    if (live === undefined) return;
    if (this.replayAt === undefined) this.shown = live;
    const shown = this.shown ?? live;
    const context = this.context(shown);
    document.title = `${this.info?.displayName ?? "Game"} · Tabletop`;
    page.summary.textContent = summaryText(live, this.context(live));
    renderScores(page.scores, shown, context);
    this.relabelLog(context);
    this.drawBoard(shown, context);
    this.renderReplay();
    this.seat.render();
  }

  /** Writes the log again when the names it uses changed (a player joined, a seat opened). */
  private relabelLog(context: BoardContext): void {
    const key = `${context.me}|${[...context.names.values()].join("|")}`;
    if (key === this.namesKey) return;
    this.namesKey = key;
    replaceChildren(page.log, ...this.events.map((event) => logEntry(event, this.board, context)));
    markUndone(page.log, this.events);
    this.markReplayed();
    page.log.scrollTop = page.log.scrollHeight;
  }

  private drawBoard(game: Game, context: BoardContext): void {
    const replaying = this.replayAt !== undefined;
    const moves = replaying ? [] : this.moves;
    // Drawn again once the feed brought the last move's events, which the board may mark.
    const recent = (context.recent?.length ?? 0) > 0;
    const key = `${game.revision}|${this.me}|${replaying}|${this.movesRevision}|${moves.length}|${game.state}|${recent}`;
    if (key === this.drawnKey) return;
    this.drawnKey = key;
    this.narrowed = undefined;
    const picker: Picker = {
      moves,
      choose: (move) => void this.seat.submit(move),
      narrow: (narrowed) => {
        this.narrowed = narrowed;
        this.renderMoves();
      },
    };
    const drawing =
      this.me !== "" && this.board.interactive !== undefined
        ? this.board.interactive(game, context, picker)
        : this.board.draw(game, context);
    page.board.replaceChildren(drawing);
    page.board.dataset["revision"] = String(game.revision);
    page.board.dataset["mode"] = replaying ? "replay" : "live";
    this.renderMoves();
  }

  /** Draws the seat's legal moves (narrowed by the board's clicks, filtered by the words typed). */
  renderMoves(): void {
    const live = this.live;
    const playing = this.me !== "" && live?.state === GameState.IN_PROGRESS;
    page.movesPanel.hidden = !playing;
    if (!playing || live === undefined) {
      replaceChildren(page.legalMoves);
      return;
    }
    if (this.replayAt !== undefined) {
      replaceChildren(page.legalMoves);
      page.movesNote.textContent = "Replaying: press Live to play.";
      return;
    }
    const moves = this.narrowed ?? this.moves;
    const choose = (move: Move): void => void this.seat.submit(move);
    const { shown, matching } = renderMoves(page.legalMoves, moves, page.moveFilter.value, this.board, this.context(live), choose);
    page.movesNote.textContent =
      this.moves.length === 0
        ? "Nothing to do now: wait for the others."
        : `${shown < matching ? `${shown} of ${matching} moves shown: filter them. ` : ""}${
            this.board.interactive !== undefined ? "Click one, or pick it on the board." : "Click one to play it."
          }`;
  }

  // --- replay ---------------------------------------------------------------------

  private renderReplay(): void {
    const latest = maxOf(this.latest, this.live?.revision ?? 0n);
    const at = this.replayAt ?? this.live?.revision ?? 0n;
    page.slider.min = latest > 0n ? "1" : "0";
    page.slider.max = String(latest);
    if (document.activeElement !== page.slider || this.replayAt === undefined) page.slider.value = String(at);
    page.stepBack.disabled = at <= 1n;
    page.stepForward.disabled = this.replayAt === undefined;
    page.live.disabled = this.replayAt === undefined;
    page.revisionLabel.textContent =
      this.replayAt === undefined ? `live, revision ${at}` : `revision ${at} of ${latest}`;
  }

  /** Shows the game at `revision` as the viewer may see it; at the latest revision the page follows the game live again. */
  async showRevision(revision: bigint): Promise<void> {
    const latest = maxOf(this.latest, this.live?.revision ?? 0n);
    if (revision >= latest) {
      this.goLive();
      return;
    }
    const target = revision < 1n ? 1n : revision;
    this.replayAt = target;
    this.renderReplay();
    this.markReplayed(true);
    const request = ++this.replayRequest;
    try {
      const response = await client.getGameRevision(
        { name: `${this.name}/revisions/${target}` },
        { signal: this.abort.signal },
      );
      if (request !== this.replayRequest || this.replayAt !== target || response.snapshot === undefined) return;
      this.shown = response.snapshot;
      const context = this.context(response.snapshot);
      renderScores(page.scores, response.snapshot, context);
      this.drawBoard(response.snapshot, context);
      this.renderMoves();
    } catch (error) {
      if (!this.abort.signal.aborted) showRefusal(refusal(error));
    }
  }

  /** Follows the game live again. */
  goLive(): void {
    this.replayAt = undefined;
    this.replayRequest++;
    this.markReplayed();
    this.render();
  }

  /** Steps the replay by `delta` revisions. */
  step(delta: number): void {
    const at = this.replayAt ?? this.live?.revision ?? 1n;
    void this.showRevision(at + BigInt(delta));
  }

  /** Follows the slider: the label at once, the revision once it rests. */
  slide(final: boolean): void {
    const target = BigInt(page.slider.value || "1");
    page.revisionLabel.textContent = `revision ${target}`;
    window.clearTimeout(this.sliderTimer);
    if (final) {
      void this.showRevision(target);
    } else {
      this.sliderTimer = window.setTimeout(() => void this.showRevision(target), SLIDER_REST_MS);
    }
  }

  /** Dims the log's lines after the revision replayed and marks the one drawn (scrolled to, with `scroll`). */
  private markReplayed(scroll = false): void {
    const at = this.replayAt;
    for (const item of Array.from(page.log.children) as HTMLElement[]) {
      const revision = BigInt(item.dataset["revision"] ?? "0");
      item.classList.toggle("future", at !== undefined && revision > at);
      item.classList.toggle("current", at !== undefined && revision === at);
      if (scroll && revision === at) page.log.scrollTop = item.offsetTop - page.log.clientHeight / 2;
    }
  }
}
