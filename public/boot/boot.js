// Starts the wasm app. Trunk's default is an inline <script type="module">,
// which a Content-Security-Policy without 'unsafe-inline' blocks; Trunk.toml's
// `pattern_script` puts this external module in its place and hands it the
// hashed file names in data attributes.
const boot = document.querySelector('script[data-repoqa-js]');

// This build's sizes, stamped by scripts/post-build.mjs: the wasm's bytes
// as the page receives them (after the host's compression, if any, is
// undone). Unstamped (null), the progress counts against what the server
// says it sends.
const SIZES = null;
// The compute engine's files (stamped by scripts/post-build.mjs: its wasm
// and wasm-bindgen module, hashed), for src/ui/browser/engine.rs. The page
// compiles the engine's wasm there when it first needs the engine and never
// runs it: its engine workers do (engine-worker.js).
const ENGINE = null;
window.repoqaEngine = ENGINE;

// The loading screen tells what is coming and how far it has got, from the
// real sizes; every line it showed is kept in window.repoqaBootLog.
const bootLog = (window.repoqaBootLog = []);
function say(text) {
  bootLog.push(text);
  const line = document.getElementById('boot-progress');
  if (line) line.textContent = text;
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
/** `seen` of `total` code bytes are in. `wire`: what the host sends for
 *  them when it compresses (its Content-Length), so the line counts what
 *  travels, not what it unpacks to; 0 when it does not compress. */
function progress(seen, total, wire) {
  const bar = document.getElementById('boot-bar');
  if (bar && total) {
    bar.hidden = false;
    bar.max = total;
    bar.value = Math.min(seen, total);
  }
  if (wire && total) {
    say(`Loading the app: ${mb(wire * Math.min(seen / total, 1))} of ${mb(wire)} (compressed)`);
  } else {
    say(total ? `Loading the app: ${mb(seen)} of ${mb(total)}` : `Loading the app: ${mb(seen)}`);
  }
}

/** The wasm's response, its body counted as it arrives. The body is read
 *  unpacked; a compressed one's Content-Length is the packed size. */
async function fetchCounted(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const length = Number(res.headers.get('content-length')) || 0;
  const packed = Boolean(res.headers.get('content-encoding'));
  const total = (SIZES && SIZES.wasm) || (packed ? 0 : length);
  const wire = packed ? length : 0;
  progress(0, total, wire);
  if (!res.body || typeof TransformStream === 'undefined') return res;
  let seen = 0;
  let last = 0;
  const counted = res.body.pipeThrough(new TransformStream({
    transform(chunk, out) {
      seen += chunk.byteLength;
      const now = performance.now();
      if (now - last > 100) { last = now; progress(seen, total, wire); }
      out.enqueue(chunk);
    },
    flush() { progress(seen, total, wire); },
  }));
  return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** What went over the wire for `url`, once it is in: the host's compression said as it was. */
function arrived(url) {
  const entry = performance.getEntriesByName(new URL(url, location.href).href)[0];
  const size = (SIZES && SIZES.wasm) || (entry && entry.decodedBodySize) || 0;
  const sent = entry ? entry.transferSize : 0;
  if (!size) return 'Starting the app…';
  if (sent > 0 && sent < 0.9 * size) return `Loaded: ${mb(sent)} sent compressed (${mb(size)} of code); starting the app…`;
  if (sent > 0) return `Loaded: ${mb(size)} sent uncompressed (a host that compresses it sends a fifth to a third of that); starting the app…`;
  return `Loaded: ${mb(size)} of code (from this browser's cache); starting the app…`;
}

// index.html's loading screen says why, rather than loading forever.
function failed(what, err) {
  const msg = document.getElementById('boot-message');
  if (msg) {
    msg.className = 'fail';
    msg.textContent = `The app could not start: ${what} (${(err && err.message) || err}). ` +
      'Reload the page; if it persists, this browser may lack WebAssembly or the site is missing files.';
  }
  throw err;
}

// The offline copy (sw.js), set up before the app starts (the Home page
// asks window.repoqaOffline as it mounts): registered once the page has loaded. Its
// install keeps the shell the page has just loaded (from the browser's
// cache, not a second download); every other file is kept when a visit
// uses it, or all at once from "Keep for offline" on the Home page.
// Where it cannot run (a file:// page, a browser without it) the app works
// online only, and window.repoqaOffline says why.
let registered = Promise.resolve(null);
let unavailable = 'this browser cannot keep an offline copy of this page (no service workers here, or not a secure origin)';
if ('serviceWorker' in navigator && window.isSecureContext) {
  registered = new Promise((resolve) => {
    const register = () => navigator.serviceWorker.register('./sw.js')
      .then((reg) => { resolve(reg); tellUsed(); })
      .catch((e) => {
        unavailable = `the offline copy could not be set up (${e.message || e})`;
        console.warn(unavailable);
        resolve(null);
      });
    if (document.readyState === 'complete') register(); else addEventListener('load', register);
  });
}

/** The worker takes control of a first visit only after the page fetched
 *  what it started with: it is told what that was, and keeps the files of
 *  this build among them. A download the page started before the worker
 *  took control and that ends after (the demo dataset, on a slow first
 *  visit) never passes through the worker either: it is told as it ends. */
async function tellUsed() {
  const sw = navigator.serviceWorker;
  const controlled = !!sw.controller;
  if (!controlled) await new Promise((r) => sw.addEventListener('controllerchange', r, { once: true }));
  const since = controlled ? 0 : performance.now();
  const tell = (urls) => { if (urls.length && sw.controller) sw.controller.postMessage({ kind: 'used', urls }); };
  tell([location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]);
  if (!controlled && 'PerformanceObserver' in window) {
    // Only downloads started before control: later ones pass through the worker.
    const late = new PerformanceObserver((list) => {
      tell(list.getEntries().filter((e) => e.startTime < since).map((e) => e.name));
    });
    late.observe({ type: 'resource' });
  }
  // Idle on a connection the browser says is unmetered: keep the rest too.
  const c = navigator.connection;
  if (c && !c.saveData && (c.type === 'wifi' || c.type === 'ethernet') && 'requestIdleCallback' in window) {
    requestIdleCallback(() => ask('keep', () => {}).catch(() => {}), { timeout: 60000 });
  }
}

/** One question to the active worker, its progress messages to `onProgress`. */
async function ask(kind, onProgress) {
  const reg = await registered;
  if (!reg) throw new Error(unavailable);
  const active = (await navigator.serviceWorker.ready).active;
  return new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = ({ data }) => {
      if (data.kind === 'progress') onProgress(data.done, data.total);
      else if (data.kind === 'error') reject(new Error(data.error));
      else resolve(data);
    };
    active.postMessage({ kind }, [channel.port2]);
  });
}

// For the page (src/ui/browser/offline.rs): what is kept, and keeping the rest.
window.repoqaOffline = {
  status: () => ask('status'),
  keep: (onProgress) => ask('keep', onProgress),
};

// For the page (src/ui/browser/tab_model.rs): the in-tab model. Its module
// and engine (tab-model.js, wllama/) are fetched only when a model is loaded.
let tabModel = null;
const tabEngine = () => (tabModel ??= import('./tab-model.js'));
window.repoqaTabModel = {
  load: async (file, nCtx) => (await tabEngine()).load(file, nCtx),
  unload: async () => (tabModel ? (await tabModel).unload() : undefined),
  stop: async () => (tabModel ? (await tabModel).stop() : undefined),
  chat: async (body, timeoutMs, onText) => (tabModel ? (await tabModel).chat(body, timeoutMs, onText)
    : { status: 404, body: JSON.stringify({ error: { message: 'no model is loaded in this tab: pick a GGUF file under "In this tab" and press Load' } }) }),
  info: async () => (tabModel ? (await tabModel).info() : null),
  stats: async () => (tabModel ? (await tabModel).stats() : []),
};

// For the page (src/ui/browser/model_store.rs): models kept in this
// browser for the in-tab model. Fetched when the page first asks.
let modelStore = null;
const store = () => (modelStore ??= import('./model-store.js'));
window.repoqaModelStore = {
  list: async () => (await store()).list(),
  file: async (name) => (await store()).file(name),
  forget: async (name) => (await store()).forget(name),
  estimate: async () => (await store()).estimate(),
  keep: async (blob, name, onProgress) => (await store()).keep(blob, name, onProgress),
  fetchKeep: async (url, name, maxBytes, onProgress) => (await store()).fetchKeep(url, name, maxBytes, onProgress),
  stop: async () => (modelStore ? (await modelStore).stop() : undefined),
};

const bindings = await import(boot.dataset.repoqaJs).catch((e) => failed(`loading ${boot.dataset.repoqaJs}`, e));

// Compiled with the download streaming in (the loading screen counts it).
async function compile(url) {
  try {
    const module = await WebAssembly.compileStreaming(fetchCounted(url));
    say(arrived(url));
    return module;
  } catch (e) {
    // A server that does not send application/wasm.
    const bytes = await (await fetch(url)).arrayBuffer();
    return WebAssembly.compile(bytes);
  }
}
const module = await compile(boot.dataset.repoqaWasm).catch((e) => failed(`compiling ${boot.dataset.repoqaWasm}`, e));
const wasm = await bindings.default({ module_or_path: module }).catch((e) => failed('starting the app', e));
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
