// The guided tour, presenter mode and the dark theme (issue 24) in headless
// Chromium, from a fresh profile:
// - the tour runs end to end by keyboard alone: Tab to "Guided tour",
//   Enter, Tab to "Prepare the demo", Enter, then → through every step
//   (each on its page, its key number read from the app, the anatomy and
//   the verdict steps opened for it), ← back, Escape to leave; the task
//   view's own ← → wait while the tour runs;
// - presenter mode: large type, no key field on screen;
// - prefers-color-scheme: dark darkens every page and the charts, and
//   axe-core finds no serious contrast problem in it;
// - screenshots of every step at 1280 and 390 px and in dark mode go to
//   tests/artifacts/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { serveDir } from './serve.js';
import { launch, openPage, DIST, ARTIFACTS } from './browser.js';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let srv, context;
after(async () => { await context?.close(); srv?.server.close(); });

const HASHES = [/^#?$/, /^#dataset$/, /^#tasks$/, /^#task\//, /^#task\//, /^#results$/, /^#teach$/];

async function tabTo(page, id, max = 60) {
  for (let k = 0; k < max; k++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((i) => document.activeElement?.id === i, id)) return;
  }
  throw new Error(`#${id} not reached by Tab`);
}

async function step(page) {
  return Number(await page.getAttribute('#tour', 'data-step'));
}

async function shoot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name) });
}

test('the tour runs end to end by keyboard alone, in light, narrow and dark', async () => {
  srv = await serveDir(DIST);
  context = await launch();
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(srv.url + '#');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await tabTo(page, 'tour-start');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#tour[data-step="0"]');
  assert.equal(await page.evaluate(() => document.documentElement.classList.contains('touring')), true);
  await tabTo(page, 'tour-prepare');
  await page.keyboard.press('Enter');
  // Prepared: the demo's prompts built and its sample answers scored.
  await page.waitForFunction(() => !document.querySelector('#tour-prepare'), null, { timeout: 180000 });
  await page.evaluate(() => document.activeElement?.blur());

  for (let i = 0; i < HASHES.length; i++) {
    if (i > 0) await page.keyboard.press('ArrowRight');
    await page.waitForFunction((n) => document.querySelector('#tour')?.dataset.step === String(n), i);
    const hash = await page.evaluate(() => location.hash);
    assert.match(hash, HASHES[i], `step ${i} is on its page`);
    if (i === 3) await page.waitForSelector('#anatomy[open] #anatomy-view', { timeout: 60000 });
    if (i === 4) await page.waitForSelector('#answer-slot #verdict-steps[open] #steps-result', { timeout: 60000 });
    if (i === 5) await page.waitForSelector('figure.chart svg', { timeout: 60000 });
    if (i === 6) await page.waitForSelector('#exercise-start');
    const key = await page.textContent('#tour .tour-number');
    assert.notEqual(key.trim(), '—', `step ${i} has its key number`);
    if (i === 2) assert.equal(key.trim(), '60');
    await shoot(page, `tour-${i}-1280.png`);
    await page.setViewportSize({ width: 390, height: 844 });
    await shoot(page, `tour-${i}-390.png`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, `tour-${i}-dark.png`);
    await page.emulateMedia({ colorScheme: 'light' });
    // The app underneath stays usable: the page scrolls and its links work
    // (the panel is not modal).
    assert.equal(await page.getAttribute('#tour', 'aria-modal'), 'false');
  }
  // The last step ends the tour; ← goes back first.
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#tour')?.dataset.step === '5');
  // On a task view, ← → belong to the tour while it runs.
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#tour')?.dataset.step === '4');
  const at = await page.evaluate(() => location.hash);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#tour')?.dataset.step === '3');
  assert.equal(await page.evaluate(() => location.hash), at, 'the task view did not move to another task');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('#tour'));
  assert.equal(await page.evaluate(() => document.documentElement.classList.contains('touring')), false);
  console.log(`tour: ${HASHES.length} steps by keyboard alone, each screenshotted at 1280, 390 and dark`);
  assert.deepEqual(problems, []);
});

test('presenter mode: large type and no key field on screen', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(srv.url + '#run');
  await page.waitForSelector('#run-key', { timeout: 30000 });
  assert.equal(await page.isVisible('#run-key'), true);
  await tabTo(page, 'presenter-toggle');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.documentElement.classList.contains('presenter'));
  assert.equal(await page.getAttribute('#presenter-toggle', 'aria-pressed'), 'true');
  // On shows as on: the button filled in the accent colour, with a tick.
  const look = await page.$eval('#presenter-toggle', (b) => ({
    bg: getComputedStyle(b).backgroundColor,
    card: getComputedStyle(document.querySelector('.card') || document.body).backgroundColor,
    tick: getComputedStyle(b.querySelector('.on-mark')).display,
    text: b.textContent,
  }));
  assert.notEqual(look.bg, look.card, 'the pressed button looks pressed');
  assert.equal(look.tick, 'inline');
  assert.equal(look.text.trim(), '✓ Presenter mode');
  assert.equal(await page.isVisible('#run-key'), false, 'the API key field is hidden');
  const size = await page.evaluate(() => getComputedStyle(document.body).fontSize);
  assert.equal(size, '20px');
  await page.goto(srv.url + '#coreqa');
  await page.waitForSelector('#app-main[data-mounted="true"]');
  assert.equal(await page.isVisible('#cq-gh-token'), false);
  // Kept across a reload, then turned off.
  await page.reload();
  await page.waitForFunction(() => document.documentElement.classList.contains('presenter'), null, { timeout: 30000 });
  await page.goto(srv.url + '#tasks');
  await shoot(page, 'presenter-1280.png');
  await page.click('#presenter-toggle');
  await page.waitForFunction(() => !document.documentElement.classList.contains('presenter'));
  assert.equal(await page.$eval('#presenter-toggle .on-mark', (m) => getComputedStyle(m).display), 'none');
  assert.deepEqual(problems, []);
});

test('the dark theme darkens every page and the charts, with readable contrast', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  const serious = [];
  for (const hash of ['#', '#dataset', '#tasks', '#results', '#run', '#leaderboard', '#verify', '#teach', '#curate', '#coreqa', '#about']) {
    await page.goto(srv.url + hash);
    await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(17, 20, 25)', `${hash} is dark`);
    if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
    const v = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'], runOnly: ['color-contrast'] });
      return r.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => ({ id: x.id, nodes: x.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
    });
    if (v.length) serious.push({ hash, v });
  }
  assert.deepEqual(serious, [], JSON.stringify(serious, null, 1));
  // The charts: their background is the card's, their text the theme's.
  await page.goto(srv.url + '#results');
  await page.waitForSelector('figure.chart svg', { timeout: 60000 });
  const chart = await page.evaluate(() => {
    const svg = document.querySelector('figure.chart svg');
    const rect = svg.querySelector('rect');
    const text = [...svg.querySelectorAll('text')].find((t) => !t.classList.contains('cell-label'));
    return { bg: getComputedStyle(rect).fill, text: getComputedStyle(text).fill };
  });
  assert.equal(chart.bg, 'rgb(26, 30, 38)');
  assert.notEqual(chart.text, 'rgb(29, 35, 48)', 'chart text is not the light theme\'s ink');
  await shoot(page, 'dark-results-1280.png');
  assert.deepEqual(problems, []);
});
