#!/usr/bin/env node
// The load generator of bench/moves.py: clients that play whole games through a
// Tabletop server as fast as it answers, from one Node.js process.
//
//   node moves.mjs --address HOST:PORT [--clients 1,8,64] [--seconds 10]
//                  [--view auto|none|GAME_VIEW_...|N] [--protos DIR]
//                  [--server-pid PID --clock-ticks 100] [--warmup-seconds 2]
//
// Each client opens a table (Qwirkle with two seats for even clients, Fool! with
// four for odd ones), holds every seat's token and, until the game ends, asks the
// seat to move for one legal move (ListLegalMoves, page_size=1) and submits it
// with expected_revision; a finished game is followed by a new one. The levels
// (client counts) run one after another after a short warm-up; for each one the
// generator prints one line of JSON: moves stored, the timed window, SubmitMove
// and ListLegalMoves+SubmitMove latency percentiles, refusals, games, its own CPU
// time and, with --server-pid, the CPU time of that process and of every process
// it started (user + system from /proc/<pid>/stat), both over the timed window.
//
// The protos are read at run time from --protos (default: this checkout's), so
// a field added to SubmitMoveRequest is sent without a code change, and an older
// server's protos (bench/moves.py --baseline) make it send only what that server
// knows. --view auto sends the leanest GameView SubmitMoveRequest offers, none
// when it has no view field.

import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEADLINE_MS = 30_000;

const { values: options } = parseArgs({
  options: {
    address: { type: "string", default: "127.0.0.1:50051" },
    clients: { type: "string", default: "1,8,64" },
    seconds: { type: "string", default: "10" },
    "warmup-seconds": { type: "string", default: "2" },
    "clients-per-channel": { type: "string", default: "8" },
    view: { type: "string", default: "auto" },
    protos: { type: "string", default: path.resolve(HERE, "../../protos") },
    "server-pid": { type: "string" },
    "clock-ticks": { type: "string", default: "100" },
  },
});

// Enums as numbers and no filled-in defaults: the least work per decoded reply.
const definition = protoLoader.loadSync("tabletop/v1/game_service.proto", {
  keepCase: false,
  longs: Number,
  enums: Number,
  defaults: false,
  oneofs: false,
  includeDirs: [options.protos],
});
const GameService = grpc.loadPackageDefinition(definition).tabletop.v1.GameService;

function enumValues(name) {
  const found = definition[name];
  return new Map((found?.type?.value ?? []).map((v) => [v.name, v.number]));
}

const GAME_TYPE = enumValues("tabletop.v1.GameType");
const GAME_STATE = enumValues("tabletop.v1.GameState");
const IN_PROGRESS = GAME_STATE.get("GAME_STATE_IN_PROGRESS");

// Returns [name, number] of the view to send with SubmitMove, or null for none.
function chooseView(wanted) {
  const fields = definition["tabletop.v1.SubmitMoveRequest"].type.field;
  const field = fields.find((f) => f.name === "view");
  if (wanted === "none") {
    return null;
  }
  if (field === undefined) {
    if (wanted !== "auto") {
      throw new Error(`these protos' SubmitMoveRequest has no view field (--view ${wanted})`);
    }
    return null;
  }
  // typeName may be relative ("GameView") or absolute (".tabletop.v1.GameView").
  const typeName = field.typeName.replace(/^\./, "");
  const enumName =
    [typeName, `tabletop.v1.${typeName}`].find((name) => definition[name]) ?? typeName;
  const values = enumValues(enumName);
  if (wanted !== "auto") {
    if (/^\d+$/.test(wanted)) {
      const number = Number(wanted);
      const name = [...values].find(([, n]) => n === number)?.[0] ?? String(number);
      return [name, number];
    }
    if (!values.has(wanted)) {
      throw new Error(`${enumName} has no ${wanted}; it has ${[...values.keys()].join(", ")}`);
    }
    return [wanted, values.get(wanted)];
  }
  // The leanest view: BASIC, unless a view beside UNSPECIFIED, BASIC and FULL
  // exists, which can only have been added to be leaner still (the newest wins).
  const lean = [...values].filter(([name]) => !/_(UNSPECIFIED|BASIC|FULL)$/.test(name));
  if (lean.length > 0) {
    return lean.reduce((a, b) => (b[1] > a[1] ? b : a));
  }
  const basic = [...values].find(([name]) => name.endsWith("_BASIC"));
  return basic ?? null;
}

const VIEW = chooseView(options.view);

function auth(token) {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

function call(stub, method, request, metadata) {
  return new Promise((resolve, reject) => {
    const deadline = { deadline: Date.now() + DEADLINE_MS };
    stub[method](request, metadata ?? new grpc.Metadata(), deadline, (error, reply) =>
      error ? reject(error) : resolve(reply),
    );
  });
}

// The seat index of a players/N resource name, or -1 when none is given.
function seatOf(current) {
  return current ? Number(current.slice(current.lastIndexOf("/") + 1)) : -1;
}

async function openTable(stub, client) {
  const fool = client % 2 === 1;
  const game = fool
    ? { gameType: GAME_TYPE.get("GAME_TYPE_FOOL"), foolConfig: {} }
    : { gameType: GAME_TYPE.get("GAME_TYPE_QWIRKLE") };
  const created = await call(stub, "CreateGame", { game, displayName: "Seat 0" });
  const name = created.game.name;
  const tokens = [created.seatToken];
  for (let seat = 1; seat < (fool ? 4 : 2); seat++) {
    const joined = await call(stub, "JoinGame", { name, displayName: `Seat ${seat}` });
    tokens.push(joined.seatToken);
  }
  const started = await call(stub, "StartGame", { name }, auth(tokens[0]));
  const nameBytes = Buffer.from(name, "utf8");
  return {
    name,
    tokens,
    metadata: tokens.map(auth),
    current: started.game?.currentPlayer,
    nameField: bytesField(SUBMIT.name, nameBytes),
    listRequest: Buffer.concat([bytesField(LIST.name, nameBytes), varintField(LIST.pageSize, 1)]),
  };
}

const elapsedMs = (since) => Number(process.hrtime.bigint() - since) / 1e6;

// ---------------------------------------------------------------------------
// The two calls of every move go through a codec of their own that reads and
// writes only the fields the generator uses (the legal move is passed on as the
// bytes it came in): decoding whole replies with protobufjs was about a sixth of
// the generator's CPU. Field numbers come from the loaded protos, as above.

// Field numbers by their camelCase names (keepCase: false).
function fieldNumbers(message) {
  const fields = definition[`tabletop.v1.${message}`].type.field;
  return Object.fromEntries(fields.map((f) => [f.name, f.number]));
}

const LIST = fieldNumbers("ListLegalMovesRequest");
const LISTED = fieldNumbers("ListLegalMovesResponse");
const SUBMIT = fieldNumbers("SubmitMoveRequest");
const SUBMITTED = fieldNumbers("SubmitMoveResponse");
const GAME = fieldNumbers("Game");
const METHODS = GameService.service;

function varint(value) {
  const bytes = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

const tag = (field, wireType) => varint(field * 8 + wireType);
const varintField = (field, value) => Buffer.concat([tag(field, 0), varint(value)]);
const bytesField = (field, bytes) =>
  Buffer.concat([tag(field, 2), varint(bytes.length), bytes]);

function readVarint(buffer, start) {
  let value = 0;
  let scale = 1;
  let at = start;
  for (;;) {
    const byte = buffer[at++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      return [value, at];
    }
    scale *= 0x80;
  }
}

// Calls visit(field, wireType, value, buffer, start, end) for every top-level
// field: value is the number of a varint, start..end the bytes of a LEN field.
function scan(buffer, visit) {
  let at = 0;
  while (at < buffer.length) {
    const [key, next] = readVarint(buffer, at);
    const field = Math.floor(key / 8);
    const wireType = key & 7;
    at = next;
    if (wireType === 0) {
      const [value, after] = readVarint(buffer, at);
      visit(field, wireType, value, buffer, at, after);
      at = after;
    } else if (wireType === 2) {
      const [length, after] = readVarint(buffer, at);
      visit(field, wireType, length, buffer, after, after + length);
      at = after + length;
    } else if (wireType === 1 || wireType === 5) {
      at += wireType === 1 ? 8 : 4;
    } else {
      throw new Error(`unexpected wire type ${wireType}`);
    }
  }
}

// The first legal move's bytes and the revision the list was made at.
function decodeLegal(buffer) {
  const legal = { move: null, revision: 0 };
  scan(buffer, (field, _type, value, bytes, start, end) => {
    if (field === LISTED.moves && legal.move === null) {
      legal.move = bytes.subarray(start, end);
    } else if (field === LISTED.revision) {
      legal.revision = value;
    }
  });
  return legal;
}

// The state and the player to act of the game a SubmitMove returned.
function decodeSubmitted(buffer) {
  const game = {};
  scan(buffer, (field, _type, _value, bytes, start, end) => {
    if (field !== SUBMITTED.game) {
      return;
    }
    scan(bytes.subarray(start, end), (inner, _t, value, innerBytes, from, to) => {
      if (inner === GAME.state) {
        game.state = value;
      } else if (inner === GAME.currentPlayer) {
        game.currentPlayer = innerBytes.toString("utf8", from, to);
      }
    });
  });
  return game;
}

function rawCall(stub, method, request, decode, metadata) {
  return new Promise((resolve, reject) => {
    const deadline = { deadline: Date.now() + DEADLINE_MS };
    const { path: route } = METHODS[method];
    stub.makeUnaryRequest(route, (b) => b, decode, request, metadata, deadline, (error, reply) =>
      error ? reject(error) : resolve(reply),
    );
  });
}

function submitRequest(table, legal) {
  const parts = [table.nameField, bytesField(SUBMIT.move, legal.move)];
  parts.push(varintField(SUBMIT.expectedRevision, legal.revision));
  if (VIEW !== null) {
    parts.push(varintField(SUBMIT.view, VIEW[1]));
  }
  return Buffer.concat(parts);
}

// Submits one legal move of the seat to act (of each seat in turn when the reply
// did not say who acts); returns the game after it, or null to end this game.
async function oneMove(stub, table, tally) {
  const seat = seatOf(table.current);
  const seats = seat >= 0 ? [seat] : table.tokens.map((_, i) => i);
  for (const s of seats) {
    const pairStarted = process.hrtime.bigint();
    tally.listed += 1;
    const legal = await rawCall(stub, "ListLegalMoves", table.listRequest, decodeLegal, table.metadata[s]);
    if (legal.move === null) {
      continue;
    }
    const request = submitRequest(table, legal);
    const started = process.hrtime.bigint();
    let game;
    try {
      game = await rawCall(stub, "SubmitMove", request, decodeSubmitted, table.metadata[s]);
    } catch {
      tally.refused += 1;
      return null;
    }
    tally.submit.push(elapsedMs(started));
    tally.pair.push(elapsedMs(pairStarted));
    return game;
  }
  return null;
}

async function client(stub, index, until, tally) {
  while (Date.now() < until) {
    let table;
    try {
      table = await openTable(stub, index);
    } catch (error) {
      tally.errors += 1;
      tally.lastError = String(error.message ?? error);
      continue;
    }
    tally.games += 1;
    while (Date.now() < until) {
      let game;
      try {
        game = await oneMove(stub, table, tally);
      } catch (error) {
        tally.errors += 1;
        tally.lastError = String(error.message ?? error);
        game = null;
      }
      if (game === null) {
        break;
      }
      if (game.state !== undefined && game.state !== IN_PROGRESS) {
        break;
      }
      table.current = game.currentPlayer;
    }
  }
}

// User + system CPU time in ms of a process and of every process it started.
function groupCpuMs(pid, ticks) {
  let total = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks; // utime, stime
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      for (const child of children ? children.split(" ") : []) {
        total += groupCpuMs(Number(child), ticks);
      }
    }
  } catch {
    // the process ended between the listing and the read
  }
  return total;
}

function percentile(ordered, share) {
  return ordered.length ? ordered[Math.round(share * (ordered.length - 1))] : null;
}

function summary(values) {
  const ordered = Float64Array.from(values).sort();
  return {
    p50: percentile(ordered, 0.5),
    p95: percentile(ordered, 0.95),
    p99: percentile(ordered, 0.99),
  };
}

async function level(clients, seconds) {
  const perChannel = Number(options["clients-per-channel"]);
  // A local subchannel pool per client object: one connection each, as that
  // many phones sharing a connection would have (grpc-js shares one otherwise).
  const stubs = Array.from(
    { length: Math.max(1, Math.floor(clients / perChannel)) },
    () =>
      new GameService(options.address, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
        "grpc.enable_retries": 0, // a refused move is counted, never retried
        "grpc.enable_channelz": 0, // its per-call counters cost the generator ~8% CPU
      }),
  );
  const tally = { submit: [], pair: [], refused: 0, games: 0, errors: 0, lastError: null, listed: 0 };
  const serverPid = options["server-pid"] ? Number(options["server-pid"]) : null;
  const ticks = Number(options["clock-ticks"]);
  const serverBefore = serverPid ? groupCpuMs(serverPid, ticks) : null;
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, (_, i) => client(stubs[i % stubs.length], i, until, tally)),
  );
  const windowMs = elapsedMs(started);
  const cpu = process.cpuUsage(cpuBefore);
  const serverCpuMs = serverPid ? groupCpuMs(serverPid, ticks) - serverBefore : null;
  for (const stub of stubs) {
    stub.close();
  }
  const moves = tally.submit.length;
  return {
    clients,
    moves,
    window_s: windowMs / 1000,
    moves_per_s: moves / (windowMs / 1000),
    submit_ms: summary(tally.submit),
    pair_ms: summary(tally.pair),
    refused: tally.refused,
    errors: tally.errors,
    last_error: tally.lastError,
    games: tally.games,
    list_calls: tally.listed, // ListLegalMoves calls: one a move while replies name the seat to act
    view: VIEW ? VIEW[0] : null,
    generator_cpu_ms: (cpu.user + cpu.system) / 1000,
    generator_cpu_ms_per_move: moves ? (cpu.user + cpu.system) / 1000 / moves : null,
    server_cpu_ms: serverCpuMs,
    server_cpu_ms_per_move: serverPid && moves ? serverCpuMs / moves : null,
  };
}

const warmup = Number(options["warmup-seconds"]);
if (warmup > 0) {
  await level(2, warmup); // imports, pools and caches of the server
}
for (const clients of options.clients.split(",").map(Number)) {
  const result = await level(clients, Number(options.seconds));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
