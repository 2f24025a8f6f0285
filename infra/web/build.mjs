// Builds the web page into dist/ (served at / on the HTTP port) and the Node.js
// Connect client of the tests into dist-node/, from the TypeScript in src/ and
// the code generated from protos/ into src/gen/ (`make web` generates it first).
//
//   node build.mjs            both, minified, with source maps
import { copyFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(HERE, "dist");
const DIST_NODE = path.join(HERE, "dist-node");
const TESTS = path.resolve(HERE, "../../tests/web");

await rm(DIST, { recursive: true, force: true });
await rm(DIST_NODE, { recursive: true, force: true });
await mkdir(path.join(DIST, "assets"), { recursive: true });

await esbuild.build({
  entryPoints: [path.join(HERE, "src/main.ts")],
  outfile: path.join(DIST, "assets/app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: true,
  logLevel: "warning",
});
await copyFile(path.join(HERE, "src/index.html"), path.join(DIST, "index.html"));
await copyFile(path.join(HERE, "src/style.css"), path.join(DIST, "assets/style.css"));

await esbuild.build({
  entryPoints: [path.join(TESTS, "play_connect.ts")],
  outfile: path.join(DIST_NODE, "play_connect.mjs"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: ["node20"],
  nodePaths: [path.join(HERE, "node_modules")],
  logLevel: "warning",
});
