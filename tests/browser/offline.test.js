// Offline after one visit (issue 25): the service worker (public/boot/sw.js,
// stamped by scripts/post-build.mjs) keeps one whole build; with the server
// gone the app loads, builds, scores, verifies and shows the leaderboard; a
// new deploy is what the next visit runs, never a mix of two builds; the
// cache holds the build's files and nothing else; the app is installable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { launch, openPage, saveScreenshot, DIST, ROOT } from './browser.js';

const PUBLISHED = path.join(ROOT, 'tests', 'fixtures', 'published-scores');

/** The files and version sw.js of `dir` was stamped with. */
function precache(dir) {
  const sw = fs.readFileSync(path.join(dir, 'sw.js'), 'utf8');
  const m = sw.match(/^const PRECACHE = (\{.*\});$/m);
  assert.ok(m, `${dir}/sw.js is not stamped`);
  return JSON.parse(m[1]);
}

/** Wait until this page's service worker is active (its install, which
 *  caches the whole build, has finished). */
async function swActive(page) {
  return page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    for (let i = 0; i < 300 && reg.active.state === 'activating'; i++) await new Promise((r) => setTimeout(r, 100));
    return reg.active.state;
  });
}

/** The app's caches, with the URLs each holds (paths relative to `base`). */
function cacheContents(page, base) {
  return page.evaluate(async (b) => {
    const out = {};
    for (const key of await caches.keys()) {
      const c = await caches.open(key);
      out[key] = (await c.keys()).map((r) => r.url.slice(b.length)).sort();
    }
    return out;
  }, base);
}

/** Stop the server for good: connection refused, as with no network. */
async function stop(srv, context) {
  await new Promise((r) => { srv.server.close(r); srv.server.closeAllConnections(); });
  await context.setOffline(true);
}

test('after one visit the app works with the network off: loads, builds, scores, verifies, leaderboard; installable', async (t) => {
  const srv = await serveDir(DIST);
  const context = await launch();
  t.after(() => context.close());
  const { page, problems } = await openPage(context);
  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await swActive(page), 'activated');

  // Installable, by Chromium's own check, with the manifest read whole.
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  assert.deepEqual(installabilityErrors, [], JSON.stringify(installabilityErrors));
  const manifest = await cdp.send('Page.getAppManifest');
  assert.deepEqual(manifest.errors, []);

  // The cache holds this build, all of it and nothing else.
  const expected = precache(DIST);
  const caches = await cacheContents(page, srv.url);
  assert.deepEqual(Object.keys(caches), [`repoqa-web / ${expected.version}`]);
  assert.deepEqual(caches[`repoqa-web / ${expected.version}`], [...expected.files].map((f) => (f === './' ? '' : f)).sort());

  await stop(srv, context);
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  await saveScreenshot(page, 'offline-tasks.png');

  await page.goto(srv.url + '#results');
  await page.waitForSelector('#load-samples', { timeout: 30000 });
  await page.click('#load-samples');
  await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 30000 });
  await page.waitForSelector('#score-table', { timeout: 30000 });

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-offline-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  const scores = path.join(work, 'claude-3-haiku-20240307-SCORES.json');
  fs.writeFileSync(scores, zlib.gunzipSync(fs.readFileSync(path.join(PUBLISHED, 'claude-3-haiku-20240307-SCORES.json.gz'))));
  await page.goto(srv.url + '#verify');
  await page.setInputFiles('#verify-scores', scores);
  await page.waitForSelector('#verify-verdict[data-ok]', { timeout: 30000 });
  assert.equal(await page.getAttribute('#verify-verdict', 'data-ok'), 'true');

  await page.goto(srv.url + '#leaderboard');
  await page.click('#lb-load-published');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  await saveScreenshot(page, 'offline-leaderboard.png');

  // Still only the build's files: nothing the session fetched or stored went in.
  assert.deepEqual(await cacheContents(page, srv.url), caches);
  assert.deepEqual(problems.filter((p) => !/ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED/.test(p)), []);
});

/** A copy of dist/ as a new deploy: its JS and wasm renamed (as a new build's
 *  hashes would be), a marker in boot.js, the service worker stamped anew. */
function newDeploy(work) {
  const dir = path.join(work, 'v2');
  fs.cpSync(DIST, dir, { recursive: true, filter: (f) => !/\.(gz|br)$/.test(f) || f.endsWith('.json.gz') });
  let html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  for (const f of fs.readdirSync(dir).filter((f) => /^repoqa-web-[0-9a-f]+(_bg\.wasm|\.js)$/.test(f))) {
    const renamed = f.replace(/^repoqa-web-([0-9a-f]+)/, 'repoqa-web-$1v2');
    fs.renameSync(path.join(dir, f), path.join(dir, renamed));
    html = html.replaceAll(`./${f}`, `./${renamed}`);
  }
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  fs.appendFileSync(path.join(dir, 'boot.js'), "\nwindow.__deploy = 'v2';\n");
  fs.copyFileSync(path.join(ROOT, 'public', 'boot', 'sw.js'), path.join(dir, 'sw.js'));
  execFileSync('node', [path.join(ROOT, 'scripts', 'post-build.mjs'), dir], { env: { ...process.env, TRUNK_PROFILE: 'debug' } });
  return dir;
}

test('a new deploy: the next visit runs it whole, and offline afterwards runs it whole too', async (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-deploy-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  const v2 = newDeploy(work);
  const v1Files = fs.readdirSync(DIST).filter((f) => /^repoqa-web-/.test(f));
  let current = DIST;
  const srv = await serveDir(() => current);
  const context = await launch();
  t.after(() => context.close());

  const first = await openPage(context);
  await first.page.goto(srv.url);
  await first.page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await swActive(first.page), 'activated');
  await first.page.close();

  // The new build goes up at the same address.
  current = v2;
  const second = await openPage(context);
  const urls = [];
  second.page.on('request', (r) => urls.push(r.url()));
  await second.page.goto(srv.url);
  await second.page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await second.page.evaluate(() => window.__deploy), 'v2', 'the next visit did not run the new deploy');
  const old = urls.filter((u) => v1Files.some((f) => u.endsWith('/' + f)));
  assert.deepEqual(old, [], 'the new deploy\'s page fetched files of the old one');
  // Its worker installs the new build beside the running one.
  const waiting = await second.page.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration();
    await reg.update();
    for (let i = 0; i < 600 && reg.installing; i++) await new Promise((r) => setTimeout(r, 100));
    return Boolean(reg.waiting || reg.active);
  });
  assert.ok(waiting);
  await second.page.close();

  // Offline: the new build, whole, and only its cache left.
  await stop(srv, context);
  const third = await openPage(context);
  await third.page.goto(srv.url);
  await third.page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  assert.equal(await third.page.evaluate(() => window.__deploy), 'v2');
  const scripts = await third.page.$$eval('script[data-repoqa-js]', (s) => s.map((x) => x.dataset.repoqaJs));
  assert.match(scripts[0], /v2\.js$/);
  const keys = Object.keys(await cacheContents(third.page, srv.url));
  assert.deepEqual(keys, [`repoqa-web / ${precache(v2).version}`]);
});
