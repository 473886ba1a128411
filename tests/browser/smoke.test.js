// Smoke test of the built app in headless Chromium: it mounts, the
// self-check parses a snippet in each of the six languages, and the
// tokenizer's count of the sample line equals the native build's count.
// The quick browser tier (`npm run smoke`, well under a minute); the time
// to mount is a benchmark figure (bench.mjs, "first render").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { serveDir } from './serve.js';
import { launch, openPage, saveScreenshot, DIST, ROOT } from './browser.js';

let srv, context;
before(async () => {
  srv = await serveDir(DIST);
  context = await launch();
});
after(async () => {
  await context?.close();
  srv?.server.close();
});

function nativeSelfCheck() {
  const bin = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
  return JSON.parse(execFileSync(bin, ['self-check', '--json'], { encoding: 'utf8' }));
}

test('app mounts and the self-check passes with native token parity', async () => {
  const { page, problems } = await openPage(context);
  await page.goto(srv.url + '#about');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForSelector('#selfcheck:not([data-status="loading"])', { timeout: 60000 });
  await saveScreenshot(page, 'smoke-selfcheck.png');

  const status = await page.getAttribute('#selfcheck', 'data-status');
  const rows = await page.$$eval('tr.grammar-row', (trs) => trs.map((tr) => [tr.dataset.lang, tr.dataset.ok]));
  assert.deepEqual(rows.map((r) => r[0]).sort(), ['cpp', 'go', 'java', 'python', 'rust', 'typescript']);
  for (const [lang, ok] of rows) assert.equal(ok, 'true', `grammar ${lang} failed in the browser`);
  assert.equal(status, 'ok');

  const browserCount = Number(await page.getAttribute('#tok-count', 'data-count'));
  const native = nativeSelfCheck();
  assert.equal(browserCount, native.tokenizer.sample_count, 'browser and native token counts differ');
  for (const g of native.grammars) assert.ok(g.ok, `native grammar ${g.language} failed`);

  assert.deepEqual(problems, [], 'console errors or panics in the page');
});
