// Teach against the model in this tab (issue 54, item 3): SmolLM2-135M's
// GGUF loaded on the Run page ("In this tab"), then a "Be the model" round
// in a 512-token window (a round the model answers in about 20 s), in headless Chromium served cross-origin
// isolated (threads):
//   - the model answers the round as the class watches: the prompt being
//     read, then the answer growing token by token, rendered as text;
//   - its verdict is hidden until the round is over, then shown;
//   - the streamed answer is the one the same request gets without
//     streaming (the same tokens), and the verdict the page gives equals
//     `repoqa score` on the model's answers as the page downloads them;
//   - the class and the model are counted side by side by depth;
//   - "Stop the model" ends its part of a round, nothing kept;
//   - with the box unticked, a round is the class's alone.
// Screenshots of the round at 1280 and 390 px, light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { saveViewports } from './browser.js';
import { open, BIN } from './results-fixture.js';
import { setField } from './run-fixture.js';
import { demoSubset, loadAndBuild, gguf, tabLoaded } from './llama-fixture.js';

const MODEL = path.basename(gguf()).replace(/\.gguf$/i, '');
const MAX_NEW = 48;

let fx;
let dataset;
before(async () => {
  fx = await open({ isolate: true });
  dataset = demoSubset(2, 0, '-teach', path.join(fx.work, 'teach.json'));
});
after(async () => { await fx?.close(); });

test('the model in this tab answers a round while the class watches, scored as repoqa score scores it', async () => {
  const { page, srv, problems, work } = fx;
  await loadAndBuild(page, srv.url, dataset, 2048, 2);

  // Without a model: the page says where to load one.
  await page.evaluate(() => { location.hash = '#teach'; });
  await page.waitForSelector('#exercise-tab-none');
  assert.match(await page.textContent('#exercise-tab-none'), /load a small one in this tab on Run/);

  // Load SmolLM2 in this tab; answers of at most 48 new tokens.
  await page.evaluate(() => { location.hash = '#run'; });
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.waitForSelector('#run-tab');
  await page.setInputFiles('#run-tab-file', gguf());
  await setField(page, '#run-tab-window', 2048);
  await page.click('#run-tab-load');
  await tabLoaded(page);
  await setField(page, '#run-max-new-tokens', MAX_NEW);

  await page.evaluate(() => { location.hash = '#teach'; });
  await page.waitForSelector('#exercise-tab-toggle');
  assert.equal(await page.isChecked('#exercise-tab'), true, 'the model answers the rounds unless told not to');
  assert.match(await page.textContent('#exercise-tab-toggle'), new RegExp(`${MODEL}, loaded in this tab, answers each round too: .*greedy, up to ${MAX_NEW} new tokens`));

  // Every text the model's panel shows, and the request the tab is asked.
  await page.evaluate(() => {
    window.__texts = [];
    window.__statuses = [];
    new MutationObserver(() => {
      const t = document.querySelector('#exercise-tab-text')?.textContent;
      if (t && window.__texts.at(-1) !== t) window.__texts.push(t);
      const s = document.querySelector('#exercise-tab-status')?.textContent;
      if (s && window.__statuses.at(-1) !== s) window.__statuses.push(s);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
    const api = window.repoqaTabModel;
    const chat = api.chat;
    window.__asked = [];
    api.chat = (body, ms, onText) => { window.__asked.push({ body, streamed: typeof onText === 'function' }); return chat(body, ms, onText); };
  });

  await page.selectOption('#exercise-size', '512');
  await page.selectOption('#exercise-limit', '0');
  const task = await page.$eval('#exercise-task option:nth-child(2)', (o) => o.value);
  await page.selectOption('#exercise-task', task);
  const t0 = Date.now();
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 60000 });
  await page.waitForSelector('#exercise-tab-panel[data-state="reading"]', { timeout: 30000 });
  assert.match(await page.textContent('#exercise-tab-status'), /^Reading the prompt/);
  await page.waitForSelector('#exercise-tab-panel[data-state="writing"]', { timeout: 300000 });
  const firstToken = (Date.now() - t0) / 1000;
  // The verdict is not shown while the class still plays.
  await page.waitForSelector('#exercise-tab-panel:is([data-state="done"], [data-state="failed"])', { timeout: 300000 });
  assert.equal(await page.getAttribute('#exercise-tab-panel', 'data-state'), 'done', await page.textContent('#exercise-tab-status'));
  const secs = (Date.now() - t0) / 1000;
  assert.equal(await page.$('#exercise-tab-result'), null, 'the verdict is hidden during the round');
  assert.match(await page.textContent('#exercise-tab-wait'), /its verdict is shown when the round is over/);
  assert.match(await page.textContent('#exercise-tab-status'), /^Answered in [0-9.]+ s: [0-9,]+ prompt tokens read at [0-9.]+ tokens\/s, [0-9]+ written at [0-9.]+ tokens\/s\.$/);

  // Watched as it was written: the prompt read, then the text growing, each
  // view a beginning of the final answer.
  const final = await page.textContent('#exercise-tab-text');
  const texts = await page.evaluate(() => window.__texts);
  const statuses = await page.evaluate(() => window.__statuses);
  assert.ok(final.length > 0, 'the model wrote something');
  assert.ok(texts.length >= 3, `the answer was shown growing (${texts.length} views)`);
  for (const t of texts) assert.ok(final.startsWith(t), `a view that is not a beginning of the answer: ${JSON.stringify(t)}`);
  assert.ok(statuses.some((s) => /^Writing… \(\d+ characters so far\)$/.test(s)), statuses.join(' | '));
  console.log(`round at 512 tokens: first token after ${firstToken.toFixed(1)} s, answered in ${secs.toFixed(1)} s, shown in ${texts.length} steps; ${await page.textContent('#exercise-tab-status')}`);

  // The class gives up: both verdicts shown.
  await page.click('#exercise-reveal');
  await page.waitForSelector('#exercise-round[data-state="done"] #exercise-result');
  await page.waitForSelector('#exercise-tab-result');
  const shown = await page.$eval('#exercise-tab-result', (el) => ({ pass: el.dataset.pass === 'true', similarity: el.dataset.similarity, text: el.textContent, colour: getComputedStyle(el.querySelector('span')).color }));
  assert.match(shown.text, /^(PASS|FAIL) The model in this tab\./);
  // A failure is red, a pass green (the stylesheet's --fail / --pass).
  assert.equal(shown.colour, shown.pass ? 'rgb(26, 127, 55)' : 'rgb(180, 35, 24)');
  await saveViewports(page, '#exercise-tab-panel', 'teach-tab');

  // The streamed answer is the answer: the same request without streaming
  // gets the same text.
  const asked = await page.evaluate(() => window.__asked);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].streamed, true);
  const body = JSON.parse(asked[0].body);
  assert.equal(body.model, MODEL);
  assert.equal(body.temperature, 0);
  assert.equal(body.max_tokens, MAX_NEW);
  const plain = await page.evaluate((b) => window.repoqaTabModel.chat(b, 600000), asked[0].body);
  assert.equal(plain.status, 200, plain.body);
  const plainText = JSON.parse(plain.body).choices[0].message.content;
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('repoqa-exercise-tab-attempts')));
  assert.equal(kept.length, 1);
  assert.equal(kept[0].model, MODEL);
  assert.equal(kept[0].attempt.task_id, task);
  assert.equal(kept[0].attempt.reply, plainText, 'the streamed answer differs from the answer without streaming');
  assert.equal(final, plainText, "the panel shows the answer as written");

  // The page's verdict against the CLI's, on the answers as downloaded.
  const dl = await fx.download(() => page.click('#exercise-tab-download'));
  assert.equal(dl.name, `${MODEL}-in-tab.jsonl`);
  const scores = path.join(work, 'tab-SCORES.json');
  execFileSync(BIN, ['score', '--model-output-path', dl.path, '--dataset-path', dataset, '--out', scores], { stdio: 'pipe' });
  const cli = Object.values(JSON.parse(fs.readFileSync(scores, 'utf8')))[0];
  const r = Object.values(cli.results).flat().find((x) => task.endsWith(`::${x.repo}::${x.name}`));
  assert.ok(r, `${task} scored by the CLI`);
  assert.equal(r.best_similar_score, kept[0].attempt.similarity, 'the similarity, bit for bit');
  assert.equal(r.is_best_similar && r.best_similar_score >= 0.8, shown.pass, 'the verdict');
  console.log(`the model in this tab on ${task}: ${shown.pass ? 'PASS' : 'FAIL'} at similarity ${shown.similarity}, equal to repoqa score`);

  // Side by side by depth.
  const row = await page.$eval('#exercise-by-depth tbody tr', (tr) => ({ students: tr.dataset.students, tab: tr.dataset.tab }));
  // The class gave up: no attempt of theirs (not a failed one), the model's counted.
  assert.equal(row.students, '0/0');
  assert.equal(row.tab, `${shown.pass ? 1 : 0}/1`);
  assert.match(await page.textContent('#exercise-tab-column'), new RegExp(`In this tab \\(${MODEL}, same rounds\\)`));
  assert.equal(await page.$$eval('#chart-exercise-svg g.series[data-series="the model in this tab"] circle.point', (c) => c.length), 1);

  // Stop the model: a round whose answer the teacher stops ends the
  // model's part there, with nothing kept. Pressed while the prompt is
  // read, it is seen between two of the engine's prompt steps: the model
  // never starts writing.
  const answersBefore = (await page.evaluate(() => window.repoqaTabModel.stats())).length;
  await page.evaluate(() => { window.__statuses = []; });
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 60000 });
  await page.waitForSelector('#exercise-tab-panel[data-state="reading"] #exercise-tab-stop', { timeout: 60000 });
  const t1 = Date.now();
  await page.click('#exercise-tab-stop');
  await page.waitForSelector('#exercise-tab-panel[data-state="failed"]', { timeout: 300000 });
  assert.match(await page.textContent('#exercise-tab-status'), /^Cancelled: .* stopped writing\.$/);
  const seen = await page.evaluate(() => window.__statuses);
  assert.ok(!seen.some((st) => /^Writing/.test(st)), `the model began writing before the stop took effect: ${seen.join(' | ')}`);
  assert.equal((await page.evaluate(() => window.repoqaTabModel.stats())).length, answersBefore, 'the engine finished an answer after Stop');
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('repoqa-exercise-tab-attempts')).length), 1, 'a stopped answer is not kept');
  console.log(`stopped while reading the prompt: the model's part ended ${((Date.now() - t1) / 1000).toFixed(1)} s later`);
  await page.click('#exercise-reveal');
  await page.waitForSelector('#exercise-round[data-state="done"]');

  // Unticked: the next round is the class's alone, the tab is not asked.
  const before = (await page.evaluate(() => window.__asked)).length;
  await page.uncheck('#exercise-tab');
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 60000 });
  assert.equal(await page.$('#exercise-tab-panel'), null);
  assert.equal((await page.evaluate(() => window.__asked)).length, before);
  assert.deepEqual(problems, []);
});
