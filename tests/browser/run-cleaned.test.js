// A Run in a comment-cleaning mode scores as the official harness does:
// upstream's `search_needle_function` scores with comments ignored when
// `--clean-ctx-comments` is not `none` (docs/parity.md R7). The demo is
// built in the page with positional_padding, its C++ tasks (whose needles
// hold comments) run against the project's test model server, and the
// page's SCORES download is compared with the official scorer (PyPI repoqa
// 0.1.2, tests/oracle/score.py) on the page's own outputs download, with
// comments ignored — and shown to differ from the official scorer with
// comments kept, so the comparison can tell the two apart. The Results
// page shows "Ignore comments" on and locked, and says why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ARTIFACTS } from './browser.js';
import { open, DEMO, EVAL_DATE } from './results-fixture.js';
import { KEY, startModelServer, runAndWait, configure } from './run-fixture.js';

const ORACLE_PY = path.join(ROOT, '.tools', 'oracle', 'bin', 'python');
const SCORE_PY = path.join(ROOT, 'tests', 'oracle', 'score.py');

/** The official SCORES file of `outputs` (parsed), comments ignored or not. */
function officialScores(outputs, model, ignoreComments) {
  const text = execFileSync(ORACLE_PY, [SCORE_PY, 'score', DEMO, outputs, model, ignoreComments ? '1' : '0', EVAL_DATE],
    { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).toString();
  return JSON.parse(text);
}

let fx;
let srv;
before(async () => {
  srv = await startModelServer(['--dataset', DEMO, '--key', KEY]);
  fx = await open();
});
after(async () => { await fx?.close(); srv?.stop(); });

test('a Run on cleaned contexts scores like the official harness: comments ignored', async () => {
  const { page } = fx;
  await page.goto(fx.srv.url + '#dataset');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  if (!(await page.$('#dataset-summary'))) await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.selectOption('#comment-mode', 'positional_padding');
  await page.goto(fx.srv.url + '#tasks');
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });

  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  await configure(page, srv, { provider: 'openai', language: 'cpp' });
  assert.equal(await runAndWait(page), 'done');

  await page.goto(fx.srv.url + '#results');
  await page.waitForSelector('#results[data-answered="10"]', { timeout: 60000 });
  // The box shows what scoring does: on, locked, with the reason.
  assert.equal(await page.isChecked('#opt-ignore-comments'), true);
  assert.equal(await page.isDisabled('#opt-ignore-comments'), true);
  assert.match(await page.textContent('#ignore-comments-cleaned'), /comment-cleaning mode/);
  // The card as a person sees it, at desktop and phone widths.
  await page.locator('#options-card').screenshot({ path: path.join(ARTIFACTS, 'results-cleaned-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#options-card').screenshot({ path: path.join(ARTIFACTS, 'results-cleaned-390.png') });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.fill('#eval-date', EVAL_DATE);
  const outputs = await fx.download(() => page.click('#export-outputs'));
  const scores = await fx.download(() => page.click('#export-scores'));
  const ours = JSON.parse(scores.bytes.toString('utf8'));
  const [model] = Object.keys(ours);
  const official = officialScores(outputs.path, model, true);
  assert.deepEqual(ours, official, 'the page differs from the official scorer with comments ignored');
  const kept = officialScores(outputs.path, model, false);
  assert.notDeepEqual(kept[model].results, official[model].results,
    'with comments kept the official scorer gives the same records: this test would not see the rule');
  const pass = official[model].scores.all['0.8']['pass@1'];
  console.log(`cpp, positional_padding: 10 answers, the page's SCORES equal the official scorer's with comments ignored (pass@1 at 0.8: ${pass})`);
});
