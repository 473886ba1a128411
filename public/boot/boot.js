// Starts the wasm app. Trunk's default is an inline <script type="module">,
// which a Content-Security-Policy without 'unsafe-inline' blocks; Trunk.toml's
// `pattern_script` puts this external module in its place and hands it the
// hashed file names in data attributes.
const boot = document.querySelector('script[data-repoqa-js]');

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

const bindings = await import(boot.dataset.repoqaJs).catch((e) => failed(`loading ${boot.dataset.repoqaJs}`, e));

// Compiled here, once: the task-build workers (build-worker.js) are handed
// this module rather than the file, so they share its compiled code instead
// of compiling 10 MB again each.
async function compile(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch (e) {
    // A server that does not send application/wasm.
    const bytes = await (await fetch(url)).arrayBuffer();
    return WebAssembly.compile(bytes);
  }
}
const module = await compile(boot.dataset.repoqaWasm).catch((e) => failed(`compiling ${boot.dataset.repoqaWasm}`, e));
const wasm = await bindings.default({ module_or_path: module }).catch((e) => failed('starting the app', e));
window.wasmBindings = bindings;
window.repoqaWasmModule = module;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));

// The offline copy (sw.js): registered once the page has loaded, so that
// its download of the whole build never competes with the first one.
// Where it cannot run (a file:// page, a browser without it) the app works
// online only.
if ('serviceWorker' in navigator && window.isSecureContext) {
  const register = () => navigator.serviceWorker.register('./sw.js')
    .catch((e) => console.warn(`offline copy not available: ${e.message || e}`));
  if (document.readyState === 'complete') register(); else addEventListener('load', register);
}
