// Browser benchmark of the comment-cleaning modes (prints figures; not a
// test): the built-in demo built in the page at 16,384 tokens in each
// `--clean-ctx-comments` mode, three times each, in headless Chromium.
// Printed per mode: the median build time, its spread, and the longest step
// (how long the page was blocked at worst). Run by scripts/bench.sh;
// `REPOQA_DIST=dir` measures another build of the page, and
// `REPOQA_BENCH_DATASET=file` another dataset (loaded as a user would).
import { serveDir } from './serve.js';
import { launch, openPage, gotoApp, loadDatasetFile, DIST } from './browser.js';

const RUNS = Number(process.env.REPOQA_BENCH_RUNS || 3);
const DATASET = process.env.REPOQA_BENCH_DATASET;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const srv = await serveDir(DIST);
try {
  const rows = [];
  for (const mode of ['none', 'no_padding', 'positional_padding']) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      // A fresh profile per build: nothing read back from storage.
      const context = await launch();
      try {
        const { page, problems } = await openPage(context);
        await gotoApp(page, srv.url, '#dataset');
        await page.waitForSelector('#dataset-summary', { timeout: 60000 });
        await page.waitForSelector('#job:not([data-state="running"])');
        if (DATASET) await loadDatasetFile(page, DATASET);
        await page.selectOption('#comment-mode', mode);
        await gotoApp(page, srv.url, '#tasks');
        await page.click('#build-tasks');
        await page.waitForSelector('#build-stats[data-from-cache="false"]', { timeout: 300000 });
        runs.push(await page.$eval('#build-stats', (e) => ({
          tasks: Number(e.dataset.tasks), ms: Number(e.dataset.ms), step: Number(e.dataset.maxChunkMs), workers: Number(e.dataset.workers || 0),
        })));
        if (problems.length) throw new Error(problems.join('\n'));
      } finally {
        await context.close();
      }
    }
    rows.push({ mode, runs });
  }
  console.log(`comment-cleaning modes in headless Chromium (${DIST}), ${DATASET || 'the demo'} at 16384 tokens, ${RUNS} builds each:`);
  for (const { mode, runs } of rows) {
    const ms = runs.map((r) => r.ms);
    console.log(`  ${mode.padEnd(18)} ${runs[0].tasks} tasks: ${(median(ms) / 1000).toFixed(2)} s ` +
      `(${(Math.min(...ms) / 1000).toFixed(2)}–${(Math.max(...ms) / 1000).toFixed(2)}), ` +
      `longest step ${Math.max(...runs.map((r) => r.step)).toFixed(0)} ms`);
  }
} finally {
  srv.server.close();
}
