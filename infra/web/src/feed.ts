// Following a game's StreamGame: every event after a revision, resumed from the
// last revision seen when the stream drops, until the game's stream ends.
import { Code } from "@connectrpc/connect";

import { client, refusal, type Refusal } from "./api";
import type { GameEvent } from "./gen/tabletop/v1/event_pb";

/** What the page does with what the feed brings. */
export interface FeedHandlers {
  /** Consecutive events, in revision order. */
  events(events: readonly GameEvent[]): void;
  /** The game is idle at this revision. */
  heartbeat(revision: bigint): void;
  /**
   * Every event up to this revision has come: the stream's catch-up is over
   * (once per stream opened, so again after each resumption).
   */
  caughtUp(revision: bigint): void;
  /**
   * The stream ended without an error, as it does once the game finished or
   * the table closed. Returns true to open it again (it ended before that).
   */
  end(): boolean;
  /**
   * The stream failed. Returns true to open it again at once (after dropping a
   * seat token the server no longer accepts, say); otherwise a resumable
   * failure is retried after a pause and any other ends the feed.
   */
  trouble(refused: Refusal, retrying: boolean): boolean;
}

/** Failures after which the stream is opened again, after a growing pause. */
const RESUMABLE: ReadonlySet<Code> = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.ResourceExhausted, // a slow consumer resumes from its revision
  Code.Unknown, // what a dropped connection looks like to fetch
  Code.Internal,
  Code.Canceled,
]);
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 8000;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });

/**
 * Follows the game `name` from `afterRevision` until the stream ends or
 * `signal` aborts; the events come in revision order, each once.
 */
export async function follow(name: string, afterRevision: bigint, signal: AbortSignal, on: FeedHandlers): Promise<void> {
  let after = afterRevision;
  let pause = FIRST_PAUSE_MS;
  while (!signal.aborted) {
    try {
      const stream = client.streamGame({ name, afterRevision: after, batchEvents: true }, { signal });
      for await (const item of stream) {
        pause = FIRST_PAUSE_MS;
        const fresh = (events: readonly GameEvent[]): GameEvent[] => events.filter((event) => event.revision > after);
        switch (item.item.case) {
          case "events":
          case "event": {
            const events = fresh(item.item.case === "events" ? item.item.value.events : [item.item.value]);
            if (events.length === 0) break;
            after = events[events.length - 1]?.revision ?? after;
            on.events(events);
            break;
          }
          case "heartbeat":
            on.heartbeat(item.item.value.revision);
            break;
          case "caughtUp":
            on.caughtUp(item.item.value.revision);
            break;
          default:
            break; // a snapshot: never asked for
        }
      }
      if (signal.aborted || !on.end()) return;
      await sleep(pause, signal);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    } catch (error) {
      if (signal.aborted) return;
      const refused = refusal(error);
      const resumable = RESUMABLE.has(refused.code);
      if (on.trouble(refused, resumable)) continue;
      if (!resumable) return;
      await sleep(pause, signal);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
