// The Run page against a server that answers one request at a time
// (llama.cpp with one slot, Ollama's default), asked at concurrency 4 with
// a timeout shorter than four answers take (issue 27, defect 1):
//   - a server that says how many slots it has (llama.cpp's /props
//     total_slots) is asked that many requests at a time: every task once,
//     none abandoned, and the page says why;
//   - a server that does not say: the first request that times out while
//     others wait halves the concurrency, the page says so and how to start
//     there, and every task ends answered;
//   - the pre-flight plan (tokens, what does not fit the server's window,
//     cost, time) equals `repoqa run --plan`'s, and above the cost the user
//     sets, Run asks first; a No sends nothing;
//   - batch files: the page's export equals `repoqa batch export`'s, and
//     importing the provider's results stores the answers `repoqa batch
//     import` writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { saveBothWidths } from './browser.js';
import { open, buildDemo, BIN, DEMO } from './results-fixture.js';
import { KEY, MODEL, startModelServer, idbDump, setField, runAndWait, configure } from './run-fixture.js';

let fx;
before(async () => {
  fx = await open();
  await buildDemo(fx);
});
after(async () => { await fx?.close(); });

async function oneSlotRun(language, props) {
  const { page } = fx;
  const args = ['--dataset', DEMO, '--key', KEY, '--slots', '1', '--latency-s', '0.6'];
  const srv = await startModelServer(props ? [...args, '--props'] : args);
  try {
    await page.goto(fx.srv.url + '#run');
    await page.waitForSelector('#run-card');
    await configure(page, srv, { provider: 'openai', language, concurrency: 4 });
    await setField(page, '#run-timeout', 2);
    await setField(page, '#run-retry-base', 50);
    assert.equal(await runAndWait(page), 'done');
    await page.waitForSelector('#run-selection[data-answered="10"]');
    const note = await page.textContent('#run-concurrency-note');
    return { note, stats: await srv.get('/stats') };
  } finally {
    srv.stop();
  }
}

test('a one-slot server: its /props lowers the concurrency; without it the first queueing timeout does', async () => {
  const told = await oneSlotRun('python', true);
  assert.match(told.note, /answers 1 request\(s\) at a time \(its \/props total_slots\): concurrency lowered from 4 to 1/);
  assert.equal(told.stats.max_busy, 1);
  assert.equal(told.stats.requests, 10, 'every task asked once, none abandoned');

  // The first queueing timeout halves 4 to 2. The server keeps working
  // through the requests given up on, so on a busy machine a request sent
  // at 2 can wait past the timeout as well and halve it again, to 1 (as
  // a user's run would); the note then names the concurrency reached.
  const guessed = await oneSlotRun('go', false);
  assert.match(guessed.note, /timed out while others were waiting.*concurrency lowered to ([12])\. Set Concurrency to \1 to start there/);
  const { page } = fx;
  await saveBothWidths(page, '#run-concurrency-note', 'run-slots');
  console.log(`one slot: with /props 10 requests for 10 tasks; without, ${guessed.stats.requests} requests, the concurrency halved after the first queueing timeout`);
});

test('before the first reply the time left is not a guess, and the elapsed time moves while waiting', async () => {
  const { page } = fx;
  const srv = await startModelServer(['--dataset', DEMO, '--key', KEY, '--latency-s', '4']);
  try {
    await page.goto(fx.srv.url + '#run');
    await page.waitForSelector('#run-card');
    await configure(page, srv, { provider: 'openai', language: 'java', concurrency: 1 });
    await setField(page, '#run-timeout', 30);
    await page.click('#run-start');
    const eta = (re) => page.waitForFunction((s) => new RegExp(s).test(document.querySelector('#run-eta')?.textContent || ''),
      re.source, { timeout: 10000 });
    await eta(/^1 s elapsed, time left known after the first reply$/);
    await eta(/^2 s elapsed, time left known after the first reply$/);
    await eta(/elapsed, about .* left$/);
    await page.click('#run-cancel');
    await page.waitForFunction(() => document.querySelector('#run-progress')?.dataset.state !== 'running', null, { timeout: 30000 });
  } finally {
    srv.stop();
  }
});

test('the page\'s plan equals repoqa run --plan; above the cost set, Run asks first and a No sends nothing', async () => {
  const { page } = fx;
  const srv = await startModelServer(['--dataset', DEMO, '--key', KEY, '--slots', '1', '--props', '--n-ctx', '3000']);
  try {
    await page.goto(fx.srv.url + '#run');
    await page.waitForSelector('#run-card');
    await configure(page, srv, { provider: 'openai', language: 'cpp', concurrency: 4 });
    await setField(page, '#run-price-in', 1);
    await setField(page, '#run-price-out', 2);
    await setField(page, '#run-rate-limit', 30);
    await page.click('#run-plan');
    await page.waitForSelector('#run-plan-lines li');
    const mine = await page.$$eval('#run-plan-lines li', (lis) => lis.map((li) => li.textContent.trim()));
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-plan-'));
    const cli = execFileSync(BIN, ['run', '--model', MODEL, '--backend', 'openai', '--base-url', srv.url + '/v1',
      '--dataset-path', DEMO, '--result-dir', work, '--filter', 'cpp::', '--concurrency', '4',
      '--plan', '--price-in', '1', '--price-out', '2', '--rate-limit', '30'],
    { env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    // Every line equal; the time too, but for what each has seen: the page
    // has this session's run log (the runs above), the CLI a fresh folder.
    const theirs = cli.trim().split('\n').map((l) => l.trim());
    assert.deepEqual(mine.slice(0, -1), theirs.slice(0, -1), 'the page plans as the CLI does');
    assert.equal(theirs.at(-1), 'time: about 20 s (a limit of 30 requests per minute)');
    const fromLog = /^time: about .* per request \(mean of the run log's \d+ answer\(s\) from this model\) at concurrency 1, a limit of 30 requests per minute\)$/;
    assert.ok(mine.at(-1) === theirs.at(-1) || fromLog.test(mine.at(-1)), mine.at(-1));
    assert.match(mine.join('\n'), /do not fit/);
    fs.rmSync(work, { recursive: true, force: true });

    // A limit under the plan's cost: Run asks; No sends nothing.
    await setField(page, '#run-confirm-above', 0.001);
    let asked = '';
    page.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
    assert.equal(await runAndWait(page), 'done');
    assert.match(asked, /This run may cost up to \$0\.\d\d \(above the \$0\.00 you set/);
    assert.match(await page.textContent('#run-message'), /Not started: the plan's cost/);
    assert.equal((await srv.get('/stats')).requests, 0, 'a request was sent after No');
    await saveBothWidths(page, '#run-plan-box', 'run-plan');
    await setField(page, '#run-confirm-above', '');
    console.log(`plan: ${mine.length} lines, equal to repoqa run --plan; Run asked before a run over the cost set`);
  } finally {
    srv.stop();
  }
});

test('batch files: the page exports what repoqa batch export writes, and imports results into the answers repoqa batch import writes', async () => {
  const { page } = fx;
  const srv = await startModelServer(['--dataset', DEMO, '--key', KEY, '--fault', 'parseClock=ctx']);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-batch-'));
  try {
    await page.goto(fx.srv.url + '#run');
    await page.waitForSelector('#run-card');
    await configure(page, srv, { provider: 'openai', language: 'typescript' });
    const exported = await fx.download(() => page.click('#batch-export'));
    assert.equal(exported.name, 'org_slash_test-model-batch-openai.jsonl');
    const flags = ['--model', MODEL, '--backend', 'openai', '--base-url', srv.url + '/v1',
      '--dataset-path', DEMO, '--result-dir', path.join(work, 'cli'), '--filter', 'typescript::'];
    const cliFile = path.join(work, 'requests.jsonl');
    execFileSync(BIN, ['batch', 'export', '--out', cliFile, ...flags], { stdio: 'pipe' });
    assert.ok(exported.bytes.equals(fs.readFileSync(cliFile)), 'the page\'s batch file differs from the CLI\'s');
    assert.equal((await srv.get('/stats')).requests, 0, 'an export sent a request');

    // The server answers the batch as the provider would; both import it.
    const answered = await (await fetch(srv.url + '/batch?format=openai', { method: 'POST', body: fs.readFileSync(cliFile) })).json();
    const results = path.join(work, 'output.jsonl');
    const errors = path.join(work, 'errors.jsonl');
    fs.writeFileSync(results, answered.results);
    fs.writeFileSync(errors, answered.errors);
    await page.setInputFiles('#batch-import', [results, errors]);
    await page.waitForFunction(() => /Imported 10 result\(s\): 9 answered, 1 failed/.test(document.querySelector('#run-message')?.textContent || ''), null, { timeout: 30000 });
    let err = '';
    try {
      execFileSync(BIN, ['batch', 'import', '--results', results, '--errors', errors, ...flags], { stdio: 'pipe' });
    } catch (e) { err = e.stderr.toString(); assert.equal(e.status, 3, err); }
    assert.match(err, /parseClock \(the prompt is longer than the model's context/);
    const cliOutputs = fs.readFileSync(path.join(work, 'cli', 'ntoken_16384', 'org_slash_test-model.jsonl'), 'utf8')
      .trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(cliOutputs.length, 9);
    const stored = JSON.parse((await idbDump(page)).answers);
    for (const o of cliOutputs) {
      const id = `${o.language}::${o.repo}::${o.name}`;
      assert.equal(stored[id], o.output[0], `${id}: the page stored another answer than the CLI wrote`);
    }
    const log = (await idbDump(page))['run-log'].trim().split('\n').map((l) => JSON.parse(l));
    const failed = log.filter((r) => r.task_id.endsWith('::parseClock'));
    assert.equal(failed.at(-1).status, 'failed');
    await saveBothWidths(page, '#batch-card', 'run-batch');
    console.log('batch: the page\'s file equals repoqa batch export\'s; 9 answers imported equal to repoqa batch import\'s, 1 failed alike');
  } finally {
    srv.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
