// The offline copy of the app (issue 25), a service worker registered by
// boot.js. scripts/post-build.mjs stamps each build's file list and version
// into PRECACHE below; unstamped, this worker does nothing.
//
// - Install: every file of this build goes into one cache named for the
//   app's location and the build's version, so a visit offline finds a whole
//   build, never half of one.
// - Requests: network first, this build's copy when the network fails. An
//   online visit is therefore exactly a visit without this worker: a new
//   deploy is what the next visit runs, from the server. Offline, the page
//   and every file it asks for come from the one build in the cache.
// - Only GET requests for files under the app's own path are answered;
//   anything else (a model API, another site, a POST) never reaches the cache.
// - Activate: the caches of older builds at this same path are dropped
//   (another app or deploy on the same origin keeps its own). A page keeps
//   the worker it was opened with (no clients.claim(), no skipWaiting()): a
//   new build's worker takes over when the pages of the old one are closed,
//   never in the middle of a visit.
const PRECACHE = null;

const SCOPE = new URL(self.registration.scope);
const PREFIX = `repoqa-web ${SCOPE.pathname} `;
const CACHE = PRECACHE && PREFIX + PRECACHE.version;

self.addEventListener('install', (event) => {
  if (!PRECACHE) return;
  event.waitUntil(caches.open(CACHE).then((cache) =>
    cache.addAll(PRECACHE.files.map((f) => new Request(new URL(f, SCOPE), { cache: 'reload' })))));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
  })());
});

self.addEventListener('fetch', (event) => {
  if (!PRECACHE) return;
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return;
  event.respondWith(networkFirst(req, url));
});

async function networkFirst(req, url) {
  try {
    return await fetch(req);
  } catch (err) {
    const cache = await caches.open(CACHE);
    // A visit: the page itself, whatever the address after the app's path.
    const key = req.mode === 'navigate' ? new URL('./', SCOPE) : new URL(url.pathname, SCOPE);
    const hit = await cache.match(key);
    if (hit) return hit;
    throw err;
  }
}
