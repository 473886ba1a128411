// Asking models from the CoReQA page, against the project's test model
// server on 127.0.0.1 (tests/oracle/model_server.py --coreqa: fixed rules,
// not a model) with the Run page's API settings: two models answer the
// demo's four questions and their answers files equal what `repoqa coreqa
// answer` writes against the same server; a judge scores them twice, one
// malformed reply asked again; a reload while a verdict is in flight keeps
// every verdict that arrived and the next Ask asks only the rest; the
// pairwise judge compares both models in both orders and its verdicts equal
// `repoqa coreqa pairwise`'s, with Elo shown; the demo's semver repository
// picked as an archive gives the retrieval and whole prompts the CLI sends
// for the folder, and a window too small is refused with the tokens
// needed. Screenshots at 1280 and 390 px wide go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serveDir } from './serve.js';
import { freshPage, gotoApp, saveScreenshot, saveBothWidths, saveViewports, DIST, ROOT } from './browser.js';
import { startModelServer, idbDump, setField, KEY } from './run-fixture.js';
import { tarOf, packed } from './archives.js';
import zlib from 'node:zlib';

const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const QA = path.join(ROOT, 'public', 'demo', 'coreqa', 'semver-qa.jsonl');
const TOKENIZER = path.join(ROOT, '.tools', 'tokenizer.json');
const SEMVER = path.join(ROOT, 'public', 'demo', 'third_party', 'semver');
const work = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'repoqa-coreqa-ask-'));

let srv;
let model;
before(async () => {
  srv = await serveDir(DIST);
  model = await startModelServer(['--coreqa', QA, '--key', KEY, '--slow-s', '20']);
});
after(() => {
  srv?.server.close();
  model?.stop();
});

/** `repoqa coreqa …` against the test server; its output file's lines, sorted. */
function cli(args, output, server = model) {
  execFileSync(BIN, ['coreqa', ...args, '--base-url', server.url + '/v1',
    '--concurrency', '1', '--retry-base-ms', '10', '--output', output],
  { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENAI_API_KEY: KEY, REPOQA_TOKENIZER: TOKENIZER } });
  return fs.readFileSync(output, 'utf8').split('\n').filter(Boolean).sort();
}

/** The page's files as saved in IndexedDB: name -> lines (sorted). */
async function savedFiles(page) {
  const dump = await idbDump(page);
  const files = JSON.parse(dump['coreqa-files'] || '[]');
  return Object.fromEntries(files.map((f) => [f.name, f.text.split('\n').filter(Boolean).sort()]));
}

async function finished(page) {
  return Number(await page.getAttribute('#cq-ask-progress', 'data-finished'));
}

/** Press Ask and wait for the job it starts to end; its end state. */
async function ask(page) {
  const before = await finished(page);
  await page.click('#cq-ask-start');
  await page.waitForFunction((b) => Number(document.querySelector('#cq-ask-progress')?.dataset.finished) > b, before, { timeout: 60000 });
  return page.getAttribute('#cq-ask-progress', 'data-state');
}

/** The answering prompts the server got. */
async function answerPrompts() {
  return (await model.get('/requests')).filter((r) => r && r.task && r.task.includes('::answer:')).map((r) => r.body.messages[0].content);
}

/** The judge requests the server got: [question id, candidate model]. */
async function judgeRequests() {
  return (await model.get('/requests')).filter((r) => r && r.task && r.task.includes('::judge:')).map((r) => [
    r.task.split('::judge:')[1],
    r.body.messages[0].content.includes('I am not sure') ? 'weak-model' : 'good-model',
  ]);
}

/** The Run page's API settings (the test server, one request at a time),
 * then the CoReQA page. */
async function configureApi(page, server = model) {
  await gotoApp(page, srv.url, '#run');
  await page.selectOption('#run-preset', 'custom');
  await page.selectOption('#run-provider', 'openai');
  await setField(page, '#run-base-url', server.url + '/v1');
  await setField(page, '#run-model', 'good-model');
  await setField(page, '#run-key', KEY);
  await page.check('#run-remember-key'); // kept over a reload
  await setField(page, '#run-concurrency', 1);
  await setField(page, '#run-timeout', 60);
  await setField(page, '#run-max-retries', 3);
  await setField(page, '#run-retry-base', 50);
  await page.click('a[href="#coreqa"]');
  await page.waitForSelector('#cq-ask');
}

test('answers, judge scores and pairwise verdicts asked from the page', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  // The Run page's API settings are the ones the CoReQA page asks through.
  await configureApi(page);
  // The QA file from an address (the app's own server holds the demo's);
  // a wrong address is named.
  await setField(page, '#cq-url', new URL('demo/coreqa/no-such.jsonl', srv.url).href);
  await page.click('#cq-url-load');
  await page.waitForSelector('#cq-status[role="alert"]');
  assert.match(await page.textContent('#cq-status'), /no-such\.jsonl/);
  await setField(page, '#cq-url', new URL('demo/coreqa/semver-qa.jsonl', srv.url).href);
  await page.click('#cq-url-load');
  await page.waitForFunction(() => /^Loaded/.test(document.querySelector('#cq-status')?.textContent), null, { timeout: 10000 })
    .catch(async () => assert.fail(`${await page.textContent('#cq-status')}`));
  assert.equal(await page.locator('#cq-loaded li').count(), 1);
  assert.match(await page.textContent('#cq-status'), /^Loaded semver-qa\.jsonl \(QA file, 4\)/);
  assert.match(await page.textContent('#cq-ask-api'), /openai at http:\/\/127\.0\.0\.1:\d+\/v1, concurrency 1/);

  // Two models answer with the question alone; the files equal the CLI's.
  // The paper's sampling is the default (5 runs at 0.2, as the CLI's);
  // here one run each, at 0.2.
  await page.selectOption('#cq-ask-step', 'answer');
  assert.equal(await page.inputValue('#cq-ask-runs'), '5');
  assert.equal(await page.inputValue('#cq-ask-temperature'), '0.2');
  await setField(page, '#cq-ask-runs', 1);
  assert.equal(await page.textContent('#cq-ask-output'), 'answers-good-model.jsonl');
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.ok((await model.get('/requests')).every((r) => r.body.temperature === 0.2), 'answers asked at 0.2');
  await setField(page, '#cq-ask-model', 'weak-model');
  assert.equal(await page.textContent('#cq-ask-output'), 'answers-weak-model.jsonl');
  await model.control({ reset: true, faults: { 'answer:dtolnay/semver#2': ['500'] } });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 4 answered, 0 failed, 0 not asked, 1 retries/);
  let files = await savedFiles(page);
  for (const m of ['good-model', 'weak-model']) {
    const out = path.join(work, `answers-${m}.jsonl`);
    assert.deepEqual(files[`answers-${m}.jsonl`], cli(['answer', '--qa', QA, '--model', m, '--runs', '1'], out), m);
  }
  // Asking again asks nothing.
  const before = (await model.get('/requests')).length;
  assert.equal(await ask(page), 'done');
  assert.match(await page.textContent('#cq-ask-message'), /^Nothing to ask: answers-weak-model\.jsonl holds all 4 already/);
  assert.equal((await model.get('/requests')).length, before);

  // The judge: 4 questions × 2 models × 2 repetitions, good-model's first
  // (the answers files' order). Its first verdict on question 4 is
  // malformed (asked again later), its second hangs (20 s); a reload while
  // it is in flight keeps the 6 verdicts that arrived, and the next Ask asks
  // only the other 10.
  await page.selectOption('#cq-ask-step', 'judge');
  await setField(page, '#cq-ask-model', 'judge-model');
  assert.equal(await page.inputValue('#cq-ask-reps'), '2');
  await page.click('#cq-ask-judge-prompt summary');
  assert.match(await page.inputValue('#cq-ask-judge-template'), /\{\{reference_answer\}\}/);
  await model.control({ reset: true, faults: { 'judge:dtolnay/semver#4': ['judgebad', 'slow'] } });
  await page.click('#cq-ask-start');
  for (let i = 0; !(await model.get('/requests')).some((r) => r && r.fault === 'slow'); i++) {
    assert.ok(i < 300, 'the hanging verdict is asked within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  // The verdicts before the hanging one are saved as they arrive.
  const six = () => [...document.querySelectorAll('#cq-loaded li')].some((li) => /judge-judge-model\.jsonl — judge scores, 6 record/.test(li.textContent));
  await page.waitForFunction(six, null, { timeout: 10000 });
  assert.equal((await judgeRequests()).length, 8, 'six verdicts, a malformed one, one in flight');
  await page.reload();
  await page.waitForSelector('#cq-ask');
  await page.waitForFunction(six);
  assert.equal(await page.inputValue('#cq-ask-model'), 'judge-model', 'the form is back');
  await model.control({ reset: true, faults: {} });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 10 answered, 0 failed, 0 not asked, 0 retries/);
  const asked = (await judgeRequests()).map(([q, m]) => `${q} ${m}`).sort();
  const expected = ['dtolnay/semver#4 good-model', 'dtolnay/semver#4 good-model'];
  for (const q of [1, 2, 3, 4]) expected.push(`dtolnay/semver#${q} weak-model`, `dtolnay/semver#${q} weak-model`);
  assert.deepEqual(asked, expected.sort(), 'only the verdicts not saved are asked');
  assert.equal((await model.get('/requests')).length, 10);
  files = await savedFiles(page);
  const judged = files['judge-judge-model.jsonl'].map((l) => JSON.parse(l));
  assert.equal(judged.length, 16);
  assert.equal(new Set(judged.map((j) => `${j.question_id}::${j.model}::${j.repetition}`)).size, 16);
  assert.ok(judged.every((j) => j.judge === 'judge-model' && j.reasoning.length > 0));
  // The run log of every verdict (saved with the file, over the reload),
  // downloadable as the CLI names it; never the key.
  const saved = JSON.parse((await idbDump(page))['coreqa-files']);
  const log = saved.find((f) => f.name === 'judge-judge-model.jsonl').log;
  const records = log.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.deepEqual(records.map((r) => r.task_id).sort(), judged.map((j) => `${j.question_id}::${j.setting}::${j.model}::${j.repetition}`).sort());
  assert.ok(records.every((r) => r.model === 'judge-model' && r.status === 'answered'));
  assert.ok(!log.includes(KEY));
  const judgeLi = page.locator('#cq-loaded li', { hasText: 'judge-judge-model.jsonl' });
  const [dl] = await Promise.all([page.waitForEvent('download'), judgeLi.locator('.cq-download-log').click()]);
  assert.equal(dl.suggestedFilename(), 'judge-judge-model.runlog.jsonl');
  assert.equal(fs.readFileSync(await dl.path(), 'utf8'), log);
  const [file] = await Promise.all([page.waitForEvent('download'), judgeLi.locator('.cq-download').click()]);
  assert.equal(file.suggestedFilename(), 'judge-judge-model.jsonl');
  assert.deepEqual(fs.readFileSync(await file.path(), 'utf8').split('\n').filter(Boolean).sort(), files['judge-judge-model.jsonl']);
  // The judge table shows both models.
  await page.waitForSelector('#cq-judge-table tbody tr[data-model="weak-model"]');
  const good = await page.$eval('#cq-judge-table tbody tr[data-model="good-model"] td:nth-child(10)', (td) => td.textContent);
  const weak = await page.$eval('#cq-judge-table tbody tr[data-model="weak-model"] td:nth-child(10)', (td) => td.textContent);
  assert.ok(parseFloat(good) > parseFloat(weak), `${good} > ${weak}`);

  // Pairwise, both orders; one malformed verdict asked again. The lines
  // equal the CLI's against the same server.
  await page.selectOption('#cq-ask-step', 'pairwise');
  assert.equal(await page.textContent('#cq-ask-output'), 'pairwise-judge-model-none.jsonl');
  await model.control({ reset: true, faults: { 'pair:dtolnay/semver#2': ['judgebad'] } });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 8 answered, 0 failed, 0 not asked, 1 retries/);
  files = await savedFiles(page);
  const answers = ['good-model', 'weak-model'].map((m) => path.join(work, `answers-${m}.jsonl`));
  const pairs = cli(['pairwise', '--qa', QA, '--answers', answers[0], '--answers', answers[1], '--model', 'judge-model'], path.join(work, 'pairwise.jsonl'));
  assert.deepEqual(files['pairwise-judge-model-none.jsonl'], pairs);
  await page.waitForSelector('#cq-elo tr[data-model="good-model"]');
  const elo = await page.$$eval('#cq-elo tbody tr', (trs) => trs.map((tr) => tr.dataset.model));
  assert.deepEqual(elo, ['good-model', 'weak-model']);

  // Retrieval and whole: the demo's semver repository picked as an
  // archive, every text file read as the CLI reads the folder; the prompts
  // (so the chunks BM25 picked) and the answers equal the CLI's.
  const tgz = path.join(work, 'semver.tar.gz');
  fs.writeFileSync(tgz, zlib.gzipSync(tarOf(packed(SEMVER, 'semver'))));
  await page.selectOption('#cq-ask-step', 'answer');
  await page.setInputFiles('#cq-repo-archive', tgz);
  await page.waitForFunction(() => /text files/.test(document.querySelector('#cq-ask-repo')?.textContent));
  assert.match(await page.textContent('#cq-ask-repo'), /archive semver\.tar\.gz .*, 11 text files$/);
  await setField(page, '#cq-ask-model', 'good-model');
  await page.check('#cq-ask-setting-retrieval');
  await page.check('#cq-ask-setting-whole');
  await setField(page, '#cq-ask-window', 200000);
  await model.control({ reset: true, faults: {} });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 8 answered, 0 failed/, 'the answers without context are there already');
  const pagePrompts = (await answerPrompts()).sort();
  assert.equal(pagePrompts.filter((p) => p.includes('\n## Code retrieved from the repository\n')).length, 4);
  assert.equal(pagePrompts.filter((p) => p.includes('\n## The repository\n')).length, 4);
  await model.control({ reset: true });
  const cliGood = cli(['answer', '--qa', QA, '--model', 'good-model', '--setting', 'none,retrieval,whole',
    '--repo', SEMVER, '--window', '200000', '--runs', '1'], path.join(work, 'answers-good-3.jsonl'));
  const cliPrompts = (await answerPrompts()).filter((p) => p.includes('\n## Code retrieved') || p.includes('\n## The repository\n')).sort();
  assert.deepEqual(pagePrompts, cliPrompts);
  files = await savedFiles(page);
  assert.deepEqual(files['answers-good-model.jsonl'], cliGood);
  // Too small a window: refused with the tokens the repository needs.
  await setField(page, '#cq-ask-model', 'other-model');
  await setField(page, '#cq-ask-window', 1000);
  assert.equal(await ask(page), 'failed');
  assert.match(await page.textContent('#cq-ask-message'), /the repository needs \d+ tokens as Markdown, more than the window of 1000/);

  await page.setViewportSize({ width: 1280, height: 900 });
  await saveScreenshot(page, 'coreqa-ask-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.$eval('#cq-ask', (e) => e.scrollIntoView());
  await saveScreenshot(page, 'coreqa-ask-390.png');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scroll at 390 px (${overflow} px over)`);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|net::ERR/.test(p)), []);
});

test('questions about two repositories: each answered from its own folder of one archive, equal to `coreqa answer --repos`', async (t) => {
  // Semver's first two questions and one about a widget, between them.
  const repos = path.join(work, 'repos');
  fs.mkdirSync(path.join(repos, 'acme', 'widget'), { recursive: true });
  fs.cpSync(SEMVER, path.join(repos, 'dtolnay', 'semver'), { recursive: true });
  fs.writeFileSync(path.join(repos, 'acme', 'widget', 'widget.py'),
    'def spin(turns):\n    # WIDGET_MARKER: zero turns are refused\n    if turns <= 0:\n        raise ValueError(turns)\n');
  const [first, second] = fs.readFileSync(QA, 'utf8').split('\n').filter(Boolean);
  const widget = JSON.stringify({ id: 'acme/widget#1', repository: 'acme/widget', language: 'python',
    question: 'Why does spin(0) fail?', reference_answer: 'Zero turns are refused.' });
  const qa = path.join(work, 'two-qa.jsonl');
  fs.writeFileSync(qa, `${first}\n${widget}\n${second}\n`);
  const two = await startModelServer(['--coreqa', qa, '--key', KEY]);
  t.after(() => two.stop());
  const prompts = async () => (await two.get('/requests')).filter((r) => r && r.task && r.task.includes('::answer:')).map((r) => r.body.messages[0].content);

  const { page, problems } = await freshPage(t);
  await configureApi(page, two);
  await page.setInputFiles('#cq-files', qa);
  await page.waitForFunction(() => /^Loaded two-qa\.jsonl/.test(document.querySelector('#cq-status')?.textContent), null, { timeout: 10000 });
  await page.selectOption('#cq-ask-step', 'answer');
  // One archive, a folder per owner/name under its top folder.
  const tgz = path.join(work, 'repos.tar.gz');
  fs.writeFileSync(tgz, zlib.gzipSync(tarOf(packed(repos, 'repos'))));
  await page.setInputFiles('#cq-repo-archive', tgz);
  await page.waitForFunction(() => /text files/.test(document.querySelector('#cq-ask-repo')?.textContent));
  await setField(page, '#cq-ask-model', 'good-model');
  await page.check('#cq-ask-setting-retrieval');
  await page.check('#cq-ask-setting-whole');
  await setField(page, '#cq-ask-window', 200000);
  // The paper's sampling, the page's default and the CLI's: 5 runs at 0.2.
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 45 answered, 0 failed/);
  assert.ok((await two.get('/requests')).every((r) => r.body.temperature === 0.2));
  const pagePrompts = (await prompts()).sort();
  // The widget's code went to the widget's question only, semver's to semver's.
  for (const p of pagePrompts) {
    if (p.includes('WIDGET_MARKER')) assert.ok(p.includes('Why does spin(0) fail?'), p.slice(0, 300));
    if (p.includes('Apache License')) assert.ok(!p.includes('Why does spin(0) fail?'), p.slice(0, 300));
  }
  await two.control({ reset: true });
  const want = cli(['answer', '--qa', qa, '--model', 'good-model', '--setting', 'none,retrieval,whole',
    '--repos', repos, '--window', '200000'], path.join(work, 'answers-two-repos.jsonl'), two);
  assert.deepEqual(pagePrompts, (await prompts()).sort(), 'the page\'s prompts are the CLI\'s');
  assert.deepEqual((await savedFiles(page))['answers-good-model.jsonl'], want);
  // The judge grades every run; the page's spread of each question over
  // its five runs is the one `coreqa judge --json` gives for the same
  // judgments (the CLI reads the page's file and asks nothing).
  await page.selectOption('#cq-ask-step', 'judge');
  await setField(page, '#cq-ask-model', 'judge-model');
  await setField(page, '#cq-ask-reps', 1);
  await two.control({ reset: true });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 45 answered, 0 failed/);
  const judgedFile = path.join(work, 'judge-two.jsonl');
  fs.writeFileSync(judgedFile, `${(await savedFiles(page))['judge-judge-model.jsonl'].join('\n')}\n`);
  const answersFile = path.join(work, 'answers-two-page.jsonl');
  fs.writeFileSync(answersFile, `${(await savedFiles(page))['answers-good-model.jsonl'].join('\n')}\n`);
  const table = JSON.parse(execFileSync(BIN, ['coreqa', 'judge', '--qa', qa, '--answers', answersFile, '--model', 'judge-model',
    '--repetitions', '1', '--base-url', 'http://127.0.0.1:9/v1', '--output', judgedFile, '--json'],
  { encoding: 'utf8', env: { ...process.env, REPOQA_TOKENIZER: TOKENIZER } }));
  const spreads = table.filter((r) => r.language !== 'all').flatMap((r) => r.per_question);
  assert.equal(spreads.length, 9, 'three questions in three settings, each over its runs');
  await page.click('#cq-judge-questions summary');
  const shown = await page.$$eval('#cq-judge-questions tbody tr', (trs) => trs.map((tr) => ({
    key: `${tr.dataset.question} ${tr.dataset.model} ${tr.dataset.setting}`,
    runs: Number(tr.children[3].textContent),
    overall: tr.children[4].textContent,
  })));
  assert.equal(shown.length, spreads.length);
  for (const s of spreads) {
    const row = shown.find((r) => r.key === `${s.question_id} ${s.model} ${s.setting}`);
    assert.ok(row, `${s.question_id} ${s.setting} on the page`);
    assert.equal(row.runs, 5);
    const [mean, std] = row.overall.split('±').map(Number);
    assert.ok(Math.abs(mean - s.overall.mean) <= 0.0051 && Math.abs(std - s.overall.std) <= 0.0051, `${row.overall} vs ${JSON.stringify(s.overall)}`);
  }
  assert.match(await page.textContent('#cq-judge-spread'), /Answers sampled in up to 5 runs/);
  await saveViewports(page, '#cq-judge-questions', 'coreqa-per-question');
  await page.selectOption('#cq-ask-step', 'answer');
  // An archive without one of the repositories: refused, naming it, nothing asked.
  const semverOnly = path.join(work, 'semver-only.tar.gz');
  fs.writeFileSync(semverOnly, zlib.gzipSync(tarOf(packed(path.join(repos, 'dtolnay'), 'repos/dtolnay'))));
  await page.setInputFiles('#cq-repo-archive', semverOnly);
  await page.waitForFunction(() => /semver-only/.test(document.querySelector('#cq-ask-repo')?.textContent));
  await setField(page, '#cq-ask-model', 'other-model');
  await two.control({ reset: true });
  assert.equal(await ask(page), 'failed');
  assert.match(await page.textContent('#cq-ask-message'), /The questions are about 2 repositories: .*acme\/widget/);
  assert.deepEqual(await prompts(), []);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|net::ERR/.test(p)), []);
});

test('Ask needs only the address and key of the Run page; the judge starts empty and a self-judge is warned of', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await configureApi(page);
  // The Run page's model left empty: this card's model is all Ask needs.
  await gotoApp(page, srv.url, '#run');
  await setField(page, '#run-model', '');
  await page.click('a[href="#coreqa"]');
  await page.waitForSelector('#cq-ask');
  await setField(page, '#cq-url', new URL('demo/coreqa/semver-qa.jsonl', srv.url).href);
  await page.click('#cq-url-load');
  await page.waitForFunction(() => /^Loaded/.test(document.querySelector('#cq-status')?.textContent), null, { timeout: 10000 });
  await page.selectOption('#cq-ask-step', 'answer');
  await setField(page, '#cq-ask-model', 'good-model');
  await model.control({ reset: true, faults: {} });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 20 answered, 0 failed/, 'four questions, five runs');
  assert.ok((await model.get('/requests')).every((r) => r.body.model === 'good-model'));
  // Runs or a temperature that is not a number: named, nothing asked.
  await model.control({ reset: true });
  const refused = async (pattern) => {
    await page.click('#cq-ask-start');
    await page.waitForFunction((p) => new RegExp(p).test(document.querySelector('#cq-ask-message')?.textContent || ''), pattern.source, { timeout: 10000 })
      .catch(() => {});
    assert.match(await page.textContent('#cq-ask-message'), pattern);
    assert.equal(await page.getAttribute('#cq-ask-progress', 'data-state'), 'failed');
    assert.equal(await page.getAttribute('#cq-ask-message', 'class'), 'fail');
  };
  await setField(page, '#cq-ask-runs', '');
  await refused(/^Runs: \d+ is not a whole number from 1 to 100 \(the paper samples 5\)\.$/);
  await setField(page, '#cq-ask-runs', 5);
  await setField(page, '#cq-ask-temperature', '');
  await refused(/^Temperature: blank is not a number from 0 to 2 \(the paper answers at 0\.2\)\.$/);
  await saveViewports(page, '#cq-ask-message', 'coreqa-ask-sampling');
  await setField(page, '#cq-ask-temperature', 0.2);
  assert.deepEqual(await model.get('/requests'), []);
  // Judging: the field starts empty, not with the answering model.
  await page.selectOption('#cq-ask-step', 'judge');
  assert.equal(await page.inputValue('#cq-ask-model'), '');
  assert.equal(await page.$('#cq-ask-self-judge'), null);
  await setField(page, '#cq-ask-model', 'good-model');
  await page.waitForSelector('#cq-ask-self-judge');
  const warning = page.locator('#cq-ask-self-judge');
  assert.match(await warning.textContent(), /The judge, good-model, gave answers being judged/);
  const box = await warning.boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= 900, 'the warning is in view beside the field');
  await saveBothWidths(page, '#cq-ask-self-judge', 'coreqa-self-judge');
  await setField(page, '#cq-ask-model', 'judge-model');
  await page.waitForSelector('#cq-ask-self-judge', { state: 'detached' });
  // With the Run page's model empty and no model here: a message naming this field.
  await page.selectOption('#cq-ask-step', 'answer');
  await page.click('#cq-ask-start');
  await page.waitForFunction(() => /Name the model to ask/.test(document.querySelector('#cq-ask-message')?.textContent || ''), null, { timeout: 10000 })
    .catch(() => {});
  assert.match(await page.textContent('#cq-ask-message'), /Name the model to ask in this card's model field/);
  assert.equal(await page.getAttribute('#cq-ask-progress', 'data-state'), 'failed');
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|net::ERR/.test(p)), []);
});

// Walk round 2 (minor): Ask with the defaults (no model, no key) says
// where it would send the question and that a model server must answer
// there, or a provider's key be given, not only "Name the model".
test('Ask with no model server or key says one is needed, and where', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await gotoApp(page, srv.url, '#coreqa');
  await page.waitForSelector('#cq-ask');
  await page.selectOption('#cq-ask-step', 'answer');
  await page.click('#cq-ask-start');
  await page.waitForFunction(() => /Name the model/.test(document.querySelector('#cq-ask-message')?.textContent || ''), null, { timeout: 10000 });
  assert.match(await page.textContent('#cq-ask-message'),
    /^Name the model to ask in this card's model field \(or on the Run page\)\. Ask sends it to the API set on the Run page: OpenAI-compatible at http:\/\/127\.0\.0\.1:\d+\/v1\. A model server must be running there \(llama\.cpp's server, vLLM, Ollama: set its Base URL\), or give a provider's API format and API key/);
  assert.equal(await page.getAttribute('#cq-ask-progress', 'data-state'), 'failed');
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|net::ERR/.test(p)), []);
});

test('questions and reference answers written from an issues export, as repoqa coreqa build writes them', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await configureApi(page);
  const exportFile = path.join(ROOT, 'tests', 'fixtures', 'coreqa', 'issues-export.json');
  await page.setInputFiles('#cq-files', exportFile);
  await page.waitForFunction(() => document.querySelectorAll('#cq-loaded li').length === 1);
  await page.selectOption('#cq-ask-step', 'build');
  await setField(page, '#cq-ask-model', 'writer-model');
  await setField(page, '#cq-ask-language', 'rust');
  assert.equal(await page.textContent('#cq-ask-output'), 'issues-export-qa.jsonl');
  assert.match(await page.textContent('#cq-ask-kept'), /^issues-export\.json: \d+ of \d+ issues pass the paper's filters/);
  await page.click('#cq-ask-question-prompt summary');
  assert.match(await page.inputValue('#cq-ask-question-template'), /\{\{title\}\}/);
  const kept = Number((await page.textContent('#cq-ask-kept')).match(/: (\d+) of/)[1]);
  assert.ok(kept >= 2, `${kept} issues kept`);
  const cliOut = path.join(work, 'qa-built.jsonl');
  // One question request fails once (asked again) in the page's run.
  const report = JSON.parse(execFileSync(BIN, ['coreqa', 'issues', '--export', exportFile, '--json'], { encoding: 'utf8' }));
  assert.equal(report.kept.length, kept);
  const first = JSON.parse(fs.readFileSync(exportFile, 'utf8')).issues.find((i) => i.number === report.kept[0]);
  await model.control({ reset: true, faults: {} });
  const cliQa = cli(['build', '--export', exportFile, '--language', 'rust', '--model', 'writer-model'], cliOut);
  const cliQuestions = fs.readFileSync(path.join(work, 'qa-built.questions.jsonl'), 'utf8').split('\n').filter(Boolean).sort();
  assert.equal(cliQa.length, kept);
  await model.control({ reset: true, faults: { [`question:${first.title}`]: ['500'] } });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), new RegExp(`^Done: ${kept} answered, 0 failed`));
  const files = await savedFiles(page);
  assert.deepEqual(files['issues-export-qa.questions.jsonl'], cliQuestions);
  assert.deepEqual(files['issues-export-qa.jsonl'], cliQa);
  // The QA file is on the page: its questions are listed, ready to answer.
  await page.waitForFunction((n) => document.querySelector('#cq-question-count')?.textContent.includes(String(n)), kept);
  await saveScreenshot(page, 'coreqa-build-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'coreqa-build-390.png');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scroll at 390 px (${overflow} px over)`);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|net::ERR/.test(p)), []);
});

test('the pre-filter screens the issues first, as `repoqa coreqa build --prefilter` does', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await configureApi(page);
  const exportFile = path.join(ROOT, 'tests', 'fixtures', 'coreqa', 'issues-export.json');
  await page.setInputFiles('#cq-files', exportFile);
  await page.waitForFunction(() => document.querySelectorAll('#cq-loaded li').length === 1);
  await page.selectOption('#cq-ask-step', 'build');
  await setField(page, '#cq-ask-model', 'writer-model');
  assert.equal(await page.$('#cq-ask-prefilter-prompt'), null, 'no pre-filter prompt until asked for');
  await page.check('#cq-ask-prefilter');
  await page.click('#cq-ask-prefilter-prompt summary');
  assert.match(await page.inputValue('#cq-ask-prefilter-template'), /Verdict: keep\nVerdict: drop\n$/);
  // The CLI against the same server (it drops a title ending in an odd digit).
  await model.control({ reset: true, faults: {} });
  const cliOut = path.join(work, 'qa-prefiltered.jsonl');
  const cliQa = cli(['build', '--export', exportFile, '--model', 'writer-model', '--prefilter'], cliOut);
  const read = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).sort();
  const cliVerdicts = read(path.join(work, 'qa-prefiltered.prefilter.jsonl'));
  const cliQuestions = read(path.join(work, 'qa-prefiltered.questions.jsonl'));
  assert.ok(cliVerdicts.some((l) => JSON.parse(l).keep === false), 'the server drops one issue');
  // The page, one verdict malformed first (asked again).
  await model.control({ reset: true, faults: { 'prefilter:Issue 8': ['judgebad'] } });
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  const files = await savedFiles(page);
  assert.deepEqual(files['issues-export-qa.prefilter.jsonl'], cliVerdicts);
  assert.deepEqual(files['issues-export-qa.questions.jsonl'], cliQuestions);
  assert.deepEqual(files['issues-export-qa.jsonl'], cliQa);
  assert.ok(cliQa.every((l) => JSON.parse(l).prefilter.keep === true));
  assert.match(await page.textContent('#cq-loaded'), /issues-export-qa\.prefilter\.jsonl — pre-filter verdicts, 3 record/);
  await saveViewports(page, '#cq-ask-prefilter', 'coreqa-prefilter');
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|net::ERR/.test(p)), []);
});

test('the judge\'s stability check (Table VI) and PCE over answer runs, asked from the page, equal the CLI\'s', async (t) => {
  const server = await startModelServer(['--coreqa', QA, '--key', KEY]);
  t.after(() => server.stop());
  const { page, problems } = await freshPage(t);
  await page.setViewportSize({ width: 1280, height: 900 });
  await configureApi(page, server);
  await page.setInputFiles('#cq-files', QA);
  await page.waitForFunction(() => /^Loaded semver-qa\.jsonl/.test(document.querySelector('#cq-status')?.textContent), null, { timeout: 10000 });
  const dir = fs.mkdtempSync(path.join(work, 'stability-'));
  // Two models answer every question twice (2 runs), as the CLI does.
  await page.selectOption('#cq-ask-step', 'answer');
  await setField(page, '#cq-ask-runs', 2);
  const answers = {};
  let files;
  for (const m of ['good-model', 'weak-model']) {
    await setField(page, '#cq-ask-model', m);
    assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
    files = await savedFiles(page);
    answers[m] = path.join(dir, `answers-${m}.jsonl`);
    assert.deepEqual(files[`answers-${m}.jsonl`], cli(['answer', '--qa', QA, '--model', m, '--runs', '2'], answers[m], server), m);
  }
  const given = ['--answers', answers['good-model'], '--answers', answers['weak-model']];

  // The stability check: 3 of the 16 answers, each judged 5 times, into a
  // file of its own; the repetitions field shows the check's 5.
  await page.selectOption('#cq-ask-step', 'judge');
  await setField(page, '#cq-ask-model', 'judge-model');
  await setField(page, '#cq-ask-stability', 3);
  // The test judge alternates its scores of one answer: each side starts
  // from a fresh count.
  const fresh = () => server.control({ reset: true, faults: {} });
  await fresh();
  assert.equal(await page.inputValue('#cq-ask-reps'), '5');
  assert.ok(await page.isDisabled('#cq-ask-reps'));
  assert.equal(await page.textContent('#cq-ask-output'), 'judge-stability-judge-model.jsonl');
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 15 answered, 0 failed/);
  files = await savedFiles(page);
  const stable = path.join(dir, 'stability.jsonl');
  await fresh();
  assert.deepEqual(files['judge-stability-judge-model.jsonl'],
    cli(['judge', '--qa', QA, ...given, '--model', 'judge-model', '--stability', '3'], stable, server));
  assert.ok(files['judge-stability-judge-model.jsonl'].every((l) => JSON.parse(l).stability_seed === 42));
  assert.match(await page.textContent('#cq-loaded'), /judge-stability-judge-model\.jsonl — the judge's stability check, 15 record/);
  // The judge's scores: the stability field emptied, twice per answer.
  await setField(page, '#cq-ask-stability', '');
  assert.ok(!(await page.isDisabled('#cq-ask-reps')));
  assert.equal(await page.textContent('#cq-ask-output'), 'judge-judge-model.jsonl');
  await fresh();
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 32 answered, 0 failed/);
  const judged = path.join(dir, 'judged.jsonl');
  await fresh();
  files = await savedFiles(page);
  assert.deepEqual(files['judge-judge-model.jsonl'], cli(['judge', '--qa', QA, ...given, '--model', 'judge-model'], judged, server));

  // Pairwise over both runs: on question 4 the judge prefers the answer it
  // sees first in run 1 only (the first two requests of that question), so
  // the runs' PCE differ.
  const faults = { reset: true, faults: { 'pair:dtolnay/semver#4': ['prefera', 'prefera'] } };
  await server.control(faults);
  await page.selectOption('#cq-ask-step', 'pairwise');
  assert.equal(await ask(page), 'done', await page.textContent('#cq-ask-message'));
  assert.match(await page.textContent('#cq-ask-message'), /^Done: 16 answered, 0 failed/);
  await server.control(faults);
  const pairs = path.join(dir, 'pairs.jsonl');
  files = await savedFiles(page);
  assert.deepEqual(files['pairwise-judge-model-none.jsonl'], cli(['pairwise', '--qa', QA, ...given, '--model', 'judge-model'], pairs, server));

  // The report: Table V without the check, Table VI of it, PCE mean ± SD,
  // each equal to `repoqa coreqa report --json` given the same files.
  const report = JSON.parse(execFileSync(BIN, ['coreqa', 'report', '--qa', QA, '--judgments', judged, '--judgments', stable,
    ...given, '--pairwise', pairs, '--baseline', 'weak-model', '--json'], { encoding: 'utf8' }));
  await page.selectOption('#cq-report-baseline', 'weak-model');
  await page.waitForSelector('#cq-report-overall tr[data-model="weak-model"] td.pce:text("50.0 (baseline)")');
  const good = report.overall.find((r) => r.model === 'good-model');
  assert.equal(good.pce.runs, 2);
  assert.equal(good.pce.pce, 93.75);
  assert.equal(good.pce.pce_sd, 6.25);
  const pceCell = await page.textContent('#cq-report-overall tr[data-model="good-model"] td.pce');
  assert.match(pceCell, /^93\.[78] ± 6\.[23]$/, 'the PCE cell shows the runs\' mean ± SD');
  const overall = await page.$$eval('#cq-report-overall tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  assert.equal(overall.length, report.overall.length);
  for (const [i, r] of report.overall.entries()) {
    assert.equal(overall[i][2], String(r.questions), `${r.model}: Table V counts the scores' questions only`);
    ['accuracy', 'completeness', 'relevance', 'clarity'].forEach((c, k) => {
      const [mean, sd] = overall[i][3 + k].split(' ± ').map(Number);
      assert.ok(Math.abs(mean - r.criteria[c].mean) <= 0.0051 && Math.abs(sd - r.criteria[c].std) <= 0.0051, `${r.model} ${c}: ${overall[i][3 + k]}`);
    });
  }
  assert.ok(report.stability.length > 0);
  const six = await page.$$eval('#cq-report-stability tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })));
  assert.deepEqual(six.map((r) => r.model), report.stability.map((r) => r.model));
  for (const [i, r] of report.stability.entries()) {
    assert.deepEqual(six[i].cells.slice(2, 4), [String(r.answers), String(r.repetitions)]);
    ['accuracy', 'completeness', 'relevance', 'clarity'].forEach((c, k) => {
      const [mean, sd] = six[i].cells[4 + k].split(' ± ').map(Number);
      assert.ok(Math.abs(mean - r.criteria[c].mean) <= 0.0051 && Math.abs(sd - r.criteria[c].std) <= 0.0051, `Table VI ${r.model} ${c}: ${six[i].cells[4 + k]}`);
    });
  }
  // The judge table above (the scores) leaves the check out too.
  const judgeModels = await page.$$eval('#cq-judge-table tbody tr', (trs) => trs.map((tr) => tr.dataset.model));
  assert.deepEqual([...new Set(judgeModels)].sort(), ['good-model', 'weak-model']);
  await page.locator('#cq-report-stability').scrollIntoViewIfNeeded();
  await saveViewports(page, '#cq-report', 'coreqa-report-stability');
  assert.deepEqual(problems, []);
});
