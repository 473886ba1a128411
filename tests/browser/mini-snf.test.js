// The mini-SNF (issue 54 item 2): one click on the Dataset page's
// settings sets 2,048 tokens of code, the official construction at that
// size, so a small model (an 8k window) sees whole prompts; the tasks the
// page builds are `repoqa prompts --code-context-size 2048`'s file, byte
// for byte; the other button goes back to RepoQA's 16,384. The pressed
// button says which is on (aria-pressed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveDir } from './serve.js';
import { freshPage, gotoApp, saveViewports, DIST, ROOT } from './browser.js';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const DEMO = path.join(ROOT, 'public', 'demo', 'repoqa-demo.json');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-mini-'));

let srv;
before(async () => { srv = await serveDir(DIST); });
after(() => {
  srv?.server.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

test('mini-SNF: one click sets 2,048 tokens and the tasks equal `repoqa prompts --code-context-size 2048`', async (t) => {
  const { page, problems } = await freshPage(t);
  await gotoApp(page, srv.url, '#dataset');
  if (!(await page.$('#dataset-summary'))) await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  assert.equal(await page.getAttribute('#ctx-official', 'aria-pressed'), 'true');
  assert.equal(await page.getAttribute('#ctx-mini', 'aria-pressed'), 'false');
  await page.click('#ctx-mini');
  await page.waitForFunction(() => document.querySelector('#ctx-size')?.value === '2048');
  assert.equal(await page.getAttribute('#ctx-mini', 'aria-pressed'), 'true');
  assert.equal(await page.getAttribute('#ctx-official', 'aria-pressed'), 'false');
  assert.match(await page.textContent('#ctx-mini-note'), /not comparable with RepoQA's published 16k results/);
  await saveViewports(page, '#ctx-presets', 'mini-snf');

  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
  await page.evaluate(() => { window.__repoqaBuild = null; });
  await page.click('#build-tasks');
  await page.waitForFunction(() => window.__repoqaBuild?.tasks === 60, null, { timeout: 120000 });
  await page.waitForSelector('#download-tasks:not([disabled])');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-tasks')]);
  assert.match(download.suggestedFilename(), /_ntoken_2048/);
  const out = path.join(TMP, 'tasks-2048.jsonl');
  execFileSync(BIN, ['prompts', '--dataset-path', DEMO, '--code-context-size', '2048', '--out', out], { stdio: 'pipe' });
  assert.ok(fs.readFileSync(await download.path()).equals(fs.readFileSync(out)), 'the page\'s 2,048-token tasks differ from repoqa prompts');

  // Back to RepoQA's size.
  await page.goto(srv.url + '#dataset');
  await page.waitForSelector('#ctx-official');
  await page.click('#ctx-official');
  await page.waitForFunction(() => document.querySelector('#ctx-size')?.value === '16384');
  assert.equal(await page.getAttribute('#ctx-official', 'aria-pressed'), 'true');
  assert.deepEqual(problems, []);
});
