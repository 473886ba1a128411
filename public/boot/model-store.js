// Models kept in this browser for the in-tab model (the Run page's "In this
// tab"): GGUF files in the origin's private file system (OPFS), so a model
// picked or fetched once is there after a reload (a run resumes without
// picking the file again) and on the next visit. boot.js imports this
// module only when the page asks for it: the first load never carries it.
//
// Every function answers with plain values; a failure is thrown as an Error
// whose message names the file or the address.

const DIR = 'repoqa-models';

async function dir() {
  if (!navigator.storage || !navigator.storage.getDirectory) {
    throw new Error('this browser has no private file system for pages (OPFS): a model cannot be kept here');
  }
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(DIR, { create: true });
}

/** The kept models: `[{ name, bytes }]`, by name. */
export async function list() {
  const d = await dir();
  const out = [];
  for await (const [name, handle] of d.entries()) {
    if (handle.kind !== 'file' || name.endsWith('.part')) continue;
    const f = await handle.getFile();
    out.push({ name, bytes: f.size });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The kept model `name` as a File. */
export async function file(name) {
  const d = await dir();
  const h = await d.getFileHandle(name).catch(() => { throw new Error(`${name} is not kept in this browser (any more)`); });
  return h.getFile();
}

/** Let the kept model `name` go. */
export async function forget(name) {
  const d = await dir();
  await d.removeEntry(name).catch(() => {});
  await d.removeEntry(name + '.part').catch(() => {});
}

/** How much this origin stores, and may: `{ usage, quota }` in bytes. */
export async function estimate() {
  const e = navigator.storage && navigator.storage.estimate ? await navigator.storage.estimate() : {};
  return { usage: e.usage ?? 0, quota: e.quota ?? 0 };
}

/** Write the chunks `stream` gives to the kept file `name` (through a
 *  `.part` file, renamed at the end, so a cut copy is never listed);
 *  `onBytes(n)` after each chunk; stopped by `signal`. */
async function write(name, stream, onBytes, signal) {
  const d = await dir();
  const part = name + '.part';
  const h = await d.getFileHandle(part, { create: true });
  const w = await h.createWritable();
  let n = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      if (signal && signal.aborted) throw new Error(`stopped: ${name} was not kept`);
      const { done, value } = await reader.read();
      if (done) break;
      await w.write(value);
      n += value.byteLength;
      onBytes(n, value);
    }
    await w.close();
  } catch (e) {
    await w.abort().catch(() => {});
    await reader.cancel().catch(() => {});
    await d.removeEntry(part).catch(() => {});
    throw e;
  }
  if (h.move) {
    await d.removeEntry(name).catch(() => {});
    await h.move(d, name);
  } else {
    // No move(): copy the finished file under its name.
    const done = await d.getFileHandle(name, { create: true });
    const out = await done.createWritable();
    await (await h.getFile()).stream().pipeTo(out);
    await d.removeEntry(part).catch(() => {});
  }
  return n;
}

/** Keep `blob` (a picked File) under `name`; `onProgress(bytes, total)`. */
export async function keep(blob, name, onProgress) {
  const total = blob.size;
  const n = await write(name, blob.stream(), (b) => onProgress && onProgress(b, total));
  return { name, bytes: n };
}

let fetching = null; // the AbortController of the download under way

/** Stop the download under way, if any (it keeps nothing). */
export function stop() {
  if (fetching) fetching.abort();
}

/** Fetch `url` (a server that allows this page: CORS) and keep it as
 *  `name`; at most `maxBytes`; `onProgress(bytes, total or 0)`; stopped by
 *  [`stop`]. The first bytes must be a GGUF's ("GGUF"), else the download
 *  stops there. */
export async function fetchKeep(url, name, maxBytes, onProgress) {
  const ctl = new AbortController();
  fetching = ctl;
  try {
    return await download(url, name, maxBytes, onProgress, ctl.signal);
  } catch (e) {
    if (ctl.signal.aborted) throw new Error(`stopped: ${name} was not kept`);
    throw e;
  } finally {
    if (fetching === ctl) fetching = null;
  }
}

async function download(url, name, maxBytes, onProgress, signal) {
  let res;
  try {
    res = await fetch(url, { mode: 'cors', credentials: 'omit', signal });
  } catch (e) {
    throw new Error(`${url} could not be fetched: the server is down, the address is wrong, or it does not allow this page (CORS) — ${e.message}`);
  }
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`);
  const total = Number(res.headers.get('content-length')) || 0;
  if (total > maxBytes) {
    res.body && res.body.cancel().catch(() => {});
    throw new Error(`${url} is ${(total / 1e9).toFixed(1)} GB; a model in this tab can be at most ${(maxBytes / 1e9).toFixed(1)} GB`);
  }
  if (!res.body) throw new Error(`${url} gave no body`);
  let head = new Uint8Array(0);
  const n = await write(name, res.body, (b, chunk) => {
    if (head.length < 4) {
      const more = new Uint8Array(head.length + chunk.length);
      more.set(head);
      more.set(chunk, head.length);
      head = more.slice(0, 4);
      if (head.length >= 4 && String.fromCharCode(...head) !== 'GGUF') {
        throw new Error(`${url} is not a GGUF file (it starts ${JSON.stringify(String.fromCharCode(...head))}, not "GGUF")`);
      }
    }
    if (b > maxBytes) throw new Error(`${url} goes on past ${(maxBytes / 1e9).toFixed(1)} GB, the most a model in this tab can be`);
    if (onProgress) onProgress(b, total);
  }, signal);
  if (n === 0) {
    await forget(name);
    throw new Error(`${url} is empty`);
  }
  return { name, bytes: n };
}
