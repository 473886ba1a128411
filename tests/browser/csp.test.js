// The page's own defences: the Content-Security-Policy of index.html is in
// force (an injected inline script and eval are blocked and reported, plain
// http to another host is refused) while the app works under it (it mounts,
// the self-check fetches the tokenizer and runs the grammars, with no
// violation reported); a gzip bomb dropped on the Dataset page is refused
// with a message naming the file, the wasm memory staying small; and
// hostile repo names, file names and dataset text stay text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { freshPage, gotoApp, saveScreenshot, DIST, ROOT } from './browser.js';

let srv;
before(async () => { srv = await serveDir(DIST); });
after(() => srv?.server.close());

/** Record CSP violations and the wasm exports from the first script on. */
async function watch(page) {
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`);
    });
    addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; });
  });
}

test('the built page has a CSP and no inline script', () => {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/);
  assert.ok(meta, 'no CSP meta in dist/index.html');
  const policy = meta[1];
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(policy, /'unsafe-inline'|'unsafe-eval'/);
  // Every script is a file of this origin.
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length >= 1);
  for (const [, attrs, body] of scripts) {
    assert.match(attrs, /\bsrc="/, `inline script in dist/index.html: ${attrs}`);
    assert.equal(body.trim(), '');
  }
  // The policy comes before anything it governs.
  assert.ok(html.indexOf('Content-Security-Policy') < html.search(/<script|<link rel="modulepreload"/));
});

test('the policy is in force and the app works under it', async (t) => {
  const { page, problems } = await freshPage(t);
  await watch(page);
  await gotoApp(page, srv.url, '#about');
  // The self-check fetches the tokenizer and parses in each language.
  await page.waitForSelector('#selfcheck:not([data-status="loading"])', { timeout: 60000 });
  assert.equal(await page.getAttribute('#selfcheck', 'data-status'), 'ok');
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'the app itself broke the policy');

  // An injected inline script is blocked and reported.
  const ran = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inline = 1';
    document.body.appendChild(s);
    const img = document.createElement('img');
    img.setAttribute('onerror', 'window.__inline = 2');
    img.src = 'data:,x';
    document.body.appendChild(img);
    await new Promise((r) => setTimeout(r, 200));
    return window.__inline;
  });
  assert.equal(ran, undefined, 'an injected inline script ran');
  // Code from strings is not allowed either ('wasm-unsafe-eval' is for
  // WebAssembly only). page.evaluate runs as DevTools code, which Chromium
  // exempts from the eval check, so the probe is a string timer the page
  // itself would run.
  const evalResult = await page.evaluate(async () => {
    window.__fromString = 0;
    setTimeout('window.__fromString = 1', 0);
    await new Promise((r) => setTimeout(r, 200));
    return window.__fromString;
  });
  assert.equal(evalResult, 0, 'a string timer ran');
  // Plain http to another host than this machine's is refused before any
  // request leaves (127.0.0.2 is loopback too, so nothing leaves anyway).
  const fetched = await page.evaluate(async () => {
    try { await fetch('http://127.0.0.2:9/v1/chat/completions'); return 'sent'; } catch (e) { return e.name; }
  });
  assert.equal(fetched, 'TypeError');
  const violations = await page.evaluate(() => window.__violations);
  assert.ok(violations.some((v) => v.startsWith('script-src-elem inline')), violations.join('\n'));
  assert.ok(violations.some((v) => v.startsWith('script-src-attr inline')), violations.join('\n'));
  assert.ok(violations.some((v) => v.startsWith('script-src eval')), violations.join('\n'));
  assert.ok(violations.some((v) => v.startsWith('connect-src http://127.0.0.2:9')), violations.join('\n'));
  await saveScreenshot(page, 'csp-about.png');
  const unexpected = problems.filter((p) => !/Content Security Policy|Content-Security-Policy|Failed to fetch|ERR_BLOCKED/i.test(p));
  assert.deepEqual(unexpected, []);
});

test('a gzip bomb dropped on the Dataset page is refused in small memory', async (t) => {
  const { page } = await freshPage(t);
  await watch(page);
  // 512 MiB of spaces inside one JSON string: about 500 KB of gzip.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-bomb-'));
  const file = path.join(tmp, 'bomb.json.gz');
  const gz = zlib.createGzip({ level: 9 });
  const out = fs.createWriteStream(file);
  gz.pipe(out);
  gz.write('{"python": [{"repo": "a/b", "content": {"x.py": "');
  const chunk = Buffer.alloc(1 << 20, 0x20);
  for (let i = 0; i < 512; i++) if (!gz.write(chunk)) await new Promise((r) => gz.once('drain', r));
  gz.end('"}, "dependency": {}}]}');
  await new Promise((r) => out.on('finish', r));
  const size = fs.statSync(file).size;

  await gotoApp(page, srv.url, '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  const before = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  const dt = await page.evaluateHandle((b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], 'bomb.json.gz', { type: 'application/gzip' }));
    return transfer;
  }, fs.readFileSync(file).toString('base64'));
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => /refused/.test(document.querySelector('#dataset-error')?.textContent || ''),
    null, { timeout: 60000 });
  const message = await page.textContent('#dataset-error');
  assert.match(message, /bomb\.json\.gz/);
  assert.match(message, /inflates more than 100:1/);
  const peak = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  console.log(`gzip bomb in the page: ${(size / 1e6).toFixed(1)} MB file (512 MiB inflated), wasm memory ${(before / 1048576).toFixed(0)} MiB before, ${(peak / 1048576).toFixed(0)} MiB after`);
  assert.ok(peak < 400 * 1048576, `wasm memory grew to ${peak}`);
  await saveScreenshot(page, 'csp-gzip-bomb.png');
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('hostile repo names, file names and dataset text stay text', async (t) => {
  const { page } = await freshPage(t);
  await watch(page);
  const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'public/demo/repoqa-demo.json'), 'utf8'));
  const evil = (n) => `<img src=x onerror="window.__xss=${n}"><script>window.__xss=${n}</script><svg onload="window.__xss=${n}">`;
  const repo = demo.python[0];
  repo.repo = `owner/${evil(1)}`;
  repo.topic = evil(2);
  for (const needle of repo.needles) needle.description = `${needle.description}\n${evil(3)}`;
  // A file name with markup, keeping the needles pointing at it.
  const oldPath = repo.needles[0].path;
  const newPath = `pkg/${evil(4).replace(/\//g, '_')}.py`;
  repo.content[newPath] = repo.content[oldPath];
  delete repo.content[oldPath];
  repo.dependency[newPath] = repo.dependency[oldPath] || [];
  delete repo.dependency[oldPath];
  if (repo.functions?.[oldPath]) { repo.functions[newPath] = repo.functions[oldPath]; delete repo.functions[oldPath]; }
  for (const needle of repo.needles) if (needle.path === oldPath) needle.path = newPath;
  const ds = { python: [repo] };
  const bytes = Buffer.from(JSON.stringify(ds));

  await gotoApp(page, srv.url, '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  const dt = await page.evaluateHandle((b64) => {
    const b = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([b], 'evil<b>.json', { type: 'application/json' }));
    return transfer;
  }, bytes.toString('base64'));
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => document.querySelector('#dataset-origin')?.textContent === 'evil<b>.json', null,
    { timeout: 60000 });
  // Visit every page; the names must show as text and nothing may run.
  for (const hash of ['#dataset', '#tasks', '#results', '#curate', '#about']) {
    await page.goto(srv.url + hash);
    await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.__xss), undefined, `markup ran on ${hash}`);
    const injected = await page.evaluate(() => document.querySelectorAll('img[src="x"], svg[onload], script:not([src])').length);
    assert.equal(injected, 0, `markup became elements on ${hash}`);
  }
  await page.goto(srv.url + '#dataset');
  await page.waitForSelector('#app-main[data-mounted="true"]');
  const text = await page.textContent('body');
  assert.ok(text.includes('owner/<img src=x'), 'the repo name is not shown as text on the Dataset page');
  assert.deepEqual((await page.evaluate(() => window.__violations)).filter((v) => !v.startsWith('img-src')), []);
  await saveScreenshot(page, 'csp-hostile-names.png');
});

test('deep nesting and a 100 MB string in a dataset are refused in the page in bounded memory', async (t) => {
  const { page, problems } = await freshPage(t);
  await watch(page);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-hostile-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const deep = path.join(tmp, 'deep.json');
  fs.writeFileSync(deep, '{"python": ' + '['.repeat(1_000_000) + ']'.repeat(1_000_000) + '}');
  const long = path.join(tmp, 'long-string.json');
  fs.writeFileSync(long, '{"python": [{"repo": "a/b", "content": {"x.py": "' + 'x'.repeat(100 << 20) + '"}, "dependency": {}}]}');
  await gotoApp(page, srv.url, '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  for (const [file, want] of [[deep, /deep\.json.*(recursion limit|nest)/s], [long, /long-string\.json.*over the limit/s]]) {
    const before = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
    await page.setInputFiles('#dataset-file', file);
    await page.waitForSelector('#dataset-error', { timeout: 60000 });
    await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
    const message = await page.textContent('#dataset-error');
    assert.match(message, want, message);
    const peak = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
    console.log(`${path.basename(file)} in the page: ${(fs.statSync(file).size / 1e6).toFixed(1)} MB file, wasm memory ${(before / 1048576).toFixed(0)} MiB before, ${(peak / 1048576).toFixed(0)} MiB after: ${message.trim()}`);
    assert.ok(peak < 600 * 1048576, `wasm memory grew to ${peak}`);
  }
  // The demo is still loaded and usable.
  assert.match(await page.textContent('#dataset-origin'), /demo/);
  assert.deepEqual(problems, []);
});
