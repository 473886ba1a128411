// What a person on a phone (390 × 844) sees (issue 85, "Phones"): every
// per-task row shows its verdict, similarity and Details inside the
// viewport, with nothing hidden to the right; a chart wider than the
// screen says so, and scrolled sideways it shows its last bar; the header
// takes two short rows, every link on screen. At 1280 px nothing of this
// changes what a desktop shows. Screenshots at 1280 and 390, light and dark.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sampleAnswered } from './results-fixture.js';
import { saveViewports } from './browser.js';

let fx;
after(async () => { await fx?.close(); });

/** The viewport-relative box of every element `selector` matches. */
const boxes = (page, selector) => page.$$eval(selector, (els) => els.map((el) => {
  const r = el.getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height, text: el.textContent.trim() };
}));

test('phone: per-task verdicts, the charts\' sideways cue and a short header at 390 px', async () => {
  fx = await sampleAnswered();
  const { page } = fx;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForSelector('#task-results tr.task-row');

  // Each row, scrolled into view: its verdict, similarity and Details on screen.
  const rows = await page.$$('#task-results tr.task-row');
  assert.ok(rows.length >= 10, `${rows.length} rows`);
  for (const row of rows) {
    await row.scrollIntoViewIfNeeded();
    for (const part of ['.task-verdict', '.task-similarity', '.task-details button']) {
      const el = await row.$(part);
      const b = await el.boundingBox();
      assert.ok(b && b.x >= 0 && b.x + b.width <= 390 && b.y >= 0 && b.y + b.height <= 844,
        `${await row.getAttribute('data-task-id')} ${part} at ${JSON.stringify(b)}`);
    }
    // The id wraps beside Details, never under it.
    const [id, details] = await Promise.all([row.$('.task-id code'), row.$('.task-details')].map(async (e) => (await e).boundingBox()));
    assert.ok(id.x + id.width <= details.x + 1, `${await row.getAttribute('data-task-id')}: the id runs under Details`);
    const verdict = (await (await row.$('.task-verdict')).textContent()).trim();
    assert.equal(verdict, (await row.getAttribute('data-pass')) === 'true' ? 'pass' : 'fail');
  }
  const sideways = await page.$eval('#task-results-card .table-scroll', (el) => el.scrollWidth - el.clientWidth);
  assert.ok(sideways <= 1, `the per-task table scrolls ${sideways} px sideways`);
  // The similarity is labelled on a phone (its column header is not shown).
  const label = await page.$eval('#task-results tr.task-row .task-similarity', (el) => getComputedStyle(el, '::before').content);
  assert.equal(label, '"similarity "');
  await saveViewports(page, '#task-results-card', 'phone-task-results');
  await page.setViewportSize({ width: 390, height: 844 });

  // The language chart: a cue above it; swiped to the end, the last bar shows.
  const cue = page.locator('#chart-language-cue');
  await cue.scrollIntoViewIfNeeded();
  assert.ok(await cue.isVisible(), 'the cue shows on a phone');
  const body = page.locator('#chart-language-body');
  const overflow = await body.evaluate((el) => el.scrollWidth - el.clientWidth);
  assert.ok(overflow > 0, 'the chart is wider than the screen');
  const bars = await page.$$('#chart-language-svg rect.bar');
  const last = bars[bars.length - 1];
  const before = await last.boundingBox();
  assert.ok(before.x + before.width > 390, 'the last bar starts off screen');
  await body.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
  const afterSwipe = await last.boundingBox();
  assert.ok(afterSwipe.x >= 0 && afterSwipe.x + afterSwipe.width <= 390, `the last bar after a swipe: ${JSON.stringify(afterSwipe)}`);
  await body.evaluate((el) => { el.scrollLeft = 0; });
  await saveViewports(page, 'figure.chart[data-chart="language"]', 'phone-charts');
  await page.setViewportSize({ width: 390, height: 844 });

  // The header: two short rows, every link on screen.
  await page.evaluate(() => window.scrollTo(0, 0));
  const [header] = await boxes(page, 'header.top');
  assert.ok(header.height <= 130, `the header is ${header.height} px tall`);
  for (const a of await boxes(page, 'header.top nav a')) {
    assert.ok(a.left >= 0 && a.right <= 390 && a.bottom <= header.bottom, `${a.text} at ${JSON.stringify(a)}`);
  }
  assert.equal(await page.innerText('#tour-start'), 'tour');
  await saveViewports(page, 'header.top', 'phone-header');

  // At 1280 px: the table's header row, no cue, the tagline and full words.
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.ok(await page.locator('#task-results thead').isVisible());
  assert.ok(!(await cue.isVisible()), 'no cue on a desktop');
  assert.ok(await page.locator('header.top .tagline').isVisible());
  assert.equal(await page.innerText('#tour-start'), 'Guided tour');
  console.log(`phone: ${rows.length} rows with their verdicts on screen; header ${header.height.toFixed(0)} px at 390 px; the chart scrolls ${overflow} px with a cue`);
});
