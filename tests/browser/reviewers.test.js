// The reviewers' pages in headless Chromium, checked against the native CLI:
// - Leaderboard: the built-in collection of the 30 published SCORES files
//   (loaded lazily from published/), the paper's figures at 0.8, and the
//   threshold slider at 0.83 (between the official thresholds) agreeing
//   with `repoqa leaderboard --threshold 0.83 --json` cell for cell; the
//   misses of a model and what it picked.
// - Verify: a published file with one flipped task and one edited cell is
//   rejected and both are pinpointed (task: language, repo, needle; cell:
//   row and threshold); the JSON report and the summary download.
// Screenshots at 1280 and 390 px wide go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveDir } from './serve.js';
import { launch, openPage, gotoApp, saveScreenshot, DIST, ROOT, ARTIFACTS as ARTIFACTS_DIR } from './browser.js';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const PUBLISHED = path.join(ROOT, 'tests', 'fixtures', 'published-scores');

let srv, context;
const work = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'repoqa-reviewers-'));

before(async () => {
  srv = await serveDir(DIST);
  context = await launch();
});
after(async () => {
  await context?.close();
  srv?.server.close();
});

function publishedFiles() {
  return fs.readdirSync(PUBLISHED).filter((f) => f.endsWith('-SCORES.json.gz')).sort()
    .map((f) => path.join(PUBLISHED, f));
}

function cliLeaderboard(threshold) {
  const out = execFileSync(BIN, ['leaderboard', '--threshold', String(threshold), '--json', '--scores', ...publishedFiles()], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** The table as the page shows it: model → {languages: {lang: pass}, average, tasks}. */
async function pageTable(page) {
  return page.$$eval('#lb-table tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
    const languages = {};
    for (const td of tr.querySelectorAll('td[data-lang]')) languages[td.dataset.lang] = Number(td.dataset.pass);
    return [tr.dataset.model, {
      languages,
      average: Number(tr.querySelector('td[data-average]').dataset.average),
      tasks: Number(tr.querySelector('td[data-tasks]').dataset.tasks),
    }];
  })));
}

async function setThreshold(page, value) {
  await page.$eval('#lb-threshold', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);
  await page.waitForSelector(`#lb-table[data-threshold="${value}"]`, { timeout: 10000 });
}

test('leaderboard: built-in collection, published figures, slider equals the CLI', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#leaderboard');
  // Lazily loaded: nothing of the collection is fetched before the click.
  const fetched = [];
  page.on('request', (r) => { if (r.url().includes('/published/')) fetched.push(r.url()); });
  await page.waitForSelector('#lb-load-published');
  assert.equal(fetched.length, 0, 'the collection is fetched before it is asked for');
  await page.click('#lb-load-published');
  await page.waitForSelector('#lb-table tbody tr[data-model="gpt-4o-2024-05-13"]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  assert.ok(fetched.length >= 30, `fetched ${fetched.length} files`);
  assert.match(await page.textContent('#lb-credit'), /RepoQA authors/);

  await setThreshold(page, 0.8);
  let table = await pageTable(page);
  const pct = (x) => (100 * x).toFixed(1);
  const gpt = table['gpt-4o-2024-05-13'];
  assert.deepEqual(['python', 'cpp', 'rust', 'java', 'typescript'].map((l) => pct(gpt.languages[l])), ['95.0', '80.0', '85.0', '96.0', '97.0']);
  assert.equal(pct(gpt.average), '90.6');
  const opus = table['claude-3-opus-20240229'];
  assert.deepEqual(['python', 'cpp', 'rust', 'java', 'typescript'].map((l) => pct(opus.languages[l])), ['93.0', '83.0', '88.0', '95.0', '94.0']);
  assert.equal(pct(opus.average), '90.6');
  assert.equal(gpt.tasks, 500);

  for (const t of [0.83, 0.55]) {
    await setThreshold(page, t);
    table = await pageTable(page);
    const cli = cliLeaderboard(t);
    assert.equal(cli.models.length, Object.keys(table).length);
    for (const m of cli.models) {
      const row = table[m.model];
      assert.ok(row, `page lacks ${m.model}`);
      assert.deepEqual(row.languages, m.languages, `${m.model} at ${t}`);
      assert.equal(row.average, m.average, `${m.model} average at ${t}`);
      assert.equal(row.tasks, m.tasks);
    }
    console.log(`leaderboard at ${t}: page equals CLI for ${cli.models.length} models (gpt-4o average ${pct(table['gpt-4o-2024-05-13'].average)})`);
  }

  // Sorting by a language puts the best first.
  await page.click('#lb-table th button[data-sort="python"]');
  const firstPython = await page.$eval('#lb-table tbody tr td[data-lang="python"]', (td) => Number(td.dataset.pass));
  const maxPython = Math.max(...Object.values(table).map((r) => r.languages.python));
  assert.equal(firstPython, maxPython);

  // Compare two models in the charts; list what one missed.
  await page.check('input.lb-compare[data-model="gpt-4o-2024-05-13"]');
  await page.check('input.lb-compare[data-model="claude-3-opus-20240229"]');
  await page.waitForSelector('#lb-charts svg', { timeout: 10000 });
  await page.selectOption('#lb-miss-model', { label: 'gpt-4o-2024-05-13' });
  await page.waitForSelector('#lb-misses tbody tr', { timeout: 10000 });
  const misses = await page.$$eval('#lb-misses tbody tr', (trs) => trs.length);
  const cli55 = cliLeaderboard(0.55).models.find((m) => m.model === 'gpt-4o-2024-05-13');
  const passed55 = Object.values(cli55.languages).reduce((a, p) => a + Math.round(p * 100), 0);
  assert.equal(misses, 500 - passed55, 'misses at 0.55');

  await setThreshold(page, 0.8);
  await saveScreenshot(page, 'leaderboard-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'leaderboard-390.png');
  assert.deepEqual(problems, [], 'console errors or panics in the page');
});

/** The claude-3-opus file with rust[4]'s verdict flipped and cpp 0.3 edited. */
function tamperedFile() {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(PUBLISHED, 'claude-3-opus-20240229-SCORES.json.gz'))).toString('utf8');
  const v = JSON.parse(text);
  const m = v['claude-3-opus-20240229'];
  const t = m.results.rust[4];
  t.is_best_similar = !t.is_best_similar;
  m.scores.cpp['0.3']['pass@1'] = 0.99;
  const file = path.join(work, 'tampered-SCORES.json');
  fs.writeFileSync(file, JSON.stringify(v));
  return { file, repo: t.repo, needle: t.name };
}

test('verify: a tampered published file is rejected and pinpointed, like the CLI', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#verify');
  // The session restored at startup (dataset, tasks) is not news on Verify:
  // its message stays on the pages of the dataset and tasks.
  await page.waitForFunction(() => /repoqa-demo\.json/.test(document.querySelector('#verify')?.textContent || '')
    && document.querySelector('#job')?.dataset.state !== 'running', null, { timeout: 60000 });
  await page.waitForTimeout(300);
  assert.equal((await page.textContent('#job-message')).trim(), '', 'a status line from another page');
  const { file, repo, needle } = tamperedFile();
  await page.setInputFiles('#verify-scores', file);
  await page.waitForSelector('#verify-verdict[data-ok]', { timeout: 30000 });
  assert.equal(await page.getAttribute('#verify-verdict', 'data-ok'), 'false');
  const findings = await page.$$eval('#verify-findings li', (lis) => lis.map((li) => ({ ...li.dataset, text: li.textContent })));
  const task = findings.filter((f) => f.kind === 'inconsistent-record');
  assert.equal(task.length, 1, JSON.stringify(findings));
  assert.deepEqual([task[0].language, task[0].repo, task[0].needle], ['rust', repo, needle]);
  const cell = findings.find((f) => f.kind === 'cell' && f.row === 'cpp' && f.threshold === '0.3');
  assert.ok(cell, 'the edited cell is named');
  assert.match(cell.text, /0\.99/);
  assert.equal(cell.derived, 'false');
  // The 22 cells of rows all and rust that follow from the flipped record
  // are folded under it, not listed as its peers.
  const derived = await page.$$eval('#verify-findings > li[data-kind="inconsistent-record"] details.derived li',
    (lis) => lis.map((li) => ({ ...li.dataset })));
  assert.equal(derived.length, 22, JSON.stringify(derived));
  assert.ok(derived.every((d) => d.kind === 'cell' && d.derived === 'true' && d.mismatch === 'false' && ['all', 'rust'].includes(d.row)));
  assert.equal(await page.$$eval('#verify-findings > li', (lis) => lis.length), 3, 'the record, the edited cell, and typescript 0.0 written as 1 by JSON.stringify');
  assert.match(await page.textContent('#verify-verdict'),
    /^claude-3-opus-20240229 — not verified: 3 mismatches, and 22 table cells that follow from them\. pass@1 at 0\.8: \d+\.\d % in the file [=≠] \d+\.\d % recomputed from its 500 tasks\.$/);
  // The verdict lands in view with the focus (read out), the numbers beside it.
  await page.waitForFunction(() => document.activeElement?.id === 'verify-verdict', null, { timeout: 10000 }).catch(() => {});
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'verify-verdict');
  const inView = await page.$eval('#verify-verdict', (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; });
  assert.ok(inView, 'the verdict is inside the viewport');
  const numbers = await page.$$eval('.verify-numbers tbody tr', (trs) => trs.map((tr) => [tr.dataset.row, tr.dataset.agrees]));
  assert.deepEqual(numbers.map(([r]) => r).sort(), ['all', 'cpp', 'java', 'python', 'rust', 'typescript']);
  assert.equal(numbers[0][0], 'all');
  assert.equal(numbers.find(([r]) => r === 'cpp')[1], 'true', 'cpp at 0.8 is untouched (0.3 was edited)');

  // The same findings as the CLI's summary.
  let cliOut = '';
  try {
    execFileSync(BIN, ['verify', '--scores', file], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.equal(e.status, 1);
    cliOut = e.stdout;
  }
  const cliMismatches = cliOut.split('\n').filter((l) => l.startsWith('MISMATCH')).length;
  assert.equal(findings.filter((f) => f.mismatch === 'true').length, cliMismatches);

  const [d] = await Promise.all([page.waitForEvent('download'), page.click('#verify-download-json')]);
  const report = JSON.parse(fs.readFileSync(await d.path(), 'utf8'));
  assert.equal(report.ok, false);
  assert.equal(report.mismatches, cliMismatches);
  const [s] = await Promise.all([page.waitForEvent('download'), page.click('#verify-download-text')]);
  const summary = fs.readFileSync(await s.path(), 'utf8');
  assert.ok(summary.includes(`task rust ${repo} ${needle}`), summary);
  console.log(`verify: tampered file pinpointed in the page (${cliMismatches} mismatches, same as the CLI)`);

  await saveScreenshot(page, 'verify-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'verify-390.png');
  assert.deepEqual(problems, [], 'console errors or panics in the page');
});

test('verify the published files the app ships with: a picker on Verify, a "verify" action on each leaderboard row', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#verify');
  await page.waitForSelector('#verify-published option', { state: 'attached', timeout: 30000 });
  const options = await page.$$eval('#verify-published option', (os) => os.map((o) => o.value));
  const shipped = fs.readdirSync(PUBLISHED).filter((f) => f.endsWith('-SCORES.json.gz'));
  assert.deepEqual([...options].sort(), [...shipped].sort());
  await page.selectOption('#verify-published', 'claude-3-haiku-20240307-SCORES.json.gz');
  await page.click('#verify-published-go');
  await page.waitForFunction(() => document.querySelector('#verify-scores-name')?.textContent === 'published/claude-3-haiku-20240307-SCORES.json.gz',
    null, { timeout: 30000 });
  await page.waitForSelector('#verify-verdict[data-ok="true"]', { timeout: 30000 });
  // The CLI agrees: the file verifies.
  const plain = path.join(work, 'claude-3-haiku-20240307-SCORES.json');
  fs.writeFileSync(plain, zlib.gunzipSync(fs.readFileSync(path.join(PUBLISHED, 'claude-3-haiku-20240307-SCORES.json.gz'))));
  execFileSync(BIN, ['verify', '--scores', plain], { stdio: 'pipe' });
  await saveScreenshot(page, 'verify-published.png');

  await page.goto(srv.url + '#leaderboard');
  await page.click('#lb-load-published');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  await page.click('#lb-table tr[data-model="gpt-4o-2024-05-13"] button.lb-verify');
  await page.waitForFunction(() => location.hash === '#verify', null, { timeout: 10000 });
  await page.waitForFunction(() => /gpt-4o-2024-05-13-SCORES\.json\.gz$/.test(document.querySelector('#verify-scores-name')?.textContent || ''),
    null, { timeout: 30000 });
  await page.waitForSelector('#verify-verdict[data-ok="true"]', { timeout: 30000 });
  // The picker names the file verified, not the one chosen before. (The
  // picker comes with the list of shipped files, which the page reads on
  // its own: on a busy machine after the verdict.)
  await page.waitForFunction(() => document.querySelector('#verify-published')?.value === 'gpt-4o-2024-05-13-SCORES.json.gz',
    null, { timeout: 30000 });
  assert.deepEqual(problems, []);
  await page.close();
});

// Walk round 2, majors 1 and 2: a reviewer who clicks a row's "verify" sees
// the verdict of that row's model first, with its numbers, inside the first
// screen (1280 × 800 and 390 × 844) and with the focus; the rows arrive
// together, so a click cannot land on a row that moved.
for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`verify from a leaderboard row at ${width} px: that model's verdict and numbers on the first screen, with the focus`, async () => {
    const { page, problems } = await openPage(context);
    await page.setViewportSize({ width, height });
    await gotoApp(page, srv.url, '#leaderboard');
    await page.waitForSelector('#lb-load-published');
    // Every row count the table shows while it fills, and whether a row moved.
    await page.evaluate(() => {
      window.__rowCounts = [];
      const seen = () => {
        const rows = [...document.querySelectorAll('#lb-table tbody tr')].map((tr) => tr.dataset.model);
        const last = window.__rowCounts.at(-1);
        if (!last || last.join('|') !== rows.join('|')) window.__rowCounts.push(rows);
      };
      new MutationObserver(seen).observe(document.body, { childList: true, subtree: true });
    });
    await page.click('#lb-load-published');
    await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30
      && /Loaded 30 published files/.test(document.querySelector('#lb-status')?.textContent || ''), null, { timeout: 60000 });
    const counts = await page.evaluate(() => window.__rowCounts.map((r) => r.length));
    assert.deepEqual(counts.filter((n) => n > 0), [30], `the rows arrive together, never a partial table re-sorted: ${counts}`);
    const model = 'gpt-3.5-turbo-0125';
    const button = page.locator(`#lb-table tr[data-model="${model}"] button.lb-verify`);
    await button.scrollIntoViewIfNeeded();
    await button.click();
    await page.waitForFunction(() => location.hash === '#verify', null, { timeout: 10000 });
    await page.waitForSelector('#verify-verdict[data-ok="true"]', { timeout: 30000 });
    assert.equal(await page.getAttribute('#verify-verdict', 'data-models'), model, 'the row clicked is the model verified');
    const verdict = await page.textContent('#verify-verdict');
    assert.match(verdict, new RegExp(`^${model.replace(/\./g, '\\.')} — verified, no mismatch\\. pass@1 at 0\\.8: \\d+\\.\\d % in the file = \\d+\\.\\d % recomputed from its 500 tasks\\.$`), verdict);
    assert.equal(await page.getAttribute('#verify-verdict', 'class'), 'pass');
    assert.equal(await page.$eval('#verify-verdict', (e) => getComputedStyle(e).color), await page.$eval('#verify-verdict', (e) => {
      const probe = document.createElement('span'); probe.className = 'pass'; document.body.append(probe);
      const c = getComputedStyle(probe).color; probe.remove(); return c;
    }), 'the colour a pass has');
    await page.waitForFunction(() => document.activeElement?.id === 'verify-verdict', null, { timeout: 10000 }).catch(() => {});
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'verify-verdict', 'the focus is on the verdict');
    // The verdict and the recomputed table (all and each language) are in the viewport.
    const inView = async (sel) => page.$eval(sel, (e) => {
      const r = e.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth + 1;
    });
    assert.ok(await inView('#verify-verdict'), 'the verdict is on the first screen');
    const rows = await page.$$eval(`.verify-numbers[data-model="${model}"] tbody tr`, (trs) => trs.map((tr) => tr.dataset.row));
    assert.ok(rows[0] === 'all' && rows.length >= 6, `all, then each language: ${rows}`);
    // Each row whole (the file's number, the recomputed one, same or not), every language.
    assert.ok(await inView(`.verify-numbers[data-model="${model}"] tbody tr[data-row="all"]`), 'the recomputed pass@1 is on the first screen');
    assert.ok(await inView(`.verify-numbers[data-model="${model}"] tbody tr:last-child`), 'every language on the first screen');
    assert.equal(await page.$eval(`.verify-numbers[data-model="${model}"] tbody tr[data-row="all"] td:last-child`, (td) => td.textContent), 'same');
    // Re-scoring is not offered without the outputs, and says so beside the button.
    assert.equal(await page.getAttribute('#verify-rescore', 'disabled'), '');
    assert.match(await page.textContent('#verify-rescore-why'), /needs the model outputs JSONL above/);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, `verify-from-row-${scheme}-${width}.png`) });
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}

/** A new page of the app at `hash`, 1280 px wide. */
async function pageAt(hash) {
  const opened = await openPage(context);
  await opened.page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(opened.page, srv.url, hash);
  return opened;
}

test("Verify's SCORES slot names what a wrong file is: empty, binary, an outputs file, a dataset, in red", async () => {
  const { page, problems } = await pageAt('#verify');
  const outputs = path.join(ROOT, 'public', 'demo', 'sample-answers.jsonl');
  const files = {
    'empty-SCORES.json': [Buffer.alloc(0), /empty-SCORES\.json: the file is empty; a SCORES file is a JSON object of models/],
    'picture.png': [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xd8]), /picture\.png: not a SCORES file: binary data, not UTF-8 text/],
    'answers.jsonl': [fs.readFileSync(outputs), /answers\.jsonl: this looks like a model-outputs JSONL .*not a SCORES file .*: import it on the Results page/],
    'dataset.json': [fs.readFileSync(path.join(ROOT, 'public', 'demo', 'repoqa-demo.json')), /dataset\.json: this looks like a RepoQA dataset, not a SCORES file/],
  };
  for (const [name, [bytes, said]] of Object.entries(files)) {
    const file = path.join(work, name);
    fs.writeFileSync(file, bytes);
    await page.setInputFiles('#verify-scores', file);
    await page.waitForFunction((n) => (document.querySelector('#verify-error')?.textContent || '').includes(n), name, { timeout: 30000 });
    const error = page.locator('#verify-error');
    assert.match(await error.textContent(), said);
    assert.ok(await error.isVisible());
    assert.equal(await error.getAttribute('class'), 'fail error-box');
    assert.equal(await page.$('#verify-verdict[data-ok="true"]'), null, `${name}: nothing says OK`);
  }
  // The CLI says the same of the same file.
  const cli = (() => {
    try { execFileSync(BIN, ['verify', '--scores', path.join(work, 'answers.jsonl')], { encoding: 'utf8', stdio: 'pipe' }); return ''; } catch (e) { return e.stderr; }
  })();
  assert.match(cli, /this looks like a model-outputs JSONL/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("leaderboard: a file whose own table differs from its records is marked, in the fail colour, and shows the records", async () => {
  const { page, problems } = await pageAt('#leaderboard');
  const { file } = tamperedFile();
  await page.setInputFiles('#lb-files', file);
  const row = '#lb-table tr[data-model="claude-3-opus-20240229"]';
  await page.waitForSelector(row, { timeout: 30000 });
  // cpp at 0.3 edited to 0.99 (one part) and rust[4]'s verdict flipped
  // (the 22 cells of rust and "all" that follow from it, as Verify shows);
  // typescript's 0.0 re-saved as 0 by JSON.stringify is equal in number
  // and not counted.
  assert.equal(await page.getAttribute(row, 'data-table-differs'), '23');
  const mark = page.locator(`${row} .lb-table-differs`);
  assert.ok(await mark.isVisible(), 'the mark is visible');
  assert.equal((await mark.textContent()).trim(), 'table differs');
  const colours = await page.evaluate((sel) => {
    const probe = document.createElement('span');
    probe.className = 'fail';
    document.body.append(probe);
    const fail = getComputedStyle(probe).color;
    probe.remove();
    return { mark: getComputedStyle(document.querySelector(sel)).color, fail };
  }, `${row} .lb-table-differs`);
  assert.equal(colours.mark, colours.fail, 'the mark is in the fail colour');
  assert.match(await mark.getAttribute('title'), /23 parts of this file's own table differ from its per-task records/);
  // The row shows the records: 83.0 for cpp at 0.8, as the published file.
  await setThreshold(page, 0.8);
  assert.equal(await page.$eval(`${row} td[data-lang="cpp"]`, (td) => td.textContent), '83.0');
  // The CLI says the same.
  const cli = JSON.parse(execFileSync(BIN, ['leaderboard', '--json', '--scores', file], { encoding: 'utf8' }));
  assert.equal(cli.models[0].table_differs, 23);
  const text = execFileSync(BIN, ['leaderboard', '--scores', file], { encoding: 'utf8' });
  assert.match(text, /! claude-3-opus-20240229 \(.*tampered-SCORES\.json\): 23 parts of its file's own table differ/);
  await page.locator(row).screenshot({ path: path.join(ARTIFACTS_DIR, 'leaderboard-table-differs.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('leaderboard charts for any number of models: every model a heatmap row, distinct colours, labels that neither overlap nor clip', async () => {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#leaderboard');
  await page.click('#lb-load-published');
  await page.waitForFunction(() => document.querySelectorAll('#lb-table tbody tr').length === 30, null, { timeout: 60000 });
  const models = await page.$$eval('#lb-table tbody tr', (trs) => trs.slice(0, 10).map((tr) => tr.dataset.model));
  for (const [k, n] of [[3, 3], [10, 10]]) {
    for (const m of models.slice(0, k)) await page.check(`input.lb-compare[data-model="${m}"]`);
    await page.waitForSelector('#lb-charts svg');
    const rows = await page.$$eval('#chart-heatmap-svg rect.cell', (cells) => [...new Set(cells.map((c) => c.dataset.series))]);
    assert.deepEqual([...rows].sort(), [...models.slice(0, n)].sort(), `heatmap rows with ${k} models`);
    assert.match(await page.textContent('#chart-heatmap-title'), /depth × model/);
    const fills = await page.$$eval('#chart-language-svg rect.bar', (bars) => bars.map((b) => b.getAttribute('fill')));
    assert.equal(new Set(fills).size, n, `colours repeat with ${k} models: ${fills.join(' ')}`);
    // Nothing drawn outside its chart; bar labels apart from each other.
    const layout = await page.evaluate(() => {
      const out = { outside: [], overlaps: 0 };
      for (const svg of document.querySelectorAll('#lb-charts svg')) {
        const box = svg.getBoundingClientRect();
        for (const t of svg.querySelectorAll('text')) {
          const r = t.getBoundingClientRect();
          if (r.width && (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)) {
            out.outside.push(`${svg.id}: ${t.textContent}`);
          }
        }
      }
      const labels = [...document.querySelectorAll('#chart-language-svg text')].filter((t) => t.querySelector('title'))
        .map((t) => t.getBoundingClientRect());
      for (let i = 1; i < labels.length; i++) {
        const a = labels[i - 1], b = labels[i];
        if (a.right > b.left + 1 && a.bottom > b.top + 1 && b.bottom > a.top + 1) out.overlaps += 1;
      }
      return out;
    });
    assert.deepEqual(layout.outside, [], `text outside its chart with ${k} models`);
    assert.equal(layout.overlaps, 0, `overlapping bar labels with ${k} models: ${JSON.stringify(layout)}`);
  }
  await page.locator('#lb-charts').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'leaderboard-charts-10.png');
  assert.deepEqual(problems, []);
  await page.close();
});
