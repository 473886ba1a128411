// The Run page's fault paths against the project's test model server
// (tests/oracle/model_server.py on 127.0.0.1), in headless Chromium, on
// the demo built in the page:
//   - Pause sends nothing new (the server's request count stays flat), and
//     Resume finishes the run with every task answered once;
//   - a context-length error fails just that task with the reason shown,
//     the run goes on, and "Retry the failed tasks" asks exactly those;
//   - a silently cut prompt (the server reports 50 prompt tokens) flags the
//     task and the run loudly;
//   - a refused key names the page's API key field, never an environment
//     variable; the advice on browser origins (CORS) stays after a later
//     500 and a new run;
//   - a redirect stops the run with nothing stored (the browser would turn
//     a 302's POST into a GET); a reply whose content is not text (a
//     number) is malformed: asked again, then the task fails with the
//     reason, and nothing of it is stored; replies naming another model are
//     warned about once;
//   - "New session" ends a run under way (nothing of it is stored after)
//     and resets the Run page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { saveScreenshot } from './browser.js';
import { open, buildDemo, DEMO } from './results-fixture.js';
import { KEY, startModelServer, idbDump, setField, runAndWait, configure, tasksOf } from './run-fixture.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let fx;
let srv;
before(async () => {
  srv = await startModelServer(['--dataset', DEMO, '--key', KEY, '--latency-s', '0.4']);
  fx = await open();
  await buildDemo(fx);
  await fx.page.goto(fx.srv.url + '#run');
  await fx.page.waitForSelector('#run-card');
});
after(async () => { await fx?.close(); srv?.stop(); });

test('pause sends nothing new; resume finishes with every task answered once; a retry message goes once its request is answered', async () => {
  const { page } = fx;
  // The first task gets a 500 once: a retry message, gone once it is answered.
  await srv.control({ reset: true, faults: { type_token_ratio: ['500'] } });
  await configure(page, srv, { provider: 'openai', language: 'python', concurrency: 1 });
  await page.click('#run-start');
  await page.waitForSelector('#run-last-retry', { timeout: 30000 });
  await page.waitForFunction(() => Number(document.querySelector('#run-progress')?.dataset.done) >= 2, null, { timeout: 60000 });
  assert.equal(await page.$('#run-last-retry'), null, 'the retry message outlived its answer');
  await page.click('#run-pause');
  await page.waitForSelector('#run-progress[data-state="paused"]');
  assert.equal(await page.textContent('#run-pause'), 'Resume');
  // The request in flight (0.4 s at the server) may still come back.
  await sleep(1000);
  const atPause = (await srv.get('/stats')).requests;
  const doneAtPause = await page.getAttribute('#run-progress', 'data-done');
  // The line says it is paused and that nothing is left in flight; the
  // clocks stop.
  assert.equal(await page.textContent('#run-message'), 'Paused: nothing in flight. Resume to go on.');
  const etaAtPause = await page.textContent('#run-eta');
  assert.match(etaAtPause, /elapsed, paused$/);
  await sleep(2000);
  const later = (await srv.get('/stats')).requests;
  assert.equal(later, atPause, 'requests sent while paused');
  assert.equal(await page.textContent('#run-eta'), etaAtPause, 'the clocks stop while paused');
  assert.equal(await page.getAttribute('#run-progress', 'data-done'), doneAtPause);
  assert.equal(await page.getAttribute('#run-progress', 'data-state'), 'paused');
  assert.ok(atPause < 11, `paused after ${atPause} of 11 requests`);
  await page.click('#run-pause');
  await page.waitForFunction(() => document.querySelector('#run-progress')?.dataset.state !== 'paused');
  await page.waitForSelector('#run-progress[data-state="done"]', { timeout: 60000 });
  const stats = await srv.get('/stats');
  assert.equal(stats.requests, 11, 'ten tasks and one retry');
  assert.equal(stats.faulted['500'], 1);
  assert.equal(Object.keys(stats.answered).length, 10);
  for (const [tid, n] of Object.entries(stats.answered)) assert.equal(n, 1, `${tid} answered ${n} times`);
  await page.waitForSelector('#run-selection[data-answered="10"]');
  // After the run: where its scores are.
  await page.waitForSelector('#run-next-steps a[href="#results"]');
  console.log(`pause: ${atPause} requests at the pause, still ${later} 2 s later; resumed to 10, each task once`);
});

test('a context-length error fails that task with the reason; the run goes on; retry asks only the failed', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: { mergeIntervals: ['ctx'], parseClock: ['ctx'] } });
  await configure(page, srv, { provider: 'openai', language: 'typescript' });
  assert.equal(await runAndWait(page), 'done');
  const failed = await page.$$eval('#run-failed li', (lis) => lis.map((li) => [li.dataset.taskId, li.textContent]));
  const want = ['mergeIntervals', 'parseClock'].map((n) => `typescript::repoqa-web/demo-planner::${n}`);
  assert.deepEqual(failed.map((f) => f[0]).sort(), want.sort(), `failed: ${JSON.stringify(failed)}`);
  for (const [, text] of failed) assert.match(text, /the prompt is longer than the model's context \(HTTP 400: This model's maximum context length is 8192 tokens/);
  const stats = await srv.get('/stats');
  assert.equal(Object.keys(stats.answered).length, 8, 'the others are answered');
  const asked = tasksOf(await srv.get('/requests'));
  for (const id of want) assert.equal(asked.filter((t) => t === id).length, 1, `${id}: a context-length error is not retried`);
  assert.match(await page.textContent('#run-message'), /8 answered, 2 failed/);
  // A run with failures never ends in green.
  assert.equal(await page.getAttribute('#run-message', 'class'), 'fail');
  assert.equal(await page.getAttribute('#run-message', 'data-flawed'), 'true');
  await page.waitForSelector('#run-selection[data-answered="8"]');

  // "Retry the failed tasks" asks exactly those two (still too long here).
  await srv.control({ reset: true });
  assert.equal(await runAndWait(page, '#run-retry-failed'), 'done');
  assert.deepEqual(tasksOf(await srv.get('/requests')).sort(), want.sort());
  // The server's context grown: asked once more, answered, none failed.
  await srv.control({ reset: true, faults: {} });
  assert.equal(await runAndWait(page, '#run-retry-failed'), 'done');
  assert.deepEqual(tasksOf(await srv.get('/requests')).sort(), want.sort());
  await page.waitForSelector('#run-no-failed');
  assert.equal(await page.getAttribute('#run-message', 'class'), 'pass');
  await page.waitForSelector('#run-selection[data-answered="10"]');
  console.log(`context length: 2 of 10 tasks failed with the reason, each asked once; retried alone twice`);
});

test('a silently cut prompt flags the task and the run loudly', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: { convex_hull: ['trunc'] } });
  await configure(page, srv, { provider: 'anthropic', language: 'cpp' });
  assert.equal(await runAndWait(page), 'done');
  const warning = await page.textContent('#run-truncated');
  assert.match(warning, /^WARNING: the API counted far fewer prompt tokens than the task holds for 1 task\(s\) \(cpp::repoqa-web\/demo-geometry::convex_hull\)/);
  assert.match(warning, /Their scores are meaningless/);
  assert.equal(await page.getAttribute('#run-truncated', 'class'), 'error-box');
  assert.match(await page.textContent('#run-message'), /WARNING: 1 prompt\(s\) cut by the server/);
  const records = Object.fromEntries((await idbDump(page))['run-log'].trim().split('\n')
    .map((l) => JSON.parse(l)).map((r) => [r.task_id, r]));
  assert.equal(records['cpp::repoqa-web/demo-geometry::convex_hull'].truncated, true);
  assert.equal(records['cpp::repoqa-web/demo-geometry::cross'].truncated, false);
  console.log(`truncation: ${warning.slice(0, 120)}…`);
});

test('a refused key names the API key field; the CORS advice outlives a later 500 and a new run', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: {} });
  await configure(page, srv, { provider: 'openai', language: 'java', key: 'sk-wrong' });
  assert.equal(await runAndWait(page), 'failed');
  const stopped = await page.textContent('#run-stopped');
  assert.match(stopped, /HTTP 401, the API key was refused: Incorrect API key provided; check the key \(the API key field, with your OpenAI-compatible API key\)/);
  assert.doesNotMatch(stopped, /OPENAI_API_KEY|env/);
  await page.click('#run-test-connection');
  await page.waitForSelector('#run-connection-status[data-ok="false"]');
  const verdict = await page.textContent('#run-connection-status');
  assert.match(verdict, /the API key field/);
  assert.doesNotMatch(verdict, /OPENAI_API_KEY/);

  // A reply the browser may not read (no CORS header), then a 500 later in the run.
  await srv.control({ reset: true, faults: { monthlyAdjustment: ['nocors'], statement: ['500'] } });
  await configure(page, srv, { provider: 'openai', language: 'java', concurrency: 1 });
  assert.equal(await runAndWait(page), 'done');
  const faulted = (await srv.get('/stats')).faulted;
  assert.deepEqual(faulted, { nocors: 1, 500: 1 });
  assert.match(await page.textContent('#run-cors-help'), /A request got no HTTP status.*OLLAMA_ORIGINS/s);
  // A new run on the same server whose only trouble is a 500: the advice is still there.
  await srv.control({ reset: true, faults: { sortedCopy: ['500'] } });
  await setField(page, '#run-filter', 'go::');
  await page.waitForSelector('#run-selection[data-selected="10"][data-answered="0"]');
  assert.equal(await runAndWait(page), 'done');
  assert.equal((await srv.get('/stats')).faulted['500'], 1);
  assert.match(await page.textContent('#run-cors-help'), /no HTTP status.*--allowed-origins/s);
  await saveScreenshot(page, 'run-faults-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot(page, 'run-faults-390.png');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.click('#run-cors-dismiss');
  await page.waitForSelector('#run-cors-help', { state: 'detached' });
  // Another server (base URL) starts without it.
  await srv.control({ reset: true, faults: {}, cors: false });
  await page.click('#run-test-connection');
  await page.waitForSelector('#run-cors-help');
  await srv.control({ cors: true });
  await setField(page, '#run-base-url', srv.url + '/v1/');
  await page.waitForSelector('#run-cors-help', { state: 'detached' });
  console.log(`key refused: ${stopped.slice(stopped.indexOf('HTTP 401'))}`);
});

test('Test connection: a refused test prompt is a failure, in red, never "connected"', async () => {
  const { page } = fx;
  // The test server refuses any prompt that is not one of its tasks (HTTP 400).
  await srv.control({ reset: true, faults: {} });
  await configure(page, srv, { provider: 'openai', language: 'java' });
  await page.click('#run-test-connection');
  await page.waitForSelector('#run-connection-status[data-ok="false"]');
  const status = await page.$eval('#run-connection-status', (e) => ({ text: e.textContent, cls: e.className, color: getComputedStyle(e).color }));
  assert.match(status.text, /^Not usable as set: .*refused the test prompt: .*HTTP 400.*check the model name/);
  assert.equal(status.cls, 'fail');
  const [r, g] = status.color.match(/\d+/g).map(Number);
  assert.ok(r > g, `a refusal is drawn in the failure colour, not ${status.color}`);
});

// Walk round 2 (minor): a reply over several lines is quoted as a person
// reads it, in the pass colour, never with a literal \n.
test('Test connection: a reply is quoted on one line, in the pass colour', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: {}, test_reply: '```\nOK\n```\n\nReady.' });
  try {
    await configure(page, srv, { provider: 'openai', language: 'java' });
    await page.click('#run-test-connection');
    await page.waitForSelector('#run-connection-status[data-ok="true"]:not(:empty)');
    await page.waitForFunction(() => /^Connected/.test(document.querySelector('#run-connection-status')?.textContent || ''));
    const status = await page.$eval('#run-connection-status', (e) => ({ text: e.textContent, cls: e.className }));
    assert.match(status.text, /^Connected: .* replied “``` OK ``` Ready\.”\.$/);
    assert.ok(!status.text.includes('\\n'), status.text);
    assert.equal(status.cls, 'pass');
  } finally {
    await srv.control({ test_reply: null });
  }
});

test('a server that gives no HTTP status to the whole first wave stops the run at once with the CORS advice', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: {}, cors: false });
  await configure(page, srv, { provider: 'openai', language: 'rust', concurrency: 2 });
  const t0 = Date.now();
  assert.equal(await runAndWait(page, '#run-start', 30000), 'failed');
  const took = Date.now() - t0;
  assert.ok(took < 10000, `stopped after ${took} ms`);
  assert.match(await page.textContent('#run-stopped'), /The run stopped: the first 2 requests to .* got no HTTP status/);
  assert.match(await page.textContent('#run-message'), /0 answered, 0 failed, 10 not asked/);
  assert.equal(await page.getAttribute('#run-message', 'class'), 'fail');
  await page.waitForSelector('#run-cors-help');
  // Said once each: why it stopped (the red box), what the browser said
  // and how to allow the origin (the advice); the line says what was done.
  const said = await page.$eval('#run-card', (e) => e.innerText);
  assert.equal(said.split('the first 2 requests to').length - 1, 1, said);
  assert.equal(said.split("does not allow this page's origin").length - 1, 1, said);
  assert.doesNotMatch(await page.textContent('#run-message'), /no HTTP status/);
  assert.match(await page.textContent('#run-cors-help'), /A request got no HTTP status \(the browser said: .+\)\./);
  const requests = (await srv.get('/stats')).requests;
  assert.ok(requests <= 3, `${requests} requests sent`);
  await srv.control({ reset: true, faults: {}, cors: true });
  await page.click('#run-cors-dismiss');
  console.log(`no status: the run stopped after ${requests} requests and ${took} ms`);
});

test('New session ends a run under way and resets the Run page', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: { inline_as_str: ['ctx'] } });
  await configure(page, srv, { provider: 'google', language: 'rust', concurrency: 1 });
  await page.click('#run-start');
  await page.waitForSelector('#run-failed li', { timeout: 60000 });
  await page.waitForFunction(() => Number(document.querySelector('#run-progress')?.dataset.done) >= 4, null, { timeout: 60000 });
  assert.equal(await page.getAttribute('#run-progress', 'data-state'), 'running');
  page.once('dialog', (d) => d.accept());
  await page.goto(fx.srv.url + '#dataset');
  await page.click('#new-session');
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  await page.waitForSelector('#run-no-tasks', { timeout: 30000 });
  const atReset = (await srv.get('/stats')).requests;
  assert.ok(atReset < 10, `${atReset} requests`);
  await sleep(1500);
  assert.equal((await srv.get('/stats')).requests, atReset, 'the run went on after New session');
  await page.waitForSelector('#run-no-failed');
  assert.equal(await page.getAttribute('#run-progress', 'data-state'), 'idle');
  assert.equal(await page.getAttribute('#run-progress', 'data-total'), '0');
  assert.equal((await page.textContent('#run-tokens')).trim(), '');
  assert.equal((await page.textContent('#run-message')).trim(), '');
  for (const sel of ['#run-stopped', '#run-truncated', '#run-cors-help', '#run-interrupted', '#run-connection-status']) {
    assert.equal(await page.$(sel), null, `${sel} after New session`);
  }
  assert.ok(await page.isDisabled('#run-download-log'), 'the run records are gone');
  assert.equal(await page.inputValue('#run-model'), '');
  assert.equal(await page.inputValue('#run-key'), '');
  assert.equal(await page.inputValue('#run-filter'), '');
  const idb = await idbDump(page);
  assert.equal(idb['run-log'], undefined, 'run log stored after New session');
  assert.ok(!(idb.answers || '').includes('rust::'), 'an answer of the old run stored after New session');
  // A reload finds nothing of the old run either.
  await page.reload();
  await page.waitForSelector('#run-card');
  await page.waitForSelector('#run-no-failed');
  assert.equal(await page.$('#run-interrupted'), null);
  console.log(`new session: the run stopped at ${atReset} requests; Run page and its storage reset`);
});

test('a redirect stops the run with nothing stored; a non-text reply is retried, then fails its task, never stored; replies naming another model are warned about once', async () => {
  const { page } = fx;
  // After "New session": the demo's tasks again, none answered.
  await buildDemo(fx);
  await page.goto(fx.srv.url + '#run');
  await page.waitForSelector('#run-card');
  await srv.control({ reset: true, faults: { '*': ['redirect'] } });
  await configure(page, srv, { provider: 'openai', language: 'go' });
  assert.equal(await runAndWait(page), 'failed');
  const stopped = await page.textContent('#run-stopped');
  assert.match(stopped, /the server redirected the request \(HTTP 3xx; the browser does not show where to\); redirects are not followed/);
  const idb = await idbDump(page);
  assert.ok(!(idb.answers || '').includes('go::'), 'an answer stored from a redirect');
  // The first redirect stops the run: only the requests already in flight (2) went out.
  assert.ok((await srv.get('/stats')).requests <= 2, 'the run stopped at the first redirect');

  // Content 42 instead of text, on every try (1 + 4 retries) of two tasks.
  const five = Array(5).fill('numcontent');
  await srv.control({ reset: true, faults: { Mode: five, Mean: five } });
  assert.equal(await runAndWait(page), 'done');
  const failed = await page.$$eval('#run-failed li', (lis) => lis.map((li) => [li.dataset.taskId, li.textContent]));
  const want = ['Mean', 'Mode'].map((n) => `go::repoqa-web/demo-csvstat::${n}`);
  assert.deepEqual(failed.map((f) => f[0]).sort(), want, `failed: ${JSON.stringify(failed)}`);
  for (const [, text] of failed) assert.match(text, /the reply has no choices\[0\]\.message with a text content where the openai format puts it/);
  const asked = tasksOf(await srv.get('/requests'));
  for (const id of want) assert.equal(asked.filter((t) => t === id).length, 5, `${id}: asked once and retried 4 times`);
  const stored = await idbDump(page);
  for (const id of want) assert.ok(!(stored.answers || '').includes(id), `${id}: a malformed reply was stored`);
  await page.waitForSelector('#run-selection[data-answered="8"]');

  await srv.control({ reset: true, faults: { '*': ['othermodel'] } });
  assert.equal(await runAndWait(page), 'done');
  const warning = await page.textContent('#run-other-model');
  assert.match(warning, /^WARNING: asked for model "org\/test-model", but the reply to go::\S+ names "other-model-9": the server may be serving another model/);
  assert.equal(await page.$$eval('#run-other-model', (e) => e.length), 1);
  await page.locator('#run-other-model').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'run-other-model-1280.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#run-other-model').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'run-other-model-390.png');
  await page.setViewportSize({ width: 1280, height: 900 });
  console.log(`redirect: ${stopped.slice(0, 100)}…; other model: ${warning.slice(0, 90)}…`);
});

test('pacing out of range is refused at Start with the field named, as the CLI refuses its flags; nothing is sent', async () => {
  const { page } = fx;
  await srv.control({ reset: true, faults: {} });
  const cases = [
    ['#run-concurrency', 0, 'Concurrency', /1 to 256 requests in flight, not 0/],
    ['#run-concurrency', 1000, 'Concurrency', /not 1000/],
    ['#run-timeout', 0, 'Timeout per request', /above 0 and at most 86400/],
    ['#run-retry-base', -5, 'First retry delay', /0 to 60000 milliseconds, not -5/],
  ];
  for (const [sel, value, field, why] of cases) {
    await configure(page, srv, { provider: 'openai', language: 'go' });
    await setField(page, sel, value);
    await page.click('#run-start');
    await page.waitForFunction((f) => (document.querySelector('#run-message')?.textContent || '').trim().startsWith(f + ':'), field, { timeout: 10000 });
    assert.match(await page.textContent('#run-message'), why);
    assert.equal(await page.getAttribute('#run-progress', 'data-state'), 'failed');
  }
  assert.equal((await srv.get('/stats')).requests, 0, 'a run started with pacing out of range');
  await configure(page, srv, { provider: 'openai', language: 'go' });
  console.log(`pacing: ${cases.length} out-of-range settings refused at Start, the field named, no request sent`);
});

test('a model the server does not list is warned about; the run goes on', async () => {
  const { page } = fx;
  // llama-cpp-python answers to any model name: its list is the only tell.
  await srv.control({ reset: true, faults: {}, models: 'qwen2.5-0.5b-instruct' });
  await configure(page, srv, { provider: 'openai', language: 'java' });
  assert.equal(await runAndWait(page), 'done');
  const warning = await page.textContent('#run-unlisted-model');
  assert.match(warning, /^WARNING: the server at http:\/\/127\.0\.0\.1:\d+\/v1 lists 1 model\(s\) \(qwen2\.5-0\.5b-instruct\), not "org\/test-model"/);
  await srv.control({ models: null });
});
