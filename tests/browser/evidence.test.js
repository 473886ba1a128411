// Scores with their evidence (issue 26) in headless Chromium, against the
// native CLI on the same files:
// - Results: the loaded answers' pass@1 with its Wilson and bootstrap
//   intervals equals `repoqa leaderboard --ci` on the CLI's SCORES file of
//   the page's own outputs export, at two confidence levels.
// - Leaderboard: the intervals column of the 30 published files equals
//   `repoqa leaderboard --ci 0.95 --json`; the paired comparison of two
//   published runs equals `repoqa compare A B --json` (the 2×2 table per
//   language, McNemar's p, the difference and its intervals, the flipped
//   tasks); a file on other tasks is refused with the reason.
// Screenshots at 1280 and 390 px go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { chromium } from 'playwright-core';
import { launch, openPage, gotoApp, saveBothWidths, DIST, ROOT, ARTIFACTS } from './browser.js';
import { answeredDemo, cliScoresOfExport, close, BIN } from './results-fixture.js';

const PUBLISHED = path.join(ROOT, 'tests', 'fixtures', 'published-scores');
const work = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'repoqa-evidence-'));

function cli(args) {
  return JSON.parse(execFileSync(BIN, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

function published(name) {
  return path.join(PUBLISHED, `${name}-SCORES.json.gz`);
}

/** Open an HTML file with JavaScript off: its evidence rows and paired
 *  rows as data, the requests it made, and screenshots at both widths. */
async function openReport(file, stem) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const ctx = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto('file://' + file);
    const data = await page.evaluate(() => ({
      evidence: [...document.querySelectorAll('table.evidence tbody tr')].map((tr) => ({ ...tr.dataset })),
      paired: [...document.querySelectorAll('table.paired tbody tr')].map((tr) => ({ ...tr.dataset })),
      flipped: document.querySelectorAll('table.flipped tbody tr').length,
      svgs: document.querySelectorAll('svg').length,
      title: document.title,
    }));
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.screenshot({ path: path.join(ARTIFACTS, `${stem}-${width}.png`), fullPage: true });
    }
    return { ...data, requests };
  } finally {
    await browser.close();
  }
}

function publishedFiles() {
  return fs.readdirSync(PUBLISHED).filter((f) => f.endsWith('-SCORES.json.gz')).sort()
    .map((f) => path.join(PUBLISHED, f));
}

/** A `ci…` object's low/high, or nulls without an interval. */
const lh = (ci) => [ci?.low ?? null, ci?.high ?? null];
const num = (s) => (s === undefined || s === '' ? null : Number(s));
function assertClose(got, want, what) {
  assert.equal(got === null, want === null, `${what}: ${got} against ${want}`);
  if (want !== null) assert.ok(close(got, want), `${what}: ${got} against ${want}`);
}

test('results: the intervals of the loaded answers equal the CLI\'s', async () => {
  const fx = await answeredDemo();
  try {
    const { page } = fx;
    const { text } = await cliScoresOfExport(fx);
    const scores = path.join(work, 'model-SCORES.json');
    fs.writeFileSync(scores, text);
    for (const level of ['0.95', '0.9']) {
      await page.selectOption('#ci-level', level);
      await page.waitForSelector(`#ci-table[data-level="${level}"]`, { timeout: 10000 });
      const board = cli(['leaderboard', '--scores', scores, '--threshold', '0.8', '--ci', level, '--json']);
      const m = board.models[0];
      const rows = await page.$$eval('#ci-table tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
      assert.equal(rows.length, 1 + Object.keys(m.languages).length);
      for (const r of rows) {
        const key = r.row === 'all' ? null : r.row;
        const pick = (ci) => (key ? ci[key] : ci);
        assertClose(num(r.wilsonLow), lh(pick(m.ci))[0], `${r.row} Wilson low at ${level}`);
        assertClose(num(r.wilsonHigh), lh(pick(m.ci))[1], `${r.row} Wilson high`);
        assertClose(num(r.taskLow), lh(pick(m.ci_tasks))[0], `${r.row} by task low`);
        assertClose(num(r.taskHigh), lh(pick(m.ci_tasks))[1], `${r.row} by task high`);
        assertClose(num(r.repoLow), lh(pick(m.ci_repos))[0], `${r.row} by repository low`);
        assertClose(num(r.repoHigh), lh(pick(m.ci_repos))[1], `${r.row} by repository high`);
        if (key) assertClose(Number(r.pass), m.languages[key], `${r.row} pass@1`);
      }
      console.log(`results: ${rows.length} rows of intervals at ${level} equal repoqa leaderboard --ci`);
    }
    await saveBothWidths(page, '#intervals-card', 'evidence-results');

    // The run as an HTML report: it opens with JavaScript off, asks for
    // nothing, and shows the same intervals as the page (at 0.95).
    await page.selectOption('#ci-level', '0.95');
    const pageRows = await page.$$eval('#ci-table tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
    // The language chart's error bars are the same Wilson intervals.
    const bars = await page.$$eval('#chart-language-svg path.error-bar', (ps) => ps.map((p) => ({ ...p.dataset })));
    assert.equal(bars.length, pageRows.length);
    for (const b of bars) {
      const row = pageRows.find((r) => r.row === b.series);
      assert.ok(row, b.series);
      assert.deepEqual([b.low, b.high], [row.wilsonLow, row.wilsonHigh], `${b.series} error bar`);
    }
    const report = await fx.download(() => page.click('#export-report'));
    assert.equal(report.name, 'model-report.html');
    const shown = await openReport(report.path, 'evidence-report-results');
    assert.deepEqual(shown.requests, ['file://' + report.path]);
    assert.deepEqual(shown.evidence, pageRows);
    assert.equal(shown.svgs, 2);
    console.log(`report (results): ${shown.evidence.length} rows equal the page's, read with JavaScript off`);

    // A self-verifying bundle of the run: the CLI verifies it, and so does
    // the Verify page; an edited prompt hash is named there.
    const bundle = await fx.download(() => page.click('#export-bundle'));
    assert.equal(bundle.name, 'model.bundle.json');
    const cliOut = execFileSync(BIN, ['verify', '--bundle', bundle.path, '--dataset-path', path.join(ROOT, 'public', 'demo', 'repoqa-demo.json')], { encoding: 'utf8' });
    assert.match(cliOut, /60 prompts rebuilt/);
    assert.match(cliOut, /verified, no mismatch/);
    await page.goto(fx.srv.url + '#verify');
    await page.setInputFiles('#verify-bundle', bundle.path);
    await page.waitForSelector('#verify-bundle-ok[data-findings="0"]', { timeout: 30000 });
    await page.click('#verify-rescore');
    await page.waitForSelector('#verify-verdict[data-ok="true"]', { timeout: 60000 });
    await saveBothWidths(page, '#verify-bundle-card', 'evidence-bundle');
    const b = JSON.parse(bundle.bytes.toString('utf8'));
    const [task] = Object.keys(b.prompts);
    b.prompts[task] = '0'.repeat(64);
    const forged = path.join(work, 'forged.bundle.json');
    fs.writeFileSync(forged, JSON.stringify(b));
    await page.setInputFiles('#verify-bundle', forged);
    await page.waitForSelector('#verify-bundle-bad[data-findings="1"]', { timeout: 30000 });
    const listed = await page.textContent('#verify-bundle-findings');
    assert.ok(listed.includes(`prompt of task ${task}`), listed);
    console.log('bundle: the page\'s bundle verifies in the CLI and on the Verify page; a forged prompt hash is named');
    await page.goto(fx.srv.url + '#results');

    // The answers join the Leaderboard's runs, to be compared there.
    await page.click('#export-to-leaderboard');
    await page.waitForSelector('#export-status a[href="#leaderboard"]');
    await page.click('#export-status a[href="#leaderboard"]');
    await page.waitForSelector('#lb-table tbody tr[data-model="model"]', { timeout: 10000 });
    const key = 'your answers/model-SCORES.json\u001fmodel';
    await page.selectOption('#cmp-a', key);
    await page.selectOption('#cmp-b', key);
    await page.waitForSelector('#cmp-table tbody tr[data-row="all"]', { timeout: 10000 });
    assert.equal(await page.textContent('#cmp-flipped-title'), '0 task(s) flipped');

    // A second run of your own, one passing answer changed: the flipped
    // task opens both answers side by side, as each run had them.
    await page.goto(fx.srv.url + '#results');
    const passing = await page.getAttribute('tr.task-row[data-pass="true"]', 'data-task-id');
    await fx.typeAnswer(passing, 'no idea');
    await page.goto(fx.srv.url + '#results');
    await page.fill('#model-name', 'model-b');
    await page.click('#export-to-leaderboard');
    await page.click('#export-status a[href="#leaderboard"]');
    await page.waitForSelector('#lb-table tbody tr[data-model="model-b"]', { timeout: 10000 });
    await page.selectOption('#cmp-b', 'your answers/model-b-SCORES.json\u001fmodel-b');
    await page.waitForFunction(() => document.querySelector('#cmp-flipped-title')?.textContent === '1 task(s) flipped', null, { timeout: 10000 });
    await page.click('#cmp-flipped tbody tr.flip button.flip-details');
    await page.waitForSelector('#cmp-flipped .side[data-side="B"] pre.answer');
    const [answerA, answerB] = await page.$$eval('#cmp-flipped .side pre.answer', (ps) => ps.map((p) => p.textContent));
    assert.equal(answerB, 'no idea');
    assert.ok(answerA.length > 20 && answerA !== answerB, answerA);
    await saveBothWidths(page, '#cmp-flipped', 'evidence-own-answers');
    console.log(`compare: your own two runs differ on ${passing}; both answers side by side`);
    assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
  } finally {
    await fx.close();
  }
});

let srv, context;
before(async () => {
  srv = await serveDir(DIST);
  context = await launch();
});
after(async () => {
  await context?.close();
  srv?.server.close();
});

test('leaderboard: the intervals column and the paired comparison equal the CLI\'s', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#leaderboard');
  await page.click('#lb-load-published');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  await page.waitForFunction(() => /^Loaded /.test(document.querySelector('#lb-status')?.textContent || ''));
  assert.equal(await page.textContent('#lb-status'), 'Loaded 30 published files.');
  // Asked again: the same 30 rows, and words that say so (never "Loaded 0").
  await page.click('#lb-load-published');
  await page.waitForFunction(() => /loaded already/.test(document.querySelector('#lb-status')?.textContent || ''));
  assert.equal(await page.textContent('#lb-status'), 'The 30 published files are loaded already.');
  assert.equal(await page.$$eval('#lb-table tbody tr', (r) => r.length), 30);

  // The intervals of all 30 models, computed a model at a time.
  const t0 = Date.now();
  // The checkbox promises what shows: one column (by repository), the
  // other two intervals in each cell's title.
  assert.match(await page.textContent('label:has(#lb-ci)'), /^ Intervals: bootstrap by repository \(the one to quote\); Wilson and bootstrap by task in each interval's title$/);
  await page.check('#lb-ci');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table td[data-repo-low]').length === 30, null, { timeout: 120000 });
  const ms = Date.now() - t0;
  const board = cli(['leaderboard', '--threshold', '0.8', '--ci', '0.95', '--json', '--scores', ...publishedFiles()]);
  const cells = await page.$$eval('#lb-table tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
    const td = tr.querySelector('td[data-repo-low]');
    return [tr.dataset.model, { low: Number(td.dataset.repoLow), high: Number(td.dataset.repoHigh),
      all: Number(tr.querySelector('td[data-all]').dataset.all) }];
  })));
  for (const m of board.models) {
    const c = cells[m.model];
    assert.ok(c, m.model);
    assertClose(c.low, m.ci_repos.low, `${m.model} repository low`);
    assertClose(c.high, m.ci_repos.high, `${m.model} repository high`);
  }
  console.log(`leaderboard: 30 repository intervals equal repoqa leaderboard --ci (computed in ${ms} ms)`);
  await saveBothWidths(page, '#lb-table', 'evidence-leaderboard');

  // Two published runs, task by task.
  const [a, b] = ['claude-3-opus-20240229', 'gpt-4o-2024-05-13'];
  await page.selectOption('#cmp-a', `published/${a}-SCORES.json.gz\u001f${a}`);
  await page.selectOption('#cmp-b', `published/${b}-SCORES.json.gz\u001f${b}`);
  await page.waitForSelector('#cmp-table tbody tr', { timeout: 30000 });
  const want = cli(['compare', published(a), published(b), '--threshold', '0.8', '--json']);
  const rows = await page.$$eval('#cmp-table tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  assert.equal(rows.length, 1 + Object.keys(want.languages).length);
  for (const r of rows) {
    const w = r.row === 'all' ? want : want.languages[r.row];
    assert.deepEqual([r.both, r.onlyA, r.onlyB, r.neither].map(Number), [w.both, w.only_a, w.only_b, w.neither], r.row);
    assertClose(Number(r.p), w.mcnemar_p, `${r.row} McNemar p`);
    assertClose(Number(r.difference), w.difference, `${r.row} difference`);
    assertClose(num(r.taskLow), lh(w.ci_tasks)[0], `${r.row} by task low`);
    assertClose(num(r.taskHigh), lh(w.ci_tasks)[1], `${r.row} by task high`);
    assertClose(num(r.repoLow), lh(w.ci_repos)[0], `${r.row} by repository low`);
    assertClose(num(r.repoHigh), lh(w.ci_repos)[1], `${r.row} by repository high`);
  }
  // The flipped tasks: the same set (the list pages by 100).
  const flips = await page.$$eval('#cmp-flipped tbody tr.flip', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  assert.equal(await page.textContent('#cmp-flipped-title'), `${want.flipped.length} task(s) flipped`);
  assert.equal(flips.length, Math.min(100, want.flipped.length));
  const key = (f) => `${f.language}::${f.repo}::${f.name}`;
  const wantKeys = want.flipped.map(key);
  assert.deepEqual(flips.map(key), wantKeys.slice(0, flips.length));
  for (const [i, f] of flips.entries()) {
    assert.equal(f.a, String(want.flipped[i].a));
    assertClose(Number(f.aSimilarity), want.flipped[i].a_similarity, `${key(f)} A similarity`);
    assertClose(Number(f.bSimilarity), want.flipped[i].b_similarity, `${key(f)} B similarity`);
  }
  // Ordered by similarity change: the largest first.
  await page.click('#lb-paired-card button[data-sort="change"]');
  const changes = await page.$$eval('#cmp-flipped tbody tr.flip', (trs) => trs.map((tr) => Math.abs(Number(tr.dataset.bSimilarity) - Number(tr.dataset.aSimilarity))));
  assert.deepEqual(changes, [...changes].sort((x, y) => y - x));
  // One opens both sides.
  await page.click('#cmp-flipped tbody tr.flip button.flip-details');
  await page.waitForSelector('#cmp-flipped tr.flip-detail .side-by-side .side >> nth=1');
  const sides = await page.$$eval('#cmp-flipped tr.flip-detail .side h4', (hs) => hs.map((h) => h.textContent));
  assert.deepEqual(sides, [`A: ${a}`, `B: ${b}`]);
  console.log(`compare: ${a} vs ${b}: table, p = ${want.mcnemar_p.toFixed(4)}, intervals and ${want.flipped.length} flipped tasks equal repoqa compare`);
  await saveBothWidths(page, '#lb-paired-card', 'evidence-compare');

  // The comparison as an HTML report: the same bytes as `repoqa report`,
  // and it reads with JavaScript off.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#cmp-report')]);
  const pageReport = fs.readFileSync(await dl.path(), 'utf8');
  assert.equal(dl.suggestedFilename(), `${a}-vs-${b}-report.html`);
  const cliReport = path.join(work, 'cli-report.html');
  execFileSync(BIN, ['report', '--scores', published(a), published(b), '--compare', '--threshold', '0.8', '--ci', '0.95', '--out', cliReport], { stdio: 'pipe' });
  assert.equal(pageReport, fs.readFileSync(cliReport, 'utf8'), 'the page\'s report equals repoqa report byte for byte');
  const pageFile = path.join(work, 'page-report.html');
  fs.writeFileSync(pageFile, pageReport);
  const shown = await openReport(pageFile, 'evidence-report-compare');
  assert.deepEqual(shown.requests, ['file://' + pageFile]);
  assert.equal(shown.flipped, want.flipped.length);
  for (const r of shown.paired) {
    const w = r.row === 'all' ? want : want.languages[r.row];
    assert.deepEqual([r.both, r.onlyA, r.onlyB, r.neither].map(Number), [w.both, w.only_a, w.only_b, w.neither], r.row);
    assertClose(num(r.repoLow), lh(w.ci_repos)[0], `report ${r.row} by repository low`);
  }
  console.log(`report (compare): ${pageReport.length} bytes, byte-identical to repoqa report, read with JavaScript off`);

  // A run on other tasks is refused, naming them.
  const text = zlib.gunzipSync(fs.readFileSync(published(b))).toString('utf8');
  const v = JSON.parse(text);
  const gone = v[b].results.rust.pop();
  v['trimmed-run'] = v[b];
  delete v[b];
  const trimmed = path.join(work, 'trimmed-run-SCORES.json');
  fs.writeFileSync(trimmed, JSON.stringify(v));
  await page.setInputFiles('#lb-files', trimmed);
  await page.waitForSelector('#lb-table tbody tr[data-model="trimmed-run"]', { timeout: 30000 });
  await page.selectOption('#cmp-b', `trimmed-run-SCORES.json\u001ftrimmed-run`);
  await page.waitForSelector('#cmp-error', { timeout: 10000 });
  const error = await page.textContent('#cmp-error');
  assert.match(error, /not on the same tasks/);
  assert.ok(error.includes(`rust::${gone.repo}::${gone.name}`), error);
  assert.deepEqual(problems, [], 'console errors or panics in the page');
});
