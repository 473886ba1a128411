// The Run page's status while and after a run, as a person sees it: the
// form above the Run button is long (where, request, reasoning, scheduling,
// which tasks, plan and cost), so once a run has started its progress, its
// end ("Done …", in the pass colour) and the next step stay at the bottom
// of the screen while the form is in view, at 1280 and 390 px; before any
// run the status sits in place and covers nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS } from './browser.js';
import { open, buildDemo, DEMO } from './results-fixture.js';
import { KEY, startModelServer, configure } from './run-fixture.js';

let fx;
let srv;
before(async () => {
  srv = await startModelServer(['--dataset', DEMO, '--key', KEY, '--latency-s', '0.4']);
  fx = await open();
  await buildDemo(fx);
});
after(async () => { await fx?.close(); srv?.stop(); });

/** `sel`'s box lies wholly inside the window. */
async function onScreen(page, sel) {
  const box = await page.locator(sel).boundingBox();
  const { w, h } = await page.evaluate(() => ({ w: innerWidth, h: innerHeight }));
  return !!box && box.height > 0 && box.y >= 0 && box.y + box.height <= h + 0.5 && box.x >= 0 && box.x + box.width <= w + 0.5;
}

test('the run\'s progress and its end stay on screen above the long form, at 1280 and 390 px', async () => {
  const { page } = fx;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  // Before any run: in place, after the form (nothing covers the form).
  assert.equal(await page.getAttribute('#run-status', 'data-sticky'), 'false');
  assert.equal(await page.$eval('#run-status', (e) => getComputedStyle(e).position), 'static');
  await page.evaluate(() => scrollTo(0, 0));
  assert.equal(await onScreen(page, '#run-progress'), false, 'idle: the status is down by the Run button');

  await configure(page, srv, { provider: 'openai', language: 'python', concurrency: 1 });
  await page.click('#run-start');
  await page.waitForSelector('#run-progress[data-state="running"]');
  // Scrolled back to the top of the page while it runs: the progress is seen.
  await page.evaluate(() => scrollTo(0, 0));
  assert.equal(await page.getAttribute('#run-status', 'data-sticky'), 'true');
  assert.ok(await onScreen(page, '#run-progress'), 'running: the progress bar on screen at the top of the page');
  await page.waitForSelector('#run-progress[data-state="done"]', { timeout: 120000 });
  await page.evaluate(() => scrollTo(0, 0));
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.evaluate(() => scrollTo(0, 0));
    for (const sel of ['#run-progress', '#run-message', '#run-next-steps']) {
      assert.ok(await onScreen(page, sel), `${sel} on screen at ${width} px`);
    }
    assert.match(await page.innerText('#run-message'), /\S/);
    assert.equal(await page.getAttribute('#run-message', 'class'), 'pass');
    // The form's first field is not under the bar.
    assert.ok(await onScreen(page, '#run-preset'));
  }
  // Scrolled to its place, the status is where it always was, under Run.
  await page.locator('#run-start').scrollIntoViewIfNeeded();
  const run = await page.locator('#run-start').boundingBox();
  const status = await page.locator('#run-status').boundingBox();
  assert.ok(status.y > run.y, 'the status under the Run button');

  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.evaluate(() => scrollTo(0, 0));
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: path.join(ARTIFACTS, `run-status-${width}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
});
