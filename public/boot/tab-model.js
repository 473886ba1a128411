// The in-tab model (the Run page's "In this tab"): llama.cpp compiled to
// WebAssembly (@wllama/wllama, MIT, copied into wllama/ by index.html from
// the npm package scripts/setup.sh installs) runs a GGUF file the visitor
// picks, in a worker of its own, on this machine's CPU. boot.js imports this
// module only when the visitor loads a model: the first load never carries
// the engine.
//
// The page speaks to it as to any OpenAI-compatible server (the runner's
// requests, run log and resume are the same): `chat(body, ms)` takes the
// Chat Completions request the core built and gives back what a server
// would, `{ status, body }`, or `{ timeout: true }`, or `{ noStatus: why }`.
// The page asks with no timeout (ms 0) and no retries: a model in the tab
// is no server that drops a request, and a slow answer is still being
// written (repoqa::llm::in_tab::PACE_NOTE); Cancel stops it. The engine embeds llama.cpp's own server code, so the
// request goes through the GGUF's chat template as llama-server would.
import { Wllama } from './wllama/index.js';

let engine = null; // a Wllama with a model loaded
let loaded = null; // what was loaded (load()'s answer)
let queue = Promise.resolve(); // one request at a time, in order
let current = null; // the AbortController of the request being answered
const timings = []; // llama.cpp's timings of each answer, in order
// Prompt tokens read per step of the engine's loop (see load()).
const BATCH = 128;

/** The threads a cross-origin-isolated page can use (llama.cpp's
 *  multi-thread build needs SharedArrayBuffer); one otherwise. wllama's
 *  own default is half the cores, so it is always set. */
function threads() {
  if (!self.crossOriginIsolated) return 1;
  return Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 8));
}

/** Load `file` (a GGUF File or Blob) with a window of `nCtx` tokens; the
 *  model loaded before, if any, is let go first. */
export async function load(file, nCtx) {
  await unload();
  const wasm = new URL('./wllama/wllama.wasm', import.meta.url).href;
  const w = new Wllama({ default: wasm }, { suppressNativeLog: true });
  const t0 = performance.now();
  // CPU only (n_gpu_layers 0): the same kernels whatever the browser, so
  // an answer does not depend on the visitor's GPU. One sequence at a
  // time, as the runner asks them. The prompt is read BATCH tokens per
  // step of llama.cpp's server loop, and a Stop or Cancel is seen between
  // steps: with llama.cpp's default (2,048) a whole prompt was one step, so
  // Stop waited until it was read (30 s for 1,081 tokens on two cores).
  await w.loadModel([file], { n_ctx: nCtx, n_threads: threads(), n_gpu_layers: 0, n_parallel: 1, seed: 0, n_batch: BATCH, n_ubatch: BATCH });
  const meta = w.getModelMetadata();
  engine = w;
  loaded = {
    name: file.name || 'model.gguf',
    bytes: file.size,
    nCtx,
    nCtxTrain: meta.hparams.nCtxTrain,
    threads: w.getNumThreads(),
    isolated: !!self.crossOriginIsolated,
    chatTemplate: !!meta.meta['tokenizer.chat_template'],
    loadMs: Math.round(performance.now() - t0),
  };
  return loaded;
}

/** Let the model go (its memory with it). */
export async function unload() {
  stop();
  const w = engine;
  engine = null;
  loaded = null;
  if (w) await w.exit().catch(() => {});
}

/** Stop the answer being generated (it ends as a timeout would). */
export function stop() {
  if (current) current.abort(new DOMException('stopped', 'AbortError'));
}

export function info() { return loaded; }
export function stats() { return timings.slice(); }

const fail = (status, message, type) => ({ status, body: JSON.stringify({ error: { message, type } }) });

/** One Chat Completions request (`body`, the JSON text), answered after
 *  those before it; `timeoutMs` as a server's client would give up (0:
 *  never). With `onText`, the answer is streamed as it is written:
 *  `onText({ text, processed, total, written })` is called with the text
 *  so far, the tokens written so far (the stream's pieces), and while the
 *  prompt is read, how many of its tokens are; the reply given back
 *  in the end is the one a request without streaming gets: the same
 *  tokens, gathered. */
export function chat(body, timeoutMs, onText) {
  const run = queue.then(() => answer(body, timeoutMs, onText));
  queue = run.catch(() => {});
  return run;
}

/** Ask with `params`, streaming to `onText`; the chunks gathered into the
 *  reply a request without streaming gets (content, thinking, finish
 *  reason, usage, timings). */
async function streamed(params, onText) {
  let text = '';
  let reasoning = '';
  let last = null;
  let finish = null;
  let written = 0;
  await engine.createChatCompletion({
    ...params,
    stream: true,
    stream_options: { include_usage: true },
    return_progress: true,
    onData: (chunk) => {
      last = chunk;
      const choice = chunk.choices && chunk.choices[0];
      const delta = (choice && choice.delta) || {};
      if (typeof delta.content === 'string') text += delta.content;
      if (typeof delta.reasoning_content === 'string') reasoning += delta.reasoning_content;
      if (typeof delta.content === 'string' || typeof delta.reasoning_content === 'string') written += 1;
      if (choice && choice.finish_reason) finish = choice.finish_reason;
      const p = chunk.prompt_progress;
      try {
        onText({ text, processed: p ? p.processed : null, total: p ? p.total : null, written });
      } catch (e) { /* the page's view failing must not stop the answer */ }
    },
  });
  const message = { role: 'assistant', content: text };
  if (reasoning) message.reasoning_content = reasoning;
  return {
    id: last && last.id,
    object: 'chat.completion',
    created: last && last.created,
    model: last && last.model,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: last && last.usage,
    timings: last && last.timings,
  };
}

async function answer(text, timeoutMs, onText) {
  if (!engine) return fail(404, 'no model is loaded in this tab: pick a GGUF file under "In this tab" and press Load', 'not_loaded');
  let req;
  try { req = JSON.parse(text); } catch (e) { return fail(400, `the request is not JSON: ${e.message}`, 'invalid_request'); }
  const ctl = new AbortController();
  current = ctl;
  let timedOut = false;
  const timer = timeoutMs > 0
    ? setTimeout(() => { timedOut = true; ctl.abort(new DOMException('timed out', 'TimeoutError')); }, timeoutMs)
    : null;
  try {
    const params = {
      messages: req.messages,
      temperature: req.temperature,
      max_tokens: req.max_tokens ?? req.max_completion_tokens,
      stop: req.stop,
      seed: req.seed,
      top_p: req.top_p,
      logprobs: req.logprobs,
      top_logprobs: req.top_logprobs,
      abortSignal: ctl.signal,
      // Each prompt read whole, as the first request to a fresh server: an
      // answer must not depend on which task was asked before it (reusing
      // the shared instruction's cache would change the arithmetic).
      cache_prompt: false,
    };
    for (const k of Object.keys(params)) if (params[k] === undefined) delete params[k];
    const res = typeof onText === 'function' ? await streamed(params, onText) : await engine.createChatCompletion(params);
    if (res && res.timings) timings.push(res.timings);
    return { status: 200, body: JSON.stringify(res) };
  } catch (e) {
    if (timedOut) return { timeout: true };
    if (ctl.signal.aborted) return { noStatus: 'the answer was stopped in this tab' };
    const message = String((e && e.message) || e);
    // llama.cpp's server refuses a prompt over the window with
    // "the request exceeds the available context size"; said so in words
    // the runner knows (a failed task, not retried).
    if (/context|kv_cache_full|n_ctx/i.test(message) || (e && e.type === 'kv_cache_full')) {
      return fail(400, `the prompt does not fit the model's context window of ${loaded.nCtx} tokens in this tab (${message})`, 'exceed_context_size_error');
    }
    return fail(500, `the model in this tab failed: ${message}`, 'inference_error');
  } finally {
    if (timer !== null) clearTimeout(timer);
    if (current === ctl) current = null;
  }
}
