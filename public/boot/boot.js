// Starts the wasm app. Trunk's default is an inline <script type="module">,
// which a Content-Security-Policy without 'unsafe-inline' blocks; Trunk.toml's
// `pattern_script` puts this external module in its place and hands it the
// hashed file names in data attributes.
const boot = document.querySelector('script[data-repoqa-js]');
const bindings = await import(boot.dataset.repoqaJs);
const wasm = await bindings.default({ module_or_path: boot.dataset.repoqaWasm });
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
