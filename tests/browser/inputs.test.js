// The other ways in and out of the page, in headless Chromium: a tokenizer
// from a file and from another site's URL (CORS), a dataset dropped on the
// drop zone, and the prompt copied to the clipboard. Where the page builds
// prompts, they are compared byte for byte with `repoqa prompts` run on the
// same dataset and tokenizer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { freshPage, gotoApp as gotoAppAt, saveScreenshot, DIST, ROOT } from './browser.js';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const DEMO = path.join(ROOT, 'public', 'demo', 'repoqa-demo.json');
const TOKENIZER = path.join(ROOT, '.tools', 'tokenizer.json');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-inputs-'));

// A tokenizer that really differs: the built-in one without its BPE merges
// (every piece a character), so contexts hold fewer characters' worth of
// code and every prompt changes.
const CHARS = path.join(TMP, 'chars-tokenizer.json');

let app, other;
before(async () => {
  const tok = JSON.parse(fs.readFileSync(TOKENIZER, 'utf8'));
  tok.model.merges = [];
  fs.writeFileSync(CHARS, JSON.stringify(tok));
  app = await serveDir(DIST);
  other = await serveDir(TMP, { cors: true });
});
after(() => {
  app?.server.close();
  other?.server.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

const gotoApp = (page, hash) => gotoAppAt(page, app.url, hash);

function cliPrompts(dataset, tokenizer) {
  const out = path.join(TMP, `cli-${path.basename(tokenizer)}.jsonl`);
  execFileSync(BIN, ['prompts', '--dataset-path', dataset, '--tokenizer', tokenizer, '--out', out], { stdio: 'pipe' });
  return fs.readFileSync(out);
}

/** Build the tasks in the page and download them as JSONL. */
async function buildAndDownload(page, count) {
  await page.goto(app.url + '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
  await page.click('#build-tasks');
  await page.waitForSelector(`#build-stats[data-tasks="${count}"]`, { timeout: 120000 });
  await page.waitForSelector('#download-tasks:not([disabled])');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-tasks')]);
  return fs.readFileSync(await dl.path());
}

test('tokenizer from a file, then from another site by URL: prompts = CLI with that tokenizer; kept on reload', async (t) => {
  const { page, problems } = await freshPage(t);
  const builtin = cliPrompts(DEMO, TOKENIZER);
  const chars = cliPrompts(DEMO, CHARS);
  assert.ok(!builtin.equals(chars), 'the test tokenizer must change the prompts');

  await gotoApp(page, '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  // A file.
  await page.setInputFiles('#tokenizer-file', CHARS);
  await page.waitForFunction(() => /tokens in the vocabulary/.test(document.querySelector('#tokenizer-message')?.textContent ?? ''),
    null, { timeout: 60000 });
  assert.equal(await page.textContent('#tokenizer-source'), 'file:chars-tokenizer.json');
  assert.match(await page.textContent('#tokenizer-message'), /chars-tokenizer\.json: \d+ tokens in the vocabulary/);
  const fromFile = await buildAndDownload(page, 60);
  assert.ok(fromFile.equals(chars), 'prompts with the uploaded tokenizer differ from `repoqa prompts --tokenizer`');

  // Reload: the uploaded tokenizer is still the one in use, and the
  // tasks built with it come from the cache.
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]');
  await page.goto(app.url + '#tasks');
  await page.waitForSelector('#build-stats[data-from-cache="true"]', { timeout: 60000 });
  await page.goto(app.url + '#dataset');
  await page.waitForSelector('#tokenizer-source');
  assert.equal(await page.textContent('#tokenizer-source'), 'file:chars-tokenizer.json');

  // A URL on another origin (the server sends Access-Control-Allow-Origin).
  const url = other.url + 'chars-tokenizer.json';
  await page.fill('#tokenizer-url', url);
  await page.click('#load-tokenizer-url');
  await page.waitForFunction((u) => document.querySelector('#tokenizer-source')?.textContent === u, url,
    { timeout: 60000 });
  const fromUrl = await buildAndDownload(page, 60);
  assert.ok(fromUrl.equals(chars), 'prompts with the URL tokenizer differ from the CLI');

  // A URL whose server does not allow other origins: a CORS message.
  await page.goto(app.url + '#dataset');
  const noCors = await serveDir(TMP);
  t.after(() => noCors.server.close());
  await page.fill('#tokenizer-url', noCors.url + 'chars-tokenizer.json');
  await page.click('#load-tokenizer-url');
  await page.waitForFunction(() => document.querySelector('#tokenizer-message.fail'), null, { timeout: 60000 });
  assert.match(await page.textContent('#tokenizer-message'), /CORS/);
  // A file that is not a tokenizer.
  const bad = path.join(TMP, 'not-a-tokenizer.json');
  fs.writeFileSync(bad, '{"model": 3}');
  await page.setInputFiles('#tokenizer-file', bad);
  await page.waitForFunction(() => document.querySelector('#tokenizer-message.fail')?.textContent.includes('not-a-tokenizer'),
    null, { timeout: 60000 });
  assert.match(await page.textContent('#tokenizer-message'), /not-a-tokenizer\.json: not a valid HF tokenizer\.json/);
  // The tokenizer in use is still the URL one.
  assert.equal(await page.textContent('#tokenizer-source'), url);
  await saveScreenshot(page, 'inputs-tokenizer.png');

  // Back to the built-in one: the official prompts again.
  await page.click('#tokenizer-builtin');
  await page.waitForFunction(() => document.querySelector('#tokenizer-source')?.textContent === 'builtin', null,
    { timeout: 30000 });
  const again = await buildAndDownload(page, 60);
  assert.ok(again.equals(builtin), 'prompts with the built-in tokenizer differ from the CLI');
  const unexpected = problems.filter((p) => !/Failed to load resource|CORS|Access-Control/.test(p));
  assert.deepEqual(unexpected, []);
});

test('a dataset dropped on the drop zone (gzip) loads, builds prompts = CLI, and is kept on reload', async (t) => {
  const { page, problems } = await freshPage(t);
  // The demo without its python repos, so it is told apart from the demo.
  const ds = JSON.parse(fs.readFileSync(DEMO, 'utf8'));
  delete ds.python;
  const plain = path.join(TMP, 'dropped.json');
  fs.writeFileSync(plain, JSON.stringify(ds));
  const needles = Object.values(ds).flat().reduce((n, r) => n + r.needles.length, 0);
  const gz = zlib.gzipSync(fs.readFileSync(plain));
  await gotoApp(page, '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  const dt = await page.evaluateHandle((b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], 'dropped.json.gz', { type: 'application/gzip' }));
    return transfer;
  }, gz.toString('base64'));
  await page.dispatchEvent('#drop-zone', 'dragover', { dataTransfer: dt });
  assert.match(await page.getAttribute('#drop-zone', 'class'), /dragging/);
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => document.querySelector('#dataset-origin')?.textContent === 'dropped.json.gz', null,
    { timeout: 60000 });
  assert.equal(await page.getAttribute('#dataset-summary', 'data-needles'), String(needles));
  await saveScreenshot(page, 'inputs-dropped.png');
  const jsonl = await buildAndDownload(page, needles);
  assert.ok(jsonl.equals(cliPrompts(plain, TOKENIZER)), 'prompts of the dropped dataset differ from the CLI');

  // Reload: the dropped file was kept in IndexedDB, not the demo.
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]');
  await page.goto(app.url + '#dataset');
  await page.waitForFunction(() => document.querySelector('#dataset-origin')?.textContent === 'dropped.json.gz', null,
    { timeout: 60000 });

  // Dropping something that is not a file.
  const empty = await page.evaluateHandle(() => new DataTransfer());
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: empty });
  await page.waitForFunction(() => document.querySelector('#dataset-error')?.textContent.includes('drop a .json'));
  assert.deepEqual(problems, []);
});

test('copy prompt puts exactly the prompt on the clipboard', async (t) => {
  const { context, page, problems } = await freshPage(t);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url.replace(/\/$/, '') });
  const tasks = cliPrompts(DEMO, TOKENIZER).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  await gotoApp(page, '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  const task = tasks[7];
  const id = `${task.language}::${task.repo}::${task.name}`;
  await page.goto(app.url + '#task/' + encodeURIComponent(id));
  await page.waitForSelector(`#task-view[data-task-id="${id}"]`);
  await page.click('#copy-prompt');
  await page.waitForSelector('#copy-status');
  assert.equal(await page.getAttribute('#copy-status', 'class'), 'pass', await page.textContent('#copy-status'));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, task.instruction + task.code_context + task.description + task.instruction);
  assert.deepEqual(problems, []);
});
