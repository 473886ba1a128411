// Starts the wasm app. Trunk's default is an inline <script type="module">,
// which a Content-Security-Policy without 'unsafe-inline' blocks; Trunk.toml's
// `pattern_script` puts this external module in its place and hands it the
// hashed file names in data attributes.
const boot = document.querySelector('script[data-repoqa-js]');
const bindings = await import(boot.dataset.repoqaJs);

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
const module = await compile(boot.dataset.repoqaWasm);
const wasm = await bindings.default({ module_or_path: module });
window.wasmBindings = bindings;
window.repoqaWasmModule = module;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
