// A task-build worker (src/ui/jobs/build_pool.rs): it loads the app's own
// wasm without mounting the page, reads the tokenizer once, then builds one
// repo's tasks per message with the same core as the page and the CLI
// (`repoqa::context::build_share`), posting each task's JSON line back.
let bindings = null;

onmessage = async (event) => {
  const m = event.data;
  if (m.kind === 'init') {
    try {
      bindings = await import(m.js);
      // The page's compiled module if it could send it, else the file.
      await bindings.default({ module_or_path: m.module || m.wasm });
      bindings.repoqa_worker_init(m.tokenizer, m.origin);
      postMessage({ kind: 'ready' });
    } catch (err) {
      postMessage({ kind: 'failed', error: String((err && err.message) || err) });
    }
    return;
  }
  if (m.kind === 'share') {
    let built = 0;
    try {
      bindings.repoqa_worker_build(m.message, (json) => {
        built += 1;
        postMessage({ kind: 'task', id: m.id, json });
      });
      postMessage({ kind: 'done', id: m.id });
    } catch (err) {
      postMessage({ kind: 'error', id: m.id, built, error: String((err && err.message) || err) });
    }
  }
};
