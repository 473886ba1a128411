// Hosting (issue 25): the built dist/ works under any path, a first visit
// fetches only what it shows (the tokenizer waits for a build), the page
// paints a loading screen from the HTML alone and says why when the app
// cannot start, and a release build carries gzip and brotli copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { freshPage, saveScreenshot, DIST } from './browser.js';

/** Every request of `page`, and every response that failed. */
function watchRequests(page) {
  const log = { urls: [], failed: [] };
  page.on('request', (r) => log.urls.push(r.url()));
  page.on('response', (r) => { if (r.status() >= 400) log.failed.push(`${r.status()} ${r.url()}`); });
  page.on('requestfailed', (r) => log.failed.push(`${r.failure()?.errorText} ${r.url()}`));
  return log;
}

const tokenizerRequests = (urls) => urls.filter((u) => u.endsWith('/assets/tokenizer.json'));

test('served under a sub-path: the app loads, builds the demo and restores it, every request under that path', async (t) => {
  const srv = await serveDir(DIST, { prefix: '/sub/repoqa/' });
  t.after(() => srv.server.close());
  const { page, problems } = await freshPage(t);
  const log = watchRequests(page);

  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#build-card strong')?.textContent === 'demo (repoqa-demo.json)',
    null, { timeout: 60000 });
  assert.deepEqual(tokenizerRequests(log.urls), [], 'the tokenizer was fetched before any build');

  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"][data-from-cache="false"]', { timeout: 120000 });
  assert.equal(tokenizerRequests(log.urls).length, 1, 'a build fetches the tokenizer once');
  await saveScreenshot(page, 'hosting-subpath-tasks.png');

  // A reload restores the 60 tasks from IndexedDB without the tokenizer.
  const before = log.urls.length;
  await page.reload();
  await page.waitForSelector('#build-stats[data-tasks="60"][data-from-cache="true"]', { timeout: 60000 });
  assert.deepEqual(tokenizerRequests(log.urls.slice(before)), [], 'restoring saved tasks fetched the tokenizer');

  const outside = log.urls.filter((u) => u.startsWith('http') && !u.startsWith(srv.url));
  assert.deepEqual(outside, [], 'requests outside the sub-path');
  assert.deepEqual(log.failed, [], 'failed requests');
  assert.deepEqual(problems, [], 'console errors in the page');
});

test('the loading screen is painted from the HTML and leaves when the app mounts', async (t) => {
  const srv = await serveDir(DIST);
  t.after(() => srv.server.close());
  const html = await (await fetch(srv.url)).text();
  assert.match(html, /id="boot-screen"/);
  assert.match(html, /Loading the app/);
  assert.doesNotMatch(html, /about 3 MB/, 'a size the host may not send');
  // Relative asset paths: nothing in the HTML points at the site root.
  assert.doesNotMatch(html, /(href|src|data-repoqa-js|data-repoqa-wasm)="\//, 'an asset path from the site root');

  const { page, problems } = await freshPage(t);
  const log = watchRequests(page);
  // Hold the wasm back: the HTML's own loading screen is what shows.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(srv.url);
  await page.waitForSelector('#boot-screen #boot-message');
  const shown = await page.evaluate(() => {
    const card = document.querySelector('#boot-screen .card');
    const box = card.getBoundingClientRect();
    return { text: card.textContent, visible: box.width > 0 && box.height > 0, bg: getComputedStyle(card).backgroundColor };
  });
  assert.match(shown.text, /Loading the app/);
  assert.ok(shown.visible);
  assert.equal(shown.bg, 'rgb(255, 255, 255)', 'the loading card is not styled by the stylesheet');
  await saveScreenshot(page, 'hosting-loading.png');
  release();
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await page.$('#boot-screen'), null, 'the loading screen stayed after mount');
  // It said what was coming, from the real size, how far it got, and what the host sent
  // (this test's host does not compress).
  const wasmFile = fs.readdirSync(DIST).find((f) => /^repoqa-web-.*_bg\.wasm$/.test(f));
  const size = `${(fs.statSync(path.join(DIST, wasmFile)).size / 1e6).toFixed(1)} MB`;
  const said = await page.evaluate(() => window.repoqaBootLog);
  assert.equal(said[0], `Loading the app: 0.0 MB of ${size}`, said.join(' | '));
  assert.ok(said.some((l) => l === `Loading the app: ${size} of ${size}`), said.join(' | '));
  assert.match(said.at(-1), new RegExp(`^Loaded: ${size.replace('.', '\\.')} sent uncompressed`), said.join(' | '));
  assert.equal(await page.$$eval('header.top', (h) => h.length), 1);
  // Home, Results and the Leaderboard need no tokenizer.
  for (const hash of ['#results', '#leaderboard']) {
    await page.goto(srv.url + hash);
    await page.waitForSelector('#app-main[data-mounted="true"]');
  }
  await page.waitForTimeout(500);
  assert.deepEqual(tokenizerRequests(log.urls), [], 'a visit without a build fetched the tokenizer');
  assert.deepEqual(problems, []);
});

test('on a compressing host the loading screen counts what travels, not what it unpacks to', async (t) => {
  const srv = await serveDir(DIST, { compress: true });
  t.after(() => srv.server.close());
  const { page, problems } = await freshPage(t);
  await page.goto(srv.url);
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  const wasm = srv.served.find((s) => /repoqa-web-[0-9a-f]+_bg\.wasm$/.test(s.path) && s.status === 200);
  assert.ok(wasm && wasm.encoding, `the wasm was sent packed: ${JSON.stringify(wasm)}`);
  const wire = `${(wasm.bytes / 1e6).toFixed(1)} MB`;
  const unpacked = `${(fs.statSync(wasm.file).size / 1e6).toFixed(1)} MB`;
  const said = await page.evaluate(() => window.repoqaBootLog);
  assert.equal(said[0], `Loading the app: 0.0 MB of ${wire} (compressed)`, said.join(' | '));
  assert.ok(said.some((l) => l === `Loading the app: ${wire} of ${wire} (compressed)`), said.join(' | '));
  assert.ok(!said.some((l) => l.includes(`of ${unpacked}`)), `a line counted the unpacked ${unpacked}: ${said.join(' | ')}`);
  assert.match(said.at(-1), new RegExp(`^Loaded: ${wire.replace('.', '\\.')} sent compressed \\(${unpacked.replace('.', '\\.')} of code\\)`), said.join(' | '));
  console.log(`hosting: a ${wasm.encoding} host: the loading line counted ${wire} sent (the code unpacks to ${unpacked})`);
  assert.deepEqual(problems, []);
});

test('when the wasm cannot be fetched, the loading screen says the app could not start', async (t) => {
  const srv = await serveDir(DIST);
  t.after(() => srv.server.close());
  const { page } = await freshPage(t);
  await page.route('**/*.wasm', (route) => route.abort());
  await page.goto(srv.url);
  await page.waitForSelector('#boot-message.fail', { timeout: 30000 });
  const text = await page.textContent('#boot-message');
  assert.match(text, /^The app could not start: compiling \.\/repoqa-web-[0-9a-f]+_bg\.wasm/);
  assert.match(text, /Reload the page/);
  await saveScreenshot(page, 'hosting-boot-failed.png');
});

test('a release dist/ has gzip and brotli copies that decompress to each file', () => {
  const files = fs.readdirSync(DIST, { recursive: true }).map((f) => path.join(DIST, f));
  // The app's own two (the in-tab model's engine, wllama/, comes from npm built).
  const wasm = files.filter((f) => f.endsWith('.wasm') && !path.relative(DIST, f).startsWith('wllama')).map((f) => path.basename(f));
  assert.equal(wasm.length, 2, `the page's wasm and the engine's: ${wasm.join(', ')}`);
  assert.ok(files.some((f) => path.relative(DIST, f) === path.join('wllama', 'wllama.wasm')), 'the in-tab model\'s engine is in the build');
  const compressible = files.filter((f) => /\.(html|js|wasm|css|json|jsonl)$/.test(f) && fs.statSync(f).size >= 1024);
  assert.ok(compressible.length >= 5, `only ${compressible.length} compressible files`);
  for (const f of compressible) {
    const original = fs.readFileSync(f);
    assert.ok(fs.existsSync(`${f}.gz`) && fs.existsSync(`${f}.br`), `no precompressed copies of ${path.relative(DIST, f)}`);
    assert.ok(zlib.gunzipSync(fs.readFileSync(`${f}.gz`)).equals(original), `${f}.gz`);
    assert.ok(zlib.brotliDecompressSync(fs.readFileSync(`${f}.br`)).equals(original), `${f}.br`);
  }
});
