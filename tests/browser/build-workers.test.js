// Task builds in Web Workers (src/ui/jobs/build_pool.rs): the realistic
// corpus in a comment-cleaning mode is shared out to workers, Cancel stops
// them, and the tasks are byte for byte those of the CLI's `repoqa prompts`;
// small builds run in the page's own engine worker, with the same tasks; an
// engine that cannot load makes the build fail with its reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serveDir } from './serve.js';
import { freshPage, gotoApp as gotoAppAt, saveViewports, DIST, ROOT, ARTIFACTS } from './browser.js';

const DEMO = path.join(ROOT, 'public', 'demo', 'repoqa-demo.json');
const REALISTIC = path.join(ROOT, '.tools', 'corpus', 'realistic.json');
const BIN = process.env.REPOQA_BIN || path.join(ROOT, 'target', 'release', 'repoqa');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-workers-'));

let srv;
before(async () => { srv = await serveDir(DIST); });
after(() => {
  srv?.server.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

const gotoApp = (page, hash) => gotoAppAt(page, srv.url, hash);

/** `repoqa prompts` on `dataset` in comment mode `mode`: the file's bytes. */
function cliTasks(dataset, mode) {
  const out = path.join(TMP, `${path.basename(dataset)}-${mode}.jsonl`);
  execFileSync(BIN, ['prompts', '--dataset-path', dataset, '--clean-ctx-comments', mode, '--out', out],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  return fs.readFileSync(out);
}

/** Load `file` as the dataset (or keep the demo if none) and pick `mode`. */
async function prepare(page, file, mode) {
  await gotoApp(page, '#dataset');
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 60000 });
  if (file) {
    await page.setInputFiles('#dataset-file', file);
    await page.waitForFunction((n) => document.querySelector('#dataset-origin')?.textContent === n,
      path.basename(file), { timeout: 120000 });
    await page.waitForSelector('#job:not([data-state="running"])', { timeout: 120000 });
  }
  await page.selectOption('#comment-mode', mode);
  await gotoApp(page, '#tasks');
}

/** Press Cancel as soon as the job line shows a running job whose text includes `what`. */
async function cancelOnceRunning(page, what) {
  await page.evaluate((w) => {
    const job = document.querySelector('#job');
    const o = new MutationObserver(() => {
      if (job.dataset.state === 'running' && job.querySelector('.job-what')?.textContent.includes(w)) {
        o.disconnect();
        document.querySelector('#job-cancel').click();
      }
    });
    o.observe(job, { attributes: true, childList: true, subtree: true, characterData: true });
  }, what);
}

async function buildAndDownload(page) {
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats[data-from-cache="false"]', { timeout: 300000 });
  const stats = await page.evaluate(() => window.__repoqaBuild);
  await page.waitForSelector('#download-tasks:not([disabled])');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-tasks')]);
  return { stats, text: await page.textContent('#build-stats'), file: fs.readFileSync(await download.path()) };
}

test('realistic corpus, positional_padding: built by workers, Cancel stops them, tasks = CLI', async (t) => {
  const { page, problems } = await freshPage(t);
  const warnings = [];
  page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await prepare(page, REALISTIC, 'positional_padding');
  // Cancel as soon as the build runs: nothing is kept.
  await cancelOnceRunning(page, 'Building 180');
  await page.click('#build-tasks');
  await page.waitForSelector('#job[data-state="failed"]', { timeout: 120000 });
  assert.match(await page.textContent('#job-message'), /Cancelled after \d+ of 180 tasks; nothing was kept/);
  assert.equal(await page.getAttribute('#task-count', 'data-count'), '0');

  const want = cliTasks(REALISTIC, 'positional_padding');
  // The progress bar moves while the workers build.
  await page.evaluate(() => {
    window.__percents = [];
    const job = document.querySelector('#job');
    new MutationObserver(() => window.__percents.push(Number(job.dataset.percent)))
      .observe(job, { attributes: true, attributeFilter: ['data-percent'] });
  });
  const { stats, text, file } = await buildAndDownload(page);
  const percents = await page.evaluate(() => window.__percents);
  assert.ok(percents.filter((p) => p > 0 && p < 100).length >= 5, `progress seen: ${percents.join(' ')}`);
  console.log(`realistic, positional_padding, in workers: ${text.trim()}`);
  assert.equal(stats.tasks, 180);
  assert.ok(stats.workers >= 1, `built in the page, not in workers: ${text}\n${warnings.join('\n')}`);
  assert.match(text, /background worker/);
  assert.equal(file.length, want.length, 'the workers\' tasks differ in length from the CLI\'s');
  assert.ok(file.equals(want), 'the workers\' tasks differ from the CLI\'s');
  // How the build reads to a person, at a desktop and a phone width.
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `workers-tasks-${width}.png`) });
  }
  assert.deepEqual(problems, []);
});

test('demo, no_padding, workers forced: tasks = CLI', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.addInitScript(() => { globalThis.__repoqaBuildWorkers = 'always'; });
  await prepare(page, null, 'no_padding');
  const { stats, text, file } = await buildAndDownload(page);
  console.log(`demo, no_padding, workers forced: ${text.trim()}`);
  assert.ok(stats.workers >= 1, text);
  assert.ok(file.equals(cliTasks(DEMO, 'no_padding')), 'the workers\' tasks differ from the CLI\'s');
  assert.deepEqual(problems, []);
});

test('a length ladder on the Tasks page: a file per length = `repoqa prompts --code-context-size 1024,2048`; Cancel keeps the lengths built', async (t) => {
  const dir = path.join(TMP, 'ladder');
  fs.mkdirSync(dir);
  execFileSync(BIN, ['prompts', '--dataset-path', DEMO, '--code-context-size', '1024,2048'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const cli = (n) => {
    const name = fs.readdirSync(dir).find((f) => f.endsWith(`_ntoken_${n}-tasks.jsonl`));
    return { name, bytes: fs.readFileSync(path.join(dir, name)) };
  };
  for (const how of ['always', 'never']) {
    const { page, problems } = await freshPage(t);
    await page.addInitScript((h) => { globalThis.__repoqaBuildWorkers = h; }, how);
    await prepare(page, null, 'none');
    await page.click('#ladder-build summary');
    // A length that is not one is named, and nothing starts.
    await page.fill('#ladder-lengths', '1024, 2k');
    await page.click('#build-ladder');
    assert.equal(await page.textContent('#ladder-error'), 'Lengths: "2k" is not a context size: each length must be a whole number of tokens from 1 to 4294967295.');
    assert.equal(await page.getAttribute('#ladder-lengths', 'aria-invalid'), 'true');
    await page.fill('#ladder-lengths', '1024,2048');
    if (how === 'always') {
      // Cancel at the second length: the first one's file stays.
      await cancelOnceRunning(page, 'at 2,048 tokens');
      await page.click('#build-ladder');
      await page.waitForSelector('#job[data-state="failed"]', { timeout: 120000 });
      assert.match(await page.textContent('#job-message'), /^Cancelled at 2,048 tokens after \d+ of 60 tasks; the lengths built before it \(1,024\) stay below\.$/);
      assert.deepEqual(await page.$$eval('#ladder-files li', (lis) => lis.map((li) => li.dataset.ntoken)), ['1024']);
    }
    await page.click('#build-ladder');
    // The job line of this build (the dataset's load said "done" before it).
    await page.waitForFunction(() => document.querySelector('#job-message')?.textContent.startsWith('Built the tasks at'), null, { timeout: 120000 });
    assert.equal(await page.getAttribute('#job', 'data-state'), 'done');
    assert.equal(await page.textContent('#job-message'), 'Built the tasks at 2 lengths: a file a length below.');
    assert.deepEqual(await page.$$eval('#ladder-files li', (lis) => lis.map((li) => [li.dataset.ntoken, li.dataset.tasks])), [['1024', '60'], ['2048', '60']]);
    for (const n of [1024, 2048]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#ladder-files li[data-ntoken="${n}"] a`)]);
      const want = cli(n);
      // Named as the CLI names it, after the dataset's own name.
      assert.ok(download.suggestedFilename().endsWith(`_ntoken_${n}-tasks.jsonl`), download.suggestedFilename());
      const got = fs.readFileSync(await download.path());
      assert.ok(got.equals(want.bytes), `the ${n}-token file differs from the CLI's ${want.name} (workers ${how})`);
    }
    // The session's own tasks were not touched.
    assert.equal(await page.getAttribute('#task-count', 'data-count'), '0');
    if (how === 'never') await saveViewports(page, '#ladder-build', 'tasks-ladder');
    assert.deepEqual(problems, []);
  }
});

test('an engine that cannot load: the build fails and says why, for a pool and for the page\'s engine', async (t) => {
  for (const how of ['always', 'never']) {
    const { page, problems } = await freshPage(t, { serviceWorkers: 'block' });
    await page.addInitScript((h) => { globalThis.__repoqaBuildWorkers = h; }, how);
    await page.route('**/engine-worker.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await prepare(page, null, 'positional_padding');
    await page.click('#build-tasks');
    await page.waitForSelector('#job[data-state="failed"]', { timeout: 120000 });
    const said = (await page.textContent('#job-message')).trim();
    console.log(`no engine script, workers ${how}: ${said}`);
    assert.match(said, /engine/i, said);
    assert.equal(await page.getAttribute('#task-count', 'data-count'), '0');
    // The failure is red, not a success.
    assert.equal(await page.$eval('#job', (el) => el.dataset.state), 'failed');
    assert.deepEqual(problems.filter((p) => !/Failed to load resource|engine-worker|engine/.test(p)), []);
  }
});

test('a task that cannot be built: the same message from the workers as from the page', async (t) => {
  // The demo with one file taken out of a repo's dependency order: its
  // needles cannot be placed (the official harness fails on them too).
  const ds = JSON.parse(fs.readFileSync(DEMO, 'utf8'));
  const repo = ds.java[0];
  const file = repo.needles[3].path;
  delete repo.dependency[file];
  for (const deps of Object.values(repo.dependency)) {
    const i = deps.indexOf(file);
    if (i >= 0) deps.splice(i, 1);
  }
  const broken = path.join(TMP, 'unordered.json');
  fs.writeFileSync(broken, JSON.stringify(ds));
  const messages = [];
  for (const how of ['always', 'never']) {
    const { page } = await freshPage(t);
    await page.addInitScript((h) => { globalThis.__repoqaBuildWorkers = h; }, how);
    await prepare(page, broken, 'none');
    await page.click('#build-tasks');
    await page.waitForSelector('#job[data-state="failed"]', { timeout: 120000 });
    messages.push((await page.textContent('#job-message')).trim());
    assert.equal(await page.getAttribute('#task-count', 'data-count'), '0');
  }
  console.log(`unbuildable task, a pool and the page's engine: ${messages[0]}`);
  assert.match(messages[0], /Building task \d+ failed: java repo repoqa-web\/demo-bank: needle "\w+" is in "src\/bank\/\w+\.java", which is not in the repo's dependency order/);
  assert.equal(messages[0], messages[1]);
});
