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
import { saveBothWidths, saveViewports } from './browser.js';

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
  assert.ok(lines.every((t) => t.code_context === '' && t.protocol === 'no-context' && t.closed_book === true));
  console.log('control: 60 no-context tasks byte-identical to repoqa prompts --control no-context');
  await saveBothWidths(page, '#protocol-banner', 'control-tasks');

  // The control run beside the real one, on Results: answer the control
  // (the sample answers), keep it as a run; switch the Run page back to the
  // official prompts, rebuild, change one answer, keep that run; compare.
  await page.goto(srv.url + '#run');
  assert.equal(await page.$eval('#run-protocol', (s) => s.value), 'no-context');
  await page.goto(srv.url + '#results');
  await page.click('#load-samples');
  await page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
  // The headline says the tasks were closed-book (the demo is not dated).
  const prov = await page.waitForSelector('#headline-provenance[data-closed-book="true"]');
  assert.match(await prov.textContent(), /^Closed-book: the prompts held no code/);
  assert.equal(await prov.getAttribute('data-freshness'), '');
  await page.fill('#model-name', 'control');
  // The export says what the CLI's `score` says of the same scoring: the
  // no-context control (not "the corrected protocol"); a training cutoff
  // that is no date is refused; one that is lands in the file.
  const note = await page.waitForSelector('#export-notices li[data-not-official="true"]');
  assert.match(await note.textContent(), /^the prompts were built with the no-context control \(NOT OFFICIAL/);
  assert.equal(await note.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 244, 229)');
  assert.doesNotMatch(await page.textContent('#export-card'), /corrected protocol/);
  await page.fill('#model-cutoff', 'March');
  const bad = await page.waitForSelector('#export-notices li[data-warning="true"]');
  assert.equal(await bad.textContent(), 'the model cutoff "March" is not a date YYYY-MM-DD');
  assert.equal(await bad.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 244, 229)',
    'the refusal is shown as a warning');
  await page.click('#export-scores');
  assert.match(await page.textContent('#export-status.fail'), /not a date/);
  await page.fill('#model-cutoff', '2024-01-31');
  await page.waitForFunction(() => !document.querySelector('#export-notices li[data-warning="true"]'));
  assert.equal(await page.$('#export-status'), null, 'the refusal goes once the cutoff is a date');
  await saveViewports(page, '#export-card', 'control-export-notices');
  const scores = JSON.parse((await fx.download(() => page.click('#export-scores'))).bytes.toString('utf8'));
  assert.equal(scores.control.model_cutoff, '2024-01-31');
  assert.equal(scores.control.closed_book, true);
  assert.equal(scores.control.protocol, 'no-context');
  await page.fill('#model-cutoff', '');
  await page.click('#export-to-leaderboard');
  await page.waitForSelector('#export-status a[href="#leaderboard"]');
  await page.goto(srv.url + '#run');
  await page.selectOption('#run-protocol', 'official');
  await page.waitForSelector('#run-protocol-rebuild a[href="#tasks"]');
  await page.goto(srv.url + '#tasks');
  await page.click('#build-tasks');
  await page.waitForFunction(() => !document.querySelector('#protocol-banner'), null, { timeout: 120000 });
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
  const passing = await page.getAttribute('tr.task-row[data-pass="true"]', 'data-task-id');
  await fx.typeAnswer(passing, 'no idea');
  await page.goto(srv.url + '#results');
  await page.fill('#model-name', 'real');
  await page.click('#export-to-leaderboard');
  await page.waitForSelector('#export-status a[href="#leaderboard"]');
  await page.selectOption('#cmp-a', 'your answers/real-SCORES.json\u001freal');
  await page.selectOption('#cmp-b', 'your answers/control-NO-CONTEXT-SCORES.json\u001fcontrol');
  await page.waitForFunction(() => document.querySelector('#cmp-flipped-title')?.textContent === '1 task(s) flipped', null, { timeout: 10000 });
  const all = await page.$eval('#cmp-table tbody tr[data-row="all"]', (tr) => ({ ...tr.dataset }));
  assert.equal(Number(all.onlyB), 1, JSON.stringify(all));
  console.log(`control: the no-context run beside the real one on Results (${all.both} both, ${all.onlyA} only real, ${all.onlyB} only control)`);
  await saveBothWidths(page, '#lb-paired-card', 'control-beside-real');

  // The same model's run with the code and its closed-book run: the
  // Leaderboard marks the closed-book row and gives the memorized share.
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
  assert.equal(await page.$('#headline-provenance'), null, 'an official run of an undated dataset says nothing more');
  await page.fill('#model-name', 'control');
  await page.click('#export-to-leaderboard');
  await page.waitForSelector('#export-status a[href="#leaderboard"]');
  await page.goto(srv.url + '#leaderboard');
  const pair = await page.waitForSelector('#lb-remembering-table tr[data-model="control"]', { timeout: 10000 });
  const got = await pair.evaluate((tr) => ({ ...tr.dataset }));
  assert.equal(Number(got.tasks), 60, JSON.stringify(got));
  const closedRow = 'tr[data-model="control"][data-source*="NO-CONTEXT"]';
  assert.equal(await page.textContent(`#lb-table ${closedRow} .lb-closed-book`), 'closed-book');
  assert.equal(await page.$('#lb-table tr[data-model="control"]:not([data-source*="NO-CONTEXT"]) .lb-closed-book'), null);
  const closedPassed = await page.$$eval(`#lb-table ${closedRow} td[data-lang]`,
    (tds) => tds.reduce((n, td) => n + Number(td.dataset.passed), 0));
  assert.equal(Number(got.share), closedPassed / 60, 'the memorized share is the closed-book run\'s passes over its tasks');
  const openPassed = await page.$$eval('#lb-table tr[data-model="control"]:not([data-source*="NO-CONTEXT"]) td[data-lang]',
    (tds) => tds.reduce((n, td) => n + Number(td.dataset.passed), 0));
  assert.equal(Number(got.open), openPassed / 60);
  console.log(`control: Leaderboard pairs control's two runs: ${openPassed}/60 with the code, memorized share ${closedPassed}/60, McNemar p ${got.p}`);
  await saveViewports(page, '#lb-remembering', 'control-remembering');
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});
