// The Run page against the project's test model server
// (tests/oracle/model_server.py on 127.0.0.1), in headless Chromium, on the
// demo built in the page: three language filters of 10 tasks each, one per
// wire format (OpenAI, Anthropic, Google), concurrency 2, with faults (429
// with Retry-After, 500, dropped connections, a cut JSON body, a reply
// without CORS headers); the first run is reloaded mid-run and resumed.
// Checked: no task the page had stored is asked again after the reload;
// every task ends answered once; the Results table equals `repoqa score`
// on the exported outputs; the key is in no export, not in IndexedDB,
// localStorage, the URL or the console; a refused key stops the run with a
// message saying so; a server without CORS gets the explanation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { saveScreenshot } from './browser.js';
import { execFileSync } from 'node:child_process';
import { open, buildDemo, cliScoresOfExport, BIN, DEMO } from './results-fixture.js';
import { KEY, MODEL, startModelServer, idbDump, setField, runAndWait, configure, tasksOf } from './run-fixture.js';

let fx;
let srv;
const consoleText = [];
before(async () => {
  srv = await startModelServer(['--dataset', DEMO, '--key', KEY, '--latency-s', '0.25']);
  fx = await open();
  fx.page.on('console', (m) => consoleText.push(m.text()));
  await buildDemo(fx);
});
after(async () => { await fx?.close(); srv?.stop(); });

test('runs three wire formats with faults, resumes after a reload, equals repoqa score, keeps the key out', async () => {
  const { page } = fx;
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');

  // The seeded sample picks N tasks, the same ones for the same seed.
  await setField(page, '#run-sample', 3);
  await page.waitForSelector('#run-selection[data-selected="3"]');
  await setField(page, '#run-sample', '');
  await page.waitForSelector('#run-selection[data-selected="60"]');

  // 1. OpenAI format, python, faults; reloaded mid-run, then resumed.
  await srv.control({ reset: true, faults: { type_token_ratio: ['429'], readability: ['500'], wrap: ['drop'], justify: ['badjson'] } });
  await configure(page, srv, { provider: 'openai', language: 'python' });
  await page.click('#run-start');
  await page.waitForFunction(() => Number(document.querySelector('#run-progress')?.dataset.done) >= 3, null, { timeout: 60000 });
  await page.reload();
  await page.waitForSelector('#run-card');
  await page.waitForSelector('#run-interrupted', { timeout: 30000 });
  const stored = JSON.parse((await idbDump(page)).answers || '{}');
  const storedIds = Object.keys(stored).filter((id) => id.startsWith('python::'));
  assert.ok(storedIds.length >= 3 && storedIds.length < 10, `stored before the reload: ${storedIds.length}`);
  const before = (await srv.get('/requests')).length;
  // The key was in memory only: the reloaded page does not have it.
  assert.equal(await page.inputValue('#run-key'), '');
  await setField(page, '#run-key', KEY);
  assert.equal(await runAndWait(page), 'done');
  const resumed = tasksOf((await srv.get('/requests')).slice(before));
  const again = resumed.filter((t) => storedIds.includes(t));
  assert.deepEqual(again, [], 'a task stored before the reload was asked again');
  console.log(`openai: ${storedIds.length} answers stored before the reload, ${new Set(resumed).size} tasks asked after it, none twice`);
  await page.waitForSelector('#run-selection[data-answered="10"]');

  // 2. Anthropic and 3. Google formats, with faults (and a reply without CORS headers).
  const faults = {
    anthropic: ['cpp', { cross: ['429'], format_number: ['500'], closest_pair_distance: ['drop'] }],
    google: ['java', { monthlyAdjustment: ['429'], owner: ['500'], deposit: ['drop'], withdraw: ['nocors'] }],
  };
  for (const [provider, [language, f]] of Object.entries(faults)) {
    await srv.control({ reset: true, faults: f });
    await configure(page, srv, { provider, language });
    assert.equal(await runAndWait(page), 'done', provider);
    const stats = await srv.get('/stats');
    const reqs = await srv.get('/requests');
    assert.ok(reqs.every((r) => r.format === provider), provider);
    if (provider === 'anthropic') assert.ok(reqs.every((r) => r.browser_access === 'true'), 'anthropic-dangerous-direct-browser-access');
    for (const r of reqs) {
      assert.equal(r.body.max_tokens ?? r.body.generationConfig?.maxOutputTokens, 1024);
      // No system message by default, temperature 0, one user message.
      if (provider === 'google') {
        assert.equal(r.body.systemInstruction, undefined);
        assert.equal(r.body.generationConfig.temperature, 0);
        assert.equal(r.body.contents.length, 1);
      } else {
        assert.equal(r.body.system, undefined);
        assert.equal(r.body.temperature, 0);
        assert.deepEqual(r.body.messages.map((m) => m.role), ['user']);
      }
    }
    for (const [tid, n] of Object.entries(stats.answered)) {
      // A reply without CORS headers reached the server but not the page: asked again, once.
      assert.equal(n, tid.endsWith('::withdraw') ? 2 : 1, `${tid} answered ${n} times`);
    }
    assert.equal(Object.keys(stats.answered).length, 10, provider);
    console.log(`${provider}: 10 tasks, ${reqs.length} requests, faults ${JSON.stringify(stats.faulted)}`);
    if (provider === 'google') {
      const help = await page.textContent('#run-cors-help');
      assert.match(help, /OLLAMA_ORIGINS/);
      assert.match(help, /--allowed-origins/);
      assert.match(help, /LM Studio/);
      assert.match(help, /llama\.cpp/);
    }
  }
  await page.waitForSelector('#run-no-failed');
  await saveScreenshot(page, 'run-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'run-390.png');
  await page.setViewportSize({ width: 1280, height: 800 });

  // 4. A refused key stops the run with what to fix.
  await srv.control({ reset: true, faults: {} });
  await configure(page, srv, { provider: 'openai', language: 'typescript', key: 'sk-wrong' });
  assert.equal(await runAndWait(page), 'failed');
  assert.match(await page.textContent('#run-stopped'), /API key was refused.*check the key/);
  assert.ok((await srv.get('/requests')).length <= 2, 'nothing more is sent after a 401');

  // 5. A server that sends no CORS headers: Test connection says so and how to allow it.
  await srv.control({ reset: true, cors: false });
  await page.reload();
  await page.waitForSelector('#run-card');
  await setField(page, '#run-key', KEY);
  await page.click('#run-test-connection');
  await page.waitForSelector('#run-connection-status[data-ok="false"]');
  assert.match(await page.textContent('#run-connection-status'), /no HTTP status/);
  assert.match(await page.textContent('#run-cors-help'), /OLLAMA_ORIGINS/);
  await srv.control({ cors: true });

  // The table equals `repoqa score` on the exported outputs (30 answers).
  await page.goto(fx.srv.url + '#results');
  await page.waitForSelector('#results[data-answered="30"]', { timeout: 60000 });
  // The last run (typescript, a refused key) left its 10 selected tasks
  // without an answer: by default each counts as a failure, as `repoqa run`
  // counts them, and the SCORES file names them; `repoqa verify` accepts
  // it against the 30 exported outputs.
  await page.waitForSelector('#unanswered-note[data-count="10"][data-scoring="failures"]');
  assert.equal(await page.getAttribute('#score-table tr[data-row="all"] td[data-n]', 'data-n'), '40');
  const { outputs: exportedOutputs } = await cliScoresOfExport(fx, DEMO, 'org_slash_test-model.jsonl');
  const withFailures = await fx.download(() => page.click('#export-scores'));
  const failuresJson = Object.values(JSON.parse(withFailures.bytes.toString('utf8')))[0];
  assert.equal(failuresJson.unanswered_count, 10);
  assert.equal(failuresJson.unanswered_scored_as, 'failures');
  assert.ok(failuresJson.unanswered_tasks.every((id) => id.startsWith('typescript::')));
  execFileSync(BIN, ['verify', '--scores', withFailures.path, '--model-output-path', exportedOutputs,
    '--dataset-path', DEMO], { stdio: 'pipe' });
  // Left out (--score-answered-only), the table is `repoqa score`'s on the
  // outputs as they are.
  await page.selectOption('#opt-unanswered', 'left out');
  await page.waitForSelector('#unanswered-note[data-scoring="left out"]');
  assert.equal(await page.getAttribute('#score-table tr[data-row="all"] td[data-n]', 'data-n'), '30');
  const { model: cli } = await cliScoresOfExport(fx, DEMO, 'org_slash_test-model.jsonl');
  const cells = await page.$$eval('#score-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.row,
    [...tr.querySelectorAll('td[data-threshold]')].map((td) => [td.dataset.threshold, Number(td.dataset.value)])]));
  assert.deepEqual(cells.map((c) => c[0]), Object.keys(cli.scores));
  for (const [row, vals] of cells) for (const [th, v] of vals) assert.equal(v, cli.scores[row][th]['pass@1'], `${row} @ ${th}`);
  // Named after the model that gave the answers (upstream's outputs file name).
  assert.equal(path.basename(exportedOutputs), 'org_slash_test-model.jsonl');
  const outputs = fs.readFileSync(exportedOutputs, 'utf8').trim().split('\n');
  assert.equal(outputs.length, 30);
  console.log(`table: ${cells.length} rows equal repoqa score on the 30 exported outputs`);

  // The key: in no export, not in IndexedDB, localStorage, the URL or the console.
  const files = [fs.readFileSync(exportedOutputs, 'utf8')];
  files.push((await fx.download(() => page.click('#export-scores'))).bytes.toString('utf8'));
  files.push((await fx.download(() => page.click('#export-csv'))).bytes.toString('utf8'));
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  const log = await fx.download(() => page.click('#run-download-log'));
  files.push(log.bytes.toString('utf8'));
  const records = log.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(records.length >= 30 && records.every((r) => r.model === MODEL && r.base_url.startsWith(srv.url)),
    `run log: ${records.length} records; unlike the run: ${JSON.stringify(records.filter((r) => r.model !== MODEL || !r.base_url.startsWith(srv.url)).slice(0, 2))}`);
  for (const f of files) assert.ok(!f.includes(KEY) && !f.includes('sk-wrong'), 'the key in an export');
  const idb = JSON.stringify(await idbDump(page));
  assert.ok(idb.includes('org/test-model'), 'the run records are in IndexedDB');
  assert.ok(!idb.includes(KEY) && !idb.includes('sk-wrong'), 'the key in IndexedDB');
  const ls = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  assert.ok(!ls.includes(KEY), 'the key in localStorage without "remember"');
  assert.ok(!page.url().includes(KEY));
  assert.ok(!consoleText.join('\n').includes(KEY), 'the key in the console');
  assert.deepEqual(fx.problems.filter((p) => !/Failed to load resource|CORS policy|ERR_EMPTY_RESPONSE|net::/.test(p)), [], 'console errors or panics');
});
