// Shared by the run*.test.js files: the project's test model server
// (tests/oracle/model_server.py on 127.0.0.1) and the Run page's form, run
// and storage as the tests drive and read them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT } from './browser.js';
import { open, buildDemo, DEMO } from './results-fixture.js';

export const KEY = 'sk-browser-test-SECRET-0123456789';
export const MODEL = 'org/test-model';

/** python3 tests/oracle/model_server.py on 127.0.0.1; its URL and handles. */
/** A browser with the demo's tasks built and a stand-in model server that
 *  answers the demo's tasks (`--key KEY`): what the Run page's tests start from. */
export async function demoAndModelServer() {
  const srv = await startModelServer(['--dataset', DEMO, '--key', KEY]);
  const fx = await open();
  await buildDemo(fx);
  return { fx, srv };
}

export async function startModelServer(args) {
  const child = spawn('python3', [path.join(ROOT, 'tests/oracle/model_server.py'), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: child.stdout });
  const line = await new Promise((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`model server exited ${code}`)));
  });
  const port = Number(line.replace('PORT ', ''));
  assert.ok(port > 0, `model server said ${line}`);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async get(p) { return (await fetch(url + p)).json(); },
    async control(body) {
      await fetch(url + '/control', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    },
    stop() { child.stdin.end(); child.kill(); },
  };
}

/** Every IndexedDB value of the app, as text. */
export function idbDump(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const r = indexedDB.open('repoqa-web');
    r.onerror = () => reject(r.error);
    r.onsuccess = () => {
      const out = {};
      const c = r.result.transaction('kv').objectStore('kv').openCursor();
      c.onerror = () => reject(c.error);
      c.onsuccess = () => {
        const cur = c.result;
        if (!cur) return resolve(out);
        const v = cur.value;
        out[cur.key] = typeof v === 'string' ? v : (v instanceof Uint8Array ? new TextDecoder().decode(v) : String(v));
        cur.continue();
      };
    };
  }));
}

export async function setField(page, sel, value) {
  await page.fill(sel, String(value));
  await page.dispatchEvent(sel, 'change');
}

export async function finished(page) {
  return Number(await page.getAttribute('#run-progress', 'data-finished'));
}

/** Click `button` and wait until the run it starts has ended; its end state. */
export async function runAndWait(page, button = '#run-start', timeout = 120000) {
  const before = await finished(page);
  await page.click(button);
  await page.waitForFunction((b) => Number(document.querySelector('#run-progress')?.dataset.finished) > b, before, { timeout });
  return page.getAttribute('#run-progress', 'data-state');
}

/** The form for one format and one language's tasks (10 in the demo). */
export async function configure(page, srv, { provider, language, key = KEY, concurrency = 2, selected = 10 }) {
  await page.selectOption('#run-preset', 'custom');
  await page.selectOption('#run-provider', provider);
  await setField(page, '#run-base-url', srv.url + (provider === 'google' ? '/v1beta' : '/v1'));
  await setField(page, '#run-model', MODEL);
  await setField(page, '#run-key', key);
  await setField(page, '#run-concurrency', concurrency);
  await setField(page, '#run-timeout', 10);
  await setField(page, '#run-max-retries', 4);
  await setField(page, '#run-retry-base', 100);
  await setField(page, '#run-filter', language + '::');
  await page.waitForSelector(`#run-selection[data-selected="${selected}"]`);
}

/** The task ids the server was asked for, in order. */
export const tasksOf = (reqs) => reqs.map((r) => r && r.task).filter(Boolean);
