// A first visit's weight and time to interactive (issue 50; prints figures,
// not a test). Run by scripts/bench.sh on the built dist/.
//
// For a host that compresses (the build's precompressed copies, brotli when
// the browser accepts it, else gzip) and one that does not, in fresh
// profiles with service workers blocked (their install would race the
// count), median of REPOQA_BENCH_RUNS (default 3):
//   - bytes until interactive: what the server sent until the app mounted;
//   - time to interactive: navigation → the app mounted, unthrottled and
//     under a throttled profile (40 ms latency, 10 Mbit/s, CPU 4× slower).
// The whole first visit with the service worker is offline.test.js's.
import { serveDir } from './serve.js';
import { launch, openPage, DIST } from './browser.js';

const RUNS = Number(process.env.REPOQA_BENCH_RUNS || 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const THROTTLED = { latency: 40, downloadThroughput: (10e6 / 8), uploadThroughput: (10e6 / 8), cpu: 4 };

async function visit(srv, throttle) {
  const context = await launch({ serviceWorkers: 'block' });
  try {
    const { page } = await openPage(context);
    if (throttle) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: throttle.latency, downloadThroughput: throttle.downloadThroughput, uploadThroughput: throttle.uploadThroughput });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle.cpu });
    }
    const before = srv.served.length;
    await page.goto(srv.url);
    await page.waitForSelector('#app-main[data-mounted="true"]', { timeout: 300000 });
    const ms = await page.evaluate(() => window.__repoqaMountedMs);
    const sent = srv.served.slice(before);
    return { ms, bytes: sent.reduce((n, s) => n + s.bytes, 0), encodings: [...new Set(sent.map((s) => s.encoding || 'none'))] };
  } finally {
    await context.close();
  }
}

const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
for (const [host, compress] of [['compressing host', true], ['plain host', false]]) {
  const srv = await serveDir(DIST, { compress });
  try {
    for (const [profile, throttle] of [['unthrottled', null], ['throttled (40 ms, 10 Mbit/s, CPU 4x)', THROTTLED]]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await visit(srv, throttle));
      console.log(`first visit, ${host}, ${profile}: interactive after ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s, ` +
        `${kib(median(runs.map((r) => r.bytes)))} sent until then (encodings: ${runs[0].encodings.join(', ')})`);
    }
  } finally {
    srv.server.close();
  }
}
