// The compute engine's worker (src/engine/main.rs): it loads the engine's
// wasm (never the page's), then answers the page's messages in order:
// - init {js, module, tokenizer?, origin?} → ready | failed (module: the
//   engine's wasm as a WebAssembly.Module, compiled once by the page,
//   src/ui/browser/engine.rs, so no worker downloads or compiles it)
// - tokenizer {id, bytes, origin}, dataset {id, dataset, bytes, origin}:
//   what the engine holds between requests → reply {id} | error {id, error}
// - call {id, request, paths?, blobs?}: the engine's one protocol (a
//   request of repoqa::engine, JSON, with the files it reads), from the
//   page's engine client (src/ui/browser/engine.rs), the build pool
//   (src/ui/jobs/build_pool.rs, a repo's share of a build each) and a
//   curation (src/ui/jobs/curate.rs, a worker of its own)
//   → progress {id, done, total}… then reply {id, reply} | error {id, error}
let bindings = null;

const message = (err) => String((err && err.message) || err);

onmessage = async (event) => {
  const m = event.data;
  if (m.kind === 'init') {
    try {
      bindings = await import(m.js);
      await bindings.default({ module_or_path: m.module });
      if (m.tokenizer) bindings.repoqa_engine_tokenizer(m.tokenizer, m.origin);
      postMessage({ kind: 'ready' });
    } catch (err) {
      postMessage({ kind: 'failed', error: message(err) });
    }
    return;
  }
  if (!bindings) {
    postMessage({ kind: 'error', id: m.id, error: 'the engine is not loaded (no init message)' });
    return;
  }
  try {
    if (m.kind === 'tokenizer') {
      bindings.repoqa_engine_tokenizer(m.bytes, m.origin);
      postMessage({ kind: 'reply', id: m.id });
    } else if (m.kind === 'dataset') {
      bindings.repoqa_engine_dataset(m.dataset, m.bytes, m.origin);
      postMessage({ kind: 'reply', id: m.id });
    } else if (m.kind === 'call') {
      const progress = (done, total) => postMessage({ kind: 'progress', id: m.id, done, total });
      const reply = bindings.repoqa_engine_call(m.request, m.paths || [], m.blobs || [], progress);
      postMessage({ kind: 'reply', id: m.id, reply });
    } else {
      postMessage({ kind: 'error', id: m.id, error: `unknown message kind ${m.kind}` });
    }
  } catch (err) {
    postMessage({ kind: 'error', id: m.id, error: message(err) });
  }
};
