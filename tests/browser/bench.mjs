// Browser speed benchmark (prints figures; not a test). Run by
// scripts/bench.sh after tests/bench/bench.py, whose inputs (the widened
// corpus and one output per task) and official timings it reuses from
// target/bench/official.json, so the ratios compare the same work.
//
// Figures, in headless Chromium on this machine:
//   - first render: navigation → first contentful paint, → app mounted,
//     → the built-in demo loaded (median of 5 fresh profiles)
//   - the dataset: read and checked (file picker), time and longest
//     main-thread task
//   - every task built at the benchmark's context size, with the page's
//     responsiveness (clicks answered, worst input wait, longest task)
//   - one output per task imported and scored, and a full re-score
import fs from 'node:fs';
import path from 'node:path';
import { serveDir } from './serve.js';
import { launch, openPage, DIST, ROOT } from './browser.js';

const work = path.join(ROOT, 'target', 'bench');
const ref = JSON.parse(fs.readFileSync(path.join(work, 'official.json'), 'utf8'));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fmt = (ms) => `${(ms / 1000).toFixed(3)} s`;

const srv = await serveDir(DIST);
try {
  // 1. First render.
  const firsts = [];
  for (let i = 0; i < 5; i++) {
    const context = await launch();
    const { page, problems } = await openPage(context);
    await page.addInitScript(() => {
      window.__seen = {};
      new MutationObserver(() => {
        if (!window.__seen.demo && document.querySelector('#dataset-summary')) window.__seen.demo = performance.now();
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(srv.url + '#dataset');
    await page.waitForSelector('#dataset-summary', { timeout: 60000 });
    firsts.push(await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      mount: window.__repoqaMountedMs,
      demo: window.__seen.demo,
    })));
    if (problems.length) throw new Error(problems.join('\n'));
    await context.close();
  }

  // 2–4. The benchmark dataset: load, build, score.
  const context = await launch();
  const { page, problems } = await openPage(context);
  await page.goto(srv.url + '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])');
  await page.fill('#ctx-size', String(ref.size));
  await page.press('#ctx-size', 'Tab');
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask' });
    window.__pings = [];
    const b = document.createElement('button');
    b.id = 'ping';
    b.textContent = 'ping';
    b.style.cssText = 'position:fixed;right:4px;bottom:4px;z-index:9';
    b.addEventListener('click', (e) => window.__pings.push({ wait: performance.now() - e.timeStamp,
      running: document.querySelector('#job')?.dataset.state === 'running' }));
    document.body.appendChild(b);
  });
  const responsiveness = async () => {
    const r = await page.evaluate(() => {
      const r = { longest: Math.max(0, ...window.__longTasks), pings: window.__pings };
      window.__longTasks = [];
      window.__pings = [];
      return r;
    });
    const during = r.pings.filter((p) => p.running);
    return `${during.length} clicks answered while running, worst input wait ` +
      `${Math.max(0, ...r.pings.map((p) => p.wait)).toFixed(0)} ms, longest main-thread task ${r.longest.toFixed(0)} ms`;
  };
  const pingUntil = async (done) => {
    while (!(await done())) {
      await page.click('#ping');
      await page.waitForTimeout(50);
    }
  };

  const name = path.basename(ref.dataset);
  const size = fs.statSync(ref.dataset).size;
  let t0 = Date.now();
  await page.setInputFiles('#dataset-file', ref.dataset);
  await pingUntil(async () => (await page.textContent('#dataset-origin').catch(() => '')) === name);
  const loadMs = Date.now() - t0;
  const loadResp = await responsiveness();

  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])');
  await page.click('#build-tasks');
  await pingUntil(async () => (await page.$('#build-stats')) !== null);
  const build = await page.evaluate(() => window.__repoqaBuild);
  const buildResp = await responsiveness();
  if (build.tasks !== ref.tasks) throw new Error(`built ${build.tasks} tasks, expected ${ref.tasks}`);

  await page.goto(srv.url + '#results');
  await page.waitForSelector(`#results[data-tasks="${ref.tasks}"]`);
  t0 = Date.now();
  await page.setInputFiles('#import-file', ref.outputs);
  await pingUntil(async () => (await page.getAttribute('#results', 'data-answered')) === String(ref.tasks));
  const importMs = Date.now() - t0;
  const importResp = await responsiveness();
  const rescores = [];
  for (let k = 0; k < 3; k++) {
    for (const on of [true, false]) {
      const before = Number(await page.getAttribute('#results', 'data-option-rescores'));
      if (on) await page.check('#opt-ignore-comments', { timeout: 300000 });
      else await page.uncheck('#opt-ignore-comments', { timeout: 300000 });
      await pingUntil(async () => Number(await page.getAttribute('#results', 'data-option-rescores')) > before);
    }
    if (Number(await page.getAttribute('#results', 'data-option-rescored')) !== ref.tasks) throw new Error('not every answer was re-scored');
    rescores.push(Number(await page.getAttribute('#results', 'data-option-score-ms')));
  }
  const scoreResp = await responsiveness();
  if (problems.length) throw new Error(problems.join('\n'));
  await context.close();

  const off = ref.official;
  const rescore = median(rescores);
  console.log(`RepoQA browser benchmark (headless Chromium): ${ref.tasks} tasks at ${ref.size} tokens, ` +
    `${path.relative(ROOT, ref.dataset)} (${(size / 1048576).toFixed(1)} MiB)`);
  console.log(`first render, median of 5 (min–max): first contentful paint ${median(firsts.map((f) => f.fcp)).toFixed(0)} ms ` +
    `(${Math.min(...firsts.map((f) => f.fcp)).toFixed(0)}–${Math.max(...firsts.map((f) => f.fcp)).toFixed(0)}); ` +
    `app mounted ${median(firsts.map((f) => f.mount)).toFixed(0)} ms; ` +
    `demo loaded and shown ${median(firsts.map((f) => f.demo)).toFixed(0)} ms`);
  console.log(`load the dataset (file picker → checked): ${fmt(loadMs)}; ${loadResp}`);
  console.log(`build every prompt: ${fmt(build.ms)} in ${build.chunks} chunks (longest chunk ${build.maxChunkMs.toFixed(0)} ms); ` +
    `official loop ${off.prompts_s.toFixed(3)} s → ${(off.prompts_s * 1000 / build.ms).toFixed(1)}x; ` +
    `native CLI loop ${ref.native.prompts_s.toFixed(3)} s; ${buildResp}`);
  console.log(`import ${ref.tasks} outputs and score them: ${fmt(importMs)}; full re-score ${fmt(rescore)} ` +
    `(runs ${rescores.map((r) => r.toFixed(0)).join(', ')} ms); official loop ${off.score_s.toFixed(3)} s → ` +
    `${(off.score_s * 1000 / rescore).toFixed(1)}x`);
  console.log(`  while importing: ${importResp}`);
  console.log(`  while re-scoring after option changes: ${scoreResp}`);
} finally {
  srv.server.close();
}
