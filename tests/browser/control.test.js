// The no-context control (issue 26) in headless Chromium: "no-context"
// under Prompt construction builds the demo's 60 tasks without their code,
// byte-identical to `repoqa prompts --control no-context`; every page says
// the tasks are a NOT OFFICIAL control. Screenshots at 1280 and 390 px.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { open, BIN, DEMO } from './results-fixture.js';
import { saveBothWidths } from './browser.js';

let fx;
after(async () => { await fx?.close(); });

test('no-context control: the tasks equal repoqa prompts --control no-context', async () => {
  fx = await open();
  const { page, srv } = fx;
  await page.goto(srv.url + '#dataset');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.selectOption('#protocol', 'no-context');
  await page.waitForSelector('#protocol-banner[data-protocol="no-context"]');
  assert.match(await page.textContent('#protocol-warning'), /no-context control/);
  await page.goto(srv.url + '#tasks');
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  await page.waitForSelector('#download-tasks:not([disabled])');
  const tasks = await fx.download(() => page.click('#download-tasks'));
  const cli = path.join(fx.work, 'control.jsonl');
  execFileSync(BIN, ['prompts', '--dataset-path', DEMO, '--control', 'no-context', '--out', cli], { stdio: 'pipe' });
  assert.equal(tasks.bytes.toString('utf8'), fs.readFileSync(cli, 'utf8'), 'the page\'s control tasks equal the CLI\'s');
  const lines = tasks.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 60);
  assert.ok(lines.every((t) => t.code_context === '' && t.protocol === 'no-context'));
  console.log('control: 60 no-context tasks byte-identical to repoqa prompts --control no-context');
  await saveBothWidths(page, '#protocol-banner', 'control-tasks');
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});
