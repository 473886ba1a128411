// The Results page across a reload and a new session, in headless
// Chromium: dataset, settings, tasks, answers, scoring options and results
// come back from IndexedDB unchanged; "New session" forgets them, and only
// once confirmed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { saveScreenshot } from './browser.js';
import { answeredDemo, setIgnoreComments, EVAL_DATE } from './results-fixture.js';

let fx;
before(async () => { fx = await answeredDemo(); });
after(async () => { await fx?.close(); });

test('a reload brings back answers, options and identical results', async () => {
  const { page, srv, ids, typed } = fx;
  await page.fill('#eval-date', EVAL_DATE);
  const scores = await fx.download(() => page.click('#export-scores'));
  const tableBefore = await page.$eval('#score-table', (t) => t.outerHTML);
  const rowsBefore = await page.$$eval('tr.task-row', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  // An option change re-scores every answer (in slices) before it applies.
  assert.equal((await setIgnoreComments(page, true)).scored, 60);
  const ignoringTable = await page.$eval('#score-table', (t) => t.outerHTML);
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForSelector('#results[data-answered="60"]', { timeout: 60000 });
  // The answers are scored again by the compute engine: the table follows.
  await page.waitForSelector('#score-table', { timeout: 60000 });
  assert.equal(await page.isChecked('#opt-ignore-comments'), true, 'the scoring option was not kept');
  assert.equal(await page.$eval('#score-table', (t) => t.outerHTML), ignoringTable);
  assert.equal((await setIgnoreComments(page, false)).scored, 60);
  assert.equal(await page.$eval('#score-table', (t) => t.outerHTML), tableBefore, 'table changed after reload');
  assert.deepEqual(await page.$$eval('tr.task-row', (trs) => trs.map((tr) => ({ ...tr.dataset }))), rowsBefore);
  await page.fill('#eval-date', EVAL_DATE);
  const scoresAgain = await fx.download(() => page.click('#export-scores'));
  assert.ok(scoresAgain.bytes.equals(scores.bytes), 'SCORES after reload differ from before');
  // The typed answers are back in their boxes, the XSS one still inert.
  await page.goto(srv.url + '#task/' + encodeURIComponent(ids[11]));
  const box = page.locator(`.answer-box[data-task-id="${ids[11]}"]`);
  await box.locator('textarea').waitFor({ timeout: 30000 });
  assert.equal(await box.locator('textarea').inputValue(), typed[ids[11]]);
  assert.equal(await box.getAttribute('data-verdict'), 'pass');
  await page.goto(srv.url + '#task/' + encodeURIComponent(ids[44]));
  await page.locator(`.answer-box[data-task-id="${ids[44]}"] textarea`).waitFor({ timeout: 30000 });
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  await saveScreenshot(page, 'results-after-reload.png');
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});

test('"New session" does nothing until confirmed, then forgets everything', async () => {
  const { page, srv } = fx;
  await page.goto(srv.url + '#dataset');
  page.once('dialog', (d) => d.dismiss());
  await page.click('#new-session');
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#results[data-answered="60"]');
  await page.goto(srv.url + '#dataset');
  page.once('dialog', (d) => d.accept());
  await page.click('#new-session');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.goto(srv.url + '#results');
  await page.waitForFunction(() => document.querySelector('#results')?.dataset.answered !== '60', null, { timeout: 30000 });
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.goto(srv.url + '#results');
  await page.waitForTimeout(500);
  const after = await page.getAttribute('#results', 'data-answered');
  assert.ok(after === null || after === '0', `answers survived "New session": ${after}`);
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});
