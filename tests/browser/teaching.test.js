// Teaching views (issue 24) in headless Chromium, on the demo with its
// sample answers: a result's similarity step by step. For every sample
// answer and every candidate of its repository, the step-by-step
// similarity (the scorer's own code path, `Scorer::explain`) equals the
// value the candidate table shows, bit for bit, and the matched n-grams it
// marks are as many as the matches it counts. A needle's description
// shows its Markdown as formatted text, and HTML in it as text.
// Screenshots of the panel at 1280 and 390 px go to tests/artifacts/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { open, buildDemo, DEMO } from './results-fixture.js';
import { ARTIFACTS } from './browser.js';

let fx;
after(async () => { await fx?.close(); });

test('a similarity step by step equals the scorer for every sample answer and every candidate', async () => {
  fx = await open();
  const { page, srv, problems } = fx;
  await page.setViewportSize({ width: 1280, height: 900 });
  await buildDemo(fx);
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForSelector('#load-samples', { timeout: 60000 });
  await page.click('#load-samples');
  await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 120000 });
  const ids = await page.$$eval('#task-results tr.task-row', (trs) => trs.map((tr) => tr.dataset.taskId));
  assert.ok(ids.length >= 10, `${ids.length} answered tasks`);
  let checked = 0;
  for (const id of ids) {
    await page.click(`#task-results tr.task-row[data-task-id="${id}"] button.details`);
    await page.waitForSelector(`#task-detail[data-task-id="${id}"]`);
    await page.click('#verdict-steps > summary');
    const options = await page.$$eval('#steps-candidate option', (os) => os.map((o) => ({ value: o.value, text: o.textContent })));
    const needle = id.split('::')[2];
    assert.ok(options[0].text.startsWith(`${needle} (`), `the task's own needle first: ${options[0].text}`);
    for (const o of options) {
      await page.selectOption('#steps-candidate', o.value);
      const name = o.text.slice(0, o.text.indexOf(' ('));
      // The steps shown are for the candidate chosen (never the previous
      // one's while the engine computes).
      await page.waitForFunction((n) => {
        const sel = document.querySelector('#steps-candidate');
        const result = document.querySelector('#steps-result');
        return sel && sel.options[sel.selectedIndex].textContent.startsWith(n + ' (') && result?.dataset.candidate === n;
      }, name);
      const shown = await page.getAttribute('#steps-result', 'data-similarity');
      const scored = await page.getAttribute(`#detail-candidates tr[data-name="${name}"]`, 'data-similarity');
      assert.equal(shown, scored, `${id} against ${name}`);
      // The marked matches of each order are the counts the table shows.
      for (const n of o === options[0] ? [1, 2, 3, 4] : []) {
        await page.check(`#steps-order-${n}`);
        const row = await page.$eval(`#steps-orders tr[data-n="${n}"]`, (tr) => Number(tr.dataset.matches));
        const hypLen = Number(await page.getAttribute('#steps-result', 'data-hyp-len'));
        if (hypLen <= 600 && n === 1) {
          const marked = await page.$$eval('#steps-hyp-tokens .tok.matched', (s) => s.length);
          assert.equal(marked, row, `${id} vs ${name}: unigram matches marked`);
        }
      }
      await page.check('#steps-order-1');
      if (id === ids[0] && o === options[0]) {
        const panel = page.locator('#verdict-steps');
        await panel.screenshot({ path: path.join(ARTIFACTS, 'teaching-steps-1280.png') });
        await page.setViewportSize({ width: 390, height: 844 });
        await panel.screenshot({ path: path.join(ARTIFACTS, 'teaching-steps-390.png') });
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      checked += 1;
    }
    await page.click('#detail-close');
  }
  console.log(`teaching: ${checked} similarities step by step, each equal to the scorer's, over ${ids.length} sample answers`);
  assert.deepEqual(problems, []);
});

test("a needle's description shows its Markdown as formatted text, never the data's HTML", async () => {
  const { page, srv, problems, work } = fx;
  const demo = JSON.parse(fs.readFileSync(DEMO, 'utf8'));
  const needle = demo.python[0].needles[0];
  needle.description = '\n1. **Purpose**: counts `words` <img src=x onerror="window.__xss = 1">\n2. **Output**: <script>window.__xss = 2</script>a *float*; see [the docs](javascript:window.__xss=3)\n';
  const file = path.join(work, 'described.json');
  fs.writeFileSync(file, JSON.stringify(demo));
  await page.goto(srv.url + '#dataset');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.setInputFiles('#dataset-file', file);
  await page.waitForFunction(() => document.querySelector('#dataset-origin')?.textContent === 'described.json', null, { timeout: 60000 });
  await page.goto(srv.url + '#tasks');
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
  const id = `python::${demo.python[0].repo}::${needle.name}`;
  await page.goto(srv.url + `#task/${encodeURIComponent(id)}`);
  await page.waitForSelector('#task-description .markdown');
  const shown = await page.evaluate(() => {
    const d = document.querySelector('#task-description .markdown');
    return {
      items: [...d.querySelectorAll('ol > li')].map((li) => li.textContent),
      strong: [...d.querySelectorAll('strong')].map((s) => s.textContent),
      code: [...d.querySelectorAll('code')].map((c) => c.textContent),
      em: [...d.querySelectorAll('em')].map((c) => c.textContent),
      elements: [...d.querySelectorAll('img, script, a')].length,
      xss: window.__xss,
    };
  });
  assert.equal(shown.items.length, 2, JSON.stringify(shown));
  assert.deepEqual(shown.strong, ['Purpose', 'Output']);
  assert.deepEqual(shown.code, ['words']);
  assert.deepEqual(shown.em, ['float']);
  assert.equal(shown.elements, 0, 'an element from the data');
  assert.equal(shown.xss, undefined);
  assert.match(shown.items[0], /<img src=x onerror="window.__xss = 1">/);
  assert.doesNotMatch(shown.items.join(' '), /\*\*/);
  await page.locator('#task-description').screenshot({ path: path.join(ARTIFACTS, 'teaching-description-1280.png') });

  // Depth in words: the ratio aims the needle's middle; the words carry
  // the task's own numbers.
  const ratio = Number(await page.textContent('#position-ratio'));
  const [start, end, n] = (await page.textContent('#needle-tokens')).match(/\d+/g).map(Number);
  const words = await page.textContent('#depth-words');
  assert.ok(words.includes(`position_ratio ${ratio} places the needle's middle, not its start`), words);
  assert.ok(words.includes(`${ratio} × 16384 = ${(ratio * 16384).toFixed(0)} tokens`), words);
  assert.ok(words.includes(`(${end - start} tokens) starts at token ${start} and its middle is at `), words);
  assert.ok(words.includes(` of ${n} context tokens`), words);

  // Previous and next task by keyboard, as the links go.
  const next = await page.getAttribute('#next-task', 'href');
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((h) => location.hash === h, next);
  await page.waitForSelector('#prev-task');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((h) => decodeURIComponent(location.hash) === h, `#task/${id}`);
  // Not while typing an answer.
  await page.focus('.answer-box textarea');
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(200);
  assert.equal(decodeURIComponent(await page.evaluate(() => location.hash)), `#task/${id}`);
  assert.deepEqual(problems, []);
});

test("a typed answer's verdict, step by step, from the task view", async () => {
  const { page, problems, ids, tasks, needles } = fx;
  // Task 3 answered with task 4's needle (same repository): a FAIL whose
  // closest candidate is the other needle.
  const [id, other] = [ids[3], ids[4]];
  const verdict = await fx.typeAnswer(id, '```' + tasks[3].language + '\n' + needles.get(other).text + '\n```\n');
  assert.equal(verdict, 'fail');
  const box = page.locator(`.answer-box[data-task-id="${id}"]`);
  const best = await box.getAttribute('data-similarity');
  await box.locator('#verdict-steps > summary').click();
  const options = await page.$$eval('#steps-candidate option', (os) => os.map((o) => ({ value: o.value, text: o.textContent })));
  assert.ok(options[0].text.startsWith(`${tasks[3].name} (`), `the task's own needle first: ${options[0].text}`);
  const name = other.split('::')[2];
  // What was compared, every candidate ranked, and the decision.
  assert.match(await page.textContent('#steps-sanitized'), /the first function in the 1st code block/);
  const ranked = await page.$$eval('#steps-ranked tbody tr', (trs) => trs.map((tr) => tr.dataset.name));
  assert.equal(ranked.length, options.length, 'every candidate is ranked');
  assert.equal(ranked[0], name, 'the other needle is the closest');
  assert.equal(await page.getAttribute('#steps-decision', 'data-pass'), 'false');
  assert.match(await page.textContent('#steps-decision'), new RegExp(`The closest candidate is ${name}, not this task's needle`));
  const closest = options.find((o) => o.text.startsWith(`${name} (`));
  assert.ok(closest, `${name} is offered`);
  await page.selectOption('#steps-candidate', closest.value);
  await page.waitForFunction((n) => {
    const sel = document.querySelector('#steps-candidate');
    return sel.options[sel.selectedIndex].textContent.startsWith(n + ' (') && document.querySelector('#steps-result');
  }, name);
  assert.equal(await page.getAttribute('#steps-result', 'data-similarity'), best, 'the steps end at the verdict\'s similarity');
  await page.locator('#verdict-steps').screenshot({ path: path.join(ARTIFACTS, 'teaching-task-steps-1280.png') });
  assert.deepEqual(problems, []);
});
