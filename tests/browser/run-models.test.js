// A run per model (issue 49, major 4): the answers belong to the model that
// gave them. On the demo built in the page, against the project's test
// model server on 127.0.0.1: the sample answers, then a run of model-a,
// then one of model-b. Each model is asked every selected task (never
// "answered already" because another model answered them); Results shows
// whose answers it scores and switches between the three runs, each whole
// (its answers, its run log, its model name in the exports), after a
// reload too; running model-a again resumes model-a's run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { saveViewports } from './browser.js';
import { demoAndModelServer, setField, runAndWait, configure, idbDump, tasksOf } from './run-fixture.js';

let fx;
let srv;
before(async () => { ({ fx, srv } = await demoAndModelServer()); });
after(async () => { await fx?.close(); srv?.stop(); });

const SAMPLE = 'SAMPLE-answers-not-a-model';

async function runModel(page, model) {
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  await configure(page, srv, { provider: 'openai', language: 'python' });
  await setField(page, '#run-model', model);
  // What the form says before Run: this model's answers only.
  await page.waitForFunction((m) => document.querySelector('#run-selection')?.textContent.includes(m) || document.querySelector('#run-selection')?.dataset.answered === '0', model);
  const answeredBefore = Number(await page.getAttribute('#run-selection', 'data-answered'));
  const before = (await srv.get('/requests')).length;
  const state = await runAndWait(page);
  const reqs = (await srv.get('/requests')).slice(before);
  return { state, reqs, answeredBefore, message: await page.textContent('#run-message') };
}

/** The runs Results offers (their labels) in the switch, and the model shown. */
async function runsShown(page) {
  await page.goto(fx.srv.url + '#results');
  await page.waitForSelector('#run-switch-select');
  return page.$eval('#run-switch-select', (s) => ({
    current: s.dataset.model,
    options: [...s.options].map((o) => o.textContent),
  }));
}

/** Switch Results to `model`'s run (at the one length it was run at). */
async function switchTo(page, model) {
  const value = await page.$eval('#run-switch-select', (s, m) => [...s.options].find((o) => o.dataset.model === m).value, model);
  await page.selectOption('#run-switch-select', value);
}

test('each model has its own run: asked everything, kept beside the others, switched on Results, resumed by name', async () => {
  const { page } = fx;
  await page.goto(fx.srv.url + '#results');
  await page.click('#load-samples');
  await page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
  assert.match(await page.textContent('#run-owner'), new RegExp(SAMPLE));

  // model-a: every python task asked, though 2 of them have sample answers.
  const a = await runModel(page, 'model-a');
  assert.equal(a.answeredBefore, 0, 'the sample answers are not model-a\'s');
  assert.equal(a.state, 'done', a.message);
  assert.equal(new Set(tasksOf(a.reqs)).size, 10, a.message);
  assert.ok(a.reqs.every((r) => r.body.model === 'model-a'));
  assert.match(a.message, new RegExp(`${SAMPLE}'s run is kept beside it`));
  let shown = await runsShown(page);
  assert.equal(shown.current, 'model-a');
  // Imported answers say no length; a run, the length its tasks were built at.
  assert.deepEqual(shown.options, [`${SAMPLE} (12 answered)`, 'model-a at 16,384 tokens (10 answered)']);
  await page.waitForSelector('#results[data-answered="10"]');
  assert.equal(await page.inputValue('#model-name'), 'model-a');

  // model-b: asked everything again (before: "Nothing to ask: 10 answered already").
  const b = await runModel(page, 'model-b');
  assert.equal(b.answeredBefore, 0, 'model-a\'s answers are not model-b\'s');
  assert.equal(b.state, 'done', b.message);
  assert.equal(new Set(tasksOf(b.reqs)).size, 10, b.message);
  assert.ok(b.reqs.every((r) => r.body.model === 'model-b'));
  assert.match(b.message, /model-a's run is kept beside it/);
  shown = await runsShown(page);
  assert.equal(shown.current, 'model-b');
  assert.equal(shown.options.length, 3);

  // Switch to the samples and back: each run whole, its name on the exports.
  await switchTo(page, SAMPLE);
  await page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
  assert.equal(await page.inputValue('#model-name'), SAMPLE);
  await page.waitForSelector('#score-headline');
  await page.evaluate(() => window.scrollTo(0, 0));
  await saveViewports(page, '#results', 'results-run-switch');
  await switchTo(page, 'model-a');
  await page.waitForSelector('#results[data-answered="10"]', { timeout: 30000 });
  assert.equal(await page.inputValue('#model-name'), 'model-a');
  // The run log went with its run: model-a's records only.
  const idb = await idbDump(page);
  const models = new Set(idb['run-log'].trim().split('\n').map((l) => JSON.parse(l).model));
  assert.deepEqual([...models], ['model-a']);
  const shelf = JSON.parse(idb['run-shelf']);
  assert.deepEqual(shelf.map((r) => r.model).sort(), [SAMPLE, 'model-b']);

  // After a reload: the same three runs, model-a's shown.
  await page.reload();
  shown = await runsShown(page);
  assert.equal(shown.current, 'model-a');
  assert.equal(shown.options.length, 3);

  // Two of them compared task by task, neither exported: each run kept is among the runs to compare.
  // A run's file sits in its length's folder (the imported samples have none).
  const key = (m) => `runs in this browser/${m === SAMPLE ? '' : 'ntoken_16384/'}${m}-SCORES.json\u001f${m}`;
  // Each run is scored (by the compute engine) before it is offered: wait for all three.
  await page.waitForFunction((ks) => ks.every((k) => [...document.querySelectorAll('#cmp-a option')].some((o) => o.value === k)),
    [key(SAMPLE), key('model-a'), key('model-b')], { timeout: 60000 });
  const offered = await page.$$eval('#cmp-a option', (os) => os.map((o) => o.value).filter((v) => v.startsWith('runs in this browser/')));
  assert.deepEqual(offered.sort(), [key(SAMPLE), key('model-a'), key('model-b')].sort());
  await page.selectOption('#cmp-a', key('model-a'));
  await page.selectOption('#cmp-b', key('model-b'));
  await page.waitForSelector('#cmp-table tbody tr[data-row="all"]', { timeout: 30000 });
  const all = await page.$eval('#cmp-table tbody tr[data-row="all"]', (tr) => ({ ...tr.dataset }));
  assert.equal(Number(all.both) + Number(all.onlyA) + Number(all.onlyB) + Number(all.neither), 10, JSON.stringify(all));
  await page.locator('#lb-paired-card').scrollIntoViewIfNeeded();
  await saveViewports(page, '#lb-paired-card', 'results-runs-compared');

  // model-a again: its own run resumes, nothing is asked twice.
  const again = await runModel(page, 'model-a');
  assert.equal(again.answeredBefore, 10);
  assert.equal(again.reqs.length, 0);
  assert.match(again.message, /Nothing to ask: 10 selected task\(s\) answered already by model-a\./);
  // The server's 404s to the page's probes (its model list, its slots) are the browser's log lines, not the page's.
  assert.deepEqual(fx.problems.filter((p) => !/Failed to load resource: the server responded with a status of 404/.test(p)), [], 'console errors or panics');
});
