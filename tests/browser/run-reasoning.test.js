// The Run page with reasoning models, against the project's test model
// server (tests/oracle/model_server.py on 127.0.0.1), which answers as each
// provider's reasoning models do. Qwen3 served without a reasoning parser
// puts its thinking inline (<think>…</think>, a code block of another needle
// in it) before a right answer: the page asks it as a reasoning model (the
// thinking budget beside the answer's) and scores the answer after the
// thinking, 100 %. o4-mini with a budget too small for its thinking: every
// task fails saying what to raise, nothing is stored, and a retry with the
// budget raised answers them. The same core as `repoqa run`
// (crates/repoqa-cli/tests/it/run_reasoning.rs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { saveScreenshot, saveViewports, ARTIFACTS } from './browser.js';
import { demoAndModelServer, setField, runAndWait, configure, idbDump } from './run-fixture.js';

let fx;
let srv;

/** `saveViewports`' screenshots of `sel`, after checking that at 390 px it
 *  lies inside the viewport's width (no panel off to the right). */
async function screenshots(page, sel, name) {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator(sel).scrollIntoViewIfNeeded();
  const box = await page.locator(sel).boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 391, `${sel} inside the viewport at 390 px: ${JSON.stringify(box)}`);
  await saveViewports(page, sel, name);
}

before(async () => { ({ fx, srv } = await demoAndModelServer()); });
after(async () => { await fx?.close(); srv?.stop(); });

test('a model that thinks then answers right scores 100 %; a budget spent on thinking fails the task, not an empty answer', async () => {
  const { page } = fx;
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');

  // 1. Qwen3 with its thinking inline.
  await configure(page, srv, { provider: 'openai', language: 'python' });
  await setField(page, '#run-model', 'Qwen/Qwen3-8B');
  await page.waitForSelector('#run-reasoning-note[data-thinking="true"]');
  assert.match(await page.textContent('#run-reasoning-note'),
    /NOT UPSTREAM: asked as a reasoning model \(Qwen3 \(thinking models\) reasons by default.*a thinking budget of 16,384 tokens \+ 1,024 for the answer/);
  // The label is explained where a newcomer meets it, in plain words.
  assert.ok(await page.isVisible('#run-not-upstream-legend'));
  assert.match(await page.innerText('#run-not-upstream-legend'), /^NOT UPSTREAM marks what RepoQA's official harness/);
  assert.doesNotMatch(await page.innerText('#run-reasoning-settings'), /upstream's request|table of 20/);
  await screenshots(page, '#run-reasoning-settings', 'run-reasoning');
  assert.equal(await runAndWait(page), 'done');
  await page.waitForSelector('#run-no-failed');
  const reqs = await srv.get('/requests');
  assert.equal(reqs.length, 10);
  for (const r of reqs) {
    assert.equal(r.body.max_tokens, 16384 + 1024);
    assert.equal(r.body.temperature, 0);
  }
  // The answers stored are what follows the thinking; the thinking is in the run records.
  const idb = await idbDump(page);
  const answers = JSON.parse(idb.answers || '{}');
  const python = Object.entries(answers).filter(([id]) => id.startsWith('python::'));
  assert.equal(python.length, 10);
  for (const [id, a] of python) {
    const text = typeof a === 'string' ? a : JSON.stringify(a);
    assert.ok(!text.includes('think>') && !text.includes('could fit this one'), `${id}: the thinking stored as the answer`);
  }
  const log = await fx.download(() => page.click('#run-download-log'));
  const records = log.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(records.every((r) => r.reasoning_inline === true && r.reasoning.includes('could fit this one')
    && r.params.reasoning.budget === 16384), JSON.stringify(records[0]));

  // 2. o4-mini with 100 tokens for its thinking: failed tasks, with what to raise.
  await srv.control({ reset: true });
  await configure(page, srv, { provider: 'openai', language: 'java' });
  await setField(page, '#run-model', 'o4-mini');
  await setField(page, '#run-reasoning-budget', 100);
  await page.waitForSelector('#run-reasoning-note[data-thinking="true"]');
  await runAndWait(page);
  await page.waitForFunction(() => document.querySelectorAll('#run-failed li').length === 10, null, { timeout: 30000 });
  const failed = await page.textContent('#run-failed');
  assert.match(failed, /cut at the token limit before any answer \(finish reason "length"\)/);
  assert.match(failed, /raise the thinking budget/);
  await page.locator('#run-failed').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'run-reasoning-failed-1280.png');
  const body = (await srv.get('/requests'))[0].body;
  assert.equal(body.max_completion_tokens, 1124);
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.temperature, undefined);
  const stored = JSON.parse((await idbDump(page)).answers || '{}');
  assert.equal(Object.keys(stored).filter((id) => id.startsWith('java::')).length, 0, 'nothing stored');

  // Raised again (the default budget), the failed are asked again and answered.
  await setField(page, '#run-reasoning-budget', '');
  assert.equal(await runAndWait(page), 'done');
  await page.waitForSelector('#run-no-failed');

  // Results: each model's run on its own; every answer passes at 0.8.
  await page.goto(fx.srv.url + '#results');
  await page.waitForSelector('#run-switch-select', { timeout: 60000 });
  assert.equal(await page.getAttribute('#run-switch-select', 'data-model'), 'o4-mini');
  await page.waitForSelector('#results[data-answered="10"]', { timeout: 60000 });
  const java = Number(await page.getAttribute('#score-table tr[data-row="java"] td[data-threshold="0.8"]', 'data-value'));
  assert.equal(java, 1, 'o4-mini: java pass@1 at 0.8');
  await page.selectOption('#run-switch-select', await page.$eval('#run-switch-select', (s) => [...s.options].find((o) => o.dataset.model === 'Qwen/Qwen3-8B').value));
  await page.waitForFunction(() => document.querySelector('#results')?.dataset.answered === '10'
    && document.querySelector('#score-table tr[data-row="python"]'), null, { timeout: 60000 });
  const pythonPass = Number(await page.getAttribute('#score-table tr[data-row="python"] td[data-threshold="0.8"]', 'data-value'));
  assert.equal(pythonPass, 1, 'Qwen3: python pass@1 at 0.8');
  // The exported SCORES file records what `repoqa run` records: 10 answers
  // whose inline <think> block was taken out.
  const exported = await fx.download(() => page.click('#export-scores'));
  const entry = Object.values(JSON.parse(exported.bytes.toString('utf8')))[0];
  assert.equal(entry.inline_reasoning_removed, 10);
  assert.equal(entry.cut_replies, undefined);

  // A task's detail shows the thinking folded under the answer, as text.
  const row = page.locator('tr.task-row[data-task-id^="python::"]').first();
  const rowId = await row.getAttribute('data-task-id');
  await row.locator('button.details').click();
  await page.waitForSelector('#task-detail #detail-reasoning');
  const summary = await page.textContent('#detail-reasoning summary');
  assert.match(summary, rowId.startsWith('python::') ? /The model's thinking: not part of the answer, not scored; taken out of the reply's <think> block \(NOT UPSTREAM\)/ : /The model's thinking, 2,000 tokens: not part of the answer, not scored/);
  assert.equal(await page.getAttribute('#detail-reasoning', 'open'), null, 'folded');
  if (rowId.startsWith('python::')) {
    await page.click('#detail-reasoning summary');
    assert.match(await page.textContent('#detail-reasoning pre'), /could fit this one/);
    assert.ok(!(await page.textContent('#detail-answer')).includes('think>'));
  }
  await page.locator('#task-detail').screenshot({ path: path.join(ARTIFACTS, 'run-reasoning-detail-1280.png') });
  // The task view shows the same under the answer box.
  await page.goto(fx.srv.url + '#task/' + encodeURIComponent(rowId));
  await page.waitForSelector('#answer-slot #task-reasoning', { timeout: 30000 });
  assert.match(await page.textContent('#task-reasoning summary'), /The model's thinking.*not part of the answer, not scored/);
  assert.equal(await page.getAttribute('#task-reasoning', 'open'), null, 'folded');
  assert.deepEqual(fx.problems.filter((p) => !/Failed to load resource|CORS policy|net::/.test(p)), [], 'console errors or panics');
});

// The Effort list: every documented value, those the model does not take
// (by the table of models) disabled and saying so; a value the model does
// not take, left from another model, is refused on the page before any
// request, naming the values it takes; a value it takes is sent as its API
// takes it (here GPT-5's `minimal` as reasoning_effort).
test('the effort list offers every documented value the model takes, and refuses another before a request', async () => {
  const { page } = fx;
  await srv.control({ reset: true });
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  await configure(page, srv, { provider: 'openai', language: 'go' });
  const options = () => page.$$eval('#run-reasoning-effort option',
    (os) => os.map((o) => [o.value, o.disabled, o.textContent.trim()]));
  await setField(page, '#run-model', 'gpt-5');
  await page.waitForFunction(() => document.querySelector('#run-reasoning-effort option[value="none"]')?.disabled === true);
  // Which control of this API each setting is (walk round 2, minor).
  assert.match(await page.textContent('#run-effort-controls'), /^OpenAI-compatible: the effort is sent as reasoning_effort/);
  assert.deepEqual(await options(), [
    ['', false, "the model's default"],
    ['none', true, 'none (not taken by OpenAI GPT-5)'],
    ['minimal', false, 'minimal'],
    ['low', false, 'low'],
    ['medium', false, 'medium'],
    ['high', false, 'high'],
    ['xhigh', true, 'xhigh (not taken by OpenAI GPT-5)'],
  ]);
  await setField(page, '#run-model', 'gpt-5.2');
  await page.waitForFunction(() => document.querySelector('#run-reasoning-effort option[value="xhigh"]')?.disabled === false);
  assert.deepEqual((await options()).filter(([, disabled]) => disabled),
    [['minimal', true, 'minimal (not taken by OpenAI GPT-5.2 and later)']]);
  await page.selectOption('#run-reasoning-effort', 'xhigh');
  await page.waitForFunction(() => /effort xhigh \(reasoning_effort=xhigh\)/.test(document.querySelector('#run-reasoning-note')?.textContent || ''));
  assert.equal(await page.$eval('#run-reasoning-effort', (s) => s.value), 'xhigh');
  // Another model that does not take it: said at once, next to the list, in the warning's colour.
  await setField(page, '#run-model', 'gpt-5');
  await page.waitForSelector('#run-effort-problem');
  assert.equal(await page.textContent('#run-effort-problem'),
    'Effort xhigh: OpenAI GPT-5 (gpt-5) does not take it; it takes minimal, low, medium, high (this app\'s list of models, checked 2026-11-27)');
  const colour = await page.$eval('#run-effort-problem', (e) => getComputedStyle(e).borderLeftColor);
  assert.equal(colour, 'rgb(217, 119, 6)', 'the warning colour');
  await screenshots(page, '#run-effort-problem', 'run-effort');
  // Run anyway: refused before any request.
  await page.click('#run-start');
  await page.waitForFunction(() => /Effort xhigh: OpenAI GPT-5 \(gpt-5\) does not take it/.test(document.querySelector('#run-message')?.textContent || ''));
  assert.match(await page.textContent('#run-message'), /Effort xhigh: OpenAI GPT-5 \(gpt-5\) does not take it; it takes minimal, low, medium, high/);
  assert.equal(await page.getAttribute('#run-message', 'class'), 'fail');
  assert.equal((await srv.get('/requests')).length, 0, 'no request sent');
  // A value it takes: the refusal goes; GPT-5.2's none is sent by name,
  // with no room for thinking (the server thinks 0 tokens at none).
  await page.selectOption('#run-reasoning-effort', 'minimal');
  await page.waitForFunction(() => !document.querySelector('#run-effort-problem'));
  await setField(page, '#run-model', 'gpt-5.2');
  await page.selectOption('#run-reasoning-effort', 'none');
  await page.waitForFunction(() => /no thinking \+ 1,024 for the answer, effort none \(reasoning_effort=none\)/.test(document.querySelector('#run-reasoning-note')?.textContent || ''));
  assert.equal(await runAndWait(page), 'done');
  await page.waitForSelector('#run-no-failed');
  const reqs = await srv.get('/requests');
  assert.equal(reqs.length, 10);
  for (const r of reqs) {
    assert.equal(r.body.reasoning_effort, 'none');
    assert.equal(r.body.max_completion_tokens, 1024);
  }
  // Reasoning off for GPT-5: the page says OpenAI refuses the official request for it.
  await page.selectOption('#run-reasoning', 'off');
  await page.waitForFunction(() => /RepoQA's own request: max_tokens and temperature 0.*OpenAI's API refuses both for it \(HTTP 400\): Reasoning: on asks it as one/.test(document.querySelector('#run-reasoning-note')?.textContent || ''));
  await page.waitForSelector('#run-not-upstream-legend', { state: 'hidden' });
  await page.selectOption('#run-reasoning', 'auto');
  // Gemini 3 Pro on Google's API: low and high only.
  await configure(page, srv, { provider: 'google', language: 'go' });
  await setField(page, '#run-model', 'gemini-3-pro-preview');
  await page.waitForFunction(() => document.querySelector('#run-reasoning-effort option[value="medium"]')?.disabled === true);
  assert.deepEqual((await options()).filter(([, d]) => !d).map(([v]) => v), ['', 'low', 'high']);
  assert.match(await page.textContent('#run-effort-controls'), /^Gemini 3: the effort is sent as thinkingLevel/);
});
