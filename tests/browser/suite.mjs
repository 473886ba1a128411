// The whole browser suite (`npm test`, the full tier's browser phase), in two
// rounds:
//   1. every test file that does not run a model, two files at a time
//      (REPOQA_BROWSER_JOBS sets how many): each file starts its own browser
//      and server, and most of a file's time is spent waiting on the page,
//      so a second file uses what the first leaves idle (measured on two
//      cores: 97 tests in 306 s, 410 s one file at a time);
//   2. the files that run a model (SmolLM2 in the tab, or llama.cpp's
//      native server), one at a time: each keeps both cores busy for most
//      of a minute, and a second file beside it would only share them.
// Both rounds run even if the first fails (every failure is reported); the
// exit status is non-zero if any test failed. One file alone:
// `node --test FILE`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The files that run a model. */
export const MODEL_FILES = ['tab-model.test.js', 'teach-tab.test.js', 'tab-keep.test.js', 'run-real.test.js'];

const files = fs.readdirSync(HERE).filter((f) => f.endsWith('.test.js')).sort();
for (const f of MODEL_FILES) {
  if (!files.includes(f)) throw new Error(`suite.mjs names ${f}, which is not a test file here`);
}
const jobs = Number(process.env.REPOQA_BROWSER_JOBS || 2);
if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`REPOQA_BROWSER_JOBS: a whole number of at least 1, not ${process.env.REPOQA_BROWSER_JOBS}`);

const rounds = [
  { files: files.filter((f) => !MODEL_FILES.includes(f)), concurrency: jobs },
  { files: files.filter((f) => MODEL_FILES.includes(f)), concurrency: 1 },
];
let failed = false;
for (const { files: round, concurrency } of rounds) {
  const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-force-exit', ...round],
    { cwd: HERE, stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
