// What a person sees on a phone and in the dark (issue 49, minors 5-7): no
// page is wider than a 390 px phone, chart text stays readable, a model's
// name wraps between its parts and never inside a word, each task's Details
// button is in view, the leaderboard's interval column fits at 1280 px, and
// the "all languages" bar is light on the dark card. (Colour contrast of
// text, light and dark, is axe's: a11y.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveDir } from './serve.js';
import { freshPage, saveScreenshot, DIST } from './browser.js';

/** How far the page scrolls sideways (0: no wider than the window). */
const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Two frames: a new width or colour scheme laid out and painted. */
const painted = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Relative luminance contrast of two CSS rgb() colours. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map((x) => {
      const v = Number(x) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

test('a phone and the dark: nothing wider than the phone, readable charts, whole words, Details in view, the all bar visible', async (t) => {
  const srv = await serveDir(DIST);
  t.after(() => srv.server.close());
  const { page, problems } = await freshPage(t);
  await page.goto(srv.url);
  await page.waitForSelector('#try-demo:not([disabled])', { timeout: 60000 });
  await page.click('#try-demo');
  await page.waitForSelector('#score-headline', { timeout: 120000 });
  await page.waitForSelector('#chart-language-svg', { timeout: 60000 });

  // Dark: the "all languages" bar and its swatch are drawn light on the dark card.
  await page.emulateMedia({ colorScheme: 'dark' });
  await painted(page);
  const dark = await page.evaluate(() => {
    const card = getComputedStyle(document.querySelector('#chart-language-svg').closest('.card')).backgroundColor;
    const bar = getComputedStyle(document.querySelector('#chart-language-svg rect.bar')).fill;
    const swatch = getComputedStyle(document.querySelector('.series-toggle .swatch')).backgroundColor;
    return { card, bar, swatch };
  });
  assert.ok(contrast(dark.bar, dark.card) >= 3, `the all bar ${dark.bar} on the card ${dark.card}`);
  assert.ok(contrast(dark.swatch, dark.card) >= 3, `the all swatch ${dark.swatch} on the card ${dark.card}`);
  await page.emulateMedia({ colorScheme: 'light' });

  await page.setViewportSize({ width: 390, height: 844 });
  await painted(page);
  assert.equal(await sideways(page), 0, 'Results is wider than the phone');
  // Chart text: 11 px in the drawing, at least 9 px as shown.
  const shown = await page.$eval('#chart-language-svg', (svg) => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width * 11);
  assert.ok(shown >= 9, `chart text shown at ${shown.toFixed(1)} px`);
  // Each task's Details button inside the window.
  await page.locator('#task-results').scrollIntoViewIfNeeded();
  const outside = await page.$$eval('#task-results button.details', (bs) => bs.filter((b) => {
    const r = b.getBoundingClientRect();
    return r.left < 0 || r.right > window.innerWidth;
  }).length);
  assert.equal(outside, 0, 'Details buttons outside the window');
  await saveScreenshot(page, 'layout-results-390.png');

  for (const hash of ['#', '#teach', '#tasks', '#run', '#curate', '#coreqa', '#verify', '#about', '#dataset']) {
    await page.goto(srv.url + hash);
    await page.waitForSelector('#app-main[data-mounted="true"]');
    await painted(page);
    assert.equal(await sideways(page), 0, `${hash} is wider than the phone`);
  }
  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('tr.task-row a', { timeout: 60000 });
  const href = await page.getAttribute('tr.task-row a', 'href');
  await page.goto(srv.url + href);
  await page.click('#anatomy > summary');
  await page.waitForSelector('.anatomy-strip .band-needle');
  await painted(page);
  assert.equal(await sideways(page), 0, 'the anatomy of a prompt is wider than the phone');

  // The leaderboard: names break between their parts only; intervals fit at 1280.
  await page.goto(srv.url + '#leaderboard');
  await page.click('#lb-load-published');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  await page.check('#lb-ci');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table td.quote[data-repo-low]').length === 30, null, { timeout: 120000 });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await painted(page);
    assert.equal(await sideways(page), 0, `the leaderboard at ${width} px is wider than the window`);
    const broken = await page.$$eval('#lb-table th.model', (ths) => ths.flatMap((th) => {
      const text = th.firstChild;
      const out = [];
      // Each part between hyphens and slashes on one line.
      for (const m of text.textContent.matchAll(/[^-/\s]+/g)) {
        const r = document.createRange();
        r.setStart(text, m.index);
        r.setEnd(text, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
        if (tops.size > 1) out.push(`${text.textContent.trim()}: "${m[0]}"`);
      }
      return out;
    }));
    assert.deepEqual(broken, [], `words broken at ${width} px`);
  }
  const fit = await page.$eval('#lb-table', (t) => ({ table: t.getBoundingClientRect().width, box: t.parentElement.clientWidth }));
  assert.ok(fit.table <= fit.box + 1, `the interval column is clipped at 1280 px: table ${fit.table} in ${fit.box}`);
  await saveScreenshot(page, 'layout-leaderboard-1280.png');
  // With the sample ladder too: its runs' long names in Two runs' A / B
  // pickers once widened the page by 320 px at 390.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('#lb-load-sample-ladder');
  await page.waitForSelector('#chart-ladder-heatmap-svg', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelectorAll('#cmp-a option').length > 2, null, { timeout: 30000 });
  await painted(page);
  assert.equal(await sideways(page), 0, 'the Leaderboard with a ladder is wider than the phone');
  await page.locator('#cmp-a').scrollIntoViewIfNeeded();
  const picker = await page.locator('#cmp-a').boundingBox();
  assert.ok(picker.x >= 0 && picker.x + picker.width <= 390, `the A picker inside the window: ${JSON.stringify(picker)}`);
  await saveScreenshot(page, 'layout-leaderboard-ladder-390.png');
  assert.deepEqual(problems, []);
});
