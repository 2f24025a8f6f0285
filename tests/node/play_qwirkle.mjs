#!/usr/bin/env node
// Plays one whole two-seat Qwirkle game against a Tabletop server, as a mobile
// app would: the protos are loaded at run time with @grpc/proto-loader, seats
// authenticate with `authorization: Bearer <seat token>`, every mutating call
// carries a fresh request_id and the revision it was based on, and a refused
// call is understood from the google.rpc.Status in `grpc-status-details-bin`.
//
//   node play_qwirkle.mjs [HOST:PORT]      (or TABLETOP_ADDRESS; default 127.0.0.1:50051)
//
// On success it prints one line of JSON (game, moves, scores, winners, events
// streamed, the errors checked) and exits 0; on any failure it prints what went
// wrong to stderr and exits 1.

import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const HERE = path.dirname(fileURLToPath(import.meta.url));
// tabletop/v1/*.proto; google/protobuf/* come with proto-loader.
const PROTOS = process.env.TABLETOP_PROTOS ?? path.resolve(HERE, "../../protos");
// google/rpc/status.proto and error_details.proto, copied from googleapis.
const GOOGLEAPIS = path.resolve(HERE, "googleapis");

const UNARY_DEADLINE_MS = 10_000;
const STREAM_DEADLINE_MS = 100_000; // the whole game fits well within it
const ERROR_DOMAIN = "tabletop.games";
const MAX_TURNS = 1_000; // a Qwirkle game of two seats takes about 50 to 100

// The same options for every file, as generated code would fix them once:
// camelCase field names, enums as their names, int64 as JS numbers (revisions
// stay far below 2^53), oneofs reported by the name of the member that is set.
const LOADER_OPTIONS = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTOS, GOOGLEAPIS],
};

class Failure extends Error {}

function check(condition, message) {
  if (!condition) {
    throw new Failure(message);
  }
}

// ---------------------------------------------------------------------------
// Loading the API and the error model.

function loadGameService() {
  const definition = protoLoader.loadSync("tabletop/v1/game_service.proto", LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition).tabletop.v1.GameService;
}

// proto-loader describes messages but does not decode them on their own; the
// protobufjs it is built on does. Resolve protobufjs through proto-loader so
// both use the same copy and package.json needs no third dependency.
function loadErrorModel() {
  const requireFromLoader = createRequire(createRequire(import.meta.url).resolve("@grpc/proto-loader"));
  const protobuf = requireFromLoader("protobufjs");
  const root = new protobuf.Root();
  // google/protobuf/* imports resolve to protobufjs's built-in copies whatever the path.
  root.resolvePath = (_origin, target) => path.join(GOOGLEAPIS, target);
  root.loadSync(["google/rpc/status.proto", "google/rpc/error_details.proto"], {
    keepCase: false,
  });
  return { root, Status: root.lookupType("google.rpc.Status") };
}

const ERRORS = loadErrorModel();

// Decodes the google.rpc.Status of a failed call and its details by type name.
function richError(error) {
  const [raw] = error.metadata?.get("grpc-status-details-bin") ?? [];
  check(raw !== undefined, `error without grpc-status-details-bin: ${describe(error)}`);
  const status = ERRORS.Status.decode(raw);
  const details = {};
  for (const any of status.details) {
    // protobufjs's built-in google.protobuf.Any keeps the proto name type_url.
    const typeUrl = any.type_url ?? any.typeUrl;
    const typeName = typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
    const type = ERRORS.root.lookupType(typeName);
    details[typeName] = type.toObject(type.decode(any.value), { defaults: true });
  }
  const info = details["google.rpc.ErrorInfo"];
  check(info !== undefined, `error without ErrorInfo: ${describe(error)}`);
  check(info.domain === ERROR_DOMAIN, `ErrorInfo.domain is ${info.domain}`);
  check(status.code === error.code, `Status.code ${status.code} != call code ${error.code}`);
  return { code: error.code, message: status.message, info, details };
}

function describe(error) {
  const code = grpc.status[error.code] ?? error.code;
  return `${code}: ${error.details ?? error.message}`;
}

// ---------------------------------------------------------------------------
// Calls.

function deadline(ms = UNARY_DEADLINE_MS) {
  return new Date(Date.now() + ms);
}

function seatMetadata(token) {
  const metadata = new grpc.Metadata();
  if (token) {
    metadata.set("authorization", `Bearer ${token}`);
  }
  return metadata;
}

// Calls a unary method; resolves with the response, rejects with the gRPC error.
function unary(client, method, request, token) {
  return new Promise((resolve, reject) => {
    client[method](request, seatMetadata(token), { deadline: deadline() }, (error, response) => {
      if (error) {
        error.rpcMethod = method;
        reject(error);
      } else {
        resolve(response);
      }
    });
  });
}

// Calls a unary method that must fail; resolves with its decoded rich error.
async function refused(client, method, request, token) {
  try {
    await unary(client, method, request, token);
  } catch (error) {
    if (error.code === undefined) {
      throw error;
    }
    return richError(error);
  }
  throw new Failure(`${method} succeeded but was expected to fail`);
}

function seatOf(player) {
  return Number(player.slice(player.lastIndexOf("/") + 1));
}

async function legalMoves(client, game, token) {
  const moves = [];
  let pageToken = "";
  let revision;
  do {
    const reply = await unary(client, "ListLegalMoves", { name: game, pageSize: 200, pageToken }, token);
    check(revision === undefined || reply.revision === revision, "legal move pages of two revisions");
    revision = reply.revision;
    moves.push(...reply.moves);
    pageToken = reply.nextPageToken;
  } while (pageToken);
  return { revision, moves };
}

// The placement of most tiles; without one an exchange of most tiles; else a pass.
function choose(moves) {
  const weight = (move) => {
    const action = move.qwirkle;
    switch (action?.action) {
      case "placeTiles":
        return 1000 + action.placeTiles.placements.length;
      case "exchangeTiles":
        return 100 + action.exchangeTiles.tiles.length;
      case "passTurn":
        return 1;
      default:
        return 0;
    }
  };
  let best;
  for (const move of moves) {
    if (best === undefined || weight(move) > weight(best)) {
      best = move;
    }
  }
  check(best !== undefined && weight(best) > 0, "no Qwirkle move among the legal moves");
  return best;
}

// ---------------------------------------------------------------------------
// The spectator's live feed.

// Follows StreamGame without a token from revision 0 until the server ends it,
// checking the revisions arrive one by one with no gap or repeat.
function spectate(client, game) {
  const seen = { events: 0, batches: 0, heartbeats: 0, caughtUp: 0, lastRevision: 0, finished: false };
  const call = client.StreamGame(
    { name: game, afterRevision: 0, batchEvents: true },
    seatMetadata(null),
    { deadline: deadline(STREAM_DEADLINE_MS) },
  );
  const done = new Promise((resolve, reject) => {
    const take = (event) => {
      if (event.revision !== seen.lastRevision + 1) {
        call.cancel();
        reject(new Failure(`stream sent revision ${event.revision} after ${seen.lastRevision}`));
        return;
      }
      seen.lastRevision = event.revision;
      seen.events += 1;
      if (event.event === "gameFinished") {
        seen.finished = true;
      }
    };
    call.on("data", (item) => {
      switch (item.item) {
        case "event":
          take(item.event);
          break;
        case "events":
          seen.batches += 1;
          item.events.events.forEach(take);
          break;
        case "caughtUp":
          // Once, right after the events stored when the stream was opened.
          seen.caughtUp += 1;
          if (seen.caughtUp !== 1 || Number(item.caughtUp.revision) !== seen.lastRevision) {
            call.cancel();
            reject(new Failure(`caughtUp #${seen.caughtUp} at ${item.caughtUp.revision} after ${seen.lastRevision}`));
          }
          break;
        case "heartbeat":
          seen.heartbeats += 1;
          break;
        case "snapshot":
          break; // not asked for; a final snapshot may close the feed
        default:
          reject(new Failure(`unknown stream item ${JSON.stringify(item)}`));
      }
    });
    call.on("error", (error) => reject(new Failure(`StreamGame ended with ${describe(error)}`)));
    call.on("status", (status) => {
      if (status.code !== grpc.status.OK) {
        return;
      }
      if (seen.caughtUp === 1) {
        resolve(seen);
      } else {
        reject(new Failure(`the stream ended after ${seen.caughtUp} caughtUp items`));
      }
    });
  });
  done.catch(() => {}); // awaited by the game; a failure before that is not unhandled
  return { call, done };
}

// ---------------------------------------------------------------------------
// The game.

async function play(address) {
  const GameService = loadGameService();
  const client = new GameService(address, grpc.credentials.createInsecure());
  let spectator;
  try {
    await new Promise((resolve, reject) =>
      client.waitForReady(deadline(), (error) =>
        error ? reject(new Failure(`no server answers at ${address}: ${error.message}`)) : resolve(),
      ),
    );

    const created = await unary(client, "CreateGame", {
      game: { gameType: "GAME_TYPE_QWIRKLE", maxPlayers: 2, qwirkleConfig: {} },
      displayName: "Node Ana",
      requestId: randomUUID(),
    });
    const game = created.game.name;
    const tokens = [created.seatToken];
    check(created.player === `${game}/players/0`, `creator seated as ${created.player}`);

    spectator = spectate(client, game);

    const joined = await unary(client, "JoinGame", {
      name: game,
      displayName: "Node Ben",
      requestId: randomUUID(),
    });
    check(joined.player === `${game}/players/1`, `joiner seated as ${joined.player}`);
    tokens.push(joined.seatToken);

    let current = (
      await unary(client, "StartGame", { name: game, requestId: randomUUID() }, tokens[0])
    ).game;
    check(current.state === "GAME_STATE_IN_PROGRESS", `game is ${current.state} after StartGame`);

    const errors = await exerciseErrors(client, game, tokens, current);

    let moves = 0;
    while (current.state === "GAME_STATE_IN_PROGRESS") {
      check(moves < MAX_TURNS, `still in progress after ${moves} moves`);
      const seat = seatOf(current.currentPlayer);
      const { revision, moves: legal } = await legalMoves(client, game, tokens[seat]);
      const reply = await unary(
        client,
        "SubmitMove",
        {
          name: game,
          move: choose(legal),
          expectedRevision: revision,
          requestId: randomUUID(),
          view: "GAME_VIEW_BASIC",
        },
        tokens[seat],
      );
      check(reply.game.revision > revision, "SubmitMove did not advance the revision");
      current = reply.game;
      moves += 1;
    }
    check(current.state === "GAME_STATE_FINISHED", `game ended as ${current.state}`);

    const streamed = await spectator.done;
    const final = (await unary(client, "GetGame", { name: game })).game;
    check(streamed.finished, "the stream never sent GameFinished");
    check(
      streamed.lastRevision === final.revision,
      `stream reached revision ${streamed.lastRevision}, the game is at ${final.revision}`,
    );
    check(final.moveCount === moves, `server counts ${final.moveCount} moves, played ${moves}`);

    return {
      game,
      moves,
      scores: final.players.map((player) => player.score),
      winners: final.winners.map(seatOf),
      finalRevision: final.revision,
      eventsStreamed: streamed.events,
      streamBatches: streamed.batches,
      errorsChecked: errors,
    };
  } finally {
    spectator?.call.cancel(); // a no-op once the server has ended it
    client.close();
  }
}

// Two refusals a client must understand: a move out of turn, and a move based
// on a revision that is no longer the latest. Neither changes the game.
async function exerciseErrors(client, game, tokens, started) {
  const toMove = seatOf(started.currentPlayer);
  const other = 1 - toMove;
  const { revision, moves } = await legalMoves(client, game, tokens[toMove]);
  const move = choose(moves);

  const outOfTurn = await refused(
    client,
    "SubmitMove",
    { name: game, move, expectedRevision: revision, requestId: randomUUID() },
    tokens[other],
  );
  check(
    outOfTurn.code === grpc.status.FAILED_PRECONDITION && outOfTurn.info.reason === "NOT_YOUR_TURN",
    `out of turn: ${grpc.status[outOfTurn.code]} ${outOfTurn.info.reason}`,
  );
  check(
    outOfTurn.details["google.rpc.PreconditionFailure"]?.violations?.length > 0,
    "NOT_YOUR_TURN without a PreconditionFailure",
  );

  const stale = await refused(
    client,
    "SubmitMove",
    { name: game, move, expectedRevision: revision - 1, requestId: randomUUID() },
    tokens[toMove],
  );
  check(
    stale.code === grpc.status.ABORTED && stale.info.reason === "REVISION_MISMATCH",
    `stale revision: ${grpc.status[stale.code]} ${stale.info.reason}`,
  );
  check(
    stale.info.metadata.currentRevision === String(revision),
    `currentRevision ${stale.info.metadata.currentRevision}, expected ${revision}`,
  );

  const after = (await unary(client, "GetGame", { name: game })).game;
  check(after.revision === revision, "a refused move changed the game");
  return [outOfTurn.info.reason, stale.info.reason];
}

// ---------------------------------------------------------------------------

const address = process.argv[2] ?? process.env.TABLETOP_ADDRESS ?? "127.0.0.1:50051";
try {
  const summary = await play(address);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.exitCode = 0;
} catch (error) {
  if (error instanceof Failure) {
    process.stderr.write(`play_qwirkle: ${error.message}\n`);
  } else if (error?.code !== undefined && error?.metadata !== undefined) {
    let reason = "";
    try {
      reason = ` (${richError(error).info.reason})`;
    } catch {
      // no rich status: the code and message say it all
    }
    process.stderr.write(`play_qwirkle: ${error.rpcMethod ?? "call"} failed: ${describe(error)}${reason}\n`);
  } else {
    process.stderr.write(`play_qwirkle: ${error?.stack ?? error}\n`);
  }
  process.exitCode = 1;
}
// Nothing should be left running; if something is, do not wait for its deadline.
setTimeout(() => process.exit(), 5_000).unref();
