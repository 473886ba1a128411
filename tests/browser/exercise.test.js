// Be the model (issue 24) in headless Chromium, on the demo with its sample
// answers loaded as "the models":
// - a round rebuilds a task in a 2,048-token window; picking the needle
//   passes, picking another function fails, and a round whose time runs out
//   ends with no answer (FAIL);
// - every verdict the page gives equals `repoqa score` on the class's
//   answers as the page downloads them (pass and similarity, bit for bit);
// - the class against the models by depth counts the attempts, and the
//   models' column is the sample answers' verdicts on the same tasks;
// - screenshots at 1280 and 390 px go to tests/artifacts/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { open, buildDemo, BIN, DEMO } from './results-fixture.js';
import { saveBothWidths } from './browser.js';

let fx;
after(async () => { await fx?.close(); });

/** Start a round on task `id` (a random one without); its task id. */
async function newRound(page, id = '') {
  await page.selectOption('#exercise-task', id);
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 60000 });
  return page.getAttribute('#exercise-round', 'data-task-id');
}

async function result(page) {
  await page.waitForSelector('#exercise-round[data-state="done"] #exercise-result', { timeout: 30000 });
  return page.$eval('#exercise-result', (el) => ({ pass: el.dataset.pass === 'true', similarity: el.dataset.similarity, picked: el.dataset.picked }));
}

test('a pick is scored as repoqa score scores it, and the class is set against the models by depth', async () => {
  fx = await open();
  const { page, srv, problems, work } = fx;
  await page.setViewportSize({ width: 1280, height: 900 });
  // A fresh visit: the demo is loaded, nothing is built. New round builds
  // the tasks itself and starts; with no model loaded, the page says how
  // to add one.
  await page.goto(srv.url + '#teach');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('#exercise-task') && !document.querySelector('#exercise-start[disabled]'));
  await page.selectOption('#exercise-limit', '0');
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 120000 });
  assert.equal(await page.$('#exercise-error'), null, 'no "build the tasks first"');
  // The timer stays in view while the class scrolls through the code.
  await page.$eval('#exercise-code', (e) => e.scrollIntoView({ block: 'end' }));
  await page.evaluate(() => window.scrollBy(0, 200));
  const timer = await page.$eval('#exercise-timer', (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, h: window.innerHeight }; });
  assert.ok(timer.top >= 0 && timer.bottom <= timer.h, `timer in view: ${JSON.stringify(timer)}`);
  // What the page scrolls to stops below the timer, not under it: a jump
  // to a function, and keyboard focus on one the timer would cover.
  const below = () => page.evaluate(() => {
    const c = document.activeElement?.classList.contains('choice') ? document.activeElement : document.querySelector('#exercise-code .choice');
    const t = document.querySelector('#exercise-timer').getBoundingClientRect();
    const r = c.getBoundingClientRect();
    return { choice: c.dataset.name, top: r.top, bottom: r.bottom, timerBottom: t.bottom, h: innerHeight };
  });
  await page.$eval('#exercise-code .choice', (b) => b.scrollIntoView({ block: 'start' }));
  let shown = await below();
  assert.ok(shown.top >= shown.timerBottom, `a function scrolled to is below the timer: ${JSON.stringify(shown)}`);
  // The first function half under the timer, then reached with Tab.
  await page.evaluate(() => window.scrollBy(0, 20 + document.querySelector('#exercise-code .choice').getBoundingClientRect().top - document.querySelector('#exercise-timer').getBoundingClientRect().bottom));
  await page.$eval('#exercise-code', (e) => e.focus({ preventScroll: true }));
  await page.keyboard.press('Tab');
  shown = await below();
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains('choice')), true, 'Tab reaches the first function');
  assert.ok(shown.top >= shown.timerBottom && shown.top < shown.h, `the focused function is not under the timer: ${JSON.stringify(shown)}`);
  await page.click('#exercise-round details > summary');
  await page.fill('#exercise-answer', 'def nothing():\n    return 0\n');
  await page.click('#exercise-submit');
  await result(page);
  await page.waitForSelector('#exercise-no-models');
  assert.match(await page.textContent('#exercise-no-models'), /No model to set the class against yet/);
  await page.click('#exercise-clear');
  // Results with tasks and no answer: no flat 0 % lines, a sentence.
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#charts-empty', { timeout: 30000 });
  assert.equal(await page.$$eval('#charts-card svg', (s) => s.length), 0);
  await buildDemo(fx);
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#load-samples', { timeout: 60000 });
  await page.click('#load-samples');
  await page.waitForSelector('#import-status[data-ok="true"]', { timeout: 120000 });
  // The models' verdicts: the sample answers' tasks and whether they pass.
  const models = new Map(await page.$$eval('#task-results tr.task-row', (trs) => trs.map((tr) => [tr.dataset.taskId, tr.dataset.pass])));
  const answered = [...models.keys()];
  assert.ok(answered.length >= 6, `${answered.length} sample answers`);

  await page.goto(srv.url + '#teach');
  await page.waitForSelector('#exercise-start');
  await page.selectOption('#exercise-limit', '0');
  const seen = [];
  // Rounds: the needle picked, then another function picked (or, in a
  // window holding the needle alone, a wrong answer typed).
  for (let k = 0; k < 6; k++) {
    // Tasks the models answered, then a random one.
    const id = await newRound(page, k < 5 ? answered[k] : '');
    if (k < 5) assert.equal(id, answered[k]);
    const needle = id.split('::')[2];
    assert.equal(await page.textContent('#exercise-timer').then((t) => /^\d+ s$/.test(t)), true);
    const names = await page.$$eval('#exercise-code .choice', (bs) => bs.map((b) => b.dataset.name));
    assert.ok(names.includes(needle), `${id}: the needle is offered among ${names}`);
    if (k % 2 === 0) {
      await page.click(`#exercise-code .choice[data-name="${needle}"]`);
      const r = await result(page);
      assert.equal(r.pass, true, `${id}: the needle picked passes`);
      assert.equal(await page.$eval('.choice.needle.picked', (b) => b.dataset.name), needle);
    } else {
      const other = names.find((n) => n !== needle);
      if (other) {
        await page.click(`#exercise-code .choice[data-name="${other}"]`);
      } else {
        await page.click('#exercise-round details > summary');
        await page.fill('#exercise-answer', 'def nothing():\n    return 0\n');
        await page.click('#exercise-submit');
      }
      const r = await result(page);
      assert.equal(r.pass, false, `${id}: another function fails`);
    }
    seen.push(id);
    if (k === 0) {
      // The verdict step by step, here too.
      await page.click('#exercise-result #verdict-steps > summary');
      await page.waitForSelector('#steps-result');
      await saveBothWidths(page, '#exercise-round', 'exercise');
    }
  }

  // The page's verdicts against the CLI's on the downloaded answers.
  const dl = await fx.download(() => page.click('#exercise-download'));
  assert.match(dl.name, /^class-answers_ntoken_2048\.jsonl$/);
  const scores = path.join(work, 'class-SCORES.json');
  execFileSync(BIN, ['score', '--model-output-path', dl.path, '--dataset-path', DEMO, '--out', scores], { stdio: 'pipe' });
  const cli = Object.values(JSON.parse(fs.readFileSync(scores, 'utf8')))[0];
  const byId = new Map();
  for (const [lang, rs] of Object.entries(cli.results)) for (const r of rs) byId.set(`${lang}::${r.repo}::${r.name}`, r);
  const attempts = await page.evaluate(() => JSON.parse(localStorage.getItem('repoqa-exercise-attempts')));
  const last = new Map(attempts.map((a) => [a.task_id, a]));
  assert.equal(byId.size, last.size, 'one line per task tried');
  for (const [id, a] of last) {
    const r = byId.get(id);
    assert.ok(r, `${id} scored by the CLI`);
    assert.equal(r.is_best_similar && r.best_similar_score >= 0.8, a.pass, `${id}: the verdict`);
    assert.equal(r.best_similar_score, a.similarity, `${id}: the similarity, bit for bit`);
  }

  // The class against the models, by depth.
  const rows = await page.$$eval('#exercise-by-depth tbody tr', (trs) => trs.map((tr) => ({ students: tr.dataset.students, models: tr.dataset.models, links: tr.querySelectorAll('a').length })));
  const total = rows.reduce((n, r) => n + Number(r.students.split('/')[1]), 0);
  assert.equal(total, attempts.length, 'every attempt is counted once');
  const modelsN = rows.reduce((n, r) => n + Number(r.models.split('/')[1]), 0);
  const modelsPassed = rows.reduce((n, r) => n + Number(r.models.split('/')[0]), 0);
  const tried = [...new Set(seen)].filter((id) => models.has(id));
  assert.equal(modelsN, tried.length, 'the models column counts the tried tasks the models answered');
  assert.equal(modelsPassed, tried.filter((id) => models.get(id) === 'true').length, "the models' verdicts are the Results page's");
  assert.equal(rows.reduce((n, r) => n + r.links, 0), new Set(seen).size, 'each task tried links to its task view');
  // Plotted too: one point per depth bin tried, for the class.
  const points = await page.$$eval('#chart-exercise-svg g.series[data-series="the class"] circle.point', (cs) => cs.length);
  assert.equal(points, rows.length, 'the chart has a point per depth bin tried');
  console.log(`exercise: ${attempts.length} attempts over ${last.size} tasks, each verdict equal to repoqa score's; models answered ${modelsN} of them`);
  await saveBothWidths(page, '#exercise-results', 'exercise-results');
  assert.deepEqual(problems, []);
});

test('a round whose time runs out ends with no answer', async () => {
  const { page, srv } = fx;
  // The page's clock, not the wall's: installed before the page loads again
  // (every reading of performance.now then comes from it), so the round's
  // 30 s pass at once when the test moves it, and the round still ends by
  // its own timer.
  await page.clock.install();
  await page.goto(srv.url + '#teach');
  await page.reload();
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('#exercise-task') && !document.querySelector('#exercise-start[disabled]'),
    null, { timeout: 30000 });
  await page.selectOption('#exercise-limit', '30');
  await newRound(page);
  assert.match(await page.textContent('#exercise-timer'), /^0:(30|29) left$/);
  await page.clock.fastForward('00:31');
  const r = await (async () => {
    await page.waitForSelector('#exercise-round[data-state="done"]', { timeout: 40000 });
    return result(page);
  })();
  assert.equal(r.pass, false);
  assert.equal(r.picked, '');
  assert.match(await page.textContent('#exercise-result'), /No answer\./);
});
