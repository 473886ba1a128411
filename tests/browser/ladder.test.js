// The length ladder on the Leaderboard page (issue 51), in headless
// Chromium against the native CLI: one `repoqa run --code-context-size
// 1024,2048` against the test model server writes upstream's layout
// (`ntoken_<N>/`); the page reads that result directory (a folder pick)
// and shows, for the model, pass@1 by length with its interval by
// repository, the effective context length and the depth × length heatmap,
// each equal to `repoqa ladder --json` (at 0.8 and after the threshold
// moves); the heatmap's cells are read with the keyboard, each naming its
// count and interval. A depth grid's runs (`--depths`) add the grid table,
// each cell equal to the CLI's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serveDir } from './serve.js';
import { launch, openPage, gotoApp, saveViewports, DIST, ROOT } from './browser.js';
import { BIN, DEMO, open } from './results-fixture.js';
import { startModelServer, configure, runAndWait, idbDump, setField, KEY, MODEL } from './run-fixture.js';

let srv, model, context;
const work = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'repoqa-ladder-'));
const results = path.join(work, 'results');

before(async () => {
  model = await startModelServer(['--dataset', DEMO, '--key', KEY]);
  execFileSync(BIN, ['run', '--model', MODEL, '--backend', 'openai', '--base-url', `${model.url}/v1`,
    '--dataset-path', DEMO, '--code-context-size', '1024,2048', '--languages', 'python,go',
    '--result-dir', results, '--concurrency', '3', '--timeout-s', '30'],
  { env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ['ignore', 'ignore', 'inherit'] });
  srv = await serveDir(DIST);
  context = await launch();
});
after(async () => {
  await context?.close();
  srv?.server.close();
  model?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

function cliLadder(threshold, dir = results) {
  const out = execFileSync(BIN, ['ladder', '--result-dir', dir, '--threshold', String(threshold), '--json'], { encoding: 'utf8' });
  return JSON.parse(out).models;
}

/** The page's ladder of `model`, as its attributes say, once computed for `threshold`. */
async function pageLadder(page, threshold) {
  await page.waitForFunction((t) => document.querySelector('#lb-table')?.dataset.threshold === t
    && document.querySelector('#lb-ladder-card section.ladder') && !document.querySelector('#ladder-computing'),
  String(threshold), { timeout: 60000 });
  return page.$eval('#lb-ladder-card section.ladder', (s) => ({
    model: s.dataset.model,
    effective: s.dataset.effective,
    lengths: [...s.querySelectorAll('tr[data-ntoken]')].map((tr) => ({
      ntoken: Number(tr.dataset.ntoken), pass: Number(tr.dataset.pass), passed: Number(tr.dataset.passed),
      n: Number(tr.dataset.n), repo: tr.dataset.repoLow === '' ? null : [Number(tr.dataset.repoLow), Number(tr.dataset.repoHigh)],
      wilson: [Number(tr.dataset.wilsonLow), Number(tr.dataset.wilsonHigh)],
    })),
    heat: [...document.querySelectorAll('#chart-ladder-heatmap-svg rect.cell')].map((c) => [c.dataset.series, Number(c.dataset.bin), Number(c.dataset.passed), Number(c.dataset.n)]),
  }));
}

function assertEqualToCli(shown, cli) {
  assert.equal(cli.length, 1, 'the CLI found one model');
  const [l] = cli;
  assert.equal(shown.model, l.model);
  assert.equal(shown.effective, l.effective_length === null ? '' : String(l.effective_length));
  assert.deepEqual(shown.lengths, l.lengths.map((x) => ({
    ntoken: x.ntoken, pass: x['pass@1'], passed: x.passed, n: x.n, repo: x.ci_repos, wilson: x.ci_wilson,
  })));
  const cells = l.depth_by_length.flatMap((row) => row.cells.map((c, b) => [`${row.ntoken.toLocaleString('en-US')} tokens`, b, c.passed, c.n]));
  assert.deepEqual(shown.heat, cells);
}

test('a result directory of two lengths: the ladder equals `repoqa ladder --json`', async () => {
  const { page, problems } = await openPage(context);
  await gotoApp(page, srv.url, '#leaderboard');
  assert.match(await page.textContent('#ladder-empty'), /No model is loaded at two lengths/);
  await page.setInputFiles('#lb-folder', results);
  await page.waitForSelector('#lb-status');
  // The two SCORES files read, the outputs beside them named as not read.
  assert.equal(await page.textContent('#lb-status'), 'Loaded 2 files; 4 other files in the folder left alone (only -SCORES.json files are read).');
  const tokens = await page.$$eval('#lb-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.model, tr.dataset.ntoken]));
  assert.deepEqual(tokens.sort(), [[MODEL, '1024'], [MODEL, '2048']]);

  const shown = await pageLadder(page, 0.8);
  assertEqualToCli(shown, cliLadder(0.8));
  // The model at each length is a run of its own elsewhere on the page too: Missed needles names each file.
  const options = await page.$$eval('#lb-miss-model option', (os) => os.map((o) => [o.value, o.textContent]).filter(([v]) => v));
  assert.deepEqual(options.map(([, l]) => l).sort(), ['1024', '2048'].map((n) => `${MODEL} (results/ntoken_${n}/org_slash_test-model-SCORES.json)`));
  await page.selectOption('#lb-miss-model', options.find(([v]) => v.includes('ntoken_2048'))[0]);
  const missed = 20 - shown.lengths.find((l) => l.ntoken === 2048).passed;
  await page.waitForFunction((n) => document.querySelector('#lb-miss-count')?.textContent.startsWith(`${n} task(s) not passed`), missed);
  assert.equal(shown.lengths.length, 2);
  assert.ok(shown.lengths.every((l) => l.n === 20 && l.passed > 0 && l.passed < 20 && l.wilson[0] < l.pass && l.pass < l.wilson[1]), JSON.stringify(shown.lengths));
  assert.match(await page.textContent('#lb-ladder-card .ladder-effective'), /^Effective context length: 2,048 tokens\. Every length up to it keeps at least 90% of the 1,024-token pass@1/);

  // The heatmap by keyboard: one tab stop; Down moves a length, Right a depth bin.
  const first = page.locator('#chart-ladder-heatmap-svg rect.cell').first();
  await first.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const focused = await page.evaluate(() => {
    const e = document.activeElement;
    return { series: e.dataset.series, bin: e.dataset.bin, label: e.getAttribute('aria-label'), stops: document.querySelectorAll('#chart-ladder-heatmap-svg [tabindex="0"]').length };
  });
  assert.equal(focused.series, '2,048 tokens');
  assert.equal(focused.bin, '1');
  assert.equal(focused.stops, 1);
  assert.match(focused.label, /^2,048 tokens, depth 10–20%: (\d+ of \d+ passed \(.*95% CI .*Wilson\)|no tasks)$/);

  // Another threshold: the ladder follows, still the CLI's.
  await page.fill('#lb-threshold-num', '0.5');
  await page.dispatchEvent('#lb-threshold-num', 'change');
  assertEqualToCli(await pageLadder(page, 0.5), cliLadder(0.5));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a depth grid (`repoqa run --depths`): the grid and pooled lengths in the page equal `repoqa ladder --json`', async () => {
  const grid = path.join(work, 'results-grid');
  execFileSync(BIN, ['run', '--model', MODEL, '--backend', 'openai', '--base-url', `${model.url}/v1`,
    '--dataset-path', DEMO, '--code-context-size', '1024,2048', '--depths', '0,0.5,1', '--languages', 'python',
    '--result-dir', grid, '--concurrency', '3', '--timeout-s', '30'],
  { env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ['ignore', 'ignore', 'inherit'] });
  const cli = cliLadder(0.8, grid);
  const { page, problems } = await openPage(context);
  await gotoApp(page, srv.url, '#leaderboard');
  await page.setInputFiles('#lb-folder', grid);
  await page.waitForSelector('#lb-status');
  assert.match(await page.textContent('#lb-status'), /^Loaded 6 files;/);
  const shown = await pageLadder(page, 0.8);
  // Each length pools its three depths (30 tasks), as the CLI does.
  assertEqualToCli(shown, cli);
  assert.ok(shown.lengths.every((l) => l.n === 30), JSON.stringify(shown.lengths));
  const cells = await page.$$eval('#lb-ladder-card table.ladder-grid td[data-depth]', (tds) => tds.map((td) => ({
    depth: Number(td.dataset.depth), ntoken: Number(td.dataset.ntoken), pass: Number(td.dataset.pass),
    passed: Number(td.dataset.passed), n: Number(td.dataset.n),
  })));
  assert.deepEqual(cells, cli[0].depth_grid.map((c) => ({ depth: c.depth, ntoken: c.ntoken, pass: c['pass@1'], passed: c.passed, n: c.n })));
  assert.equal(cells.length, 6);
  // Rows are depths, columns lengths, as the caption says.
  assert.deepEqual(await page.$$eval('#lb-ladder-card table.ladder-grid tbody th', (ths) => ths.map((t) => t.textContent)), ['0%', '50%', '100%']);
  assert.match(await page.textContent('#lb-ladder-card table.ladder-grid caption'), /not upstream, --depths/);
  await saveViewports(page, '#lb-ladder-card table.ladder-grid', 'ladder-grid');
  assert.deepEqual(problems, []);
  await page.close();

  // One length at three depths is a ladder too: its grid, and no effective length to find.
  const one = await openPage(context);
  await gotoApp(one.page, srv.url, '#leaderboard');
  await one.page.setInputFiles('#lb-folder', path.join(grid, 'ntoken_1024'));
  await one.page.waitForSelector('#lb-status');
  assert.match(await one.page.textContent('#lb-status'), /^Loaded 3 files;/);
  const single = await pageLadder(one.page, 0.8);
  assert.deepEqual(single.lengths.map((l) => [l.ntoken, l.n]), [[1024, 30]]);
  assert.match(await one.page.textContent('#lb-ladder-card .ladder-effective'), /^One length only \(1,024 tokens\)/);
  const oneCells = await one.page.$$eval('#lb-ladder-card table.ladder-grid td[data-depth]', (tds) => tds.map((td) => [Number(td.dataset.depth), Number(td.dataset.ntoken), Number(td.dataset.passed), Number(td.dataset.n)]));
  assert.deepEqual(oneCells, cli[0].depth_grid.filter((c) => c.ntoken === 1024).map((c) => [c.depth, c.ntoken, c.passed, c.n]));
  await saveViewports(one.page, '#lb-ladder-card section.ladder', 'ladder-grid-one-length');
  assert.deepEqual(one.problems, []);
  await one.page.close();
});

// Walk round 2, major 6: a visitor with no API sees a ladder: the sample
// one shipped with the app (scripts/sample_ladder.py), labelled as not a
// model's, drawn as `repoqa ladder` computes it from the shipped folder.
test('the sample ladder: one click, labelled as a sample, the ladder `repoqa ladder` makes of the shipped files', async () => {
  const { page, problems } = await openPage(context);
  await gotoApp(page, srv.url, '#leaderboard');
  assert.match(await page.textContent('#ladder-empty'), /No model is loaded at two lengths/);
  assert.match(await page.textContent('#lb-ladder-card'), /written by this project \(not a model's replies\)/);
  await page.click('#lb-load-sample-ladder');
  const shown = await pageLadder(page, 0.8);
  assertEqualToCli(shown, cliLadder(0.8, path.join(ROOT, 'public', 'demo', 'sample-ladder')));
  assert.equal(shown.model, 'SAMPLE-ladder-not-a-model');
  assert.deepEqual(shown.lengths.map((l) => l.ntoken), [1024, 2048, 4096]);
  assert.match(await page.textContent('#lb-status'), /^Loaded the sample ladder \(SAMPLE-ladder-not-a-model\): answers written by this project/);
  assert.match(await page.textContent('#lb-ladder-card .ladder-effective'), /^Effective context length: 2,048 tokens\./);
  const rows = await page.$$eval('#lb-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.model, tr.dataset.ntoken]));
  assert.deepEqual(rows.map(([, n]) => n).sort(), ['1024', '2048', '4096']);
  assert.ok(rows.every(([m]) => m === 'SAMPLE-ladder-not-a-model'));
  // The CI column's dashes say why.
  assert.match(await page.textContent('#lb-ladder-card .ladder-no-repo-ci'), /needs two repositories or more in every language/);
  // A second click adds nothing.
  await page.click('#lb-load-sample-ladder');
  await page.waitForFunction(() => /^Loaded the sample ladder/.test(document.querySelector('#lb-status')?.textContent || ''));
  assert.equal(await page.$$eval('#lb-table tbody tr', (trs) => trs.length), 3);
  await saveViewports(page, '#lb-ladder-card section.ladder', 'ladder-sample');
  assert.deepEqual(problems, []);
  await page.close();
});

/** The demo built in the page at `size` tokens (a new build, waited for). */
async function buildAt(page, url, size) {
  await page.goto(url + '#dataset');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  if (!(await page.$('#dataset-summary'))) await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.fill('#ctx-size', size);
  await page.press('#ctx-size', 'Tab');
  await page.goto(url + '#tasks');
  await page.evaluate(() => { window.__repoqaBuild = null; });
  await page.click('#build-tasks');
  await page.waitForFunction(() => window.__repoqaBuild?.tasks === 60, null, { timeout: 120000 });
}

/** The Leaderboard's runs, by source. */
async function boardSources(page, url) {
  await page.goto(url + '#leaderboard');
  await page.waitForSelector('#lb-table tbody tr');
  return page.$$eval('#lb-table tbody tr', (trs) => trs.map((tr) => tr.dataset.source));
}

/** Is the element's box inside the viewport? */
const inView = (page, sel) => page.$eval(sel, (e) => {
  const r = e.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0;
});

test('runs in the page at two lengths: each kept as its own run, "Run at each length" in one go, and the ladder `repoqa run` makes', async () => {
  // The CLI's ladder: the demo's python tasks at 1024 and 2048 against the same server.
  const cliResults = path.join(work, 'results-python');
  execFileSync(BIN, ['run', '--model', MODEL, '--backend', 'openai', '--base-url', `${model.url}/v1`,
    '--dataset-path', DEMO, '--code-context-size', '1024,2048', '--languages', 'python',
    '--result-dir', cliResults, '--concurrency', '2', '--timeout-s', '30'],
  { env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ['ignore', 'ignore', 'inherit'] });
  const cli = cliLadder(0.8, cliResults);

  const fx = await open();
  try {
    const { page, srv: app } = fx;
    const asked = async (f) => {
      const before = (await model.get('/requests')).length;
      const end = await f();
      return { end, tasks: new Set((await model.get('/requests')).slice(before).map((r) => r.task).filter(Boolean)) };
    };
    // A run at 1,024 tokens, as Run asks it.
    await buildAt(page, app.url, '1024');
    await page.goto(app.url + '#run');
    await configure(page, model, { provider: 'openai', language: 'python' });
    const first = await asked(() => runAndWait(page));
    assert.equal(first.end, 'done');
    assert.equal(first.tasks.size, 10);

    // Rebuilt at 2,048: the 1,024 answers are still shown, and said to be of another length.
    await buildAt(page, app.url, '2048');
    await page.goto(app.url + '#results');
    await page.waitForSelector('#run-other-length');
    assert.equal(await page.textContent('#run-other-length'),
      `${MODEL}'s answers here were asked at 1,024 tokens; the tasks are built at 2,048 now. Their scores do not depend on the length, but they are not a run at 2,048: a run started now asks ${MODEL} at 2,048 tokens and keeps this one beside it.`);
    assert.ok(await inView(page, '#run-other-length'), 'the notice is on the first screen');
    await saveViewports(page, '#results', 'results-run-other-length');

    // "Run at each length", 1,024 and 2,048: the 1,024 run resumes (nothing asked
    // twice), every task is asked at 2,048 (before: "answered already", the
    // 1,024 answers taken for a run at 2,048).
    await page.goto(app.url + '#run');
    await page.waitForSelector('#run-selection[data-answered="0"]');
    await page.click('#run-lengths-box summary');
    await setField(page, '#run-lengths', '1024, 2048,x');
    await page.click('#run-at-lengths');
    assert.match(await page.textContent('#run-lengths-error'), /^Lengths: .*x/);
    await setField(page, '#run-lengths', '1024,2048');
    assert.equal(await page.$('#run-lengths-error'), null, 'the error goes when the lengths are typed again');
    const ladder = await asked(() => runAndWait(page, '#run-at-lengths'));
    const message = await page.textContent('#run-message');
    assert.equal(ladder.end, 'done', message);
    assert.equal(ladder.tasks.size, 10, message);
    assert.match(message, /^1,024: Nothing to ask: 10 selected task\(s\) answered already by org\/test-model\. 2,048: Done: .*Its run at 1,024 tokens is kept beside it.* Each length is a run of its own/);
    assert.equal(await page.getAttribute('#run-message', 'data-flawed'), 'false');
    await saveViewports(page, '#run-lengths-box', 'run-at-lengths');

    // Results: two runs of one model, told apart by length; the current one at the tasks' length.
    await page.goto(app.url + '#results');
    await page.waitForSelector('#run-switch-select');
    const labels = await page.$$eval('#run-switch-select option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(labels, [`${MODEL} at 1,024 tokens (10 answered)`, `${MODEL} at 2,048 tokens (10 answered)`]);
    assert.equal(await page.getAttribute('#run-switch-select', 'data-ntoken'), '2048');
    assert.equal(await page.$('#run-other-length'), null);
    const idb = await idbDump(page);
    assert.equal(idb['run-length'], '2048');
    assert.deepEqual(JSON.parse(idb['run-shelf']).map((r) => [r.model, r.ntoken, Object.keys(r.answers).length]), [[MODEL, 1024, 10]]);

    // The Leaderboard holds each run in its length's folder, and draws their ladder.
    const sources = await boardSources(page, app.url);
    assert.deepEqual(sources.filter((s) => s.startsWith('runs in this browser/')).sort(),
      ['1024', '2048'].map((n) => `runs in this browser/ntoken_${n}/org_slash_test-model-SCORES.json`));
    const shown = await pageLadder(page, 0.8);
    assert.equal(shown.model, cli[0].model);
    assert.equal(shown.effective, cli[0].effective_length === null ? '' : String(cli[0].effective_length));
    const pick = (ls) => ls.map((l) => [l.ntoken, l.pass, l.passed, l.n]);
    assert.deepEqual(pick(shown.lengths), cli[0].lengths.map((x) => [x.ntoken, x['pass@1'], x.passed, x.n]));

    // The current run sent from Results too, twice: still one row and one
    // ladder point per length (walk round 2, major 4: six rows before).
    await page.goto(app.url + '#results');
    for (let i = 0; i < 2; i++) {
      await page.click('#export-to-leaderboard');
      await page.waitForSelector('#export-status a[href="#leaderboard"]');
    }
    const both = await boardSources(page, app.url);
    assert.deepEqual(both.filter((s) => s.includes('test-model')).sort(),
      ['1024', '2048'].map((n) => `runs in this browser/ntoken_${n}/org_slash_test-model-SCORES.json`), JSON.stringify(both));
    assert.deepEqual(pick((await pageLadder(page, 0.8)).lengths), pick(shown.lengths));
    assert.equal(await page.$('#lb-ladder-card .error-box, #lb-ladder-card .fail'), null);

    // After a reload, straight to the Leaderboard (Results not opened): the
    // runs kept here reach it on their own, and so does their ladder.
    await page.goto(app.url + '#leaderboard');
    await page.reload();
    await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
    assert.deepEqual(pick((await pageLadder(page, 0.8)).lengths), pick(shown.lengths));
    const after = await page.$$eval('#lb-table tbody tr', (trs) => trs.map((tr) => tr.dataset.source));
    assert.deepEqual(after.filter((s) => s.includes('test-model')).sort(),
      ['1024', '2048'].map((n) => `runs in this browser/ntoken_${n}/org_slash_test-model-SCORES.json`));
    await saveViewports(page, '#lb-ladder-card section.ladder', 'ladder-after-reload');

    // Switched back to the 1024 run: its answers, said to be of another length.
    await page.goto(app.url + '#results');
    const at1024 = await page.$eval('#run-switch-select', (s) => [...s.options].find((o) => o.dataset.ntoken === '1024').value);
    await page.selectOption('#run-switch-select', at1024);
    await page.waitForSelector('#run-other-length');
    assert.equal(await page.getAttribute('#run-switch-select', 'data-ntoken'), '1024');
    // The server has no model list: the page's look at GET /v1/models is a 404 it reports as such.
    assert.deepEqual(fx.problems.filter((p) => !/Failed to load resource: the server responded with a status of 404/.test(p)), []);
  } finally {
    await fx.close();
  }
});
