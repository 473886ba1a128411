// The CoReQA page in headless Chromium, checked against the native CLI on
// the demo's files (public/demo/coreqa/): the judge table equals
// `repoqa coreqa judge --json` cell for cell (it asks nothing: every verdict
// is in the file), Elo, records and the position-bias table equal
// `repoqa coreqa compare --json`; every answer is shown with the judge's
// scores and reasoning as text; the files are back after a reload; a file
// that is none of CoReQA's is refused with its name and line. Then issues
// fetched from a stand-in of GitHub's REST API on 127.0.0.1 (the fixture
// export, in the API's pages, with CORS): the filter counts equal
// `repoqa coreqa issues --json`, comments are asked only where they can
// matter, the token goes in the Authorization header, the export downloads,
// and a rate limit without a token says what to do; a question written in
// the page is added and downloads as a QA file the CLI reads.
// Screenshots at 1280 and 390 px wide go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { serveDir } from './serve.js';
import { freshPage, gotoApp, saveScreenshot, saveViewports, DIST, ROOT } from './browser.js';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const DEMO = path.join(ROOT, 'public', 'demo', 'coreqa');

let srv;
const work = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'repoqa-coreqa-'));
/** The demo's two QA files (Rust and Python) as the one the CLI takes. */
const DEMO_QA = path.join(work, 'demo-qa.jsonl');
fs.writeFileSync(DEMO_QA, ['semver-qa.jsonl', 'inflection-qa.jsonl'].map((f) => fs.readFileSync(path.join(DEMO, f), 'utf8')).join(''));

before(async () => {
  srv = await serveDir(DIST);
});
after(() => {
  srv?.server.close();
});

function cliJudgeTable() {
  // The judge command prints the table of what its output file holds and
  // asks only what is missing: nothing here (the address is never used).
  const out = path.join(work, 'judge-scores.jsonl');
  fs.copyFileSync(path.join(DEMO, 'judge-scores.jsonl'), out);
  const stdout = execFileSync(BIN, ['coreqa', 'judge', '--qa', DEMO_QA,
    '--answers', path.join(DEMO, 'answers-good-model.jsonl'), '--answers', path.join(DEMO, 'answers-weak-model.jsonl'),
    '--model', 'judge-model', '--base-url', 'http://127.0.0.1:9/v1', '--output', out, '--json'],
  { encoding: 'utf8', env: { ...process.env, REPOQA_TOKENIZER: path.join(ROOT, '.tools', 'tokenizer.json') } });
  return JSON.parse(stdout);
}

function cliBreakdown() {
  return JSON.parse(execFileSync(BIN, ['coreqa', 'breakdown', '--qa', DEMO_QA,
    '--judgments', path.join(DEMO, 'judge-scores.jsonl'), '--json'], { encoding: 'utf8' }));
}

function cliCompare() {
  return JSON.parse(execFileSync(BIN, ['coreqa', 'compare', '--judgments', path.join(DEMO, 'pairwise-none.jsonl'), '--json'], { encoding: 'utf8' }));
}

/** "7.12±0.12" shows {mean, std} to 2 decimals (Rust rounds a tie to even, JS up). */
function shows(text, m, what) {
  const [mean, std] = text.split('±').map(Number);
  assert.ok(Math.abs(mean - m.mean) <= 0.0051 && Math.abs(std - m.std) <= 0.0051, `${what}: ${text} for ${JSON.stringify(m)}`);
}

test('the CoReQA page shows what the CLI computes from the demo files', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#coreqa');
  await page.waitForSelector('#cq-judge-empty');
  await page.click('#cq-load-demo');
  await page.waitForSelector('#cq-judge-table');
  await page.waitForFunction(() => document.querySelectorAll('#cq-loaded li').length === 6);
  assert.match(await page.textContent('#cq-status'), /^Loaded semver-qa\.jsonl/);

  // The judge table, cell for cell: five models and settings, each over
  // both languages and per language (Python and Rust).
  const rows = cliJudgeTable();
  assert.equal(rows.length, 15);
  assert.deepEqual([...new Set(rows.map((r) => r.language))].sort(), ['all', 'python', 'rust']);
  const shown = await page.$$eval('#cq-judge-table tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model, setting: tr.dataset.setting, language: tr.dataset.language,
    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
  })));
  assert.equal(shown.length, rows.length);
  for (const [i, r] of rows.entries()) {
    const s = shown[i];
    assert.deepEqual([s.model, s.setting, s.language], [r.model, r.setting, r.language]);
    assert.deepEqual(s.cells.slice(0, 5), [r.model, r.setting, r.language, String(r.questions), String(r.repetitions)]);
    const what = `${r.model} ${r.setting}`;
    ['accuracy', 'completeness', 'relevance', 'clarity'].forEach((c, k) => shows(s.cells[5 + k], r.criteria[c], `${what} ${c}`));
    shows(s.cells[9], r.overall, `${what} overall`);
    assert.ok(Math.abs(Number(s.cells[10]) - r.bleu) <= 0.00051, `${what} BLEU ${s.cells[10]} for ${r.bleu}`);
  }
  // The chart: one judge bar and one BLEU bar per model and setting.
  assert.equal(await page.$$eval('#cq-judge-chart rect[data-series="judge"]', (b) => b.length), 5);
  const good = rows.find((r) => r.model === 'good-model' && r.setting === 'retrieval');
  assert.equal(await page.$eval('#cq-judge-chart rect[data-series="judge"]:nth-of-type(1)', (b) => b.dataset.value), rows[0].overall.mean.toFixed(3));
  assert.ok(good.bleu > 0.99);

  // Elo, records and position bias.
  const c = cliCompare();
  const elo = await page.$$eval('#cq-elo tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.model, tr.querySelector('.elo').textContent])));
  for (const [model, rating] of Object.entries(c.elo)) assert.equal(elo[model], rating.toFixed(1), model);
  const bias = await page.$$eval('#cq-bias [data-bias]', (tds) => Object.fromEntries(tds.map((td) => [td.dataset.bias, Number(td.textContent)])));
  assert.deepEqual(bias, { consistent: c.position_bias.consistent, small_discrepancy: c.position_bias.small_discrepancy, contradiction: c.position_bias.contradiction, unpaired: c.position_bias.unpaired });
  assert.equal(bias.contradiction, 1);
  const wins = await page.$eval('#cq-records tr[data-model="good-model"] .wins', (td) => Number(td.textContent));
  assert.equal(wins, c.records.find((r) => r.model === 'good-model').wins);
  const first = await page.$eval('#cq-first-position', (p) => ({ first: Number(p.dataset.first), second: Number(p.dataset.second), tie: Number(p.dataset.tie), text: p.textContent }));
  assert.deepEqual({ first: first.first, second: first.second, tie: first.tie }, c.first_position);
  // One decimal (a tie such as 56.25 may round either way: Rust to even, JS up).
  const rate = 100 * c.first_position.first / (c.first_position.first + c.first_position.second);
  const shownRate = Number(first.text.match(/([\d.]+)% of decided verdicts went to the first/)[1]);
  assert.ok(Math.abs(shownRate - rate) <= 0.051, `${first.text} for ${rate}`);

  // The breakdowns, cell for cell: by question length (the demo's eight
  // questions make five groups) and by issue year (the demo's questions
  // have no issue, so one group, "unknown").
  const b = cliBreakdown();
  for (const [id, part] of [['#cq-breakdown-length', b.by_question_length], ['#cq-breakdown-year', b.by_issue_year]]) {
    const head = await page.$$eval(`${id} thead th[data-group]`, (ths) => ths.map((th) => th.dataset.group));
    assert.deepEqual(head, part.groups.map((g) => g.label), id);
    const cells = await page.$$eval(`${id} tbody td[data-group]`, (tds) => tds.map((td) => ({
      model: td.closest('tr').dataset.model, setting: td.closest('tr').dataset.setting, group: td.dataset.group, text: td.textContent,
    })));
    for (const cell of cells) {
      const want = part.cells.find((x) => x.model === cell.model && x.setting === cell.setting && x.group === cell.group);
      if (want) assert.ok(Math.abs(Number(cell.text) - want.overall) <= 0.0051, `${id} ${JSON.stringify(cell)} for ${want.overall}`);
      else assert.equal(cell.text, '–', `${id} ${JSON.stringify(cell)}`);
    }
    assert.equal(cells.filter((x) => x.text !== '–').length, part.cells.length, id);
  }
  assert.deepEqual(b.by_question_length.groups.map((g) => g.label), ['Q1', 'Q2', 'Q3', 'Q4', 'Q5']);
  assert.deepEqual(b.by_issue_year.groups.map((g) => g.label), ['unknown']);
  await saveViewports(page, '#cq-breakdown', 'coreqa-breakdown');
  await page.setViewportSize({ width: 1280, height: 900 });

  // A question opens to its reference and every answer with the scores
  // and the reasoning, as text.
  assert.equal(await page.textContent('#cq-question-count'), '8 question(s).');
  const q = '#cq-question-list details[data-id="dtolnay/semver#1"]';
  await page.click(`${q} summary`);
  assert.equal(await page.$$eval(`${q} .cq-answer`, (a) => a.length), 5);
  const answer = await page.$eval(`${q} .cq-answer[data-model="good-model"][data-setting="retrieval"]`, (d) => ({
    text: d.querySelector('pre.code').textContent, scores: d.querySelectorAll('li').length, reasoning: d.querySelector('pre.reasoning').textContent,
  }));
  assert.match(answer.text, /pre_is_compatible/);
  assert.equal(answer.scores, 2);
  assert.equal(answer.reasoning, 'Comparing the candidate with the reference point by point.');
  assert.equal(await page.$$eval(`${q} pre.code code, ${q} pre.code b`, (e) => e.length), 0, 'text, never HTML');

  await saveScreenshot(page, 'coreqa-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'coreqa-390.png');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the 390 px screen`);

  // A reload finds the files.
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]');
  await page.waitForFunction(() => document.querySelectorAll('#cq-loaded li').length === 6);
  await page.waitForSelector('#cq-judge-table');

  // A file that is not a CoReQA file: refused, named, with its line.
  const bad = path.join(work, 'not-coreqa.jsonl');
  fs.writeFileSync(bad, '\n{"task_id": "python::a/b::f"}\n');
  await page.setInputFiles('#cq-files', bad);
  await page.waitForSelector('#cq-status.fail');
  assert.match(await page.textContent('#cq-status'), /not-coreqa\.jsonl, line 2: not a CoReQA file/);
  assert.equal(await page.$$eval('#cq-loaded li', (l) => l.length), 6);

  await page.click('#cq-clear');
  await page.waitForSelector('#cq-judge-empty');
  // Nothing left to remove: the button says so by being off.
  assert.equal(await page.$eval('#cq-clear', (b) => b.disabled), true);
  assert.deepEqual(problems, []);
});

const EXPORT = path.join(ROOT, 'tests', 'fixtures', 'coreqa', 'issues-export.json');

/** GitHub's issues and comments endpoints for acme/widget, from the fixture. */
function githubStandIn({ limitWithoutToken = false } = {}) {
  const exp = JSON.parse(fs.readFileSync(EXPORT, 'utf8'));
  const seen = [];
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Authorization, Accept, X-GitHub-Api-Version' };
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') { res.writeHead(204, cors); res.end(); return; }
    const url = new URL(req.url, 'http://x');
    seen.push({ path: url.pathname, page: url.searchParams.get('page'), auth: req.headers.authorization || null });
    const send = (status, body) => { res.writeHead(status, { ...cors, 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (limitWithoutToken && !req.headers.authorization) return send(403, { message: 'API rate limit exceeded for 127.0.0.1.' });
    const page = Number(url.searchParams.get('page') || '1');
    let m;
    if (url.pathname === '/repos/acme/widget/issues') return send(200, page === 1 ? exp.issues : []);
    if ((m = url.pathname.match(/^\/repos\/acme\/widget\/issues\/(\d+)\/comments$/))) return send(200, page === 1 ? (exp.comments[m[1]] || []) : []);
    return send(404, { message: 'Not Found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}`, seen })));
}

/** A repository of `pages` × 100 closed pull requests (no comments asked
 * for), each page with GitHub's `Link` header, readable by the page. */
function manyPagesStandIn(pages) {
  const seen = [];
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Authorization, Accept, X-GitHub-Api-Version', 'Access-Control-Expose-Headers': 'Link' };
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') { res.writeHead(204, cors); res.end(); return; }
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page') || '1');
    seen.push({ path: url.pathname, page });
    if (url.pathname !== '/repos/acme/widget/issues') { res.writeHead(404, cors); res.end('{}'); return; }
    const base = `http://127.0.0.1:${server.address().port}/repos/acme/widget/issues?state=closed&per_page=100`;
    const link = page < pages ? `<${base}&page=${page + 1}>; rel="next", <${base}&page=${pages}>; rel="last"` : `<${base}&page=1>; rel="first"`;
    const items = page > pages ? [] : Array.from({ length: 100 }, (_, i) => {
      const number = (pages - page) * 100 + (100 - i);
      return { number, title: `PR ${number}`, state: 'closed', labels: [], body: 'A change.', comments: 0,
        user: { login: 'someone' }, pull_request: { url: `https://api.github.com/repos/acme/widget/pulls/${number}` } };
    });
    res.writeHead(200, { ...cors, 'Content-Type': 'application/json', Link: link });
    res.end(JSON.stringify(items));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}`, seen })));
}

test('a repository with more issues than a fetch reads: the page says how many it read and how many GitHub lists', async (t) => {
  const gh = await manyPagesStandIn(60);
  t.after(() => gh.server.close());
  const { page, problems } = await freshPage(t);
  await gotoApp(page, srv.url, '#coreqa');
  await fetchIssues(page, gh.url, '');
  await page.waitForSelector('.cq-export', { timeout: 120000 });
  assert.equal(await page.textContent('#cq-gh-status'), 'Fetched 5000 closed issues and pull requests of acme/widget, and the comments of 0 (acme_widget-issues.json).');
  // What was left out is said in a warning of its own, in view, never a quiet cut.
  assert.equal(await page.textContent('#cq-gh-left-out'), 'Not all of them: these are the newest 5,000; GitHub lists about 6,000 (60 pages of 100), '
    + 'and a fetch reads at most 50 pages, so the older ones are not in this export.');
  assert.equal(await page.getAttribute('#cq-gh-left-out', 'class'), 'warning');
  await page.locator('#cq-gh-left-out').scrollIntoViewIfNeeded();
  assert.ok(await page.$eval('#cq-gh-left-out', (el) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }), 'the warning is in view');
  // Pages 1 to 50 read, once each; not one more.
  assert.deepEqual(gh.seen.map((r) => r.page), Array.from({ length: 50 }, (_, i) => i + 1));
  await saveScreenshot(page, 'coreqa-fetch-capped-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#cq-gh-left-out').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'coreqa-fetch-capped-390.png');
  // A repository within the limit: no warning (the next fetch clears it).
  const small = await manyPagesStandIn(2);
  t.after(() => small.server.close());
  await page.fill('#cq-gh-api', small.url);
  await page.click('#cq-gh-fetch');
  await page.waitForFunction(() => document.querySelector('#cq-gh-status')?.textContent.startsWith('Fetched 200 '), null, { timeout: 60000 });
  assert.equal(await page.$('#cq-gh-left-out'), null);
  assert.deepEqual(problems, []);
});

async function fetchIssues(page, api, token) {
  await page.click('#cq-issues details summary');
  await page.fill('#cq-gh-api', api);
  await page.fill('#cq-gh-repo', 'acme/widget');
  await page.fill('#cq-gh-token', token);
  await page.click('#cq-gh-fetch');
}

test('issues come from the GitHub API and questions are written in the page', async (t) => {
  const gh = await githubStandIn();
  const limited = await githubStandIn({ limitWithoutToken: true });
  t.after(() => { gh.server.close(); limited.server.close(); });
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#coreqa');

  await fetchIssues(page, gh.url, 't0k');
  await page.waitForSelector('.cq-export');
  assert.match(await page.textContent('#cq-gh-status'), /^Fetched 10 closed issues and pull requests of acme\/widget/);
  const cli = JSON.parse(execFileSync(BIN, ['coreqa', 'issues', '--export', EXPORT, '--json'], { encoding: 'utf8' }));
  const removed = await page.$$eval('.cq-filters tr[data-filter]', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.filter, Number(tr.querySelector('td.n').textContent)])));
  assert.deepEqual(removed, cli.removed);
  assert.equal(await page.textContent('.cq-kept'), `Kept ${cli.kept.length}: ${cli.kept.map((n) => `#${n}`).join(' ')}`);
  const comments = gh.seen.filter((r) => r.path.endsWith('/comments'));
  assert.equal(gh.seen.length, 1 + comments.length);
  assert.ok(comments.length > 0 && comments.length < 10, `comments asked for ${comments.length} of 10 issues`);
  assert.ok(gh.seen.every((r) => r.auth === 'Bearer t0k'));

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.cq-download-export')]);
  const saved = path.join(work, 'fetched-export.json');
  await download.saveAs(saved);
  const again = JSON.parse(execFileSync(BIN, ['coreqa', 'issues', '--export', saved, '--json'], { encoding: 'utf8' }));
  assert.deepEqual(again, cli);

  // No token, rate limited: the message says what to do.
  await page.fill('#cq-gh-api', limited.url);
  await page.fill('#cq-gh-token', '');
  await page.click('#cq-gh-fetch');
  await page.waitForSelector('#cq-gh-status.fail');
  assert.match(await page.textContent('#cq-gh-status'), /API rate limit exceeded.*GitHub allows 60 requests an hour without a token: give a token/);

  // A question of one's own.
  await page.click('#cq-own summary');
  await page.fill('#cq-own-repo', 'acme/widget');
  await page.fill('#cq-own-lang', 'python');
  await page.fill('#cq-own-question', 'Why does `spin(0)` fail?\n\n```python\nwidget.spin(0)\n```');
  await page.fill('#cq-own-reference', 'Zero turns are refused: pass a positive count.');
  await page.fill('#cq-own-repo', 'not a repo');
  await page.click('#cq-own-add');
  assert.match(await page.textContent('#cq-own-status.fail'), /is not a repository: give it as owner\/name/);
  await page.fill('#cq-own-repo', 'acme/widget');
  await page.click('#cq-own-add');
  assert.equal(await page.textContent('#cq-own-status'), 'Added acme/widget#my-1 to my-questions.jsonl.');
  await page.waitForSelector('#cq-question-list details[data-id="acme/widget#my-1"]');
  const [own] = await Promise.all([page.waitForEvent('download'), page.click('#cq-own-download')]);
  const ownPath = path.join(work, 'my-questions.jsonl');
  await own.saveAs(ownPath);
  const items = fs.readFileSync(ownPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(items, [{ id: 'acme/widget#my-1', repository: 'acme/widget', language: 'python',
    question: 'Why does `spin(0)` fail?\n\n```python\nwidget.spin(0)\n```', reference_answer: 'Zero turns are refused: pass a positive count.' }]);
  const ctx = JSON.parse(execFileSync(BIN, ['coreqa', 'retrieve', '--repo', path.join(ROOT, 'public', 'demo', 'third_party', 'semver'), '--qa', ownPath, '--json'], { encoding: 'utf8' }));
  assert.equal(ctx[0].id, 'acme/widget#my-1');
  await saveScreenshot(page, 'coreqa-issues-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'coreqa-issues-390.png');
  assert.deepEqual(problems.filter((p) => !p.includes('403')), []);
});

function cliReport(baseline, rule = 'tie') {
  return JSON.parse(execFileSync(BIN, ['coreqa', 'report', '--qa', DEMO_QA,
    '--judgments', path.join(DEMO, 'judge-scores.jsonl'),
    '--answers', path.join(DEMO, 'answers-good-model.jsonl'), '--answers', path.join(DEMO, 'answers-weak-model.jsonl'),
    '--pairwise', path.join(DEMO, 'pairwise-none.jsonl'), '--baseline', baseline, '--pce-discrepancy', rule, '--json'], { encoding: 'utf8' }));
}

test('the paper\'s tables on the page equal repoqa coreqa report: mean ± SD, PCE against the chosen baseline, BLEU, the five levels', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#coreqa');
  await page.waitForSelector('#cq-report-empty');
  await page.click('#cq-load-demo');
  await page.waitForSelector('#cq-report-overall');
  await page.waitForFunction(() => document.querySelectorAll('#cq-loaded li').length === 6);
  const rowsOf = (id) => page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => ({
    model: tr.dataset.model, setting: tr.dataset.setting, language: tr.dataset.language, pce: tr.dataset.pce,
    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
  })));
  const check = async (baseline) => {
    const cli = cliReport(baseline);
    for (const [id, want] of [['cq-report-overall', cli.overall], ['cq-report-languages', cli.by_language]]) {
      const got = await rowsOf(id);
      assert.deepEqual(got.map((r) => [r.model, r.setting, r.language]), want.map((r) => [r.model, r.setting, r.language]), id);
      for (const [i, r] of want.entries()) {
        const cells = got[i].cells.slice(id === 'cq-report-languages' ? 1 : 0);
        ['accuracy', 'completeness', 'relevance', 'clarity'].forEach((c, k) => shows(cells[3 + k].replace(' ± ', '±'), r.criteria[c], `${id} ${r.model} ${r.setting} ${c}`));
        // One decimal of the CLI's figure (Rust rounds a tie to even, JS up).
        const oneDecimal = (text, want, what) => (want == null ? assert.equal(text, '–', what)
          : assert.ok(Math.abs(Number(text) - want) <= 0.0501, `${what}: ${text} for ${want}`));
        if (r.pce?.baseline) assert.equal(cells[7], '50.0 (baseline)', `${id} ${r.model} ${r.setting} PCE`);
        else oneDecimal(cells[7], r.pce?.pce, `${id} ${r.model} ${r.setting} PCE`);
        oneDecimal(cells[8], r.bleu == null ? null : r.bleu * 100, `${id} ${r.model} ${r.setting} BLEU`);
      }
    }
    return cli;
  };
  // The first model of the verdicts is the baseline until another is chosen.
  assert.equal(await page.inputValue('#cq-report-baseline'), 'good-model');
  let cli = await check('good-model');
  const weakNone = cli.overall.find((r) => r.model === 'weak-model' && r.setting === 'none');
  assert.ok(weakNone.pce.pce < 50, `the weak model loses to the good one: ${JSON.stringify(weakNone.pce)}`);
  await page.selectOption('#cq-report-baseline', 'weak-model');
  await page.waitForSelector('#cq-report-overall tr[data-model="weak-model"][data-setting="none"] td.pce:text("50.0 (baseline)")');
  cli = await check('weak-model');
  // The level chart: each model and setting's accuracy shares, as the CLI counts them.
  for (const r of cli.overall) {
    const n = r.levels.criteria.accuracy.reduce((a, b) => a + b, 0);
    const shares = await page.$$eval(`#cq-levels-chart g[data-model="${r.model}"][data-setting="${r.setting}"] rect[data-criterion="accuracy"]`,
      (rects) => rects.map((x) => [x.dataset.level, Number(x.dataset.share)]));
    const want = r.levels.criteria.accuracy.map((c, i) => [['1-2', '3-4', '5-6', '7-8', '9-10'][i], 100 * c / n]).filter(([, s]) => s > 0);
    assert.deepEqual(shares.map(([l, s]) => [l, s.toFixed(1)]), want.map(([l, s]) => [l, s.toFixed(1)]), `${r.model} ${r.setting}`);
  }
  assert.match(await page.textContent('#cq-report-notes'), /counts as a tie \(the paper does not say/);
  // On a phone the level chart fits its card whole: the highest level's
  // bars and legend are in view, not off to the right.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#cq-levels-chart').scrollIntoViewIfNeeded();
  const fit = await page.evaluate(() => {
    const svg = document.querySelector('#cq-levels-chart svg').getBoundingClientRect();
    const card = document.querySelector('#cq-report').getBoundingClientRect();
    return { svg: svg.right, card: card.right, width: innerWidth };
  });
  assert.ok(fit.svg <= fit.card && fit.svg <= fit.width, `the level chart runs past its card at 390 px: ${JSON.stringify(fit)}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await saveViewports(page, '#cq-report', 'coreqa-report');
  await saveViewports(page, '#cq-levels-chart', 'coreqa-levels');
  assert.deepEqual(problems, []);
});
