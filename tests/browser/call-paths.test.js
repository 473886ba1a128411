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
import { KEY, MODEL, startModelServer, setField } from './run-fixture.js';

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

/** A fresh page with the demo loaded and the context size at 2,048. */
async function demoAt2k(t) {
  const { page, problems } = await freshPage(t);
  await gotoApp(page, srv.url, '#dataset');
  if (!(await page.$('#dataset-summary'))) await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.click('#ctx-mini');
  await page.waitForFunction(() => document.querySelector('#ctx-size')?.value === '2048');
  return { page, problems };
}

test('call paths on the Tasks page: built in the page, listed, downloaded as `repoqa prompts --task call-path` writes them; scored on Results with a verdict view', async (t) => {
  const { page, problems } = await demoAt2k(t);

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
  // odd ones (NO PATH where there is none), scored on Results (the task
  // switch is one for the three pages: still on call paths). The page's
  // scores equal `repoqa score --task call-path`'s.
  const outputs = path.join(TMP, 'answers.jsonl');
  fs.writeFileSync(outputs, cli.map((r, i) => {
    const p = i % 2 === 0 ? r.path : [...r.path].reverse();
    return JSON.stringify({ ...r, output: [p.length ? p.join('\n') : 'NO PATH'] });
  }).join('\n') + '\n');
  const cliScores = JSON.parse(execFileSync(BIN, ['score', '--task', 'call-path', '--dataset-path', DEMO,
    '--model-output-path', outputs, '--out', path.join(TMP, 'answers-SCORES.json'), '--json'], { stdio: 'pipe' }).toString());
  const cliFile = JSON.parse(fs.readFileSync(path.join(TMP, 'answers-SCORES.json'), 'utf8'));
  await page.click('nav a[href="#results"]');
  await page.waitForSelector('#call-path-score-card');
  assert.equal(await page.isChecked('#task-kind-call-path'), true);
  assert.equal(await page.$('#results'), null, 'SNF\'s results are not on the call-path side');
  await page.setInputFiles('#call-path-outputs', outputs);
  await page.waitForSelector('#call-path-pass');
  assert.equal(Number(await page.getAttribute('#call-path-pass', 'data-pass')), cliScores['pass@1']);
  assert.match(await page.textContent('#call-path-pass'), new RegExp(`pass@1 ${cliScores['pass@1'].toFixed(1)}% of ${cli.length} answers`));
  for (const [len, rate] of Object.entries(cliScores.scores.by_path_length)) {
    const all = await page.textContent(`#call-path-matrix tr[data-length="${len}"] td:last-child`);
    assert.equal(all, `${rate.pass_at_1.toFixed(0)}% (${rate.passed}/${rate.total})`, `path ${len}`);
  }
  // Each task's verdict, in the colour of its outcome: the CLI's, in order.
  const results = await page.$$eval('.call-path-result', (rs) => rs.map((r) => [r.dataset.id, r.querySelector('td:nth-child(4) span').className]));
  assert.deepEqual(results, cliFile.results.map((r) => [r.id, r.verdict === 'pass' ? 'pass' : 'fail']));
  await saveViewports(page, '#call-path-score-card', 'call-paths-scores');
  // The SCORES download is `repoqa score`'s file (its date aside); the
  // report's is `repoqa report`'s of that file, byte for byte.
  const [scoresDl] = await Promise.all([page.waitForEvent('download'), page.click('#download-call-path-scores')]);
  assert.equal(scoresDl.suggestedFilename(), 'answers-SCORES.json');
  const pageScoresPath = path.join(TMP, 'page', 'answers-SCORES.json');
  fs.mkdirSync(path.dirname(pageScoresPath), { recursive: true });
  fs.copyFileSync(await scoresDl.path(), pageScoresPath);
  const pageFile = JSON.parse(fs.readFileSync(pageScoresPath, 'utf8'));
  assert.deepEqual({ ...pageFile, eval_date: '' }, { ...cliFile, eval_date: '' });
  const [reportDl] = await Promise.all([page.waitForEvent('download'), page.click('#download-call-path-report')]);
  assert.equal(reportDl.suggestedFilename(), 'answers-SCORES.html');
  const cliReport = path.join(TMP, 'cli-report.html');
  execFileSync(BIN, ['report', '--scores', pageScoresPath, '--out', cliReport], { stdio: 'pipe' });
  assert.ok(fs.readFileSync(await reportDl.path()).equals(fs.readFileSync(cliReport)), 'the page\'s report differs from repoqa report\'s');

  // The verdict view of a reversed path: the graph's shortest path above,
  // the model's below, its first step marked as no call; on the first
  // screen with the focus, at a phone's width too.
  const reversed = cliFile.results.findIndex((r, i) => i % 2 === 1 && r.path.length > 0);
  assert.ok(reversed > 0, 'a reversed path task');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.click(`.call-path-result:nth-child(${reversed + 1}) .call-path-details`);
    await page.waitForSelector('#call-path-verdict');
    await page.waitForFunction(() => document.activeElement?.id === 'call-path-verdict');
    assert.ok(await inViewport(page, '#call-path-verdict-label'), `the verdict is on the screen at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  const gold = cliFile.results[reversed].path;
  assert.deepEqual(await page.$$eval('#path-gold code', (cs) => cs.map((c) => c.textContent)), gold);
  assert.deepEqual(await page.$$eval('#path-answer code', (cs) => cs.map((c) => c.textContent)), [...gold].reverse());
  assert.equal(await page.getAttribute('#call-path-verdict-label', 'class'), 'fail');
  assert.match(await page.textContent('#call-path-verdict-label'), /^FAIL: /);
  const edges = await page.$$eval('#path-answer .path-edge', (es) => es.map((e) => e.dataset.call));
  assert.equal(edges.length, gold.length - 1);
  assert.equal(edges[0], 'false', 'the reversed path\'s first step is no call');
  assert.equal(await page.textContent('#call-path-reply pre'), [...gold].reverse().join('\n'));
  await saveViewports(page, '#call-path-verdict', 'call-paths-verdict');

  // On the Tasks page, each row's verdict in its colour.
  await page.click('nav a[href="#tasks"]');
  await page.waitForSelector('#call-path-table');
  const verdictCells = await page.$$eval('.call-path-row td:last-child span', (cs) => cs.map((c) => [c.className, c.textContent]));
  assert.deepEqual(verdictCells[0], ['pass', 'pass']);
  assert.equal(verdictCells[reversed][0], 'fail');

  // A task's prompt to scale: every function of its gold path marked in
  // the bands with its name (the core's anatomy, in the engine), the view
  // on the screen with the focus; a marked band shows the function's code.
  const k = cli.findIndex((r) => r.path.length >= 3);
  assert.ok(k >= 0, 'a task with a path of 2 calls or more');
  await page.click(`.call-path-row:nth-child(${k + 1}) .call-path-view`);
  await page.waitForSelector('#call-path-anatomy-view', { timeout: 60000 });
  await page.waitForFunction(() => document.activeElement?.id === 'call-path-task-view');
  assert.equal(await page.textContent('#call-path-task-gold'), cli[k].path.join(' → '));
  assert.equal(Number(await page.getAttribute('#call-path-anatomy-view', 'data-marked')), cli[k].path.length);
  const marked = await page.$$eval('#call-path-anatomy-view .anatomy-strip .band-needle', (bs) => bs.map((b) => b.dataset.name));
  assert.deepEqual([...marked].sort(), [...cli[k].path].sort());
  // In the context's order: by the depths the task records.
  const byDepth = cli[k].path.map((n, i) => [n, cli[k].depths[i]]).sort((a, b) => a[1] - b[1]).map((x) => x[0]);
  assert.deepEqual(marked, byDepth);
  await page.click(`#call-path-anatomy-view .anatomy-strip .band-needle[data-name="${cli[k].path[1]}"]`);
  await page.waitForSelector(`#call-path-anatomy-band[data-name="${cli[k].path[1]}"]`);
  assert.match(await page.textContent('#call-path-anatomy-band pre'), new RegExp(cli[k].path[1]));
  assert.ok(await inViewport(page, '#call-path-task-title'), 'the task view opens on the screen');
  await saveViewports(page, '#call-path-anatomy', 'call-paths-anatomy');

  // Back to SNF: its side again, the call-path tasks kept for the next visit to this side.
  await page.check('#task-kind-snf');
  await page.waitForSelector('#build-card', { state: 'visible' });
  await page.check('#task-kind-call-path');
  assert.equal(Number(await page.getAttribute('#call-path-count', 'data-count')), cli.length);
  await saveViewports(page, '#task-switch', 'call-paths-switch');
  await saveViewports(page, '#call-path-list-card', 'call-paths-tasks');
  assert.deepEqual(problems, []);
});

test('call paths on the Run page: the model asked every task as `repoqa run --task call-path` asks it, kept across a reload, scored on Results', async (t) => {
  const srvModel = await startModelServer(['--dataset', DEMO, '--key', KEY]);
  t.after(() => srvModel.stop());
  const { page, problems } = await demoAt2k(t);
  await page.goto(srv.url + '#run');
  await page.waitForSelector('#task-kind-call-path');
  // SNF's side first: the demo is loaded, its tasks not built: said so,
  // with a button that builds them here (issue 85: Run opened on "No tasks
  // are built yet: load a dataset" with the demo loaded).
  await page.waitForSelector('#run-no-tasks #run-build-tasks');
  assert.match(await page.textContent('#run-no-tasks'), /is loaded; its tasks are not built yet/);
  assert.ok(await inViewport(page, '#run-build-tasks'), 'the build button is on the first screen');
  await saveViewports(page, '#run-no-tasks', 'run-demo-not-built');
  await page.click('#run-build-tasks');
  await page.waitForSelector('#run-selection[data-selected="60"]', { timeout: 120000 });
  assert.equal(await page.$('#run-no-tasks'), null);
  await page.check('#task-kind-call-path');
  // Nothing built yet: said, with where to build.
  await page.waitForSelector('#run-no-call-paths a[href="#tasks"]');
  assert.equal(await page.$('#run-no-tasks'), null, 'SNF\'s notice is not on the call-path side');
  await page.click('#run-no-call-paths a[href="#tasks"]');
  await page.waitForSelector('#build-call-paths:not([disabled])', { timeout: 60000 });
  await page.click('#build-call-paths');
  await page.waitForFunction(() => Number(document.querySelector('#call-path-count')?.dataset.count) > 0, null, { timeout: 120000 });
  const n = Number(await page.getAttribute('#call-path-count', 'data-count'));
  const tasksFile = path.join(TMP, 'run-tasks.jsonl');
  execFileSync(BIN, ['prompts', '--task', 'call-path', '--dataset-path', DEMO, '--code-context-size', '2048', '--out', tasksFile], { stdio: 'pipe' });
  const tasks = fs.readFileSync(tasksFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(tasks.length, n);

  await page.click('nav a[href="#run"]');
  await page.waitForSelector(`#run-call-paths[data-tasks="${n}"]`);
  assert.equal(await page.isHidden('#run-plan'), true, 'Plan counts SNF prompts: hidden here');
  assert.equal(await page.$('#run-lengths-box'), null);
  await page.selectOption('#run-preset', 'custom');
  await page.selectOption('#run-provider', 'openai');
  await setField(page, '#run-base-url', srvModel.url + '/v1');
  await setField(page, '#run-model', MODEL);
  await setField(page, '#run-key', KEY);
  await setField(page, '#run-concurrency', 2);
  await setField(page, '#run-timeout', 10);
  await setField(page, '#run-max-retries', 4);
  await setField(page, '#run-retry-base', 100);
  await setField(page, '#run-filter', '');
  await page.waitForSelector(`#run-selection[data-selected="${n}"][data-answered="0"]`);
  // One 500 on the first call-path task: asked again, then answered.
  await srvModel.control({ reset: true, faults: { [`callpath:${tasks[0].source.name}`]: ['500'] } });
  await page.click('#run-start');
  await page.waitForSelector('#run-progress[data-state="done"]', { timeout: 120000 });
  assert.match(await page.textContent('#run-message'), new RegExp(`^Done: ${n} answered, 0 failed, 0 not asked, 1 retries`));
  assert.equal(await page.getAttribute('#run-message', 'class'), 'pass', 'a run with every task answered says so in green');
  const stats = await srvModel.get('/stats');
  assert.equal(stats.requests, n + 1, 'every task once, and the retry');
  // Every request was the task's own prompt (the CLI's), once each.
  const asked = (await srvModel.get('/requests')).map((r) => r.body.messages[0].content);
  for (const r of tasks) {
    assert.ok(asked.some((p) => p.startsWith(r.instruction) && p.endsWith(r.instruction) && p.includes(r.code_context) && p.includes(r.question)),
      `${r.source.name} -> ${r.target.name}: not asked with the CLI's prompt parts`);
  }
  await page.waitForSelector(`#run-selection[data-answered="${n}"]`);
  await page.waitForSelector('#run-next-steps a[href="#results"]');
  await saveViewports(page, '#run-call-paths', 'call-paths-run');
  await saveViewports(page, '#run-message', 'call-paths-run-done');

  // A reload keeps the run; a second Run (the tasks built again) resumes
  // it and asks nothing.
  await page.reload();
  await page.waitForSelector('#task-kind-call-path');
  await page.check('#task-kind-call-path');
  await page.click('nav a[href="#tasks"]');
  await page.waitForSelector('#build-call-paths:not([disabled])', { timeout: 60000 });
  await page.click('#build-call-paths');
  await page.waitForFunction((k) => Number(document.querySelector('#call-path-count')?.dataset.count) === k, n, { timeout: 120000 });
  await page.click('nav a[href="#run"]');
  await page.waitForSelector(`#run-selection[data-selected="${n}"][data-answered="${n}"]`, { timeout: 30000 });
  const before = (await srvModel.get('/stats')).requests;
  await page.click('#run-start');
  await page.waitForFunction(() => /^Nothing to ask/.test(document.querySelector('#run-message')?.textContent || ''), null, { timeout: 60000 });
  assert.match(await page.textContent('#run-message'), new RegExp(`^Nothing to ask: ${n} selected call-path task\\(s\\) answered already by ${MODEL}`));
  assert.equal((await srvModel.get('/stats')).requests, before, 'a resumed run asked again');
  await page.click('nav a[href="#results"]');
  await page.waitForSelector(`#call-path-run[data-answers="${n}"]`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-call-path-run')]);
  assert.equal(download.suggestedFilename(), `ntoken_2048-call-path_${MODEL.replace('/', '_slash_')}.jsonl`);
  const outputs = path.join(TMP, 'run-outputs.jsonl');
  fs.copyFileSync(await download.path(), outputs);
  const lines = fs.readFileSync(outputs, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, n);
  for (const l of lines) {
    const { output, ...row } = l;
    assert.deepEqual(row, tasks.find((t) => t.source.name === row.source.name && t.target.name === row.target.name && t.repo === row.repo), 'an outputs row is not its task\'s');
    assert.equal(output.length, 1);
  }
  await page.click('#score-call-path-run');
  await page.waitForSelector('#call-path-pass');
  const cliScores = JSON.parse(execFileSync(BIN, ['score', '--task', 'call-path', '--dataset-path', DEMO,
    '--model-output-path', outputs, '--out', path.join(TMP, 'run-SCORES.json'), '--json'], { stdio: 'pipe' }).toString());
  assert.equal(Number(await page.getAttribute('#call-path-pass', 'data-pass')), cliScores['pass@1']);
  // The browser logs the 500 the server was told to give; nothing else.
  assert.deepEqual(problems.filter((p) => !/status of 500/.test(p)), []);
});
