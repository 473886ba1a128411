// Accessibility (issues 25 and 49): axe-core (npm) on every page and main
// state, at 1280 and 390 px, light and dark, with the app's Content-Security-Policy in force: no
// critical or serious violation. Keyboard: focus stays on the control after
// an action, a skip link leads to the page, and each route has its title.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import os from 'node:os';
import { createRequire } from 'node:module';
import { serveDir } from './serve.js';
import { launch, openPage, ROOT } from './browser.js';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PUBLISHED = path.join(ROOT, 'tests', 'fixtures', 'published-scores');

let srv, context, page, problems;
before(async () => {
  srv = await serveDir(path.join(ROOT, 'dist'));
  context = await launch();
  ({ page, problems } = await openPage(context));
});
after(async () => {
  await context?.close();
  srv?.server.close();
});

/** Critical and serious violations on the page as it is now, the minor
 * one issue 25 named (a header cell with no text) and the moderate one
 * issue 49 named (content outside every landmark: "region"). */
async function violations() {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'critical' || v.impact === 'serious' || v.id === 'empty-table-header' || v.id === 'region');
}

async function go(hash) {
  await page.goto(srv.url + hash);
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
}

/** Each state: a name and how to reach it. */
const STATES = [
  ['home', () => go('#')],
  ['dataset', async () => { await go('#dataset'); await page.waitForSelector('#dataset-summary', { timeout: 60000 }); }],
  ['tasks built', async () => {
    await go('#tasks');
    await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
    if (!(await page.$('#build-stats'))) await page.click('#build-tasks');
    await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  }],
  ['task view', async () => {
    const href = await page.getAttribute('tr.task-row a', 'href');
    await go(href);
    await page.waitForSelector('.answer-box textarea', { timeout: 30000 });
  }],
  ['the anatomy of a prompt', async () => {
    if (!(await page.$('#anatomy[open]'))) await page.click('#anatomy > summary');
    await page.waitForSelector('.anatomy-strip .band-needle', { timeout: 30000 });
  }],
  ['results with the sample answers', async () => {
    await go('#results');
    if (!(await page.$('#score-table'))) {
      await page.click('#load-samples');
      await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 30000 });
    }
    await page.waitForSelector('#score-table', { timeout: 30000 });
  }],
  ['a result step by step', async () => {
    await go('#results');
    if (!(await page.$('#task-results tr.task-row'))) {
      await page.click('#load-samples');
      await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 30000 });
    }
    await page.waitForSelector('#task-results tr.task-row button.details', { timeout: 30000 });
    if (!(await page.$('#verdict-steps'))) await page.click('#task-results tr.task-row button.details');
    await page.waitForSelector('#verdict-steps');
    if (!(await page.$('#verdict-steps[open]'))) await page.click('#verdict-steps > summary');
    await page.waitForSelector('#steps-result');
  }],
  ['run', () => go('#run')],
  ['curate', () => go('#curate')],
  ['coreqa', () => go('#coreqa')],
  ['leaderboard with the published results', async () => {
    await go('#leaderboard');
    await page.click('#lb-load-published');
    await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  }],
  ['verify with a verdict', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-a11y-'));
    const file = path.join(work, 'claude-3-haiku-20240307-SCORES.json');
    fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(PUBLISHED, 'claude-3-haiku-20240307-SCORES.json.gz'))));
    await go('#verify');
    await page.setInputFiles('#verify-scores', file);
    await page.waitForSelector('#verify-verdict[data-ok]', { timeout: 30000 });
    fs.rmSync(work, { recursive: true, force: true });
  }],
  ['about', async () => { await go('#about'); await page.waitForSelector('#selfcheck:not([data-status="loading"])', { timeout: 60000 }); }],
];

test('axe-core: no critical or serious violation on any page or main state, at 1280 and 390 px, light and dark', async () => {
  const found = [];
  for (const [name, reach] of STATES) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    await reach();
    for (const [width, scheme] of [[1280, 'light'], [1280, 'dark'], [390, 'light'], [390, 'dark']]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.emulateMedia({ colorScheme: scheme });
      // Two frames: the new width and colours laid out and painted.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      for (const v of await violations()) found.push(`${name} @${width} ${scheme}: ${v.impact} ${v.id}: ${v.nodes.join(' | ')}`);
      // Two elements with one id: a label, a skip target or a test reaches the wrong one.
      const dup = await page.evaluate(() => {
        const seen = new Map();
        for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
        return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
      });
      for (const id of dup) found.push(`${name} @${width}: duplicate id "${id}"`);
    }
  }
  // The CSP held: axe ran beside it, nothing of the app was let through.
  const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.deepEqual(found, [], found.join('\n'));
  assert.deepEqual(problems, []);
});

test('keyboard: a skip link first, focus kept on the control after Build tasks, Load sample answers and Close, a title per route', async (t) => {
  const ctx = await launch();
  t.after(() => ctx.close());
  const { page: p, problems: probs } = await openPage(ctx);
  await p.setViewportSize({ width: 1280, height: 900 });
  const active = () => p.evaluate(() => document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName);
  // Wait for the focus to land where a person expects it, then say where it is.
  const activeIs = async (want, message) => {
    await p.waitForFunction((w) => (document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName) === w, want, { timeout: 10000 }).catch(() => {});
    assert.equal(await active(), want, message);
  };

  await p.goto(srv.url + '#tasks');
  await p.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await p.title(), 'Tasks — RepoQA Web');
  await p.keyboard.press('Tab');
  await activeIs('skip-link');
  assert.ok(await p.$eval('.skip-link', (a) => a.getBoundingClientRect().top >= 0), 'the focused skip link is off-screen');
  await p.keyboard.press('Enter');
  await activeIs('app-main');
  assert.match(p.url(), /#tasks$/, 'the skip link changed the route');

  await p.waitForSelector('#build-tasks:not([disabled])[aria-disabled="false"]', { timeout: 60000 });
  await p.focus('#build-tasks');
  await p.keyboard.press('Enter');
  await p.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  await activeIs('build-tasks', 'focus left Build tasks');

  await p.goto(srv.url + '#results');
  assert.equal(await p.title(), 'Results — RepoQA Web');
  await p.waitForSelector('#load-samples', { timeout: 30000 });
  await p.focus('#load-samples');
  await p.keyboard.press('Enter');
  await p.waitForSelector('#import-status[data-ok="true"]', { timeout: 30000 });
  await p.waitForFunction(() => document.activeElement?.id === 'import-status', null, { timeout: 5000 });

  const first = await p.getAttribute('#task-results tr.task-row', 'data-task-id');
  await p.focus(`#task-results tr.task-row button.details`);
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => document.activeElement?.id === 'task-detail', null, { timeout: 5000 });
  await p.focus('#detail-close');
  await p.keyboard.press('Enter');
  await p.waitForFunction((id) => document.activeElement?.id === `details-${id}`, first, { timeout: 5000 });

  // Each chart is one tab stop; the arrow keys move inside it.
  const stops = await p.$$eval('.charts svg', (svgs) => svgs.map((s) => [s.id, s.querySelectorAll('[tabindex="0"]').length, s.querySelectorAll('[tabindex]').length]));
  assert.equal(stops.length, 4);
  for (const [id, zero, all] of stops) {
    assert.equal(zero, 1, `${id}: ${zero} tab stops`);
    assert.ok(all > 1, `${id}: ${all} points`);
  }
  await p.focus('#chart-heatmap-svg [tabindex="0"]');
  const focused = () => p.evaluate(() => { const e = document.activeElement; return `${e.dataset.series} ${e.dataset.bin} ${e.getAttribute('tabindex')}`; });
  // The focus moves in the page's key handlers: wait for it (as a person
  // looks), then say where it is if it never came.
  const focusIs = async (want) => {
    await p.waitForFunction((w) => { const e = document.activeElement; return `${e.dataset.series} ${e.dataset.bin} ${e.getAttribute('tabindex')}` === w; }, want, { timeout: 10000 }).catch(() => {});
    assert.equal(await focused(), want);
  };
  const [row0] = await p.$$eval('#chart-heatmap-svg rect.cell', (cs) => cs.map((c) => c.dataset.series));
  await focusIs(`${row0} 0 0`);
  await p.keyboard.press('ArrowRight');
  await focusIs(`${row0} 1 0`);
  await p.keyboard.press('End');
  const last = await p.$eval('#chart-heatmap-svg rect.cell:last-of-type', (c) => `${c.dataset.series} ${c.dataset.bin} 0`);
  await focusIs(last);
  assert.equal(await p.$$eval('#chart-heatmap-svg [tabindex="0"]', (e) => e.length), 1);
  await p.keyboard.press('Home');
  await p.keyboard.press('ArrowDown');
  const rows = await p.$$eval('#chart-heatmap-svg rect.cell', (cs) => [...new Set(cs.map((c) => c.dataset.series))]);
  if (rows.length > 1) await focusIs(`${rows[1]} 0 0`);

  const titles = new Set();
  for (const hash of ['#', '#dataset', '#tasks', '#run', '#results', '#curate', '#coreqa', '#leaderboard', '#verify', '#about']) {
    await p.goto(srv.url + hash);
    await p.waitForSelector('#app-main[data-mounted="true"]');
    titles.add(await p.title());
  }
  assert.equal(titles.size, 10, [...titles].join(' | '));
  assert.deepEqual(probs, []);
});
