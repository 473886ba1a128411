// The Results page's charts and task details, in headless Chromium: one
// point / bar / cell per (series, bin) with tasks, the numbers the CLI
// computes, keyboard focus and labels, SVG and PNG export; the detail of an
// exact answer lists every candidate with the needle first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS } from './browser.js';
import { answeredDemo, cliScoresOfExport, sampleAnswered } from './results-fixture.js';

let fx;
before(async () => { fx = await answeredDemo(); });
after(async () => { await fx?.close(); });

test('charts count what the CLI scores, are keyboard-readable and export', async () => {
  const { page } = fx;
  const { model: cli } = await cliScoresOfExport(fx);
  const cliRows = Object.values(cli.results).flat();
  const langs = Object.keys(cli.results);
  const bin = (p) => Math.min(9, Math.max(0, Math.floor(p * 10)));
  const depthBins = new Set(cliRows.map((r) => bin(r.needle_position)));
  let expectedDepth = depthBins.size;
  for (const l of langs) expectedDepth += new Set(cli.results[l].map((r) => bin(r.needle_position))).size;
  const count = (sel) => page.locator(sel).count();
  assert.equal(await count('[data-chart="depth"] circle.point'), expectedDepth);
  assert.equal(await count('[data-chart="language"] rect.bar'), 1 + langs.length);
  assert.equal(await count('[data-chart="threshold"] circle.point'), 11 * (1 + langs.length));
  assert.equal(await count('[data-chart="heatmap"] rect.cell'), 10 * langs.length);
  const allAt08 = await page.getAttribute('[data-chart="language"] rect.bar[data-series="all"]', 'data-value');
  assert.equal(Number(allAt08), cli.scores.all['0.8']['pass@1']);
  // Keyboard: points are focusable and labelled.
  const first = page.locator('[data-chart="depth"] circle.point').first();
  await first.focus();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('class')), 'point');
  assert.match(await first.getAttribute('aria-label'), /passed/);
  const svg = await fx.download(() => page.locator('[data-chart="heatmap"] button.export-svg').click());
  assert.match(svg.bytes.toString('utf8'), /^<\?xml[^]*<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  fs.copyFileSync(svg.path, path.join(ARTIFACTS, 'results-heatmap.svg'));
  const png = await fx.download(() => page.locator('[data-chart="depth"] button.export-png').click());
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  fs.copyFileSync(png.path, path.join(ARTIFACTS, 'results-depth.png'));
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});

test('the detail of an exact answer lists every candidate, the needle first, no diff', async () => {
  const { page, ids, tasks } = fx;
  await page.click(`tr.task-row[data-task-id="${ids[0]}"] button.details`);
  await page.waitForSelector(`#task-detail[data-task-id="${ids[0]}"]`);
  const cands = await page.$$eval('#detail-candidates tbody tr', (trs) => trs.map((tr) => tr.dataset.name));
  assert.equal(cands.length, 10);
  assert.equal(cands[0], tasks[0].name);
  assert.equal(await page.locator('#detail-diff .diff-add, #detail-diff .diff-del').count(), 0);
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});

// Walk round 2, major 5: the demo's 12 sample answers sit at depths 5-45 %;
// the 48 unanswered tasks are not failures in a chart (they drew every bin
// past 50 % at 0 %, a depth effect that is not there), and the depth axis
// says what it plots: the task's position ratio.
test('charts count the answered tasks only, say so, and name the depth they plot', async () => {
  const fx2 = await sampleAnswered();
  try {
    const { page } = fx2;
    await page.waitForSelector('#charts-answered-only');
    assert.equal(await page.getAttribute('#charts-answered-only', 'data-answered'), '12');
    assert.equal(await page.getAttribute('#charts-answered-only', 'data-left-out'), '48');
    assert.match(await page.textContent('#charts-answered-only'),
      /^The charts count the 12 answered tasks only; the 48 unanswered tasks are left out \(the table above counts them as failures, as repoqa run does\)\./);
    // Points only where answered tasks are; no bin past 50 % drawn at 0 %.
    const points = await page.$$eval('[data-chart="depth"] circle.point', (cs) => cs.map((c) => ({ ...c.dataset })));
    assert.ok(points.length > 0);
    assert.ok(points.every((p) => Number(p.bin) < 5 && Number(p.n) > 0), JSON.stringify(points));
    const cells = await page.$$eval('[data-chart="heatmap"] rect.cell', (cs) => cs.map((c) => ({ ...c.dataset })));
    const late = cells.filter((c) => Number(c.bin) >= 5);
    assert.ok(late.length > 0 && late.every((c) => c.n === '0' && c.value === ''), JSON.stringify(late));
    // The 'all' bar over the answered tasks, not over the 60.
    const n = Number(await page.getAttribute('[data-chart="language"] rect.bar[data-series="all"]', 'data-n'));
    assert.equal(n, 12);
    // What the depth axis is.
    assert.match(await page.textContent('#chart-depth-title'), /by needle depth \(the task's position ratio\)$/);
    assert.match(await page.textContent('#depth-note'), /aims the needle's middle at that share of the token budget/);
    assert.match(await page.textContent('[data-chart="depth"] svg'), /needle position ratio bin \(%\)/);
    await page.locator('#charts-card').scrollIntoViewIfNeeded();
    await page.locator('#charts-card').screenshot({ path: path.join(ARTIFACTS, 'results-charts-answered-only-1280.png') });
    assert.deepEqual(fx2.problems, [], 'console errors or panics in the page');
  } finally {
    await fx2.close();
  }
});
