// Browser benchmark of the call-path task (prints figures; not a test;
// NOT UPSTREAM, docs/call-path.md): a 50-repository dataset (the realistic
// corpus widened as tests/bench/bench.py widens it) loaded in the page as a
// user loads a file, then "Build call-path tasks" at 16,384 tokens on the
// Tasks page's call-path side, timed from the click to the tasks listed
// (the engine worker builds every repository's graph, pairs and windows in
// one thread). The same file is built natively with `repoqa prompts --task
// call-path` for the ratio. The issue's target: 10 s in the page. Run by
// scripts/bench.sh; `REPOQA_BENCH_RUNS=n` builds (default 3, the median).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveDir } from './serve.js';
import { launch, openPage, gotoApp, loadDatasetFile, DIST, ROOT } from './browser.js';

const RUNS = Number(process.env.REPOQA_BENCH_RUNS || 3);
const REPOS = 50;
const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-bench-call-path-'));
const data = path.join(work, `corpus-${REPOS}.json`);
execFileSync(path.join(ROOT, '.tools/oracle/bin/python'), ['-c',
  'import sys; sys.path.insert(0, sys.argv[1]); from bench import widen; widen(sys.argv[2], int(sys.argv[3]), sys.argv[4])',
  path.join(ROOT, 'tests/bench'), path.join(ROOT, '.tools/corpus/realistic.json'), String(REPOS * 10), data]);

// Natively, for the ratio: the whole build (graphs, pairs, windows).
const native = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  execFileSync(BIN, ['prompts', '--task', 'call-path', '--dataset-path', data,
    '--tokenizer', path.join(ROOT, '.tools/tokenizer.json'), '--out', path.join(work, 'tasks.jsonl')], { stdio: 'pipe' });
  native.push(performance.now() - t0);
}
const nativeTasks = fs.readFileSync(path.join(work, 'tasks.jsonl'), 'utf8').trim().split('\n').length;

const srv = await serveDir(DIST);
const page_ms = [];
let pageTasks = 0;
try {
  for (let i = 0; i < RUNS; i++) {
    // A fresh profile per build: nothing read back from storage.
    const context = await launch();
    try {
      const { page, problems } = await openPage(context);
      await gotoApp(page, srv.url, '#dataset');
      await page.waitForSelector('#dataset-summary', { timeout: 60000 });
      await page.waitForSelector('#job:not([data-state="running"])');
      await loadDatasetFile(page, data);
      await gotoApp(page, srv.url, '#tasks');
      await page.check('#task-kind-call-path');
      await page.waitForSelector('#build-call-paths:not([disabled])');
      const t0 = Date.now();
      await page.click('#build-call-paths');
      await page.waitForFunction(() => Number(document.querySelector('#call-path-count')?.dataset.count) > 0, null, { timeout: 600000 });
      page_ms.push(Date.now() - t0);
      pageTasks = Number(await page.getAttribute('#call-path-count', 'data-count'));
      if (problems.length) throw new Error(problems.join('\n'));
    } finally {
      await context.close();
    }
  }
} finally {
  srv.server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
const p = median(page_ms);
const n = median(native);
console.log(`call-path tasks of ${REPOS} repositories at 16,384 tokens, median of ${RUNS}:`);
console.log(`  in the page (headless Chromium, one engine worker, ${DIST}): ${(p / 1000).toFixed(2)} s ` +
  `(${(Math.min(...page_ms) / 1000).toFixed(2)}–${(Math.max(...page_ms) / 1000).toFixed(2)}), ${pageTasks} tasks ` +
  `(target 10 s: ${p <= 10000 ? 'met' : 'NOT met'})`);
console.log(`  natively (repoqa prompts --task call-path, the whole process): ${(n / 1000).toFixed(2)} s, ${nativeTasks} tasks; ` +
  `the page takes ${(p / n).toFixed(1)}x as long`);
if (pageTasks !== nativeTasks) console.log(`  WARNING: the page built ${pageTasks} tasks, the CLI ${nativeTasks}`);
