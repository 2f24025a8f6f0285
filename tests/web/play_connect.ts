// Plays one whole two-seat Qwirkle game against a Tabletop server's HTTP port,
// as the web page does: the code generated from the protos by protoc-gen-es,
// a client of @connectrpc/connect over a transport of @connectrpc/connect-web
// (the Connect protocol or gRPC-Web, on Node's fetch). Seats authenticate with
// `authorization: Bearer <seat token>` (an interceptor), every mutating call
// carries a fresh request_id and the revision it was based on, a spectator
// follows the game with StreamGame while it is played, and deliberate mistakes
// are checked for the code and the google.rpc.ErrorInfo the gRPC API gives.
//
//   node play_connect.mjs [--protocol connect|grpc-web] [--json] [--batch-events] [BASE_URL]
//
// BASE_URL is the HTTP port (or TABLETOP_HTTP_URL; default http://127.0.0.1:8080).
// --json sends the messages as JSON instead of binary protobuf; --batch-events
// asks StreamGame for its events in batches. `make web` bundles this file into
// infra/web/dist-node/play_connect.mjs.
//
// On success it prints one line of JSON (game, moves, scores, winners, events
// streamed, the errors checked, protocol) and exits 0; on any failure it prints
// what went wrong to stderr and exits 1.

import {
  Code,
  ConnectError,
  createClient,
  type Client,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
} from "../../infra/web/src/gen/google/rpc/error_details_pb";
import type { GameEvent } from "../../infra/web/src/gen/tabletop/v1/event_pb";
import { GameState, GameType, type Game } from "../../infra/web/src/gen/tabletop/v1/game_pb";
import { GameService, GameView } from "../../infra/web/src/gen/tabletop/v1/game_service_pb";
import type { Move } from "../../infra/web/src/gen/tabletop/v1/move_pb";
import type { QwirkleTile } from "../../infra/web/src/gen/tabletop/v1/qwirkle_pb";

// Node's globals without @types/node: only what this client uses.
interface NodeProcess {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
  exitCode?: number;
  exit(code?: number): never;
}
const proc = (globalThis as unknown as { process: NodeProcess }).process;

const UNARY_TIMEOUT_MS = 10_000;
const STREAM_TIMEOUT_MS = 100_000; // the whole game fits well within it
const ERROR_DOMAIN = "tabletop.games";
const MAX_TURNS = 1_000; // a Qwirkle game of two seats takes about 50 to 100
const EVENTS_PAGE_SIZE = 50; // ListGameEvents in several pages

type Protocol = "connect" | "grpc-web";

interface Options {
  protocol: Protocol;
  json: boolean;
  batchEvents: boolean;
  baseUrl: string;
}

type GameClient = Client<typeof GameService>;

class Failure extends Error {}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new Failure(message);
  }
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    protocol: "connect",
    json: false,
    batchEvents: false,
    baseUrl: proc.env.TABLETOP_HTTP_URL ?? "http://127.0.0.1:8080",
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === "--protocol") {
      const value = argv[(i += 1)];
      check(value === "connect" || value === "grpc-web", `--protocol connect|grpc-web, not ${value}`);
      options.protocol = value;
    } else if (arg === "--json") {
      options.json = true;
    } else if (arg === "--batch-events") {
      options.batchEvents = true;
    } else if (arg !== undefined && !arg.startsWith("-")) {
      options.baseUrl = arg;
    } else {
      throw new Failure(
        `unknown argument ${arg}; usage: play_connect.mjs [--protocol connect|grpc-web] ` +
          "[--json] [--batch-events] [BASE_URL]",
      );
    }
  }
  return options;
}

// ---------------------------------------------------------------------------
// Transports and clients.

// Presents a seat token on every call of the transport it is given to.
function bearer(token: string): Interceptor {
  return (next) => async (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return await next(request);
  };
}

// Names the method in a unary call's error, for the report of a failure.
const FAILED_METHOD = new WeakMap<ConnectError, string>();
const naming: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    const connectError = ConnectError.from(error);
    FAILED_METHOD.set(connectError, request.method.name);
    throw connectError;
  }
};

// A client of GameService over the chosen protocol, for a seat token or none (a spectator).
function gameClient(options: Options, token?: string): GameClient {
  const settings = {
    baseUrl: options.baseUrl,
    useBinaryFormat: !options.json,
    interceptors: token === undefined ? [naming] : [naming, bearer(token)],
    defaultTimeoutMs: UNARY_TIMEOUT_MS,
  };
  const transport: Transport =
    options.protocol === "connect" ? createConnectTransport(settings) : createGrpcWebTransport(settings);
  return createClient(GameService, transport);
}

// ---------------------------------------------------------------------------
// The error model.

interface Refusal {
  mistake: string;
  rpc: string;
  code: number;
  codeName: string;
  reason: string;
}

interface Expected {
  code: Code;
  reason: string;
}

// Runs a call that must fail; checks its code, its ErrorInfo and returns them.
async function refused(
  mistake: string,
  rpc: string,
  call: () => Promise<unknown>,
  expected: Expected,
): Promise<{ refusal: Refusal; error: ConnectError; metadata: Record<string, string> }> {
  try {
    await call();
  } catch (caught) {
    if (caught instanceof Failure) {
      throw caught;
    }
    const error = ConnectError.from(caught);
    const infos = error.findDetails(ErrorInfoSchema);
    const got = `${Code[error.code]} ${infos.map((info) => info.reason).join(",")}`;
    check(infos.length === 1, `${mistake}: ${infos.length} ErrorInfo details (${describe(error)})`);
    const [info] = infos;
    check(info !== undefined && info.domain === ERROR_DOMAIN, `${mistake}: ErrorInfo.domain ${info?.domain}`);
    check(
      error.code === expected.code && info.reason === expected.reason,
      `${mistake}: ${rpc} refused ${got}, expected ${Code[expected.code]} ${expected.reason} ` +
        `(${error.rawMessage})`,
    );
    check(error.rawMessage.length > 0, `${mistake}: a refusal without a message`);
    return {
      refusal: { mistake, rpc, code: error.code, codeName: Code[error.code], reason: info.reason },
      error,
      metadata: info.metadata,
    };
  }
  throw new Failure(`${mistake}: ${rpc} succeeded but was expected to fail`);
}

function describe(error: unknown): string {
  if (error instanceof ConnectError) {
    const reasons = error.findDetails(ErrorInfoSchema).map((info) => info.reason);
    const method = FAILED_METHOD.get(error);
    const cause = error.cause instanceof Error && error.cause !== error ? error.cause : undefined;
    const why = cause?.cause instanceof Error ? cause.cause.message : cause?.message;
    return (
      `${method ? `${method} failed: ` : ""}${Code[error.code] ?? error.code}: ${error.rawMessage}` +
      (reasons.length > 0 ? ` (${reasons.join(", ")})` : "") +
      (why && why !== error.rawMessage ? ` (${why})` : "")
    );
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

// ---------------------------------------------------------------------------
// Calls.

function requestId(): string {
  return crypto.randomUUID();
}

function seatOf(player: string): number {
  return Number(player.slice(player.lastIndexOf("/") + 1));
}

function gameOf(reply: { game?: Game }, rpc: string): Game {
  check(reply.game !== undefined, `${rpc} answered without a game`);
  return reply.game;
}

async function legalMoves(seat: GameClient, game: string): Promise<{ revision: bigint; moves: Move[] }> {
  const moves: Move[] = [];
  let pageToken = "";
  let revision: bigint | undefined;
  do {
    const reply = await seat.listLegalMoves({ name: game, pageSize: 200, pageToken });
    check(revision === undefined || reply.revision === revision, "legal move pages of two revisions");
    revision = reply.revision;
    moves.push(...reply.moves);
    pageToken = reply.nextPageToken;
  } while (pageToken);
  return { revision, moves };
}

// The placement of most tiles; without one an exchange of most tiles; else a pass.
function weight(move: Move): number {
  if (move.game.case !== "qwirkle") {
    return 0;
  }
  const action = move.game.value.action;
  switch (action.case) {
    case "placeTiles":
      return 1000 + action.value.placements.length;
    case "exchangeTiles":
      return 100 + action.value.tiles.length;
    case "passTurn":
      return 1;
    default:
      return 0;
  }
}

function choose(moves: Move[]): Move {
  let best: Move | undefined;
  for (const move of moves) {
    if (best === undefined || weight(move) > weight(best)) {
      best = move;
    }
  }
  check(best !== undefined && weight(best) > 0, "no Qwirkle move among the legal moves");
  return best;
}

function placing(...cells: [QwirkleTile, number, number][]) {
  const placements = cells.map(([tile, x, y]) => ({ tile, at: { x, y } }));
  return {
    game: {
      case: "qwirkle" as const,
      value: { action: { case: "placeTiles" as const, value: { placements } } },
    },
  };
}

// ---------------------------------------------------------------------------
// Events.

interface EventSummary {
  revision: number;
  moveNumber: number;
  actor: string;
  kind: string; // the event's member: "gameStarted", or "qwirkle.tilesPlaced" for a game's own
  recordDigest: string;
}

function summarize(event: GameEvent): EventSummary {
  const fact = event.event;
  let kind: string = fact.case ?? "";
  if (fact.case !== undefined && "event" in fact.value) {
    kind += `.${fact.value.event.case ?? ""}`;
  }
  return {
    revision: Number(event.revision),
    moveNumber: event.moveNumber,
    actor: event.actor,
    kind,
    recordDigest: event.recordDigest,
  };
}

// Checks that a move's events follow on from the revision it was based on.
function checkFollowOn(events: GameEvent[], after: bigint, game: Game, rpc: string): void {
  check(events.length > 0, `${rpc} answered without events`);
  events.forEach((event, i) =>
    check(
      event.revision === after + BigInt(i + 1),
      `${rpc}'s events: revision ${event.revision} at ${i}, after ${after}`,
    ),
  );
  const last = events.at(-1);
  check(last?.revision === game.revision, `${rpc}: the game is at ${game.revision}, its events end before`);
  check(last?.recordDigest === game.recordDigest, `${rpc}: the last event's digest is not the game's`);
}

async function listEvents(client: GameClient, game: string): Promise<EventSummary[]> {
  const events: EventSummary[] = [];
  let pageToken = "";
  let pages = 0;
  do {
    const reply = await client.listGameEvents({ parent: game, pageSize: EVENTS_PAGE_SIZE, pageToken });
    events.push(...reply.events.map(summarize));
    pageToken = reply.nextPageToken;
    pages += 1;
    check(pages <= 1_000, "ListGameEvents does not end");
  } while (pageToken);
  return events;
}

// ---------------------------------------------------------------------------
// The spectator's live feed.

interface Streamed {
  events: EventSummary[];
  items: number;
  batches: number;
  heartbeats: number;
  snapshots: number;
  caughtUp: number;
  lastRevision: bigint;
  finished: boolean;
}

// Follows StreamGame without a token from revision 0 until the server ends it,
// checking the revisions arrive one by one with no gap or repeat.
function spectate(client: GameClient, game: string, batchEvents: boolean) {
  const abort = new AbortController();
  const seen: Streamed = {
    events: [],
    items: 0,
    batches: 0,
    heartbeats: 0,
    snapshots: 0,
    caughtUp: 0,
    lastRevision: 0n,
    finished: false,
  };
  const take = (event: GameEvent) => {
    check(
      event.revision === seen.lastRevision + 1n,
      `the stream sent revision ${event.revision} after ${seen.lastRevision}`,
    );
    check(!seen.finished, `the stream sent revision ${event.revision} after GameFinished`);
    seen.lastRevision = event.revision;
    seen.events.push(summarize(event));
    if (event.event.case === "gameFinished") {
      seen.finished = true;
    }
  };
  const follow = async (): Promise<Streamed> => {
    try {
      const stream = client.streamGame(
        { name: game, afterRevision: 0n, batchEvents },
        { signal: abort.signal, timeoutMs: STREAM_TIMEOUT_MS },
      );
      for await (const response of stream) {
        const item = response.item;
        // The caughtUp marker is checked here, and not counted among the items.
        if (item.case !== "caughtUp") seen.items += 1;
        switch (item.case) {
          case "event":
            check(!batchEvents, "an event item on a stream that asked for batches");
            take(item.value);
            break;
          case "events":
            check(batchEvents, "an event batch on a stream that did not ask for them");
            check(item.value.events.length > 0, "an empty event batch");
            seen.batches += 1;
            item.value.events.forEach(take);
            break;
          case "caughtUp":
            // Once, after the events stored when the stream was opened.
            seen.caughtUp += 1;
            check(seen.caughtUp === 1, "a second caughtUp item");
            check(
              item.value.revision === seen.lastRevision,
              `caught up at revision ${item.value.revision} after revision ${seen.lastRevision}`,
            );
            break;
          case "heartbeat":
            check(seen.caughtUp === 1, "a heartbeat before the caughtUp item");
            seen.heartbeats += 1;
            check(
              item.value.revision <= seen.lastRevision,
              `a heartbeat at revision ${item.value.revision}, ahead of the events sent`,
            );
            break;
          case "snapshot":
            // Not asked for; after GameFinished the feed sends the finished game, then ends.
            seen.snapshots += 1;
            check(
              seen.finished &&
                item.value.state === GameState.FINISHED &&
                item.value.revision === seen.lastRevision,
              `a snapshot at revision ${item.value.revision} (${GameState[item.value.state]}) ` +
                `after revision ${seen.lastRevision}`,
            );
            break;
          default:
            throw new Failure(`an unknown stream item (${item.case})`);
        }
      }
    } catch (error) {
      if (error instanceof Failure) {
        abort.abort();
        throw error;
      }
      throw new Failure(`StreamGame ended with ${describe(error)}`);
    }
    check(seen.caughtUp === 1, `${seen.caughtUp} caughtUp items`);
    return seen;
  };
  const done = follow();
  done.catch(() => {}); // awaited by the game; a failure before that is not unhandled
  return { abort, done };
}

// ---------------------------------------------------------------------------
// The game.

interface Summary {
  protocol: Protocol;
  format: "binary" | "json";
  game: string;
  moves: number;
  scores: number[];
  winners: number[];
  finalRevision: number;
  etag: string;
  recordDigest: string;
  eventsStreamed: number;
  streamItems: number;
  streamBatches: number;
  heartbeats: number;
  snapshots: number;
  events: EventSummary[];
  errorsChecked: Refusal[];
}

async function play(options: Options): Promise<Summary> {
  const lobby = gameClient(options); // no token: a spectator's calls
  let spectator: ReturnType<typeof spectate> | undefined;
  try {
    const created = await lobby.createGame({
      game: {
        gameType: GameType.QWIRKLE,
        maxPlayers: 2,
        config: { case: "qwirkleConfig", value: {} },
      },
      displayName: "Connect Ana",
      requestId: requestId(),
    });
    const game = gameOf(created, "CreateGame").name;
    check(created.player === `${game}/players/0`, `creator seated as ${created.player}`);
    check(created.seatToken.length > 0, "CreateGame returned no seat token");

    spectator = spectate(lobby, game, options.batchEvents);

    const joined = await lobby.joinGame({ name: game, displayName: "Connect Ben", requestId: requestId() });
    check(joined.player === `${game}/players/1`, `joiner seated as ${joined.player}`);
    const seats = [gameClient(options, created.seatToken), gameClient(options, joined.seatToken)];

    // StartGame retried with its request_id gives the first answer, not a refusal.
    const start = { name: game, requestId: requestId() };
    let current = gameOf(await seats[0]!.startGame(start), "StartGame");
    check(current.state === GameState.IN_PROGRESS, `game is ${GameState[current.state]} after StartGame`);
    const again = gameOf(await seats[0]!.startGame(start), "StartGame retried");
    check(again.revision === current.revision, "a retried StartGame started the game again");

    const errors = await exerciseErrors(options, lobby, seats, game, current);

    let moves = 0;
    while (current.state === GameState.IN_PROGRESS) {
      check(moves < MAX_TURNS, `still in progress after ${moves} moves`);
      const seat = seatOf(current.currentPlayer);
      const client = seats[seat];
      check(client !== undefined, `seat ${current.currentPlayer} is not ours`);
      const { revision, moves: legal } = await legalMoves(client, game);
      check(
        revision === current.revision,
        `legal moves of revision ${revision}, the game is at ${current.revision}`,
      );
      const request = {
        name: game,
        move: choose(legal),
        expectedRevision: revision,
        requestId: requestId(),
        view: GameView.BASIC,
      };
      const reply = await client.submitMove(request);
      const after = gameOf(reply, "SubmitMove");
      checkFollowOn(reply.events, revision, after, "SubmitMove");
      check(after.etag !== "" && after.etag !== current.etag, `etag ${after.etag} after ${current.etag}`);
      check(after.view.case === undefined, "GAME_VIEW_BASIC answered with the game's view");
      if (moves === 0) {
        // A retry (the same request_id) gets the first answer, not a second move.
        const retried = await client.submitMove(request);
        const retriedGame = gameOf(retried, "SubmitMove retried");
        check(
          retriedGame.revision === after.revision && retriedGame.etag === after.etag,
          `a retried SubmitMove answered revision ${retriedGame.revision}, the first ${after.revision}`,
        );
        check(
          retried.events.map((e) => e.recordDigest).join() === reply.events.map((e) => e.recordDigest).join(),
          "a retried SubmitMove answered other events",
        );
      }
      current = after;
      moves += 1;
    }
    check(current.state === GameState.FINISHED, `game ended as ${GameState[current.state]}`);

    const streamed = await spectator.done;
    const final = gameOf(await lobby.getGame({ name: game }), "GetGame");
    check(streamed.finished, "the stream never sent GameFinished");
    check(
      streamed.lastRevision === final.revision,
      `the stream reached revision ${streamed.lastRevision}, the game is at ${final.revision}`,
    );
    check(final.moveCount === moves, `the server counts ${final.moveCount} moves, played ${moves}`);
    check(
      final.recordDigest === streamed.events.at(-1)?.recordDigest,
      "the stream's last digest is not the game's",
    );
    check(final.seed !== "", "a finished game without its seed");

    // The log as ListGameEvents pages it is what the stream sent.
    const listed = await listEvents(lobby, game);
    check(
      JSON.stringify(listed) === JSON.stringify(streamed.events),
      `ListGameEvents (${listed.length}) and the stream (${streamed.events.length}) differ`,
    );

    return {
      protocol: options.protocol,
      format: options.json ? "json" : "binary",
      game,
      moves,
      scores: final.players.map((player) => player.score),
      winners: final.winners.map(seatOf),
      finalRevision: Number(final.revision),
      etag: final.etag,
      recordDigest: final.recordDigest,
      eventsStreamed: streamed.events.length,
      streamItems: streamed.items,
      streamBatches: streamed.batches,
      heartbeats: streamed.heartbeats,
      snapshots: streamed.snapshots,
      events: streamed.events,
      errorsChecked: errors,
    };
  } finally {
    spectator?.abort.abort(); // a no-op once the server has ended it
  }
}

// Mistakes a client must understand, each refused with the code and the
// ErrorInfo reason the gRPC API gives: a move out of turn, on a stale
// revision, with a duplicate tile, with a wrong token, without a token, and a
// stream of a game that does not exist. None changes the game.
async function exerciseErrors(
  options: Options,
  lobby: GameClient,
  seats: GameClient[],
  game: string,
  started: Game,
): Promise<Refusal[]> {
  const toMove = seatOf(started.currentPlayer);
  const mover = seats[toMove];
  const other = seats[1 - toMove];
  check(mover !== undefined && other !== undefined, `seat ${started.currentPlayer} to move`);
  const { revision, moves } = await legalMoves(mover, game);
  const move = choose(moves);
  const seen = gameOf(await mover.getGame({ name: game }), "GetGame");
  check(seen.view.case === "qwirkleView", `GetGame as a seat gave the view ${seen.view.case}`);
  const rack = seen.view.value.privateState?.rack ?? [];
  const [tile] = rack;
  check(tile !== undefined, "GetGame as the seat to move gave no rack");

  const refusals: Refusal[] = [];
  type MoveToMake = Parameters<GameClient["submitMove"]>[0]["move"];
  const submitting =
    (client: GameClient, moveToMake: MoveToMake, base = revision) => () =>
      client.submitMove({ name: game, move: moveToMake, expectedRevision: base, requestId: requestId() });

  const outOfTurn = await refused("a move out of turn", "SubmitMove", submitting(other, move), {
    code: Code.FailedPrecondition,
    reason: "NOT_YOUR_TURN",
  });
  check(
    outOfTurn.error.findDetails(PreconditionFailureSchema).some((failure) => failure.violations.length > 0),
    "NOT_YOUR_TURN without a PreconditionFailure",
  );
  refusals.push(outOfTurn.refusal);

  const stale = await refused("a stale revision", "SubmitMove", submitting(mover, move, revision - 1n), {
    code: Code.Aborted,
    reason: "REVISION_MISMATCH",
  });
  check(
    stale.metadata.currentRevision === String(revision),
    `REVISION_MISMATCH names revision ${stale.metadata.currentRevision}, the game is at ${revision}`,
  );
  refusals.push(stale.refusal);

  const duplicate = await refused(
    "a duplicate tile",
    "SubmitMove",
    submitting(mover, placing([tile, 0, 0], [tile, 1, 0])),
    { code: Code.InvalidArgument, reason: "DUPLICATE_TILE" },
  );
  check(
    duplicate.error.findDetails(BadRequestSchema).some((bad) => bad.fieldViolations.length > 0),
    "DUPLICATE_TILE without BadRequest field violations",
  );
  refusals.push(duplicate.refusal);

  const stranger = gameClient(options, "not-a-seat-token");
  const wrongToken = await refused("a wrong seat token", "SubmitMove", submitting(stranger, move), {
    code: Code.Unauthenticated,
    reason: "INVALID_CREDENTIALS",
  });
  refusals.push(wrongToken.refusal);

  const noToken = await refused("no seat token", "SubmitMove", submitting(lobby, move), {
    code: Code.Unauthenticated,
    reason: "MISSING_CREDENTIALS",
  });
  refusals.push(noToken.refusal);

  const unknown = `games/${crypto.randomUUID()}`;
  const missing = await refused(
    "a stream of an unknown game",
    "StreamGame",
    async () => {
      for await (const response of lobby.streamGame({ name: unknown }, { timeoutMs: UNARY_TIMEOUT_MS })) {
        throw new Failure(`StreamGame of an unknown game sent ${response.item.case}`);
      }
    },
    { code: Code.NotFound, reason: "GAME_NOT_FOUND" },
  );
  check(
    missing.error.findDetails(ResourceInfoSchema).some((info) => info.resourceName === unknown),
    "GAME_NOT_FOUND without a ResourceInfo naming the game",
  );
  refusals.push(missing.refusal);

  const after = gameOf(await lobby.getGame({ name: game }), "GetGame");
  check(after.revision === revision, "a refused call changed the game");
  return refusals;
}

// ---------------------------------------------------------------------------

try {
  const options = parseOptions(proc.argv.slice(2));
  const summary = await play(options);
  proc.stdout.write(`${JSON.stringify(summary)}\n`);
  proc.exitCode = 0;
} catch (error) {
  const message = error instanceof Failure ? error.message : describe(error);
  proc.stderr.write(`play_connect: ${message}\n`);
  proc.exitCode = 1;
}
// Nothing should be left running; if something is, do not wait for its timeout.
(setTimeout(() => proc.exit(), 5_000) as unknown as { unref(): void }).unref();
