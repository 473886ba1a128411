// The offline copy of the app (issues 25 and 50), a service worker
// registered by boot.js. scripts/post-build.mjs stamps each build's files,
// their sizes and the build's version into PRECACHE below; unstamped, this
// worker does nothing.
//
// It keeps what a visit used, and the rest only when asked:
// - Install: the page shell (the page, its scripts, the wasm, the
//   stylesheet, the icons) goes into one cache named for the app's location
//   and the build's version. Its content-hashed files come from the
//   browser's HTTP cache when the page has just loaded them, so a first
//   visit does not download the wasm a second time.
// - Requests: network first, this build's copy when the network fails. An
//   online visit is therefore exactly a visit without this worker: a new
//   deploy is what the next visit runs, from the server. Each file of this
//   build the page fetches is kept as it arrives (the demo, the tokenizer,
//   a published SCORES file: offline, what a visit used still works).
//   Files the page fetched before this worker took control are named by the
//   page ('used' message) and kept from the HTTP cache.
// - 'keep' message ("Keep for offline" in the page): every file of the
//   build not kept yet, with progress; 'status' says what is kept and what
//   the rest weighs.
// - Only GET requests for files of this build under the app's own path are
//   kept; anything else (a model API, another site, a POST, a file the
//   user gave) never reaches the cache.
// - Threads for the model in the tab on any host: every response it gives
//   the page carries Cross-Origin-Opener-Policy: same-origin and
//   Cross-Origin-Embedder-Policy: require-corp, the two headers that make a
//   page cross-origin isolated (SharedArrayBuffer, so llama.cpp's threads),
//   which many static hosts cannot send. A visit the worker serves is
//   isolated; the first, which it does not, is told by the page that a
//   reload gives threads. The app loads nothing from other sites without
//   CORS, so require-corp blocks nothing it uses.
// - Activate: the caches of older builds at this same path are dropped
//   (another app or deploy on the same origin keeps its own). A new build's
//   worker takes over when the pages of the old one are closed, never in
//   the middle of a visit (no skipWaiting()); it then claims the pages
//   without a worker (a first visit), so what they fetch next is kept.
const PRECACHE = null;
// Add the two headers of cross-origin isolation (see isolated()); a host
// whose own additions to the page load other sites' files without CORS
// sets this to false (docs/hosting.md).
const ISOLATE = true;

const SCOPE = new URL(self.registration.scope);
const PREFIX = `repoqa-web ${SCOPE.pathname} `;
const CACHE = PRECACHE && PREFIX + PRECACHE.version;
const FILES = new Set(PRECACHE ? PRECACHE.files : []);

/** The build file `url` names ('./' for the page), or null. */
function buildFile(url, navigate) {
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  if (navigate) return './';
  const rel = decodeURIComponent(url.pathname.slice(SCOPE.pathname.length));
  const f = rel === '' || rel === 'index.html' ? './' : rel;
  return FILES.has(f) ? f : null;
}

/** A file whose name carries its content's hash: any stored copy is this build's. */
const hashed = (f) => /-[0-9a-f]{12,16}(_bg\.wasm|\.js|\.css)$/.test(f);

/** Fetch build file `f` and keep it. `fromHttpCache`: the page has just
 *  loaded it, so the browser's stored copy is the one to keep. */
async function keep(cache, f, fromHttpCache) {
  const url = new URL(f, SCOPE);
  const res = await fetch(new Request(url, { cache: fromHttpCache || hashed(f) ? 'force-cache' : 'no-cache' }));
  if (!res.ok) throw new Error(`${f}: HTTP ${res.status}`);
  await cache.put(url, res);
}

/** The build files not in the cache yet. */
async function missing(cache) {
  const have = new Set((await cache.keys()).map((r) => buildFile(new URL(r.url), false)));
  return PRECACHE.files.filter((f) => !have.has(f));
}

self.addEventListener('install', (event) => {
  if (!PRECACHE) return;
  event.waitUntil(caches.open(CACHE).then((cache) =>
    Promise.all(PRECACHE.shell.map((f) => keep(cache, f, false)))));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    if (PRECACHE) await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  if (!PRECACHE) return;
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  const f = buildFile(url, req.mode === 'navigate');
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return;
  const served = networkFirst(event, req, f);
  event.respondWith(ISOLATE ? served.then(isolated) : served);
});

/** `res` with the two headers of cross-origin isolation added (a response
 *  whose headers cannot be read, or that has none to carry, as it is). */
function isolated(res) {
  if (!res || res.status === 0 || res.type === 'opaqueredirect') return res;
  const headers = new Headers(res.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

async function networkFirst(event, req, f) {
  let res;
  try {
    res = await fetch(req);
  } catch (err) {
    const hit = f && await (await caches.open(CACHE)).match(new URL(f, SCOPE));
    if (hit) return hit;
    throw err;
  }
  // Kept as it first arrives: a whole 200 of a file of this build, not a
  // range or an error. A copy kept already stays (the shell from install):
  // a page of a newer deploy, still under this worker, cannot mix its
  // files into this build's cache.
  if (f && res.status === 200 && res.type === 'basic') {
    const copy = res.clone();
    event.waitUntil((async () => {
      const cache = await caches.open(CACHE);
      if (!(await cache.match(new URL(f, SCOPE)))) await cache.put(new URL(f, SCOPE), copy);
    })().catch(() => {}));
  }
  return res;
}

self.addEventListener('message', (event) => {
  const m = event.data || {};
  const port = event.ports[0];
  if (!PRECACHE) {
    if (port) port.postMessage({ kind: 'error', error: 'this build has no offline copy (a development build)' });
    return;
  }
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    try {
      if (m.kind === 'used') {
        const used = new Set((m.urls || []).map((u) => buildFile(new URL(u, SCOPE), false)).filter(Boolean));
        const todo = (await missing(cache)).filter((f) => used.has(f));
        await Promise.all(todo.map((f) => keep(cache, f, true).catch(() => {})));
      } else if (m.kind === 'status') {
        port.postMessage(await status(cache));
      } else if (m.kind === 'keep') {
        const todo = await missing(cache);
        const total = todo.reduce((n, f) => n + (PRECACHE.sizes[f] || 0), 0);
        let done = 0;
        for (const f of todo) {
          await keep(cache, f, false);
          done += PRECACHE.sizes[f] || 0;
          port.postMessage({ kind: 'progress', done, total, file: f });
        }
        port.postMessage(await status(cache));
      }
    } catch (err) {
      if (port) port.postMessage({ kind: 'error', error: String((err && err.message) || err) });
    }
  })());
});

/** What is kept and what the rest weighs (bytes as served, before any compression by the host). */
async function status(cache) {
  const rest = await missing(cache);
  const bytes = (fs) => fs.reduce((n, f) => n + (PRECACHE.sizes[f] || 0), 0);
  return {
    kind: 'status',
    // Pages this worker serves are cross-origin isolated (see isolated()).
    isolates: ISOLATE,
    keptFiles: PRECACHE.files.length - rest.length,
    keptBytes: bytes(PRECACHE.files) - bytes(rest),
    missingFiles: rest.length,
    missingBytes: bytes(rest),
  };
}
