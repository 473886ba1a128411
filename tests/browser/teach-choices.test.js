// Teach (issue 85): a class can be given a chosen task from the first
// round (before anything is built, the select lists the dataset's needles,
// and the round is that task); after a pick the verdict is brought into
// view with the focus, on a 390 px phone too; giving up reveals the needle
// without counting as a failed attempt — not in the class's count by depth,
// not in the answers downloaded; the corrected prompt (NOT OFFICIAL) can be
// chosen, without the official one's stray line above the needle. Screenshots at 1280 and 390, light and dark.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { open } from './results-fixture.js';
import { saveViewports } from './browser.js';

let fx;
after(async () => { await fx?.close(); });

test('Teach: a chosen first task, the verdict in view after a pick, giving up not a failure', async () => {
  fx = await open();
  const { page, srv } = fx;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(srv.url + '#teach');
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
  // A fresh visit: nothing built, yet the tasks can be chosen (the needles).
  await page.waitForFunction(() => document.querySelectorAll('#exercise-task option').length > 1, null, { timeout: 60000 });
  const options = await page.$$eval('#exercise-task option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.equal(options.length, 60, 'the demo\'s 60 needles');
  const want = options.find((id) => id.startsWith('python::'));
  await page.selectOption('#exercise-task', want);
  await page.selectOption('#exercise-limit', '0');
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 120000 });
  assert.equal(await page.getAttribute('#exercise-round', 'data-task-id'), want, 'the round is the chosen task');
  assert.equal(await page.$eval('#exercise-task', (s) => s.value), want, 'still shown as chosen once the tasks are built');

  // The needle picked far down the code: the verdict comes into view, focused.
  const needle = want.split('::')[2];
  const pick = page.locator(`#exercise-code .choice[data-name="${needle}"]`);
  await pick.scrollIntoViewIfNeeded();
  await pick.click();
  await page.waitForSelector('#exercise-round[data-state="done"] #exercise-result');
  await page.waitForFunction(() => document.activeElement?.id === 'exercise-result');
  const box = await page.$eval('#exercise-result', (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.top + 40, h: innerHeight }; });
  assert.ok(box.top >= 0 && box.bottom <= box.h, `the verdict is on screen: ${JSON.stringify(box)}`);
  assert.match(await page.textContent('#exercise-result'), /^PASS/);
  await saveViewports(page, '#exercise-result', 'teach-verdict');
  await page.setViewportSize({ width: 390, height: 844 });

  // Another round, given up: revealed, not counted, not downloaded.
  const other = options.find((id) => id.startsWith('go::'));
  await page.selectOption('#exercise-task', other);
  await page.click('#exercise-start');
  await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 60000 });
  await page.click('#exercise-reveal');
  await page.waitForSelector('#exercise-result[data-gave-up="true"]');
  const said = await page.textContent('#exercise-result');
  assert.match(said, /^REVEALED You gave up: not counted as a failed attempt/);
  assert.doesNotMatch(said, /FAIL/);
  assert.equal(await page.$eval('#exercise-result .big', (el) => el.className), 'muted big', 'not in the failure colour');
  await page.waitForSelector('#exercise-by-depth tbody tr');
  const counted = await page.$$eval('#exercise-by-depth tbody tr', (trs) => trs.map((tr) => tr.dataset.students));
  const sum = counted.map((c) => c.split('/').map(Number)).reduce(([p, n], [a, b]) => [p + a, n + b], [0, 0]);
  assert.deepEqual(sum, [1, 1], `the give-up is not an attempt in the count: ${counted}`);
  await page.click('#exercise-attempts > summary');
  assert.match(await page.textContent('#exercise-attempts li[data-gave-up="true"]'), /gave up, the needle revealed \(not counted\)/);
  const dl = await fx.download(() => page.click('#exercise-download'));
  const lines = dl.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => `${l.language}::${l.repo}::${l.name}`), [want], 'only the answered task is written');
  await saveViewports(page, '#exercise-round', 'teach-gave-up');
  await page.setViewportSize({ width: 390, height: 844 });

  // The official prompt's stray line: "export " cut from renderGantt, right
  // above it, gives the needle away; the corrected prompt (labelled NOT
  // OFFICIAL) has the line whole.
  const gantt = options.find((id) => id.endsWith('::renderGantt'));
  const code = async (prompt) => {
    await page.selectOption('#exercise-prompt', prompt);
    await page.selectOption('#exercise-task', gantt);
    await page.click('#exercise-start');
    await page.waitForSelector('#exercise-round[data-state="running"]', { timeout: 60000 });
    const text = await page.textContent('#exercise-code');
    const label = await page.$('#exercise-protocol');
    await page.click('#exercise-reveal');
    await page.waitForSelector('#exercise-result[data-gave-up="true"]');
    return { text, protocol: await page.getAttribute('#exercise-round', 'data-protocol'), label: label && await label.textContent() };
  };
  const official = await code('official');
  assert.equal(official.protocol, 'official');
  assert.match(official.text, /\nexport \nfunction renderGantt\(/, 'the official prompt has the stray line');
  assert.equal(official.label, null);
  const corrected = await code('corrected');
  assert.equal(corrected.protocol, 'corrected');
  assert.match(corrected.text, /\nexport function renderGantt\(/);
  assert.doesNotMatch(corrected.text, /export \nfunction renderGantt/);
  assert.match(corrected.label, /^Corrected prompt \(NOT OFFICIAL\)/);
  await saveViewports(page, '#exercise-protocol', 'teach-corrected');
  console.log(`teach: first round on the chosen ${want}; the verdict focused in view at 390 px; a give-up revealed and not counted`);
});
