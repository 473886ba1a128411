// What a new user trips over (issue 12), one check per item, on a fresh
// browser profile with the demo: sample answers on a first visit (14) that
// score like `repoqa score`, a details panel that lands in view and takes
// the focus (1), no emoji-font symbols (8), "found by" in words (7),
// download names after the dataset, settings and model (6), charts that use
// their card's width (13), layouts that fit from 390 px (12), the same
// dataset compressed keeps the built tasks (2) and its name shows (9), a
// wrong kind of file says where it goes (10), the needle located in every
// comment-cleaning task view (3), navigation that lands at the top and
// returns to the list's filter and place (4), and Home and About agreeing
// on the tokenizer (11). Screenshots go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { freshPage, gotoApp as gotoAppAt, saveScreenshot, saveViewports, DIST, ROOT } from './browser.js';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const DEMO = path.join(ROOT, 'public', 'demo', 'repoqa-demo.json');
const SAMPLES = path.join(ROOT, 'public', 'demo', 'sample-answers.jsonl');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-newuser-'));

let srv;
before(async () => { srv = await serveDir(DIST); });
after(() => { srv?.server.close(); fs.rmSync(TMP, { recursive: true, force: true }); });
const gotoApp = (page, hash) => gotoAppAt(page, srv.url, hash);

/** Build the loaded dataset's tasks on the Tasks page; the stats line. */
async function build(page) {
  await gotoApp(page, '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats', { timeout: 120000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 120000 });
  // The build time is said once: on the stats line, not on the job line too.
  const line = await page.textContent('#job-message');
  assert.doesNotMatch(line, /\d s\b|\d ms\b/, `job line: ${line}`);
  return page.textContent('#build-stats');
}

async function download(page, selector) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: d.suggestedFilename(), text: fs.readFileSync(await d.path(), 'utf8') };
}

/** The page is no wider than the window (nothing pushes it sideways). */
async function fitsWidth(page) {
  return page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
}

test('first visit: sample answers, details in view, words not internals, names, charts, 390 px', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await build(page);

  // 14: the demo's sample answers are offered and score like the CLI.
  await gotoApp(page, '#results');
  await page.waitForSelector('#load-samples', { timeout: 30000 });
  await page.click('#load-samples');
  await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 30000 });
  const imported = Number(await page.getAttribute('#import-status', 'data-imported'));
  const sampleLines = fs.readFileSync(SAMPLES, 'utf8').trim().split('\n').length;
  assert.equal(imported, sampleLines);
  assert.match(await page.textContent('#import-status'), /SAMPLE/);
  // 5: the summary says what the import did, not "re-scored 0".
  const summary = await page.textContent('#answer-summary');
  assert.match(summary, new RegExp(`the import scored ${imported} answer`), summary);
  assert.doesNotMatch(summary, /re-scored 0/);
  await page.waitForSelector('#score-table', { timeout: 30000 });
  // The tasks the samples do not answer count as failures by default, as
  // `repoqa run` counts them; left out, the table is `repoqa score`'s.
  const unanswered = 60 - sampleLines;
  await page.waitForSelector(`#unanswered-note[data-count="${unanswered}"][data-scoring="failures"]`);
  assert.equal(await page.getAttribute('#score-table tr[data-row="all"] td[data-n]', 'data-n'), '60');
  await page.selectOption('#opt-unanswered', 'left out');
  await page.waitForSelector('#unanswered-note[data-scoring="left out"]');
  // The page's outputs export (official format) scored by the CLI.
  const cliScores = path.join(TMP, 'samples-SCORES.json');
  const outputs = path.join(TMP, 'samples.jsonl');
  const exported = await download(page, '#export-outputs');
  assert.equal(exported.name, 'SAMPLE-answers-not-a-model.jsonl');
  fs.writeFileSync(outputs, exported.text);
  execFileSync(BIN, ['score', '--model-output-path', outputs, '--dataset-path', DEMO, '--out', cliScores], { stdio: 'pipe' });
  const cli = Object.values(JSON.parse(fs.readFileSync(cliScores, 'utf8')))[0];
  const pageScores = await download(page, '#export-scores');
  const mine = Object.values(JSON.parse(pageScores.text))[0];
  assert.deepEqual(mine.scores, cli.scores, 'the page scores the samples as the CLI does');
  console.log(`sample answers: ${imported} imported; pass@1 at 0.8 (all) ${cli.scores.all['0.8']['pass@1']}, same as the CLI`);

  // Issue 11: name-match beside BLEU, equal to `repoqa name-match` on the
  // same outputs, with its unreliable matches flagged.
  const nm = JSON.parse(execFileSync(BIN, ['name-match', '--model-output-path', outputs, '--dataset-path', DEMO, '--json'], { encoding: 'utf8' }));
  await page.waitForSelector('#name-match-table');
  assert.equal(Number(await page.getAttribute('#name-match-table', 'data-overall')), nm.overall);
  for (const [lang, rate] of Object.entries(nm.languages)) {
    const row = await page.$eval(`#name-match-table tr[data-lang="${lang}"]`, (tr) => Number(tr.dataset.found) / Number(tr.dataset.n));
    assert.ok(Math.abs(row - rate) < 1e-12, `${lang}: page ${row}, CLI ${rate}`);
  }
  const flaggedCli = nm.tasks.filter((x) => x.warnings.length > 0).map((x) => x.name).sort();
  const flaggedPage = (await page.$$eval('#name-match-flagged li', (lis) => lis.map((li) => li.dataset.name))).sort();
  assert.deepEqual(flaggedPage, flaggedCli);
  console.log(`name-match of the samples: ${nm.overall} overall (page = CLI), ${flaggedCli.length} flagged`);

  // 6: downloads are named after the model, the dataset and the settings.
  assert.equal(pageScores.name, 'SAMPLE-answers-not-a-model-SCORES.json');
  await gotoApp(page, '#tasks');
  const tasksFile = await download(page, '#download-tasks');
  assert.equal(tasksFile.name, 'repoqa-demo_ntoken_16384-tasks.jsonl');

  // 8: no symbol that needs an emoji font, on any page.
  for (const hash of ['', '#tasks', '#results', '#leaderboard', '#verify', '#about']) {
    await gotoApp(page, hash);
    await page.waitForTimeout(200);
    const text = await page.evaluate(() => document.body.innerText);
    // Characters drawn as emoji (or, without an emoji font, as empty boxes).
    const emoji = text.match(/\p{Emoji_Presentation}|[\u2605\u2606\u2B50]/u);
    assert.equal(emoji, null, `${hash || 'home'} shows ${emoji}`);
  }

  // 1: Details lands in view with the focus, the page does not shift sideways.
  await gotoApp(page, '#results');
  await page.waitForSelector('#task-results tr.task-row');
  await page.click('#task-results tr.task-row >> nth=5 >> button.details');
  await page.waitForSelector('#task-detail');
  // Scrolled into view with the focus in it: wait for that, not for a time.
  await page.waitForFunction(() => {
    const r = document.querySelector('#task-detail').getBoundingClientRect();
    return r.top >= -1 && r.top < window.innerHeight && document.activeElement?.closest('#task-detail') !== null;
  }, null, { timeout: 10000 }).catch(() => {});
  const placed = await page.evaluate(() => {
    const r = document.querySelector('#task-detail').getBoundingClientRect();
    return { top: r.top, inner: window.innerHeight, x: window.scrollX,
      focus: document.activeElement?.closest('#task-detail') !== null };
  });
  assert.ok(placed.top >= -1 && placed.top < placed.inner, `details at ${placed.top} px, window ${placed.inner}`);
  assert.ok(placed.focus, 'the focus moved into the details');
  assert.equal(placed.x, 0);
  const card = await page.evaluate(() => {
    const c = document.querySelector('#task-results-card');
    return { scroll: c.scrollWidth, client: c.clientWidth };
  });
  assert.ok(card.scroll <= card.client, `the table is wider than its card: ${card.scroll} > ${card.client}`);
  // 7: how the function was found, in words.
  const detail = await page.textContent('#task-detail');
  // The detail line writes the similarity as the table does.
  const rowSim = await page.$$eval('#task-results tr.task-row', (trs) => trs[5].children[3].textContent);
  assert.match(detail, new RegExp(`\\(similarity ${rowSim.replace('.', '\\.')}\\)`), `detail: ${detail.slice(0, 200)}; row: ${rowSim}`);
  assert.match(detail, /Found by: /);
  assert.doesNotMatch(detail, /Function \{|block: \d|\{ *\w+: /);
  await saveScreenshot(page, 'newuser-details-1280.png');

  // 13: the charts use their card's width.
  const charts = await page.$$eval('figure.chart svg', (svgs) => svgs.map((s) => ({
    w: s.getBoundingClientRect().width, card: s.closest('.card').clientWidth })));
  assert.ok(charts.length >= 3);
  for (const c of charts) assert.ok(c.w >= 0.8 * Math.min(c.card - 40, 960), `chart ${c.w} px in a ${c.card} px card`);
  // 13: a series can be hidden and shown again.
  const lines = () => page.$$eval('#chart-depth-svg polyline', (ps) => ps.length);
  const before = await lines();
  await page.uncheck('.series-toggle input[data-series="python"]');
  assert.equal(await lines(), before - 1, 'python hidden');
  await page.check('.series-toggle input[data-series="python"]');
  assert.equal(await lines(), before, 'python shown again');
  await saveScreenshot(page, 'newuser-results-1280.png');

  // 12: every page fits a 390 px phone (tables scroll inside their cards).
  await page.setViewportSize({ width: 390, height: 844 });
  for (const hash of ['', '#dataset', '#tasks', '#results', '#leaderboard', '#verify', '#curate', '#about']) {
    await gotoApp(page, hash);
    await page.waitForTimeout(300);
    const w = await fitsWidth(page);
    assert.ok(w.scroll <= w.inner, `${hash || 'home'} is ${w.scroll} px wide at ${w.inner} px`);
  }
  await gotoApp(page, '#results');
  await saveScreenshot(page, 'newuser-results-390.png');
  await gotoApp(page, '#tasks');
  await saveScreenshot(page, 'newuser-tasks-390.png');
  assert.deepEqual(problems, [], 'console errors or panics in the page');
});

test('same dataset compressed keeps the tasks; names show; wrong files say where they go', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await build(page);
  const built = Number(await page.getAttribute('#task-count', 'data-count'));
  assert.equal(built, 60);

  // 2 and 9: the demo again, gzipped: the same content, so the tasks stay.
  const gz = path.join(TMP, 'repoqa-demo.json.gz');
  fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(DEMO)));
  await gotoApp(page, '#dataset');
  await page.setInputFiles('#dataset-file', gz);
  await page.waitForFunction(() => /repoqa-demo\.json\.gz/.test(document.querySelector('#dataset-origin')?.textContent || ''), null, { timeout: 60000 });
  assert.match(await page.textContent('#dataset-file-name'), /repoqa-demo\.json\.gz/);
  await gotoApp(page, '#tasks');
  await page.waitForSelector('#task-count[data-count="60"]', { timeout: 30000 }).catch(() => {});
  assert.equal(Number(await page.getAttribute('#task-count', 'data-count')), 60, 'the built tasks were thrown away');

  // 10: an outputs JSONL dropped as a dataset is recognised.
  const outputs = path.join(TMP, 'answers.jsonl');
  fs.copyFileSync(SAMPLES, outputs);
  await gotoApp(page, '#dataset');
  await page.setInputFiles('#dataset-file', outputs);
  await page.waitForSelector('#dataset-error', { timeout: 30000 });
  const err = await page.textContent('#dataset-error');
  assert.match(err, /outputs/i);
  assert.match(err, /Results/);
  assert.doesNotMatch(err, /trailing characters/);
  console.log(`outputs file given as a dataset: ${err.trim()}`);

  // 2: with answers but no tasks, export is off and the page says why.
  await gotoApp(page, '#results');
  await page.fill('#import-text', fs.readFileSync(SAMPLES, 'utf8'));
  await page.click('#import-pasted');
  await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 30000 });
  const other = path.join(TMP, 'other.json');
  const ds = JSON.parse(fs.readFileSync(DEMO, 'utf8'));
  const lang = Object.keys(ds)[0];
  fs.writeFileSync(other, JSON.stringify({ [lang]: [ds[lang][0]] }));
  await gotoApp(page, '#dataset');
  await page.setInputFiles('#dataset-file', other);
  await page.waitForFunction(() => /other\.json/.test(document.querySelector('#dataset-origin')?.textContent || ''), null, { timeout: 60000 });
  await gotoApp(page, '#results');
  await page.waitForSelector('#answers-kept', { timeout: 30000 });
  assert.equal(await page.isDisabled('#export-outputs'), true);

  // 11: Home and About say the same about the tokenizer.
  await gotoApp(page, '');
  const home = await page.textContent('main');
  await gotoApp(page, '#about');
  await page.waitForSelector('#selfcheck:not([data-status="loading"])', { timeout: 60000 });
  const about = await page.textContent('main');
  assert.match(home, /tokenizer \(tokenizer\.json\) is served with it and loaded from that file/);
  assert.doesNotMatch(home, /tokenizer (is|are) (compiled|built) into/i);
  assert.match(about, /tokenizer\.json/);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), [], 'console errors or panics in the page');
});

test('cleaning modes: every task view finds its needle; navigation lands at the top and comes back', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await build(page);
  for (const mode of ['positional_padding', 'no_padding']) {
    await gotoApp(page, '#dataset');
    await page.selectOption('#comment-mode', mode);
    await gotoApp(page, '#tasks');
    // 5: the settings changed: the page says so until a build starts.
    await page.waitForSelector('#tasks-stale');
    await page.click('#build-tasks');
    await page.waitForSelector('#job[data-state="running"]', { timeout: 10000 }).catch(() => {});
    // One look at the DOM (a build may end between two looks).
    const seen = await page.evaluate(() => ({
      running: document.querySelector('#job[data-state="running"]') !== null,
      stale: document.querySelector('#tasks-stale') !== null,
      stats: document.querySelector('#build-stats') !== null,
    }));
    if (seen.running) {
      assert.equal(seen.stale, false, 'a stale warning beside a running build');
      assert.equal(seen.stats, false, 'the last build\'s figures beside a running build');
    }
    await page.waitForSelector('#build-stats', { timeout: 120000 });
    const stats = await page.textContent('#build-stats');
    console.log(`comment mode ${mode}, demo in Chromium: ${stats.trim()}`);
    // The demo's contexts, far under the 16,384 tokens asked, are said to
    // be so, with why, beside the size (their range is the tasks' own).
    const range = await page.$eval('#context-range', (e) => ({ ...e.dataset, text: e.textContent }));
    assert.equal(range.size, '16384');
    assert.ok(Number(range.short) > 0 && Number(range.min) < 16384 * 0.9, JSON.stringify(range));
    assert.match(range.text, new RegExp(`^(${range.short} of the 60|All 60) tasks hold fewer tokens than the 16,384 asked \\(the fewest [\\d,]+\\): their repositories have less code than the window`));
    if (mode === 'no_padding') await saveViewports(page, '#build-card', 'tasks-context-range');
    const ids = await page.$$eval('tr.task-row', (rs) => rs.map((r) => r.dataset.taskId));
    assert.ok(ids.length > 0);
    // 3: the needle is located in each task view of the first page.
    for (const id of ids) {
      await gotoApp(page, `#task/${encodeURIComponent(id)}`);
      // The engine says where the needle is: wait for its answer.
      await page.waitForSelector('#task-view:not([data-needle-found="pending"]) #jump-needle', { timeout: 60000 });
      assert.equal(await page.getAttribute('#task-view', 'data-needle-found'), 'true', `${mode}: ${id}: needle not located`);
      assert.equal(await page.isDisabled('#jump-needle'), false, `${mode}: ${id}: "Go to the needle" disabled`);
      assert.equal(await page.$('#needle-missing'), null, `${mode}: ${id}: needle not found`);
    }
  }

  // 4: from a filtered, scrolled list into a task: at its top; back: the same list.
  await page.setViewportSize({ width: 1280, height: 420 });
  await gotoApp(page, '#tasks');
  await page.selectOption('#filter-lang', 'cpp');
  await page.waitForFunction(() => [...document.querySelectorAll('tr.task-row')].every((r) => r.dataset.taskId.startsWith('cpp::')), null, { timeout: 10000 }).catch(() => {});
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.waitForFunction(() => window.scrollY > 200, null, { timeout: 10000 }).catch(() => {});
  const listY = await page.evaluate(() => window.scrollY);
  assert.ok(listY > 200, 'the list is long enough to scroll');
  const rows = await page.$$eval('tr.task-row', (rs) => rs.map((r) => r.dataset.taskId));
  assert.ok(rows.every((id) => id.startsWith('cpp::')));
  await page.click('tr.task-row >> nth=-1 >> a');
  await page.waitForSelector('#task-view');
  await page.waitForFunction(() => window.scrollY === 0, null, { timeout: 10000 }).catch(() => {});
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'the task view opens at its top');
  await page.goBack();
  await page.waitForSelector('tr.task-row');
  await page.waitForFunction((n) => document.querySelector('#filter-lang')?.value === 'cpp'
    && document.querySelectorAll('tr.task-row').length === n, rows.length, { timeout: 10000 }).catch(() => {});
  assert.equal(await page.$eval('#filter-lang', (s) => s.value), 'cpp', 'the filter is kept');
  const back = await page.$$eval('tr.task-row', (rs) => rs.map((r) => r.dataset.taskId));
  assert.deepEqual(back, rows, 'the same rows');
  await page.waitForFunction((ly) => Math.abs(window.scrollY - ly) < 50, listY, { timeout: 10000 }).catch(() => {});
  const y = await page.evaluate(() => window.scrollY);
  assert.ok(Math.abs(y - listY) < 50, `back at ${y} px, was ${listY} px`);
  assert.deepEqual(problems, [], 'console errors or panics in the page');
});

/** The element's box lies inside the window (what a person sees without scrolling). */
async function inViewport(page, selector) {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  });
}

test('Results opens with the score: pass@1 at the threshold, n, the interval, what fails, the charts one move away', async (t) => {
  const { page, problems } = await freshPage(t);
  for (const [width, height, scheme] of [[1280, 800, 'light'], [390, 844, 'dark']]) {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: scheme });
    await gotoApp(page, '#');
    await page.waitForSelector('#try-demo:not([disabled])[aria-disabled="false"]', { timeout: 60000 });
    await page.click('#try-demo');
    await page.waitForFunction(() => location.hash === '#results', null, { timeout: 120000 });
    await page.waitForSelector('#score-headline', { timeout: 60000 });
    await page.evaluate(() => window.scrollTo(0, 0));
    // The number, in the first screen, equal to the table's "all languages" cell at 0.8.
    assert.ok(await inViewport(page, '#headline-pass'), `the score is on the first screen at ${width} px`);
    assert.ok(await inViewport(page, '#results-jumps'), `the jump links are on the first screen at ${width} px`);
    const cell = await page.$eval('#score-table tr[data-row="all"] td[data-threshold="0.8"]', (td) => ({ text: td.textContent, passed: td.dataset.passed }));
    const pass = await page.textContent('#headline-pass');
    assert.equal(pass, `pass@1 ${cell.text} %`);
    const h = await page.$eval('#score-headline', (el) => ({ ...el.dataset }));
    assert.equal(h.passed, cell.passed);
    assert.equal(h.n, '60');
    assert.equal(h.threshold, '0.8');
    const counts = await page.textContent('#headline-counts');
    assert.match(counts, new RegExp(`^${cell.passed} of 60 tasks pass at threshold 0\\.8 \\(95 % Wilson interval \\d+\\.\\d–\\d+\\.\\d %\\)\\.$`));
    // The demo's partial answers, said plainly: both rates.
    const sampleLines = fs.readFileSync(SAMPLES, 'utf8').trim().split('\n').length;
    const answered = await page.textContent('#headline-answered');
    const pct = (100 * Number(cell.passed) / sampleLines).toFixed(1);
    assert.equal(answered, `Of the ${sampleLines} answered, ${cell.passed} pass: ${pct} %.`);
    assert.match(await page.textContent('#headline-rule'), new RegExp(`the ${60 - sampleLines} tasks without an answer count as failures`));
    assert.match(await page.textContent('#headline-demo'), new RegExp(`demo's ${sampleLines} sample answers.*not a model's: they answer ${sampleLines} of its 60 tasks`));
    await saveScreenshot(page, `results-headline-${width}-${scheme}.png`);
    // One move to the charts: in view, with the focus.
    await page.click('#results-jumps button[data-target="charts-card"]');
    await page.waitForFunction(() => document.activeElement?.id === 'charts-card', null, { timeout: 10000 });
    await page.waitForFunction(() => { const r = document.getElementById('charts-card').getBoundingClientRect(); return r.top >= -1 && r.top < window.innerHeight / 2; }, null, { timeout: 10000 });
    // Nothing sideways on a phone.
    const fit = await fitsWidth(page);
    assert.ok(fit.scroll <= fit.inner, `page ${fit.scroll} px wide in a ${fit.inner} px window`);
  }
  // Another threshold: the headline follows the table.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.fill('#opt-threshold', '0.5');
  await page.dispatchEvent('#opt-threshold', 'change');
  await page.waitForSelector('#score-headline[data-threshold="0.5"]', { timeout: 10000 });
  const cell5 = await page.$eval('#score-table tr[data-row="all"] td[data-threshold="0.5"]', (td) => td.dataset.passed);
  assert.equal(await page.getAttribute('#score-headline', 'data-passed'), cell5);
  // Out of range or empty: refused where it was typed, the results keep their threshold and say it.
  for (const bad of ['1.5', '-1', '']) {
    await page.fill('#opt-threshold', bad);
    await page.dispatchEvent('#opt-threshold', 'change');
    await page.waitForSelector('#opt-threshold-error', { timeout: 10000 });
    assert.match(await page.textContent('#opt-threshold-error'), /Not changed: .*The results stay at 0\.5; type a number from 0 to 1\./);
    assert.equal(await page.getAttribute('#opt-threshold', 'aria-invalid'), 'true');
    assert.equal(await page.getAttribute('#score-headline', 'data-threshold'), '0.5');
    const color = await page.$eval('#opt-threshold-error', (el) => getComputedStyle(el).color);
    assert.notEqual(color, await page.$eval('#headline-counts', (el) => getComputedStyle(el).color), 'the refusal is coloured as a failure');
  }
  await page.locator('#opt-threshold').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'results-threshold-refused.png');
  // A good threshold is kept across a reload.
  await page.reload();
  await page.waitForSelector('#score-headline[data-threshold="0.5"]', { timeout: 30000 });
  assert.equal(await page.inputValue('#opt-threshold'), '0.5');
  assert.deepEqual(problems, [], 'console errors or panics in the page');
});

test('Try the demo: one click on Home builds the 60 tasks, scores the sample answers and opens Results', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, '#');
  await page.waitForSelector('#try-demo:not([disabled])[aria-disabled="false"]', { timeout: 60000 });
  // By keyboard, as a person without a mouse: Enter on the button, and
  // the focus lands on the score it leads to, not on <body>.
  await page.focus('#try-demo');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => location.hash === '#results', null, { timeout: 120000 });
  await page.waitForSelector('#score-table', { timeout: 60000 });
  await page.waitForFunction(() => document.activeElement?.id === 'score-headline', null, { timeout: 30000 }).catch(() => {});
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'score-headline', 'focus after Enter on Try the demo');
  assert.ok(await page.$eval('#score-headline', (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }), 'the focused score is in view');
  // The model name is shown whole, not cut at the field's edge.
  const field = await page.$eval('#model-name', (e) => ({ value: e.value, scroll: e.scrollWidth, client: e.clientWidth }));
  assert.equal(field.value, 'SAMPLE-answers-not-a-model');
  assert.ok(field.scroll <= field.client + 1, `the model name fits its field: ${JSON.stringify(field)}`);
  const sampleLines = fs.readFileSync(SAMPLES, 'utf8').trim().split('\n').length;
  await page.waitForFunction((n) => document.querySelectorAll('#task-results tr.task-row').length === n, sampleLines, { timeout: 60000 });
  await saveScreenshot(page, 'newuser-try-demo-results.png');

  // The run's own SCORES file verifies, on the page and with the CLI: with
  // the unanswered tasks left out, the dataset check gives one coverage
  // note (12 of 60), not 48 mismatches, and nothing says it in green
  // while the verdict is red.
  for (const [scoring, records] of [['failures', 60], ['left out', sampleLines]]) {
    await gotoApp(page, '#results');
    await page.selectOption('#opt-unanswered', scoring);
    const exported = await download(page, '#export-scores');
    const file = path.join(TMP, `demo-${records}-SCORES.json`);
    fs.writeFileSync(file, exported.text);
    const v = JSON.parse(exported.text);
    const [m] = Object.values(v);
    assert.equal(Object.values(m.results).flat().length, records, `records with unanswered ${scoring}`);
    await gotoApp(page, '#verify');
    await page.setInputFiles('#verify-scores', file);
    await page.check('#verify-use-loaded');
    await page.waitForSelector('#verify-verdict[data-ok]', { timeout: 30000 });
    assert.equal(await page.getAttribute('#verify-verdict', 'data-ok'), 'true', await page.textContent('#verify-report'));
    assert.equal(await page.getAttribute('#verify-verdict', 'class'), 'pass');
    const coverage = await page.$$eval('#verify-findings li[data-kind="coverage"]', (lis) => lis.map((li) => li.textContent));
    if (records === 60) {
      assert.deepEqual(coverage, []);
    } else {
      assert.equal(coverage.length, 1, await page.textContent('#verify-findings'));
      assert.match(coverage[0], new RegExp(`coverage: ${sampleLines} of 60 needles of the dataset have a task in the file; the other ${60 - sampleLines} are listed as unanswered`));
      await saveScreenshot(page, 'verify-partial-run.png');
    }
    const cli = execFileSync(BIN, ['verify', '--scores', file], { encoding: 'utf8' });
    assert.match(cli, /verified, no mismatch/);
  }
  await gotoApp(page, '#results');
  await page.selectOption('#opt-unanswered', 'failures');

  // Clearing every answer asks first, and "Keep them" keeps them.
  const rows = () => page.$$eval('#task-results tr.task-row', (r) => r.length);
  await page.click('#clear-answers');
  await page.waitForSelector('#clear-confirm');
  assert.match(await page.textContent('#clear-confirm'), new RegExp(`Delete all ${sampleLines} answers\\?`));
  // The dialog takes the focus once it is drawn: wait for it, as a person does.
  await page.waitForFunction(() => document.activeElement?.id === 'clear-confirm-no', null, { timeout: 10000 }).catch(() => {});
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'clear-confirm-no');
  await page.click('#clear-confirm-no');
  assert.equal(await page.$('#clear-confirm'), null);
  assert.equal(await rows(), sampleLines);
  await page.click('#clear-answers');
  await page.click('#clear-confirm-yes');
  await page.waitForSelector('#sample-offer');
  assert.equal(await page.$('#task-results tr.task-row'), null);
  // A table of zeros has no best (green) or worst cell.
  await page.waitForSelector('#score-table');
  assert.equal(await page.$$eval('#score-table td.best, #score-table td.worst', (c) => c.length), 0);

  // Tasks now says where to go next.
  await gotoApp(page, '#tasks');
  await page.waitForSelector('#tasks-next-steps a[href="#results"]');
  assert.ok(await page.$('#tasks-next-steps a[href="#run"]'));
  assert.deepEqual(problems, []);
});
