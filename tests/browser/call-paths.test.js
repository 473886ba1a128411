// The call-path task on the Tasks page (NOT UPSTREAM, issue 82): the task
// switch shows the call-path side; Build builds the demo's call-path
// tasks in the compute engine through the core's api::callpath; the table
// lists each pair with its gold path, the repositories that gave fewer are
// named, and the download is `repoqa prompts --task call-path`'s file,
// byte for byte. What a person sees: the side they switched to on the
// first screen, the job's line in the colour of its outcome.
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
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-call-paths-'));

let srv;
before(async () => { srv = await serveDir(DIST); });
after(() => {
  srv?.server.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

async function inViewport(page, selector) {
  const box = await page.locator(selector).boundingBox();
  const vp = page.viewportSize();
  return box !== null && box.y >= 0 && box.y + box.height <= vp.height && box.x >= 0 && box.x + box.width <= vp.width;
}

test('call paths on the Tasks page: built in the page, listed, downloaded as `repoqa prompts --task call-path` writes them', async (t) => {
  const { page, problems } = await freshPage(t);
  await gotoApp(page, srv.url, '#dataset');
  if (!(await page.$('#dataset-summary'))) await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.click('#ctx-mini');
  await page.waitForFunction(() => document.querySelector('#ctx-size')?.value === '2048');

  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('#task-kind-call-path');
  // SNF is the default; the call-path side is not shown until asked for.
  assert.equal(await page.isChecked('#task-kind-snf'), true);
  assert.equal(await page.$('#call-path-card'), null);
  await page.check('#task-kind-call-path');
  await page.waitForSelector('#build-call-paths:not([disabled])', { timeout: 60000 });
  assert.equal(await page.$('#build-card'), null, 'the SNF build card is not on the call-path side');
  assert.ok(await inViewport(page, '#build-call-paths'), 'the build button is on the first screen');
  assert.match(await page.textContent('#call-path-card h2'), /NOT UPSTREAM/);
  assert.match(await page.textContent('#call-path-card'), /context 2048 tokens/);

  await page.click('#build-call-paths');
  await page.waitForFunction(() => Number(document.querySelector('#call-path-count')?.dataset.count) > 0, null, { timeout: 120000 });
  const out = path.join(TMP, 'call-path-2048.jsonl');
  execFileSync(BIN, ['prompts', '--task', 'call-path', '--dataset-path', DEMO, '--code-context-size', '2048', '--out', out], { stdio: 'pipe' });
  const cli = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(Number(await page.getAttribute('#call-path-count', 'data-count')), cli.length);
  const rows = await page.$$eval('.call-path-row', (rs) => rs.map((r) => [r.dataset.id, r.dataset.calls]));
  assert.deepEqual(rows, cli.map((r) => [
    `${r.repo}::${r.source.file}:${r.source.name}->${r.target.file}:${r.target.name}`,
    r.path.length ? String(r.path.length - 1) : 'none',
  ]));
  // The job's line says what was built, in the colour of a success.
  await page.waitForSelector('#job[data-state="done"]');
  assert.match(await page.textContent('#job-message'), new RegExp(`Built ${cli.length} call-path tasks at 2048 tokens`));
  assert.equal(await page.getAttribute('#job', 'data-flawed'), 'false');
  // The demo's repositories that give fewer are named, with why.
  assert.match(await page.textContent('#call-path-shortfalls summary'), /gave fewer tasks than asked/);
  await page.click('#call-path-shortfalls summary');
  assert.match(await page.textContent('#call-path-shortfalls'), /dtolnay\/semver gives \d+ of the 10 call-path tasks asked/);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-call-paths')]);
  assert.equal(download.suggestedFilename(), 'repoqa-demo_ntoken_2048-call-path-tasks.jsonl');
  assert.ok(fs.readFileSync(await download.path()).equals(fs.readFileSync(out)), 'the page\'s call-path tasks differ from repoqa prompts --task call-path');

  // A model's answers: the gold path for even rows, the path reversed for
  // odd ones (NO PATH where there is none). The page's scores equal
  // `repoqa score --task call-path`'s, each task's verdict in its row.
  const outputs = path.join(TMP, 'answers.jsonl');
  fs.writeFileSync(outputs, cli.map((r, i) => {
    const p = i % 2 === 0 ? r.path : [...r.path].reverse();
    return JSON.stringify({ ...r, output: [p.length ? p.join('\n') : 'NO PATH'] });
  }).join('\n') + '\n');
  const cliScores = JSON.parse(execFileSync(BIN, ['score', '--task', 'call-path', '--dataset-path', DEMO,
    '--model-output-path', outputs, '--out', path.join(TMP, 'answers-SCORES.json'), '--json'], { stdio: 'pipe' }).toString());
  await page.setInputFiles('#call-path-outputs', outputs);
  await page.waitForSelector('#call-path-pass');
  assert.equal(Number(await page.getAttribute('#call-path-pass', 'data-pass')), cliScores['pass@1']);
  assert.match(await page.textContent('#call-path-pass'), new RegExp(`pass@1 ${cliScores['pass@1'].toFixed(1)}% of ${cli.length} answers`));
  for (const [len, rate] of Object.entries(cliScores.scores.by_path_length)) {
    const all = await page.textContent(`#call-path-matrix tr[data-length="${len}"] td:last-child`);
    assert.equal(all, `${rate.pass_at_1.toFixed(0)}% (${rate.passed}/${rate.total})`, `path ${len}`);
  }
  // Row 1 passes (gold), row 2 does not (reversed), in their colours.
  const verdictCells = await page.$$eval('.call-path-row td:last-child', (cs) => cs.map((c) => [c.className, c.textContent]));
  assert.deepEqual(verdictCells[0], ['pass', 'pass']);
  if (cli[1].path.length) assert.equal(verdictCells[1][0], 'fail');
  await saveViewports(page, '#call-path-score-card', 'call-paths-scores');

  // Back to SNF: its side again, the call-path tasks kept for the next visit to this side.
  await page.check('#task-kind-snf');
  await page.waitForSelector('#build-card', { state: 'visible' });
  await page.check('#task-kind-call-path');
  assert.equal(Number(await page.getAttribute('#call-path-count', 'data-count')), cli.length);
  await saveViewports(page, '#task-switch', 'call-paths-switch');
  await saveViewports(page, '#call-path-list-card', 'call-paths-tasks');
  assert.deepEqual(problems, []);
});
