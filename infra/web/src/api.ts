// The page's one Connect client of GameService: the seat token presented on
// every call, every response kept for debugging, and refusals put in words.
import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";

import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { GameService } from "./gen/tabletop/v1/game_service_pb";

/** How many responses `window.tabletop.received` keeps, oldest dropped first. */
const RECEIVED_LIMIT = 2000;

/**
 * A debugging aid for tests and bug reports: `window.tabletop.received` holds
 * the last 2,000 response messages the page received (unary responses and
 * every item of a stream), oldest first, each as the JSON of its message
 * (`toJson(Schema, message)`: camelCase fields, int64 as strings, defaults
 * left out). Copy it from the browser console into a bug report.
 */
export interface DebugHandle {
  readonly received: JsonValue[];
}

declare global {
  interface Window {
    tabletop: DebugHandle;
  }
}

const received: JsonValue[] = [];
window.tabletop = { received };

function keep(message: JsonValue): void {
  received.push(message);
  if (received.length > RECEIVED_LIMIT) received.splice(0, received.length - RECEIVED_LIMIT);
}

/** The seat token the next calls present; empty: they are a spectator's. */
let seatToken = "";

/** Sets the seat token every later call presents ("" to spectate). */
export function useSeatToken(token: string): void {
  seatToken = token;
}

/** Presents the seat token as `authorization: Bearer <token>`. */
const authorize: Interceptor = (next) => async (request) => {
  if (seatToken !== "") request.header.set("authorization", `Bearer ${seatToken}`);
  return await next(request);
};

/** Keeps every response message in `window.tabletop.received`. */
const record: Interceptor = (next) => async (request) => {
  const response = await next(request);
  if (!response.stream) {
    keep(toJson(response.method.output, response.message));
    return response;
  }
  const output = response.method.output;
  const items = response.message;
  return {
    ...response,
    message: (async function* () {
      for await (const item of items) {
        keep(toJson(output, item));
        yield item;
      }
    })(),
  };
};

export const client = createClient(
  GameService,
  createConnectTransport({
    baseUrl: location.origin,
    useBinaryFormat: true,
    interceptors: [authorize, record],
  }),
);

/** A refused call in words for a person, with its code and ErrorInfo reason. */
export interface Refusal {
  readonly code: Code;
  /** The ErrorInfo reason (`NOT_YOUR_TURN`), or "" when the error had none. */
  readonly reason: string;
  readonly text: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Reasons whose server message a person would not know what to do with. */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  NOT_YOUR_TURN: "It is not your turn.",
  REVISION_MISMATCH: "The game moved on before your request arrived; the board now shows where it stands.",
  CONCURRENT_UPDATE: "Someone else acted at the same moment; the board now shows where the game stands.",
  INVALID_INVITE_CODE: "That invite code does not open this table.",
  MISSING_CREDENTIALS: "This needs a seat: open one with its seat token or an invite code.",
  INVALID_CREDENTIALS: "That seat token is not valid here (mistyped, or its seat was given up).",
  GAME_NOT_FOUND: "There is no such game.",
  TABLE_FULL: "This table is full.",
  GAME_ALREADY_STARTED: "This game has already started: nobody can join it now.",
  TABLE_CLOSED: "This table has closed.",
  NOT_THE_HOST: "Only the host (seat 0) may do that.",
  SEAT_GIVEN_UP: "That seat was given up; its token no longer works.",
  SEAT_RESIGNED: "You resigned this seat: the server's bot plays it now.",
  RATE_LIMITED: "Too many requests at once; wait a moment and try again.",
  MOVE_NOT_UNDOABLE: "Your last move drew or revealed something: propose a takeback instead.",
  NOBODY_TO_ASK: "There is nobody left to ask for a takeback.",
  TAKEBACK_CROSSES_REVEAL: "That move revealed something to the others: it cannot be taken back.",
};

/** Returns a caught error as a refusal, in words. */
export function refusal(error: unknown): Refusal {
  const connectError = ConnectError.from(error);
  const [info] = connectError.findDetails(ErrorInfoSchema);
  const reason = info?.reason ?? "";
  const metadata = info?.metadata ?? {};
  let text = PLAIN_WORDS[reason] ?? connectError.rawMessage;
  if (reason === "RATE_LIMITED") text = `${text} ${retryHint(metadata)}`.trim();
  if (reason === "UNDO_BACKOFF") text = backoffText(metadata) ?? text;
  if (connectError.code === Code.Unavailable && reason === "") {
    text = "The server cannot be reached just now; try again in a moment.";
  }
  return { code: connectError.code, reason, text, metadata };
}

function retryHint(metadata: Readonly<Record<string, string>>): string {
  const millis = Number(metadata["retryDelayMillis"] ?? "");
  return Number.isFinite(millis) && millis > 0 ? `(Try again in ${Math.ceil(millis / 1000)} s.)` : "";
}

function backoffText(metadata: Readonly<Record<string, string>>): string | undefined {
  const at = new Date(metadata["retryAt"] ?? "");
  if (Number.isNaN(at.getTime())) return undefined;
  return `Your last takeback proposal was declined; you may propose again at ${at.toLocaleTimeString()}.`;
}

/** Returns a fresh UUID4 for a request_id (also outside secure contexts, unlike crypto.randomUUID). */
export function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
