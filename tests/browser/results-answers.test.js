// Answers in, in headless Chromium: typed answers get a live verdict,
// imported JSONL lines are matched to tasks, broken lines and non-UTF-8
// files are reported by line, and answers are text — never run as HTML.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { saveScreenshot } from './browser.js';
import { open, buildDemo, typeAnswers, importRest, fence, sampleAnswered } from './results-fixture.js';

let fx;
before(async () => { fx = await open(); });
after(async () => { await fx?.close(); });

test('typed and imported answers: verdicts, line errors, UTF-8, inert text', async () => {
  const { page, tasks, ids, needles, work } = fx;
  assert.equal(tasks.length, 60);
  await buildDemo(fx);

  // Typed answers (verdicts asserted as they are typed); the XSS one inert.
  await typeAnswers(fx);
  await saveScreenshot(page, 'results-answer-box-xss.png');
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'answer box executed the answer');
  assert.equal(await page.locator('#answer-slot img, #answer-slot script').count(), 0);

  // The rest imported as pasted JSONL.
  await importRest(fx);

  // Broken lines: the good ones kept, the bad ones reported by line number.
  const broken = [
    JSON.stringify({ task_id: ids[1], output: [fence(tasks[1].language, needles.get(ids[1]).text)] }),
    '{not json',
    JSON.stringify({ task_id: 'python::nobody/nothing::f', output: ['x'] }),
    '',
    JSON.stringify({ task_id: ids[2] }),
    JSON.stringify({ name: tasks[3].name, output: 7 }),
  ];
  const brokenFile = path.join(work, 'broken.jsonl');
  fs.writeFileSync(brokenFile, broken.join('\n') + '\n');
  await page.setInputFiles('#import-file', brokenFile);
  await page.waitForSelector('#import-status[data-errors="4"]');
  assert.equal(await page.getAttribute('#import-status', 'data-imported'), '1');
  const errLines = await page.$$eval('#import-errors li', (lis) => lis.map((li) => Number(li.dataset.line)));
  assert.deepEqual(errLines, [2, 3, 5, 6]);
  // A file that is not UTF-8 is refused, naming the line; nothing changes.
  const latin1 = path.join(work, 'latin1.jsonl');
  fs.writeFileSync(latin1, Buffer.concat([Buffer.from(broken[0] + '\n'),
    Buffer.from(`{"task_id": "${ids[1]}", "output": ["caf\xe9"]}\n`, 'latin1')]));
  await page.setInputFiles('#import-file', latin1);
  await page.waitForSelector('#import-status[data-ok="false"]');
  assert.match(await page.textContent('#import-status'), /latin1\.jsonl: line 2 is not UTF-8 text/);
  assert.equal(await page.getAttribute('#results', 'data-answered'), '60');
  // Nothing usable is a failure, in red, never "Imported 0 answers" in green.
  const empty = path.join(work, 'empty.jsonl');
  fs.writeFileSync(empty, '');
  const junk = path.join(work, 'junk.jsonl');
  fs.writeFileSync(junk, '{not json\n[1, 2]\n');
  for (const [file, why] of [[empty, /Nothing imported from empty\.jsonl: it is empty/], [junk, /Nothing imported from junk\.jsonl: none of its 2 line\(s\) is an answer to a built task \(line 1: /]]) {
    await page.setInputFiles('#import-file', file);
    await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#import-status')?.textContent || ''), why.source, { timeout: 30000 });
    assert.equal(await page.getAttribute('#import-status', 'data-ok'), 'false');
    assert.equal(await page.$eval('#import-status', (el) => getComputedStyle(el).color), 'rgb(180, 35, 24)', 'the refusal is red');
    await page.waitForSelector('#job:not([data-state="running"])');
    assert.notEqual(await page.getAttribute('#job', 'data-state'), 'done', 'the job line does not say done');
  }
  // A SCORES file dropped here says where it goes in this app.
  const scores = path.join(work, 'm-SCORES.json');
  fs.writeFileSync(scores, JSON.stringify({ m: { eval_date: 'x', train_size: 'N/A', scores: {}, results: {} } }, null, 2));
  await page.setInputFiles('#import-file', scores);
  await page.waitForFunction(() => /SCORES file/.test(document.querySelector('#import-status')?.textContent || ''), null, { timeout: 30000 });
  assert.match(await page.textContent('#import-status'), /open it on the Leaderboard page to compare it with other runs, or check it on the Verify page/);
  assert.equal(await page.getAttribute('#results', 'data-answered'), '60');

  // The XSS answer in the results detail: text only, diff shown.
  await page.click(`tr.task-row[data-task-id="${ids[44]}"] button.details`);
  await page.waitForSelector('#task-detail #detail-diff');
  assert.ok((await page.textContent('#detail-answer')).includes('<script>window.__xss = 3</script>'));
  assert.equal(await page.locator('#app-main img, #app-main script').count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'results detail executed the answer');
  await saveScreenshot(page, 'results-page.png');
  assert.deepEqual(fx.problems, [], 'console errors or panics in the page');
});

// Walk round 2 (minor): the sample answers' name ("SAMPLE-answers-not-a-
// model", written by this project) stays with the samples only: answers of
// the visitor's own, pasted after a Clear or beside the samples, are no
// longer labelled as the project's.
test('pasted answers are not labelled as the project\'s samples', async () => {
  const fx2 = await sampleAnswered();
  try {
    const { page } = fx2;
    assert.equal(await page.inputValue('#model-name'), 'SAMPLE-answers-not-a-model');
    // The summary says how many of them pass, and never "0 ms".
    const passing = Number(await page.getAttribute('#answer-summary', 'data-passing'));
    assert.equal(passing, Number(await page.getAttribute('#score-headline', 'data-passed')), 'the headline\'s count (unanswered tasks never pass)');
    const summary = await page.textContent('#answer-summary');
    assert.match(summary, new RegExp(`^12 of 60 tasks answered; ${passing} of them pass at 0\\.8; the import scored 12 answer\\(s\\) in (under 1|\\d+) ms\\.$`), summary);
    assert.doesNotMatch(summary, / 0 ms/);
    // Cleared: nobody's answers.
    await page.click('#clear-answers');
    await page.click('#clear-confirm-yes');
    await page.waitForSelector('#load-samples');
    assert.equal(await page.inputValue('#model-name'), 'model');
    // Samples again, then a line of the visitor's pasted beside them.
    await page.click('#load-samples');
    await page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
    assert.equal(await page.inputValue('#model-name'), 'SAMPLE-answers-not-a-model');
    const id = await page.$eval('tr.task-row:not([data-answered="true"])', (tr) => tr.dataset.taskId).catch(() => null)
      || (await page.$$eval('tr.task-row', (trs) => trs.map((tr) => tr.dataset.taskId)))[0];
    await page.fill('#import-text', JSON.stringify({ task_id: id, output: 'my own answer' }));
    await page.click('#import-pasted');
    await page.waitForFunction(() => document.querySelector('#model-name')?.value === 'model', null, { timeout: 30000 });
    assert.deepEqual(fx2.problems, [], 'console errors or panics in the page');
  } finally {
    await fx2.close();
  }
});
