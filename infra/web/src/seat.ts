// Playing from the page: opening a seat by its token or joining with an invite
// code, starting the game, moves, takebacks and resigning.
import { Code } from "@connectrpc/connect";

import { client, refusal, requestId, useSeatToken } from "./api";
import { byId } from "./dom";
import { nameOf } from "./events";
import type { MovePlayed } from "./gen/tabletop/v1/event_pb";
import { GameState } from "./gen/tabletop/v1/game_pb";
import { GameView, UndoVote } from "./gen/tabletop/v1/game_service_pb";
import type { Move } from "./gen/tabletop/v1/move_pb";
import type { GamePage } from "./game_page";
import { setStatus, showRefusal } from "./status";

/** Where a game's seat token is kept in this tab (sessionStorage), so a reload keeps the seat. */
export const seatKey = (name: string): string => `tabletop:seat:${name}`;

/** Where the invite code of a table opened in this tab is kept, for its host to share. */
export const inviteKey = (name: string): string => `tabletop:invite:${name}`;

const CALL_MS = 10_000;
const ATTEMPTS = 3;

const seat = {
  closed: byId("seat-closed"),
  open: byId("seat-open"),
  info: byId("seat-info"),
  inviteLink: byId("invite-link"),
  token: byId<HTMLInputElement>("seat-token"),
  myToken: byId("my-seat-token"),
  displayName: byId<HTMLInputElement>("display-name"),
  inviteCode: byId<HTMLInputElement>("invite-code"),
  joinForm: byId("join-form"),
  start: byId<HTMLButtonElement>("start-game"),
  undo: byId<HTMLButtonElement>("undo"),
  resign: byId<HTMLButtonElement>("resign"),
  proposal: byId("undo-proposal"),
  proposalText: byId("undo-proposal-text"),
  accept: byId<HTMLButtonElement>("undo-accept"),
  reject: byId<HTMLButtonElement>("undo-reject"),
};

/** Runs a call again (with the same request_id, which makes that safe) while the server is unreachable. */
async function retrying<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= ATTEMPTS || refusal(error).code !== Code.Unavailable) throw error;
      await new Promise((resolve) => setTimeout(resolve, 400 * attempt));
    }
  }
}

export class SeatActions {
  /** A call of the seat is in flight: the buttons wait for it. */
  private busy = false;

  constructor(private readonly game: GamePage) {}

  /** Shows the seat forms, or the open seat with what it may do now. */
  render(): void {
    const { live, me, name } = this.game;
    seat.closed.hidden = me !== "";
    seat.open.hidden = me === "";
    // Only a table waiting for players takes new ones.
    seat.joinForm.hidden = live !== undefined && live.state !== GameState.WAITING_FOR_PLAYERS;
    if (live === undefined || me === "") return;
    const context = this.game.context(live);
    const player = live.players.find((p) => p.name === me);
    seat.info.textContent = `You play as ${player?.displayName ?? me} (seat ${player?.seat ?? "?"}).`;
    seat.myToken.textContent = this.game.token;
    const waiting = live.state === GameState.WAITING_FOR_PLAYERS;
    const playing = live.state === GameState.IN_PROGRESS && !(player?.resigned ?? false);
    seat.start.hidden = !(waiting && live.host === me);
    const last = this.lastMove();
    seat.undo.hidden = !playing || last?.player !== me || live.pendingUndo !== undefined;
    seat.undo.textContent = last?.undoable === true ? "Take back my move" : "Propose a takeback";
    seat.resign.hidden = !playing;
    const code = sessionStorage.getItem(inviteKey(name));
    const link = `${location.origin}/${name}${code ? `?code=${encodeURIComponent(code)}` : ""}`;
    seat.inviteLink.hidden = !waiting;
    seat.inviteLink.textContent = code ? `Invite code ${code}; share ${link}` : `Share ${link}`;
    const pending = live.pendingUndo;
    seat.proposal.hidden = pending === undefined || !playing;
    if (pending !== undefined) {
      const mine = pending.proposer === me;
      const answered = pending.acceptedBy.includes(me);
      seat.proposalText.textContent = mine
        ? "You asked to take back your last move; waiting for the others."
        : `${nameOf(pending.proposer, context)} asks to take back their last move (back to revision ${pending.targetRevision}).${answered ? " You accepted." : ""}`;
      seat.accept.hidden = mine || answered;
      seat.reject.hidden = mine || answered;
    }
    for (const button of [seat.start, seat.undo, seat.resign, seat.accept, seat.reject]) button.disabled = this.busy;
  }

  /** Returns the game's last move that was not taken back (its move_played), from the log. */
  private lastMove(): MovePlayed | undefined {
    let undoneAbove: bigint | undefined;
    for (let i = this.game.events.length - 1; i >= 0; i--) {
      const event = this.game.events[i];
      if (event === undefined) continue;
      if (event.event.case === "movesUndone") {
        const target = event.event.value.targetRevision;
        undoneAbove = undoneAbove === undefined || target < undoneAbove ? target : undoneAbove;
      }
      if (event.event.case !== "movePlayed" || (undoneAbove !== undefined && event.revision > undoneAbove)) continue;
      return event.event.value;
    }
    return undefined;
  }

  /** Tells whether the seat's last move may be taken back alone (UndoMove). */
  private lastMoveUndoableAlone(): boolean {
    const last = this.lastMove();
    return last !== undefined && last.player === this.game.me && last.undoable;
  }

  /** Runs one call of the seat, shows its refusal in words, and reads the game again after it. */
  private async act(doing: string, call: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.render();
    setStatus(doing);
    try {
      await call();
      setStatus("");
    } catch (error) {
      if (this.game.abort.signal.aborted) return;
      showRefusal(refusal(error));
    } finally {
      this.busy = false;
      this.render();
      if (!this.game.abort.signal.aborted) void this.game.refresh();
    }
  }

  /** Plays a legal move at the revision it was listed at. */
  async submit(move: Move): Promise<void> {
    const { name } = this.game;
    const id = requestId();
    const expectedRevision = this.game.movesRevision;
    const live = this.game.live;
    const label = live === undefined ? "a move" : this.game.board.label(move, this.game.context(live));
    await this.act(`Playing: ${label}…`, async () => {
      const response = await retrying(() =>
        client.submitMove(
          { name, move, expectedRevision, requestId: id, view: GameView.FULL },
          { signal: this.game.abort.signal, timeoutMs: CALL_MS },
        ),
      );
      this.game.adopt(response.game);
    });
  }

  /** Opens the seat a token acts for, once the server confirms it sits at this game. */
  async openSeat(token: string): Promise<void> {
    const trimmed = token.trim();
    if (trimmed === "") {
      setStatus("Paste the seat token that CreateGame or JoinGame gave you.", "error");
      return;
    }
    useSeatToken(trimmed);
    try {
      const response = await client.getGame({ name: this.game.name, view: GameView.BASIC }, { timeoutMs: CALL_MS });
      if (response.game?.caller === "") {
        useSeatToken(this.game.token);
        setStatus("That seat token is for another game: it has no seat here.", "error");
        return;
      }
    } catch (error) {
      useSeatToken(this.game.token);
      showRefusal(refusal(error));
      return;
    }
    sessionStorage.setItem(seatKey(this.game.name), trimmed);
    seat.token.value = "";
    setStatus("Seat open.");
    this.game.restart();
  }

  /** Takes the next free seat (a private table's with its invite code). */
  async join(): Promise<void> {
    const { name } = this.game;
    const id = requestId();
    await this.act("Joining…", async () => {
      const response = await retrying(() =>
        client.joinGame(
          { name, displayName: seat.displayName.value.trim(), inviteCode: seat.inviteCode.value.trim(), requestId: id },
          { timeoutMs: CALL_MS },
        ),
      );
      sessionStorage.setItem(seatKey(name), response.seatToken);
      this.game.restart();
    });
  }

  /** Starts the game (the host only). */
  async startGame(): Promise<void> {
    const id = requestId();
    await this.act("Starting…", async () => {
      const response = await retrying(() => client.startGame({ name: this.game.name, requestId: id }, { timeoutMs: CALL_MS }));
      this.game.adopt(response.game);
    });
  }

  /**
   * Takes the seat's last move back: alone where the game allows it
   * (UndoMove), otherwise by asking the others (ProposeUndo).
   */
  async undo(): Promise<void> {
    const { name } = this.game;
    const expectedRevision = this.game.live?.revision ?? 0n;
    const alone = this.lastMoveUndoableAlone();
    await this.act(alone ? "Taking the move back…" : "Asking the others…", async () => {
      if (alone) {
        try {
          const id = requestId();
          const response = await retrying(() => client.undoMove({ name, expectedRevision, requestId: id }, { timeoutMs: CALL_MS }));
          this.game.adopt(response.game);
          return;
        } catch (error) {
          const reason = refusal(error).reason;
          if (reason !== "MOVE_NOT_UNDOABLE" && reason !== "SELF_UNDO_LIMIT_REACHED") throw error;
        }
      }
      const id = requestId();
      const response = await retrying(() => client.proposeUndo({ name, expectedRevision, requestId: id }, { timeoutMs: CALL_MS }));
      this.game.adopt(response.game);
    });
  }

  /** Accepts or declines the open takeback proposal. */
  async respond(accept: boolean): Promise<void> {
    const proposal = this.game.live?.pendingUndo;
    if (proposal === undefined) return;
    const id = requestId();
    const vote = accept ? UndoVote.ACCEPT : UndoVote.REJECT;
    await this.act(accept ? "Accepting…" : "Declining…", async () => {
      const response = await retrying(() =>
        client.respondUndo({ name: this.game.name, proposalId: proposal.proposalId, vote, requestId: id }, { timeoutMs: CALL_MS }),
      );
      this.game.adopt(response.game);
    });
  }

  /** Resigns, once the player confirms: the server's bot plays the seat to the end. */
  async resign(): Promise<void> {
    if (!window.confirm("Resign? The server's bot will play your seat to the end, and it cannot win.")) return;
    const id = requestId();
    await this.act("Resigning…", async () => {
      const response = await retrying(() => client.resignGame({ name: this.game.name, requestId: id }, { timeoutMs: CALL_MS }));
      this.game.adopt(response.game);
    });
  }

  /** Closes the seat in this tab (the seat stays the player's) and watches as a spectator. */
  forget(message: string): void {
    sessionStorage.removeItem(seatKey(this.game.name));
    setStatus(message);
    this.game.restart();
  }
}
