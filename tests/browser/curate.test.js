// Dataset curation in headless Chromium (#curate): a repository uploaded as
// a .zip, a folder or a .tar.gz, curated in the page, must give the dataset
// file the native `repoqa curate` writes for the same directory and options
// (parsed JSON, field for field, and byte for byte). Descriptions written in
// the page, the template, the multi-repo dataset and "Open in the app" are
// exercised; bad inputs must give a message that names the problem, never a
// console error, and a 1 GiB upload is refused by its size, unread.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { freshPage, gotoApp, saveScreenshot, DIST, ROOT } from './browser.js';
import { zipOf, tarOf, packed } from './archives.js';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const CORPUS = path.join(ROOT, '.tools', 'corpus');
const DEMO = path.join(ROOT, 'public', 'demo');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-curate-'));

/** A repository folder: `src`'s files plus two files curation ignores. */
function makeRepo(name, src) {
  const dir = path.join(TMP, name);
  fs.cpSync(src, dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'README.md'), '# not code\n');
  fs.writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff]));
  return dir;
}

function write(name, bytes) {
  const p = path.join(TMP, name);
  fs.writeFileSync(p, bytes);
  return p;
}

/** `repoqa curate` on a directory: the dataset file's bytes and the time. */
function cliCurate(source, args) {
  const out = path.join(TMP, `cli-${Math.random().toString(36).slice(2)}.json`);
  const t0 = performance.now();
  execFileSync(BIN, ['curate', '--source', source, ...args, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  return { bytes: fs.readFileSync(out), ms, path: out };
}

// ---- the page ----

let srv;
before(async () => { srv = await serveDir(DIST); });
after(() => {
  srv?.server.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

async function fresh(t) {
  const { page, problems } = await freshPage(t);
  await gotoApp(page, srv.url, '#curate');
  await page.waitForSelector('#curate');
  return { page, problems };
}

/** Do `action`, then wait for the page step it starts to end; returns the
 *  status line. Steps are counted by the page (`data-steps`). */
async function step(page, action) {
  const before = await page.$eval('#curate-status', (e) => Number(e.dataset.steps));
  await action();
  await page.waitForFunction((b) => Number(document.querySelector('#curate-status')?.dataset.steps) > b, before,
    { timeout: 300000 });
  return page.textContent('#curate-status');
}

const upload = (page, selector, file) => step(page, () => page.setInputFiles(selector, file));
const curate = (page) => step(page, () => page.click('#curate-run'));

async function download(page, selector) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync(await d.path()) };
}

async function errorText(page) {
  await page.waitForSelector('#curate-error', { timeout: 30000 });
  return page.textContent('#curate-error');
}

async function stats(page) {
  return page.$eval('#curate-stats', (e) => ({ ...e.dataset }));
}

function sameDataset(got, want, what) {
  assert.deepEqual(JSON.parse(got.toString('utf8')), JSON.parse(want.toString('utf8')), `${what}: parsed JSON differs`);
  assert.ok(got.equals(want), `${what}: same JSON, other bytes`);
}

test('rxjs as a .zip: curated by the engine worker = repoqa curate; descriptions written in the page; template', async (t) => {
  const { page, problems } = await fresh(t);
  // The largest repo of the corpus, packed with a top directory.
  const dir = makeRepo('rxjs-7.8.1', path.join(CORPUS, 'src', 'rxjs'));
  const zip = write('rxjs-7.8.1.zip', zipOf(packed(dir, 'rxjs-7.8.1')));
  const status = await upload(page, '#curate-archive', zip);
  assert.match(status, /zip archive rxjs-7\.8\.1\.zip .*root directory rxjs-7\.8\.1\//);
  // Defaults: the language with most files, the root, a name from the file.
  assert.equal(await page.$eval('#curate-language', (s) => s.value), 'typescript');
  assert.equal(await page.$eval('#curate-entry', (s) => s.value), '.');
  assert.equal(await page.$eval('#curate-repo', (s) => s.value), 'local/rxjs-7.8.1');
  const entries = await page.$$eval('#curate-entry option', (os) => os.map((o) => o.value));
  assert.ok(entries.includes('src/internal') && entries.includes('src/internal/operators'), entries.join(' '));

  // The corpus builder's options: its needles, so its descriptions apply.
  await page.selectOption('#curate-entry', 'src/internal');
  await page.fill('#curate-repo', 'ReactiveX/rxjs');
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask' });
  });
  await curate(page);
  const longest = await page.evaluate(() => Math.max(0, ...window.__longTasks));
  const s = await stats(page);
  const args = ['--language', 'typescript', '--repo', 'ReactiveX/rxjs', '--entry', 'src/internal'];
  const cli = cliCurate(dir, args);
  const zipMiB = fs.statSync(zip).size / 1048576;
  console.log(`rxjs (${s.files} files, ${s.functions} functions): zip ${zipMiB.toFixed(2)} MiB read+unpacked in ` +
    `${Number(s.readMs).toFixed(0)} ms; curated in Chromium in ${Number(s.ms).toFixed(0)} ms; ` +
    `native repoqa curate (whole process) ${cli.ms.toFixed(0)} ms; main-thread tasks while curating: ` +
    `${longest ? `longest ${longest.toFixed(0)} ms` : 'none over 50 ms'}`);
  assert.equal(s.sampled, '10');
  assert.equal(s.needles, '0', 'no descriptions yet: no needles');
  assert.equal(await page.$$eval('#curate-needles li.needle[data-missing="true"]', (l) => l.length), 10);
  assert.match(await page.textContent('#curate-warnings'), /has no description; left out/);
  // Nothing to open in the app yet, and the page says why.
  assert.ok(await page.isDisabled('#curate-open'));
  assert.match(await page.textContent('#curate-open-note'), /needs a needle with a description/);
  let got = await download(page, '#curate-download-dataset');
  assert.equal(got.name, 'ReactiveX-rxjs.json');
  sameDataset(got.bytes, cli.bytes, 'rxjs without descriptions');

  // Write three descriptions in the page and apply them.
  const names = await page.$$eval('#curate-needles li.needle', (l) => l.map((e) => e.dataset.name));
  const written = {};
  for (const i of [0, 4, 9]) {
    written[names[i]] = `Described in the page: needle ${i}.`;
    await page.fill(`#curate-needles li.needle:nth-child(${i + 1}) textarea`, written[names[i]]);
  }
  await step(page, () => page.click('#curate-apply'));
  assert.equal((await stats(page)).needles, '3');
  // Opening it would replace the app's dataset: the page says so first.
  assert.ok(!(await page.isDisabled('#curate-open')));
  assert.match(await page.textContent('#curate-open-note'), /replaces the dataset loaded now \(demo \(repoqa-demo\.json\)\) with this repository's 3 needles/);
  const descFile = write('rxjs-written.json', JSON.stringify(written));
  got = await download(page, '#curate-download-dataset');
  sameDataset(got.bytes, cliCurate(dir, [...args, '--descriptions', descFile]).bytes, 'rxjs with 3 page descriptions');
  const template = JSON.parse((await download(page, '#curate-download-template')).bytes.toString('utf8'));
  assert.deepEqual(Object.keys(template), names);
  assert.equal(template[names[4]], written[names[4]]);
  assert.equal(template[names[1]], '');

  // A descriptions file: the corpus builder's, all ten.
  const corpus = JSON.parse(fs.readFileSync(path.join(CORPUS, 'realistic.json'), 'utf8'));
  const rx = corpus.typescript.find((r) => r.repo === 'ReactiveX/rxjs');
  const all = Object.fromEntries(rx.needles.map((n) => [n.name, n.description]));
  const allFile = write('rxjs-descriptions.json', JSON.stringify(all));
  await upload(page, '#curate-descriptions', allFile);
  assert.match(await page.textContent('#curate-descriptions-name'), /10 descriptions from rxjs-descriptions\.json/);
  // The page's edits stay over the file's: clear them by writing the file's text.
  for (const i of [0, 4, 9]) await page.fill(`#curate-needles li.needle:nth-child(${i + 1}) textarea`, all[names[i]]);
  await curate(page);
  await page.waitForSelector('#curate-stats[data-needles="10"]');
  got = await download(page, '#curate-download-dataset');
  sameDataset(got.bytes, cliCurate(dir, [...args, '--descriptions', allFile]).bytes, 'rxjs with all descriptions');
  // And it is the corpus's repo (the builder's curation), needles included.
  assert.deepEqual(JSON.parse(got.bytes.toString('utf8')).typescript[0].needles, rx.needles);
  await page.evaluate(() => window.scrollTo(0, 0));
  await saveScreenshot(page, 'curate-rxjs.png');

  // Stop, pressed as soon as it shows: the previous result stays.
  await page.evaluate(() => {
    const b = document.querySelector('#curate-stop');
    const o = new MutationObserver(() => {
      if (b.style.display !== 'none') { o.disconnect(); b.click(); }
    });
    o.observe(b, { attributes: true, attributeFilter: ['style'] });
  });
  await curate(page);
  assert.match(await errorText(page), /Curation of ReactiveX\/rxjs stopped; nothing was changed/);
  assert.equal((await stats(page)).needles, '10');
  assert.equal(await page.isVisible('#curate-stop'), false);

  // Read time of a larger zip: every corpus repo, five times over.
  const many = [];
  for (let k = 0; k < 5; k++) {
    for (const name of fs.readdirSync(path.join(CORPUS, 'src')).sort()) {
      many.push(...packed(path.join(CORPUS, 'src', name), `corpus/${k}/${name}`));
    }
  }
  const raw = many.reduce((n, [, b]) => n + b.length, 0);
  const bigZip = write('corpus-x5.zip', zipOf(many));
  await page.evaluate(() => { window.__longTasks = []; });
  const read = await upload(page, '#curate-archive', bigZip);
  const ms = Number(/ in (\d+) ms\./.exec(read)?.[1]);
  const zipLongest = await page.evaluate(() => Math.max(0, ...window.__longTasks));
  console.log(`zip of ${(fs.statSync(bigZip).size / 1048576).toFixed(1)} MiB (${many.length} files, ` +
    `${(raw / 1048576).toFixed(1)} MiB unpacked) read and unpacked in Chromium in ${ms} ms; ` +
    `main-thread tasks: ${zipLongest ? `longest ${zipLongest.toFixed(0)} ms` : 'none over 50 ms'}`);
  assert.ok(ms > 0, read);
  assert.deepEqual(problems, []);
});

test('the sample from the demo, curated = repoqa curate on its files; a reload keeps the work, descriptions typed and all', async (t) => {
  const { page, problems } = await fresh(t);
  const status = await step(page, () => page.click('#curate-sample'));
  assert.match(status, /the sample dtolnay\/semver from the demo dataset: 8 source files, with its 10 needle descriptions/);
  assert.equal(await page.$eval('#curate-language', (s) => s.value), 'rust');
  assert.equal(await page.$eval('#curate-repo', (s) => s.value), 'dtolnay/semver');
  await curate(page);
  const s = await stats(page);
  // The same files and descriptions given to the CLI.
  const demo = JSON.parse(fs.readFileSync(path.join(DEMO, 'repoqa-demo.json'), 'utf8'));
  const semver = demo.rust.find((r) => r.repo === 'dtolnay/semver');
  const dir = path.join(TMP, 'semver');
  for (const [p, text] of Object.entries(semver.content)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), text);
  }
  const descriptions = write('semver-descriptions.json', JSON.stringify(Object.fromEntries(semver.needles.map((n) => [n.name, n.description]))));
  const args = ['--language', 'rust', '--repo', 'dtolnay/semver', '--descriptions', descriptions];
  let got = await download(page, '#curate-download-dataset');
  sameDataset(got.bytes, cliCurate(dir, args).bytes, 'the sample');
  console.log(`sample: ${s.files} files, ${s.functions} functions, ${s.sampled} sampled, ${s.needles} with a description`);

  // Work in the page: a description typed, the repo appended.
  const first = await page.$eval('#curate-needles li.needle', (li) => li.dataset.name);
  const typed = 'Typed in the page before a reload.';
  await page.fill('#curate-needles li.needle:nth-child(1) textarea', typed);
  await page.click('#curate-append');
  await page.waitForSelector('#curate-collection[data-repos="1"]');
  // What the person waits for before leaving: the page has stored it (the
  // options and texts record holds the typed text).
  await page.waitForFunction((want) => new Promise((r) => {
    const q = indexedDB.open('repoqa-web');
    q.onsuccess = () => {
      const db = q.result;
      const names = [...db.objectStoreNames];
      const tx = db.transaction(names, 'readonly');
      const g = tx.objectStore(names[0]).get('curate-state');
      g.onsuccess = () => { db.close(); r(typeof g.result === 'string' && g.result.includes(want)); };
      g.onerror = () => { db.close(); r(false); };
    };
    q.onerror = () => r(false);
  }), typed, { timeout: 30000 });
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForSelector('#curate-result #curate-stats', { timeout: 60000 });
  assert.match(await page.textContent('#curate-kept'), /^Kept from your last visit: the dataset being assembled \(\d+ needles\) and dtolnay-semver \(8 files\); curated again from them\.$/);
  assert.equal(await page.$eval('#curate-needles li.needle:nth-child(1) textarea', (e) => e.value), typed);
  assert.equal(await page.$eval('#curate-needles li.needle', (li) => li.dataset.name), first);
  assert.equal(await page.getAttribute('#curate-collection', 'data-repos'), '1');
  // The result is curated again from what was kept, the typed text among
  // the descriptions: the CLI's with the same descriptions.
  const withTyped = Object.fromEntries(semver.needles.map((n) => [n.name, n.description]));
  withTyped[first] = typed;
  const typedFile = write('semver-typed.json', JSON.stringify(withTyped));
  got = await download(page, '#curate-download-dataset');
  sameDataset(got.bytes, cliCurate(dir, [...args.slice(0, -1), typedFile]).bytes, 'the sample after a reload');
  await saveScreenshot(page, 'curate-sample.png');
  assert.deepEqual(problems, []);
});

test('a folder and a .tar.gz, appended into one dataset and opened in the app', async (t) => {
  const { page, problems } = await fresh(t);
  // A folder (webkitdirectory): the Go demo, whole root.
  const goDir = makeRepo('csvstat', path.join(DEMO, 'go'));
  const goDesc = path.join(DEMO, 'descriptions', 'go.json');
  const status = await upload(page, '#curate-folder', goDir);
  assert.match(status, /folder csvstat: \d+ files, \d+ of them source files/);
  assert.equal(await page.$eval('#curate-language', (s) => s.value), 'go');
  await page.fill('#curate-repo', 'repoqa-web/demo-csvstat');
  await upload(page, '#curate-descriptions', goDesc);
  await curate(page);
  assert.equal((await stats(page)).needles, '10');
  const goArgs = ['--language', 'go', '--repo', 'repoqa-web/demo-csvstat', '--descriptions', goDesc];
  const goCli = cliCurate(goDir, goArgs);
  sameDataset((await download(page, '#curate-download-dataset')).bytes, goCli.bytes, 'go folder');
  await page.click('#curate-append');
  await page.waitForSelector('#curate-collection[data-repos="1"]');

  // A .tar.gz: the Python demo, entry textkit, another language.
  const pyDir = makeRepo('textkit-0.1', path.join(DEMO, 'python'));
  const tgz = write('textkit-0.1.tar.gz', zlib.gzipSync(tarOf(packed(pyDir, 'textkit-0.1'))));
  assert.match(await upload(page, '#curate-archive', tgz), /tar\.gz archive textkit-0\.1\.tar\.gz/);
  assert.equal(await page.$eval('#curate-language', (s) => s.value), 'python');
  await page.selectOption('#curate-entry', 'textkit');
  await page.fill('#curate-repo', 'repoqa-web/demo-textkit');
  const pyDesc = path.join(DEMO, 'descriptions', 'python.json');
  await upload(page, '#curate-descriptions', pyDesc);
  await curate(page);
  const pyArgs = ['--language', 'python', '--repo', 'repoqa-web/demo-textkit', '--entry', 'textkit', '--descriptions', pyDesc];
  sameDataset((await download(page, '#curate-download-dataset')).bytes, cliCurate(pyDir, pyArgs).bytes, 'python .tar.gz');
  await page.click('#curate-append');
  await page.waitForSelector('#curate-collection[data-repos="2"][data-needles="20"]');

  // The assembled dataset = the CLI's --append of the same two.
  const both = cliCurate(pyDir, [...pyArgs, '--append', goCli.path]);
  const collected = await download(page, '#curate-download-collection');
  assert.equal(collected.name, 'curated-dataset.json');
  sameDataset(collected.bytes, both.bytes, 'two repos, two languages');

  // Open it in the app: it becomes the current dataset.
  await page.click('#curate-open-collection');
  await page.waitForFunction(() => document.querySelector('#dataset-origin')?.textContent === 'curated-dataset.json',
    null, { timeout: 60000 });
  assert.equal(await page.getAttribute('#dataset-summary', 'data-needles'), '20');
  assert.equal(await page.getAttribute('#dataset-summary', 'data-languages'), '2');
  // The curate page kept its state meanwhile.
  await page.goto(srv.url + '#curate');
  await page.waitForSelector('#curate-collection[data-repos="2"]');
  assert.deepEqual(problems, []);
});

/** The OpenAI-compatible stub (tests/oracle/openai_stub.py) with CORS on:
 *  it writes a four-point description from each function's code. No real
 *  model is reachable offline; the stub speaks the same protocol. */
async function startStub(args) {
  const { spawn } = await import('node:child_process');
  const py = path.join(ROOT, '.tools', 'oracle', 'bin', 'python');
  const child = spawn(py, [path.join(ROOT, 'tests', 'oracle', 'openai_stub.py'), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/PORT (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`stub exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/v1`, port, stop: () => child.stdin.end() };
}

test('missing descriptions written by a model API (CORS): = repoqa curate --llm-*; a failing needle is named and left out; Anthropic format too', async (t) => {
  const KEY = 'sk-browser-stub-42';
  const MODEL = 'stub-model';
  const stub = await startStub(['--key', KEY, '--model', MODEL, '--cors', '--fail', 'wrap=500']);
  t.after(() => stub.stop());
  const { page, problems } = await fresh(t);
  const pyDir = makeRepo('textkit-llm', path.join(DEMO, 'python'));
  await upload(page, '#curate-folder', pyDir);
  await page.selectOption('#curate-entry', 'textkit');
  await page.fill('#curate-repo', 'repoqa-web/demo-textkit');
  await curate(page);
  assert.equal((await stats(page)).needles, '0');
  assert.equal(await page.isDisabled('#curate-describe-model'), true, 'enabled without a model set');

  await page.click('#curate-model-api summary');
  await page.fill('#model-api-base-url', stub.url);
  await page.fill('#model-api-model', MODEL);
  await page.fill('#model-api-key', KEY);
  await page.waitForSelector('#curate-describe-model:not([disabled])');
  await page.click('#curate-describe-model');
  await page.waitForSelector('#curate-model-message', { timeout: 120000 });
  const message = await page.textContent('#curate-model-message');
  assert.match(message, /9 descriptions written by stub-model; 1 needles have none/);
  assert.match(message, /wrap: .*500/);
  await page.waitForFunction(() => document.querySelector('#curate-stats')?.dataset.needles === '9', null, { timeout: 60000 });
  await saveScreenshot(page, 'curate-model-api.png');

  const out = path.join(TMP, 'cli-llm.json');
  execFileSync(BIN, ['curate', '--source', pyDir, '--language', 'python', '--repo', 'repoqa-web/demo-textkit',
    '--entry', 'textkit', '--llm-base-url', stub.url, '--llm-model', MODEL, '--llm-api-key-env', 'STUB_KEY',
    '--out', out], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, STUB_KEY: KEY } });
  sameDataset((await download(page, '#curate-download-dataset')).bytes, fs.readFileSync(out), 'model descriptions');

  // A wrong key: the run stops at the first reply, with the API's message.
  await page.fill('#model-api-key', 'sk-wrong');
  await page.click('#curate-describe-model');
  await page.waitForFunction(() => /Incorrect API key/.test(document.querySelector('#curate-model-message')?.textContent ?? ''),
    null, { timeout: 60000 });
  // The key stays in this browser only: never in the dataset.
  const again = (await download(page, '#curate-download-dataset')).bytes.toString('utf8');
  assert.ok(!again.includes(KEY) && !again.includes('sk-wrong'));

  // The key policy of the Run page: in memory unless "remember" is ticked.
  const stored = () => page.evaluate(() => JSON.stringify({ ...localStorage }));
  assert.ok(!(await stored()).includes('sk-wrong') && !(await stored()).includes(KEY), 'the key was stored unasked');
  assert.match(await stored(), /stub-model/, 'the other settings are stored');
  const reopen = async () => {
    await page.reload();
    await page.waitForSelector('#curate');
    await upload(page, '#curate-folder', pyDir);
    await page.selectOption('#curate-entry', 'textkit');
    await curate(page);
    await page.click('#curate-model-api summary');
  };
  await reopen();
  assert.equal(await page.inputValue('#model-api-model'), MODEL);
  assert.equal(await page.inputValue('#model-api-key'), '', 'a key not remembered came back after a reload');
  await page.fill('#model-api-key', 'sk-wrong');
  await page.check('#model-api-remember-key');
  await page.waitForSelector('#model-api-remember-warning');
  assert.match(await stored(), /sk-wrong/);
  await page.locator('#model-api').screenshot({ path: path.join(ROOT, 'tests', 'artifacts', 'curate-remember-key-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#model-api').screenshot({ path: path.join(ROOT, 'tests', 'artifacts', 'curate-remember-key-390.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await reopen();
  assert.equal(await page.inputValue('#model-api-key'), 'sk-wrong', 'a remembered key was lost');
  assert.equal(await page.isChecked('#model-api-remember-key'), true);
  await page.uncheck('#model-api-remember-key');
  assert.ok(!(await stored()).includes('sk-wrong'), 'unticking did not forget the key');

  // The same endpoint in Anthropic's format (the key in x-api-key, the
  // system message apart), through CORS: a wrong key is refused at
  // /v1/messages; with the right one the requests get through to the
  // stub's answers (and its 500 for `wrap`).
  await page.selectOption('#model-api-provider', 'anthropic');
  await page.click('#curate-describe-model');
  await page.waitForFunction(() => /\/v1\/messages: HTTP 401, the API key was refused/.test(document.querySelector('#curate-model-message')?.textContent ?? ''),
    null, { timeout: 60000 });
  await page.fill('#model-api-key', KEY);
  await page.click('#curate-describe-model');
  await page.waitForFunction(() => /wrap: .*\/v1\/messages: HTTP 500/.test(document.querySelector('#curate-model-message')?.textContent ?? ''),
    null, { timeout: 60000 });
  const unexpected = problems.filter((p) => !/Failed to load resource/.test(p));
  assert.deepEqual(unexpected, []);
});

test('bad inputs: a clear message each, no console error; a 1 GiB file is refused unread', async (t) => {
  const { page, problems } = await fresh(t);
  const py = (n) => Array.from({ length: n }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join('\n');
  const cases = [
    ['empty.zip', zipOf([]), /empty\.zip: the archive has no entries/],
    ['docs.zip', zipOf([['docs/README.md', Buffer.from('# hi\n')], ['data.json', Buffer.from('{}')]]),
      /docs\.zip: none of its 2 entries is a source file of a supported language/],
    ['notes.zip', Buffer.from('just some text, not an archive\n'), /notes\.zip: not a \.zip, \.tar or \.tar\.gz archive/],
    ['cut.tar.gz', zlib.gzipSync(tarOf([['r/a.py', Buffer.from(py(40))], ['r/b.py', Buffer.from(py(40))]])).subarray(0, 60),
      /cut\.tar\.gz: the gzip data is truncated/],
  ];
  for (const [name, bytes, want] of cases) {
    await upload(page, '#curate-archive', write(name, bytes));
    assert.match(await errorText(page), want, name);
  }

  // Readable, but curation refuses: binary files only; too few needles.
  const curateFails = [
    ['binary.zip', [['bin/a.py', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0, 1])]],
      /all 1 python files are binary or not UTF-8; nothing to curate/],
    ['small.zip', [['small/m.py', Buffer.from(py(5))]],
      /only \d+ of 5 functions can be needles, 10 are needed|too small to spread needles/],
  ];
  for (const [name, files, want] of curateFails) {
    await upload(page, '#curate-archive', write(name, zipOf(files)));
    assert.equal(await page.$('#curate-error'), null, `${name}: read without an error`);
    await curate(page);
    assert.match(await errorText(page), want, name);
    assert.equal(await page.$('#curate-stats'), null, `${name}: no stale result shown`);
  }

  // A binary file among good ones: curated, with a warning naming it.
  const mixed = [['m/a.py', Buffer.from(py(200))], ['m/z.py', Buffer.from([0x66, 0xff, 0x0a])]];
  await upload(page, '#curate-archive', write('mixed.zip', zipOf(mixed)));
  await curate(page);
  assert.match(await page.textContent('#curate-warnings'), /z\.py: skipped, binary or not UTF-8 \(invalid byte at offset 1\)/);

  // 1 GiB (sparse): refused by its size, before any read.
  const big = path.join(os.tmpdir(), `repoqa-curate-1gib-${process.pid}.zip`);
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 1024 ** 3);
  try {
    const t0 = performance.now();
    await upload(page, '#curate-archive', big);
    const msg = await errorText(page);
    assert.match(msg, /1\.00 GiB: this page reads archives under 1\.00 GiB, and did not read it/);
    console.log(`1 GiB upload refused in ${(performance.now() - t0).toFixed(0)} ms`);
  } finally {
    fs.rmSync(big, { force: true });
  }
  // The last good result is still there and the page still works.
  assert.ok(await page.$('#curate-options'));
  await saveScreenshot(page, 'curate-errors.png');
  assert.deepEqual(problems, []);
});

test('zip and tar.gz bombs on the Curate page are refused in bounded memory, naming the file', async (t) => {
  const { page: first, problems } = await freshPage(t);
  // The wasm module's memory, from the loader's start event on.
  await first.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; });
  });
  await gotoApp(first, srv.url, '#curate');
  await first.waitForSelector('#curate');
  const page = first;
  const zeros = Buffer.alloc(256 << 20, 0x20); // 256 MiB of spaces: a few hundred KB compressed
  const bombs = [
    ['bomb.zip', zipOf([['pkg/bomb.py', zeros]])],
    ['bomb.tar.gz', zlib.gzipSync(tarOf([['pkg/bomb.py', zeros]]), { level: 9 })],
  ];
  for (const [name, bytes] of bombs) {
    const before = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
    await upload(page, '#curate-archive', write(name, bytes));
    const msg = await errorText(page);
    assert.match(msg, new RegExp(name.replace('.', '\\.')), msg);
    assert.match(msg, /inflates more than 100:1|over the limit|refused/, msg);
    const peak = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
    console.log(`${name} in the page: ${(bytes.length / 1e3).toFixed(0)} KB file (256 MiB inflated), wasm memory ${(before / 1048576).toFixed(0)} MiB before, ${(peak / 1048576).toFixed(0)} MiB after: ${msg.trim()}`);
    assert.ok(peak < 400 * 1048576, `wasm memory grew to ${peak}`);
  }
  // The page still works: a good archive reads after the bombs.
  const py = Array.from({ length: 60 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join('\n');
  await upload(page, '#curate-archive', write('after-bombs.zip', zipOf([['ok/a.py', Buffer.from(py)]])));
  await page.waitForSelector('#curate-options', { timeout: 30000 });
  assert.equal(await page.$('#curate-error'), null);
  assert.deepEqual(problems, []);
});
