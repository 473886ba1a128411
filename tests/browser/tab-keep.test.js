// The in-tab model kept in this browser (issue 54, item 1): SmolLM2-135M's
// GGUF fetched from an address that allows the page (a server this test
// starts on 127.0.0.1, with CORS), kept in the origin's private file system,
// and a run of the tab resumed after a reload without picking the file
// again. In headless Chromium, the page served cross-origin isolated.
//   - an address that is not http(s), or a file that is not a GGUF, is
//     refused by name, and nothing is kept;
//   - the GGUF is fetched with its progress, kept, described, loaded;
//   - a reload mid-run: the kept model is used and loaded again in two
//     clicks, and Run asks only the tasks not answered yet;
//   - a picked file is kept on Load (unless unticked); Forget lets it go.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { saveViewports } from './browser.js';
import { open } from './results-fixture.js';
import { idbDump, setField, runAndWait } from './run-fixture.js';
import { demoSubset, loadAndBuild, gguf, tabLoaded } from './llama-fixture.js';

const NAME = path.basename(gguf());
let fx;
let models; // the model server: { url, requests, close }
before(async () => {
  fx = await open({ isolate: true });
  models = await modelServer();
});
after(async () => { await fx?.close(); models?.close(); });

/** A server on 127.0.0.1 that allows any page (CORS): the GGUF, and a
 *  page of HTML under a .gguf name. */
function modelServer() {
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    const cors = { 'access-control-allow-origin': '*' };
    if (req.url === `/models/${NAME}`) {
      res.writeHead(200, { ...cors, 'content-type': 'application/octet-stream', 'content-length': fs.statSync(gguf()).size });
      fs.createReadStream(gguf()).pipe(res);
    } else if (req.url === '/models/login.gguf') {
      res.writeHead(200, { ...cors, 'content-type': 'text/html' });
      res.end('<html><body>Sign in to download this model</body></html>');
    } else {
      res.writeHead(404, cors);
      res.end('no such model');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/models/`,
    requests,
    close: () => server.close(),
  })));
}

const kept = (page) => page.evaluate(() => window.repoqaModelStore.list());

async function fetchModel(page, url) {
  await page.fill('#run-tab-url', url);
  await page.click('#run-tab-fetch');
}

test('a GGUF fetched from an address is kept; after a reload the run resumes with it, no file picked again', async () => {
  const { page, srv } = fx;
  const dataset = demoSubset(2, 0, '-keep', path.join(fx.work, 'keep.json'));
  await loadAndBuild(page, srv.url, dataset, 256, 2);
  await page.evaluate(() => { location.hash = '#run'; });
  await page.waitForSelector('#run-card');
  await page.selectOption('#run-preset', 'tab');
  await page.waitForSelector('#run-tab');
  assert.equal(await page.$('#run-tab-kept'), null, 'nothing is kept yet');

  // Not an address the page fetches; a login page under a .gguf name.
  await fetchModel(page, 'ftp://example.com/m.gguf');
  await page.waitForSelector('#run-tab-status[data-state="failed"]');
  assert.match(await page.textContent('#run-tab-status'), /^ftp:\/\/example\.com\/m\.gguf: an address starting with https:\/\//);
  await fetchModel(page, models.url + 'login.gguf');
  await page.waitForFunction(() => /is not a GGUF file/.test(document.querySelector('#run-tab-status')?.textContent));
  assert.equal(await page.getAttribute('#run-tab-status', 'data-state'), 'failed');
  assert.match(await page.textContent('#run-tab-status'), /login\.gguf is not a GGUF file \(it starts "<htm", not "GGUF"\)/);
  assert.deepEqual(await kept(page), [], 'a file that is not a GGUF is not kept, nor a part of it');

  // The GGUF: fetched with its progress, kept, described, loaded.
  const bytes = fs.statSync(gguf()).size;
  await fetchModel(page, models.url + NAME);
  await page.waitForSelector(`#run-tab-kept li[data-name="${NAME}"]`, { timeout: 120000 });
  await page.waitForSelector('#run-tab-load:not([disabled])');
  assert.deepEqual(await kept(page), [{ name: NAME, bytes }]);
  assert.match(await page.textContent('#run-tab-picked'), new RegExp(`^${NAME.replace(/\./g, '\\.')}: Smollm2 135M`));
  assert.match(await page.textContent(`#run-tab-kept li[data-name="${NAME}"]`), new RegExp(`\\(${(bytes / 1e6).toFixed(1)} MB\\)`));
  assert.equal(await page.isDisabled('#run-tab-keep'), true, 'a kept model is not kept again');
  await setField(page, '#run-tab-window', 2048);
  await page.click('#run-tab-load');
  await tabLoaded(page);
  await saveViewports(page, '#run-tab', 'tab-keep');

  // A run of two tasks, reloaded once the first answer is stored.
  await setField(page, '#run-max-new-tokens', 8);
  await page.waitForSelector('#run-selection[data-selected="2"]');
  await page.click('#run-start');
  await page.waitForFunction(() => Number(document.querySelector('#run-progress')?.dataset.done) >= 1, null, { timeout: 300000 });
  await page.reload();
  await page.waitForSelector('#run-card');
  await page.waitForSelector('#run-interrupted', { timeout: 30000 });
  const stored = Object.keys(JSON.parse((await idbDump(page)).answers || '{}')).filter((id) => id.includes('-keep::'));
  assert.equal(stored.length, 1, `answers stored before the reload: ${stored}`);
  await page.waitForSelector('#run-tab');
  assert.equal(await page.getAttribute('#run-tab-status', 'data-state'), 'none', 'a reload lets the model go');

  // Two clicks: Use the kept model, Load. Then Run asks only the rest.
  const fetched = models.requests.length;
  await page.click(`#run-tab-kept li[data-name="${NAME}"] .run-tab-use`);
  await page.waitForSelector('#run-tab-load:not([disabled])');
  await setField(page, '#run-tab-window', 2048);
  await page.click('#run-tab-load');
  await tabLoaded(page);
  assert.equal(models.requests.length, fetched, 'the kept model was not fetched again');
  await page.evaluate(() => {
    const api = window.repoqaTabModel;
    const chat = api.chat;
    window.__asked = [];
    api.chat = (body, ms, onText) => { window.__asked.push(JSON.parse(body).messages[0].content); return chat(body, ms, onText); };
  });
  assert.equal(await runAndWait(page, '#run-start', 300000), 'done');
  const asked = await page.evaluate(() => window.__asked);
  assert.equal(asked.length, 1, 'only the task not answered before the reload is asked');
  await page.waitForSelector('#run-selection[data-answered="2"]');
  console.log(`fetched ${NAME} (${bytes} bytes) into the browser; after a reload, 1 of 2 tasks asked again with the kept model`);

  // Forget: the model is let go from the browser.
  await page.click(`#run-tab-kept li[data-name="${NAME}"] .run-tab-forget`);
  await page.waitForFunction(() => !document.querySelector('#run-tab-kept'));
  assert.deepEqual(await kept(page), []);

  // A picked file is kept on Load (the box is ticked by default).
  await page.setInputFiles('#run-tab-file', gguf());
  await page.waitForSelector('#run-tab-load:not([disabled])');
  assert.equal(await page.isChecked('#run-tab-keep'), true);
  await page.click('#run-tab-load');
  await tabLoaded(page);
  await page.waitForSelector(`#run-tab-kept li[data-name="${NAME}"]`);
  assert.deepEqual(await kept(page), [{ name: NAME, bytes }]);
  assert.match(await page.textContent('#run-message'), /is loaded in this tab .*It is kept in this browser for the next visit\./);
  assert.deepEqual(fx.problems, []);
});
