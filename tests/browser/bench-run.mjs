// Scheduling overhead of the Run page in headless Chromium (prints figures;
// not a test), the browser's side of tests/bench/run_overhead.py: 500 tasks
// (the demo's repos repeated under new names, 512-token contexts, built in
// the page) against the project's test model server in --zero mode (every
// request answered at once with a fixed reply), at concurrency 1, 4, 16
// and 64, each in a fresh browser profile. Wall time: Run pressed → the run
// ended (the page's clock); server time: what the server spent in its
// handlers (summed); the difference per task is what the page costs:
// building each request, fetch on loopback with its CORS preflight, the
// scheduler, storing each answer and its run record in IndexedDB, and
// re-rendering the progress, the failed list and the score table.
//
//     node tests/browser/bench-run.mjs [--tasks 500] [--concurrency 1,4,16,64]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { serveDir } from './serve.js';
import { launch, openPage, DIST, ROOT } from './browser.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const nTasks = Number(arg('--tasks', '500'));
const levels = arg('--concurrency', '1,4,16,64').split(',').map(Number);

/** The demo's repos repeated under new names until `n` needles (as run_overhead.py). */
function datasetOf(n, out) {
  const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'public/demo/repoqa-demo.json'), 'utf8'));
  const ds = {};
  let count = 0;
  for (let copy = 0; count < n; copy++) {
    for (const [lang, repos] of Object.entries(demo)) {
      for (const repo of repos) {
        if (count >= n) break;
        const needles = repo.needles.slice(0, n - count);
        count += needles.length;
        (ds[lang] ??= []).push({ ...repo, repo: `${repo.repo}-${copy}`, needles });
      }
    }
  }
  fs.writeFileSync(out, JSON.stringify(ds));
  return count;
}

async function startZeroServer() {
  const child = spawn('python3', [path.join(ROOT, 'tests/oracle/model_server.py'), '--zero'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve));
  const url = `http://127.0.0.1:${Number(line.split(' ')[1])}`;
  return {
    url,
    async stats() { return (await fetch(url + '/stats')).json(); },
    async reset() { await fetch(url + '/control', { method: 'POST', body: '{"reset": true}' }); },
    stop() { child.stdin.end(); child.kill(); },
  };
}

async function setField(page, sel, value) {
  await page.fill(sel, String(value));
  await page.dispatchEvent(sel, 'change');
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-run-bench-'));
const ds = path.join(tmp, 'bench-run.json');
const n = datasetOf(nTasks, ds);
const zero = await startZeroServer();
const srv = await serveDir(DIST);
const rows = [];
try {
  console.log(`run overhead in Chromium: ${n} tasks against a zero-latency server on 127.0.0.1 (the page's cost per task)`);
  console.log(`${'concurrency'.padStart(11)}  ${'wall ms/task'.padStart(12)}  ${'server ms/task'.padStart(14)}  ${'overhead ms/task'.padStart(16)}`);
  for (const c of levels) {
    const context = await launch();
    try {
      const { page, problems } = await openPage(context);
      await page.goto(srv.url + '#dataset');
      await page.waitForSelector('#dataset-summary', { timeout: 60000 });
      await page.setInputFiles('#dataset-file', ds);
      await page.waitForFunction((f) => document.querySelector('#dataset-origin')?.textContent === f, path.basename(ds), { timeout: 120000 });
      await page.fill('#ctx-size', '512');
      await page.press('#ctx-size', 'Tab');
      await page.goto(srv.url + '#tasks');
      await page.waitForSelector('#build-tasks:not([disabled])');
      await page.click('#build-tasks');
      await page.waitForSelector(`#build-stats[data-tasks="${n}"]`, { timeout: 600000 });
      await page.goto(srv.url + '#run');
      await page.waitForSelector('#run-card');
      await page.selectOption('#run-preset', 'custom');
      await setField(page, '#run-base-url', zero.url + '/v1');
      await setField(page, '#run-model', 'zero');
      await setField(page, '#run-concurrency', c);
      await setField(page, '#run-timeout', 60);
      await page.waitForSelector(`#run-selection[data-selected="${n}"][data-answered="0"]`);
      await zero.reset();
      // Run pressed and the run's end, both on the page's clock.
      const ms = await page.evaluate(() => new Promise((resolve) => {
        const el = document.querySelector('#run-progress');
        const before = Number(el.dataset.finished);
        let t0 = 0;
        new MutationObserver((_, obs) => {
          if (Number(el.dataset.finished) > before) { obs.disconnect(); resolve(performance.now() - t0); }
        }).observe(el, { attributes: true, attributeFilter: ['data-finished'] });
        t0 = performance.now();
        document.querySelector('#run-start').click();
      }));
      const state = await page.getAttribute('#run-progress', 'data-state');
      const stats = await zero.stats();
      if (state !== 'done' || stats.requests !== n) {
        throw new Error(`concurrency ${c}: run ${state}, ${stats.requests} requests for ${n} tasks: ${await page.textContent('#run-message')}`);
      }
      await page.waitForSelector(`#run-selection[data-answered="${n}"]`);
      if (problems.length) throw new Error(problems.join('\n'));
      const wall = ms / n;
      const server = stats.server_ms / n;
      rows.push({ concurrency: c, wall, server });
      console.log(`${String(c).padStart(11)}  ${wall.toFixed(3).padStart(12)}  ${server.toFixed(3).padStart(14)}  ${(wall - server).toFixed(3).padStart(16)}`);
    } finally {
      await context.close();
    }
  }
} finally {
  srv.server.close();
  zero.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
