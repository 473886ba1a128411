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
//     sets, Run asks first; a No sends nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { saveScreenshot } from './browser.js';
import { open, buildDemo, BIN, DEMO } from './results-fixture.js';
import { KEY, MODEL, startModelServer, setField, runAndWait, configure } from './run-fixture.js';

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

  const guessed = await oneSlotRun('go', false);
  assert.match(guessed.note, /timed out while others were waiting.*concurrency lowered to 2.*Set Concurrency to 2/);
  const { page } = fx;
  await page.locator('#run-concurrency-note').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'run-slots-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#run-concurrency-note').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'run-slots-390.png');
  await page.setViewportSize({ width: 1280, height: 900 });
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
    await page.locator('#run-plan-box').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'run-plan-1280.png');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#run-plan-box').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'run-plan-390.png');
    await page.setViewportSize({ width: 1280, height: 900 });
    await setField(page, '#run-confirm-above', '');
    console.log(`plan: ${mine.length} lines, equal to repoqa run --plan; Run asked before a run over the cost set`);
  } finally {
    srv.stop();
  }
});
