// Shared by the results-*.test.js files: the demo's 60 tasks built in the
// page and answered — a few answers typed in the task pages' answer boxes
// (exact needles, a wrong one, an empty one, an XSS attempt), the rest
// imported as JSONL (a mix of official and simple lines, exact /
// other-needle / truncated / junk answers) — and the helpers the files use.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serveDir } from './serve.js';
import { launch, openPage, DIST, ROOT, ARTIFACTS } from './browser.js';

export const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
export const DEMO = path.join(ROOT, 'public', 'demo', 'repoqa-demo.json');
export const EVAL_DATE = '2024-06-01 12:00:00';
export const XSS = 'def f():\n    return "<script>window.__xss = 1</script><img src=x onerror=\\"window.__xss = 2\\">"\n<script>window.__xss = 3</script>\n<img src=x onerror="window.__xss = 4">';

export const close = (a, b) => a === b || Math.abs(a - b) <= 1e-12 * Math.max(1e-300, Math.abs(b));
export const fence = (lang, code) => 'Here it is:\n```' + lang + '\n' + code + '\n```\n';

/** The demo's tasks as the CLI builds them (ids, in official order). */
function cliTasks(work) {
  const out = path.join(work, 'tasks.jsonl');
  execFileSync(BIN, ['prompts', '--dataset-path', DEMO, '--out', out], { stdio: 'pipe' });
  return fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

/** Needle reference texts, as the scorer cuts them (S3). */
function needleTexts() {
  const ds = JSON.parse(fs.readFileSync(DEMO, 'utf8'));
  const m = new Map();
  for (const [lang, repos] of Object.entries(ds)) {
    for (const r of repos) {
      for (const n of r.needles) {
        const text = r.content[n.path].split('\n').slice(n.start_line, n.end_line).join('\n');
        m.set(`${lang}::${r.repo}::${n.name}`, { text, lang, repo: r.repo, name: n.name });
      }
    }
  }
  return m;
}

/** A browser, a server for dist/, and a page (closed by `fx.close()`). */
/** `serve`: serveDir's options (e.g. `{ isolate: true }`). */
export async function open(serve = {}) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const work = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'repoqa-results-'));
  const srv = await serveDir(DIST, serve);
  const context = await launch();
  const { page, problems } = await openPage(context);
  const tasks = cliTasks(work);
  const ids = tasks.map((t) => `${t.language}::${t.repo}::${t.name}`);
  const fx = {
    srv, context, page, problems, work, tasks, ids, needles: needleTexts(), typed: {},
    async close() {
      await context.close();
      srv.server.close();
      fs.rmSync(work, { recursive: true, force: true });
    },
    /** Save the download `trigger()` starts; its name, path and bytes. */
    async download(trigger) {
      const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), trigger()]);
      const p = path.join(work, dl.suggestedFilename());
      await dl.saveAs(p);
      return { name: dl.suggestedFilename(), path: p, bytes: fs.readFileSync(p) };
    },
    /** Type `text` in the answer box of task `id`; the verdict shown. */
    async typeAnswer(id, text) {
      await page.goto(srv.url + '#task/' + encodeURIComponent(id));
      const box = page.locator(`.answer-box[data-task-id="${id}"]`);
      await box.locator('textarea').waitFor({ timeout: 30000 });
      await box.locator('textarea').fill(text);
      await page.waitForFunction((tid) => {
        const el = document.querySelector(`.answer-box[data-task-id="${CSS.escape(tid)}"]`);
        // "pending": the compute engine has it; the person waits for the verdict.
        return el && !['none', 'pending'].includes(el.dataset.verdict);
      }, id, { timeout: 30000 });
      return box.getAttribute('data-verdict');
    },
  };
  return fx;
}

/** Switch "ignore comments" and wait until the page has re-scored every
 *  answer with it (in slices; `data-option-rescores` counts the runs). */
export async function setIgnoreComments(page, on, timeout = 60000) {
  const before = Number(await page.getAttribute('#results', 'data-option-rescores'));
  if (on) await page.check('#opt-ignore-comments', { timeout }); else await page.uncheck('#opt-ignore-comments', { timeout });
  await page.waitForFunction((b) => Number(document.querySelector('#results')?.dataset.optionRescores) > b, before, { timeout });
  // The table a person reads once the scores are in (never while pending).
  await page.waitForSelector('#score-table', { timeout });
  return { scored: Number(await page.getAttribute('#results', 'data-option-rescored')),
    ms: Number(await page.getAttribute('#results', 'data-option-score-ms')) };
}

/** The demo loaded and its 60 tasks built in the page. */
export async function buildDemo(fx) {
  const { page, srv } = fx;
  await page.goto(srv.url + '#dataset');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  if (!(await page.$('#dataset-summary'))) await page.click('#load-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.goto(srv.url + '#tasks');
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-tasks="60"]', { timeout: 120000 });
}

/** Typed answers: two exact needles, one other needle, one empty, one XSS
 *  (their verdicts are checked here). */
export async function typeAnswers(fx) {
  const { page, tasks, ids, needles } = fx;
  fx.typed = {
    [ids[0]]: fence(tasks[0].language, needles.get(ids[0]).text),
    [ids[11]]: fence(tasks[11].language, needles.get(ids[11]).text),
    [ids[22]]: fence(tasks[22].language, needles.get(ids[23]).text),
    [ids[33]]: '',
    [ids[44]]: XSS,
  };
  assert.equal(await fx.typeAnswer(ids[0], fx.typed[ids[0]]), 'pass');
  assert.equal(await fx.typeAnswer(ids[11], fx.typed[ids[11]]), 'pass');
  assert.equal(await fx.typeAnswer(ids[22], fx.typed[ids[22]]), 'fail');
  // An empty answer: typed then erased, so the task is answered with "".
  await fx.typeAnswer(ids[33], 'x');
  await page.locator(`.answer-box[data-task-id="${ids[33]}"] textarea`).fill('');
  await page.waitForFunction((tid) => document.querySelector(`.answer-box[data-task-id="${CSS.escape(tid)}"]`)?.dataset.similarity === '0.0', ids[33]);
  assert.equal(await fx.typeAnswer(ids[44], XSS), 'fail');
}

/** Import an answer for every task not typed, as pasted JSONL. */
export async function importRest(fx) {
  const { page, srv, tasks, ids, needles, typed } = fx;
  const lines = [];
  tasks.forEach((t, i) => {
    const id = ids[i];
    if (id in typed) return;
    const n = needles.get(id);
    let reply;
    switch (i % 5) {
      case 0: case 1: reply = fence(t.language, n.text); break; // exact
      case 2: reply = fence(t.language, n.text.split('\n').slice(0, Math.max(1, Math.ceil(n.text.split('\n').length / 2))).join('\n')); break; // truncated
      case 3: reply = fence(t.language, needles.get(ids[i % 10 === 3 ? i + 1 : i - 1]).text); break; // another needle
      default: reply = 'I could not find it.'; // junk
    }
    lines.push(i % 2 === 0
      ? JSON.stringify({ ...t, output: [reply] })
      : JSON.stringify({ task_id: id, output: reply }));
  });
  await page.goto(srv.url + '#results');
  await page.waitForSelector('#results[data-tasks="60"]', { timeout: 30000 });
  await page.fill('#import-text', lines.join('\n'));
  await page.click('#import-pasted');
  await page.waitForSelector('#import-status[data-ok="true"]');
  assert.equal(await page.getAttribute('#import-status', 'data-imported'), String(lines.length));
  await page.waitForSelector('#results[data-answered="60"]', { timeout: 60000 });
}

/** The whole setup: built, typed, imported; the Results page open. */
export async function answeredDemo() {
  const fx = await open();
  await buildDemo(fx);
  await typeAnswers(fx);
  await importRest(fx);
  return fx;
}

/** The demo built and the 12 sample answers loaded on Results ("Load
 *  sample answers"), on a page of its own. */
export async function sampleAnswered() {
  const fx = await open();
  await buildDemo(fx);
  await fx.page.goto(fx.srv.url + '#results');
  await fx.page.click('#load-samples');
  await fx.page.waitForSelector('#results[data-answered="12"]', { timeout: 30000 });
  return fx;
}

/** The page's outputs export scored by the CLI (on `dataset`, the demo
 *  unless given): its SCORES text and model record. */
export async function cliScoresOfExport(fx, dataset = DEMO, name = 'model.jsonl') {
  await fx.page.fill('#eval-date', EVAL_DATE);
  const outputs = await fx.download(() => fx.page.click('#export-outputs'));
  assert.equal(outputs.name, name);
  fs.copyFileSync(outputs.path, path.join(ARTIFACTS, 'results-outputs.jsonl'));
  const cliScores = path.join(fx.work, 'cli-SCORES.json');
  execFileSync(BIN, ['score', '--model-output-path', outputs.path, '--dataset-path', dataset,
    '--out', cliScores, '--eval-date', EVAL_DATE, '--overwrite'], { stdio: 'pipe' });
  const text = fs.readFileSync(cliScores, 'utf8');
  return { text, model: Object.values(JSON.parse(text))[0], outputs: outputs.path };
}
