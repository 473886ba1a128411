// Screenshots of the main pages at a desktop (1280 px) and a phone (390 px)
// width, into tests/artifacts/screens/, to look at after a UI change (not a
// test). The demo is loaded, its tasks built and a few answers imported, so
// every page has content. Usage: node tests/browser/screenshots.mjs
import fs from 'node:fs';
import path from 'node:path';
import { serveDir } from './serve.js';
import { launch, openPage, DIST, ARTIFACTS } from './browser.js';

const out = path.join(ARTIFACTS, 'screens');
fs.mkdirSync(out, { recursive: true });
const srv = await serveDir(DIST);
const context = await launch();
try {
  const { page, problems } = await openPage(context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(srv.url + '#tasks');
  await page.waitForSelector('#build-tasks:not([disabled])', { timeout: 120000 });
  await page.click('#build-tasks');
  await page.waitForSelector('#build-stats', { timeout: 120000 });
  const ids = await page.$$eval('tr.task-row', (rs) => rs.map((r) => r.dataset.taskId));
  const lines = ids.slice(0, 20).map((id, i) => JSON.stringify({ task_id: id, output: i % 3 ? 'no idea' : 'def f():\n    return 1' }));
  await page.goto(srv.url + '#results');
  await page.fill('#import-text', lines.join('\n'));
  await page.click('#import-pasted');
  await page.waitForSelector('#import-status');
  const pages = ['', '#dataset', '#tasks', `#task/${encodeURIComponent(ids[0])}`, '#results', '#run', '#leaderboard', '#verify', '#curate', '#about'];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const hash of pages) {
      await page.goto(srv.url + hash);
      await page.waitForSelector('#app-main[data-mounted="true"]');
      await page.waitForTimeout(300);
      const name = `${(hash.replace(/^#/, '').split('/')[0] || 'home')}-${width}.png`;
      await page.screenshot({ path: path.join(out, name), fullPage: true });
      // The first screens at full resolution (a long page is shrunk when viewed).
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.screenshot({ path: path.join(out, name.replace('.png', '-top.png')), fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, 1800) } });
      console.log(path.join(out, name));
    }
  }
  if (problems.length) console.log(`page problems:\n${problems.join('\n')}`);
} finally {
  await context.close();
  srv.server.close();
}
