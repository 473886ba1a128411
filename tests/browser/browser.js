// Launch Debian's Chromium headless through playwright-core (never a
// downloaded browser) and collect console errors and page errors.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// fileURLToPath, not URL.pathname: a checkout whose path has a space (or any
// character a URL escapes) is found where it is.
export const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST = process.env.REPOQA_DIST || path.join(ROOT, 'dist');
export const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');

const LAUNCH = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

/** A browser context with a profile of its own on disk: what a visitor's
 *  browser keeps between visits (the offline copy, a stored model, the
 *  storage quota of a real profile), closed and removed by `close()`.
 *  `serviceWorkers: 'block'` for a test that routes the app's own files
 *  (`page.route`): requests answered by the app's service worker (sw.js)
 *  never reach a page's routes. */
export async function launch({ serviceWorkers = 'allow' } = {}) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { serviceWorkers, ...LAUNCH });
  // Each profile holds a whole offline copy of the app (about 240 MB with
  // its caches): left behind, a few hundred runs fill the disk, and then the
  // service worker's install fails for want of quota. It is removed once the
  // browser has exited, never while it still writes: the context's 'close'
  // event comes before that, and a removal started there met files still
  // being written and retried for 5.5 s, each test's close waiting on it
  // (measured: smoke.test.js 10.1 s → 3.9 s, results-answers 18.4 s → 12.5 s).
  // Never an error of the test.
  let removed = null;
  const remove = () => (removed ??= fs.promises
    .rm(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    .catch(() => { /* left for the system's temporary-file cleanup */ }));
  const close = context.close.bind(context);
  context.close = async (...args) => {
    await close(...args);
    await remove();
  };
  // Closed another way (the browser crashed or was killed): removed a little
  // later, when it is gone.
  context.on('close', () => setTimeout(remove, 2000).unref());
  return context;
}

/** Open a page that records every console error and uncaught exception. */
export async function openPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console.error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  return { page, problems };
}

// One headless Chromium per test file (node --test runs each file in a
// process of its own), started by the first `freshPage` and ended with the
// process (Playwright kills the browsers it launched when node exits).
// Starting a browser with a profile on disk costs about a second under load;
// a new context in a running browser about a third of that (measured on two
// cores: 1,381 ms against 427 ms).
let sharedBrowser = null;

/** A fresh, empty browser context for test `t` (no cookies, storage,
 *  service worker or cache of any other test: an incognito context of the
 *  file's one browser), closed after it. An incognito context is a private
 *  window: the app's compute engine starts in it too, because the page
 *  compiles the engine's wasm once and hands the module to every engine
 *  worker (src/ui/browser/engine.rs). `{ serviceWorkers: 'block' }` keeps
 *  the app's service worker out. */
export async function freshPage(t, { serviceWorkers = 'allow' } = {}) {
  sharedBrowser ??= chromium.launch(LAUNCH);
  const context = await (await sharedBrowser).newContext({ serviceWorkers });
  t.after(() => context.close());
  const { page, problems } = await openPage(context);
  return { context, page, problems };
}

/** Open the app served at `baseUrl` on `hash`, and wait until it is mounted. */
export async function gotoApp(page, baseUrl, hash) {
  await page.goto(baseUrl + hash);
  await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 30000 });
}

/** `page.waitForSelector(selector)`, but a timeout says what the page
 *  showed: the job line, the dataset's error box, the main text, the
 *  console problems so far and what `extra()` (if given) finds (a failure
 *  under load must say why). */
export async function waitOrExplain(page, selector, timeout, problems = [], extra = null) {
  try {
    return await page.waitForSelector(selector, { timeout });
  } catch (e) {
    const seen = await page.evaluate(() => {
      const text = (sel) => document.querySelector(sel)?.textContent.replace(/\s+/g, ' ').trim().slice(0, 600);
      const job = document.querySelector('#job');
      return {
        url: location.href,
        job: job ? `${job.dataset.state}: ${text('#job')}` : 'none',
        datasetError: text('#dataset-error') ?? 'none',
        main: text('#app-main'),
      };
    }).catch((err) => ({ unreadable: String(err) }));
    const more = extra ? await extra().catch((err) => String(err)) : undefined;
    throw new Error(`${e.message}\nthe page showed: ${JSON.stringify(seen, null, 1)}\nproblems: ${JSON.stringify(problems)}${more === undefined ? '' : `\nmore: ${JSON.stringify(more)}`}`);
  }
}

export function saveScreenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

/** Full-page screenshots `<stem>-1280.png` and `<stem>-390.png`, with
 *  `selector` scrolled into view at each width; the page is left at 1280. */
export async function saveBothWidths(page, selector, stem) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.locator(selector).scrollIntoViewIfNeeded();
    await saveScreenshot(page, `${stem}-${width}.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** What a person sees: the window (not the whole page) with `selector`
 *  scrolled into view, at 1280 and 390 px, light and dark:
 *  `<stem>-<width>-<scheme>.png`. The page is left at 1280, light. */
export async function saveViewports(page, selector, stem) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.locator(selector).scrollIntoViewIfNeeded();
      // Two frames: the new colours and width painted.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: path.join(ARTIFACTS, `${stem}-${width}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Load the dataset file `file` on the Dataset page as a user picks it,
 *  and wait until it is the loaded one and its job has ended. */
export async function loadDatasetFile(page, file) {
  const name = file.split('/').pop();
  await page.setInputFiles('#dataset-file', file);
  await page.waitForFunction((n) => (document.querySelector('#dataset-origin')?.textContent || '').includes(n),
    name, { timeout: 120000 });
  await page.waitForSelector('#job:not([data-state="running"])', { timeout: 120000 });
}
