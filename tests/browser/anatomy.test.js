// The anatomy of a prompt (issue 24) in headless Chromium, on the demo:
// - for every task, the strip's token counts equal the task's own fields
//   (the bands before the needle add up to needle_token_start, the needle
//   band to its span, the code bands to code_context_ntokens), and its
//   artifact marks are the artifacts `repoqa audit --json` finds;
// - the depth slider and the window control rebuild a task through the core
//   builder: the rebuilt task's line is byte-identical to the line
//   `repoqa prompts --position-ratio R --code-context-size S` writes,
//   by mouse-free keyboard and by setting the slider;
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

/** The CLI's task lines by id, for `args` added to `repoqa prompts`. */
function cliLines(work, args) {
  const out = path.join(work, `tasks-${args.join('_')}.jsonl`);
  execFileSync(BIN, ['prompts', '--dataset-path', DEMO, '--out', out, ...args], { stdio: 'pipe' });
  const m = new Map();
  for (const line of fs.readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
    const t = JSON.parse(line);
    m.set(`${t.language}::${t.repo}::${t.name}`, line);
  }
  return m;
}

/** Choose window `size`, then move the depth slider to `ratio` (as a
 *  pointer does: input events, then change). */
async function setControls(page, ratio, size) {
  await page.selectOption('#anatomy-size', size);
  await page.$eval('#anatomy-ratio', (el, r) => {
    el.value = r;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, ratio);
}

async function openAnatomy(page, url, id) {
  await page.goto(url + '#task/' + encodeURIComponent(id));
  await page.waitForSelector(`#task-view[data-task-id="${id}"]`, { timeout: 30000 });
  await page.click('#anatomy > summary');
  await page.waitForSelector('#anatomy-view', { timeout: 60000 });
}

test("every task's strip adds up to its token fields and marks the audit's artifacts", async () => {
  fx = await open();
  const { page, srv, problems, tasks, ids, work } = fx;
  await page.setViewportSize({ width: 1280, height: 900 });
  await buildDemo(fx);
  const audit = JSON.parse(execFileSync(BIN, ['audit', '--dataset-path', DEMO, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString());
  const artifacts = new Map(audit.tasks.map((t) => [`${t.language}::${t.repo}::${t.name}`, [...t.artifacts].sort()]));
  let marked = 0;
  for (const [i, id] of ids.entries()) {
    const t = tasks[i];
    await openAnatomy(page, srv.url, id);
    const got = await page.$eval('#anatomy-view', (v) => {
      const bands = [...v.querySelectorAll('#anatomy-strip .band')].map((b) => ({ part: b.dataset.part, tokens: Number(b.dataset.tokens) }));
      const code = bands.filter((b) => ['file', 'needle', 'padding'].includes(b.part));
      const k = code.findIndex((b) => b.part === 'needle');
      const sum = (xs) => xs.reduce((a, b) => a + b.tokens, 0);
      return {
        before: sum(code.slice(0, k)), needle: code[k].tokens, context: sum(code),
        parts: bands.map((b) => b.part),
        marks: [...new Set([...v.querySelectorAll('.anatomy-mark')].map((m) => m.dataset.artifact))].sort(),
        rebuilt: v.dataset.rebuilt,
      };
    });
    assert.equal(got.rebuilt, 'false');
    assert.equal(got.before, t.needle_token_start, `${id}: tokens before the needle`);
    assert.equal(got.needle, t.needle_token_end - t.needle_token_start, `${id}: the needle's tokens`);
    assert.equal(got.context, t.code_context_ntokens, `${id}: the context's tokens`);
    assert.equal(got.parts[0], 'instruction');
    assert.deepEqual(got.parts.slice(-2), ['description', 'instruction_again']);
    assert.deepEqual(got.marks, artifacts.get(id) ?? [], `${id}: marks = repoqa audit`);
    // The task's audit block, from the engine, names the same artifacts.
    await page.waitForSelector('#task-audit[data-state="done"]', { timeout: 60000 });
    const block = (await page.getAttribute('#task-audit', 'data-artifacts')).split(' ').filter(Boolean).sort();
    assert.deepEqual(block, artifacts.get(id) ?? [], `${id}: the audit block = repoqa audit`);
    marked += got.marks.length > 0 ? 1 : 0;
    // The shown line is the CLI's own line for the task as built.
    if (i === 0) {
      const lines = cliLines(work, []);
      assert.equal(await page.textContent('#anatomy-jsonl'), lines.get(id) + '\n');
    }
  }
  console.log(`anatomy: ${ids.length} tasks' strips equal their fields; ${marked} carry artifact marks, as repoqa audit says`);
  assert.ok(marked > 0, 'the demo has tasks the audit finds artifacts in');
  assert.deepEqual(problems, []);
});

test('the depth slider and the window rebuild a task byte-identical to repoqa prompts', async () => {
  const { page, srv, problems, ids, work } = fx;
  const id = ids[7];
  await openAnatomy(page, srv.url, id);
  // A band shows its text when focused.
  await page.focus('#anatomy-strip .band-needle');
  await page.waitForSelector('#anatomy-band[data-part="needle"]');
  const needleText = await page.textContent('#anatomy-band pre');
  assert.ok(needleText.includes(id.split('::')[2]), 'the needle band shows the needle');
  // By keyboard: Home puts the slider at 0, then three steps right.
  await page.focus('#anatomy-ratio');
  await page.keyboard.press('Home');
  await page.waitForSelector('#anatomy-view[data-position-ratio="0"]', { timeout: 60000 });
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#anatomy-view[data-position-ratio="0.03"]', { timeout: 60000 });
  const cases = [['0.03', '16384']];
  // By setting the controls: other depths and windows.
  for (const [ratio, size] of [['0.9', '2048'], ['0.2', '512'], ['0.5', '4096'], ['1', '32768']]) {
    await setControls(page, ratio, size);
    await page.waitForSelector(`#anatomy-view[data-position-ratio="${ratio}"][data-ntokens]`, { timeout: 60000 });
    await page.waitForFunction(([r, s]) => {
      const v = document.querySelector('#anatomy-view');
      return v && v.dataset.positionRatio === r && document.querySelector('#anatomy-command').textContent.includes(`--code-context-size ${s}`);
    }, [ratio, size], { timeout: 60000 });
    cases.push([ratio, size]);
  }
  // Each case again, compared with the CLI (the last one is on screen).
  for (const [ratio, size] of cases) {
    await setControls(page, ratio, size);
    await page.waitForFunction(([r, s]) => {
      const v = document.querySelector('#anatomy-view');
      const c = document.querySelector('#anatomy-command');
      return v && v.dataset.rebuilt === 'true' && v.dataset.positionRatio === r && c
        && (s === '16384' ? !c.textContent.includes('--code-context-size') : c.textContent.includes(`--code-context-size ${s}`));
    }, [ratio, size], { timeout: 60000 });
    const shown = await page.textContent('#anatomy-jsonl');
    const lines = cliLines(work, ['--code-context-size', size, '--position-ratio', ratio]);
    assert.equal(shown, lines.get(id) + '\n', `${id} at ${ratio} in ${size}`);
    // The strip still adds up to the rebuilt task's fields.
    const t = JSON.parse(shown);
    const v = await page.$eval('#anatomy-view', (el) => ({ ...el.dataset }));
    assert.equal(Number(v.needleStart), t.needle_token_start);
    assert.equal(Number(v.ntokens), t.code_context_ntokens);
    assert.equal(await page.isVisible('#anatomy-rebuilt'), true);
    // The aim drawn on the strip: ratio × window.
    assert.equal(Number(await page.getAttribute('#anatomy-aim', 'data-aimed')), Math.round(Number(ratio) * Number(size)));
  }
  console.log(`anatomy: ${cases.length} rebuilds of ${id}, each byte-identical to repoqa prompts`);
  // Back to the task as built.
  await page.click('#anatomy-reset');
  await page.waitForSelector('#anatomy-view[data-rebuilt="false"]', { timeout: 60000 });
  // Screenshots: the needle band picked, at 0.9 in 2048 tokens.
  await page.selectOption('#anatomy-size', '2048');
  await page.waitForSelector('#anatomy-view[data-rebuilt="true"]', { timeout: 60000 });
  await page.click('#anatomy-strip .band-needle');
  await saveBothWidths(page, '#anatomy', 'anatomy');
  assert.deepEqual(problems, []);
});
