// Next to each compressible file of a release build, a gzip (.gz) and a
// brotli (.br) copy, for hosts that serve precompressed files (nginx
// gzip_static/brotli_static, Caddy's precompressed, Netlify, …). The
// originals stay: a host that does not use the copies serves those.
// Called by scripts/post-build.mjs (release builds only).
//
// Brotli at quality 11 is slow (about half a minute for the in-tab model's
// 10 MB wasm alone), so the files are compressed side by side (zlib's
// asynchronous calls run on libuv's thread pool, one file per thread) and
// each copy is kept in a cache named by the SHA-256 of the file and the
// settings: a file a build left unchanged (wllama, the tokenizer, the demos,
// an engine whose code did not change) is copied from there, byte for byte
// what compressing it again would give. The cache is `precompressed/` in
// Cargo's target folder (CARGO_TARGET_DIR, which CI shares between clones),
// or $REPOQA_PRECOMPRESS_CACHE; entries not used for 14 days are removed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COMPRESSIBLE = /\.(html|js|mjs|wasm|css|json|jsonl|svg|txt|webmanifest)$/;
const KEEP_DAYS = 14;

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** The two copies, each with the name of its settings (part of the cache key). */
const ENCODINGS = [
  { ext: 'gz', settings: 'gzip-9', run: (b) => gzip(b, { level: 9 }) },
  {
    ext: 'br',
    settings: 'brotli-11',
    run: (b) => brotli(b, { params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length,
    } }),
  },
];

export function cacheDir() {
  if (process.env.REPOQA_PRECOMPRESS_CACHE) return process.env.REPOQA_PRECOMPRESS_CACHE;
  return path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'precompressed');
}

/** The compressed copy of `bytes`, from the cache or made (and kept). */
async function compressed(bytes, encoding, cache, counts) {
  const key = crypto.createHash('sha256').update(encoding.settings).update('\0').update(bytes).digest('hex');
  const kept = path.join(cache, `${key}.${encoding.ext}`);
  try {
    const out = await fs.promises.readFile(kept);
    const now = new Date();
    await fs.promises.utimes(kept, now, now).catch(() => {});
    counts.reused += 1;
    return out;
  } catch {
    const out = await encoding.run(bytes);
    // Written beside, then renamed: a build that stops midway, or a second
    // build at the same moment, never leaves half a copy under the name.
    const part = `${kept}.${process.pid}.part`;
    try {
      await fs.promises.writeFile(part, out);
      await fs.promises.rename(part, kept);
    } catch {
      await fs.promises.rm(part, { force: true }).catch(() => {});
    }
    counts.made += 1;
    return out;
  }
}

function prune(cache) {
  const cutoff = Date.now() - KEEP_DAYS * 24 * 3600 * 1000;
  for (const f of fs.readdirSync(cache)) {
    const p = path.join(cache, f);
    try {
      if (fs.statSync(p).mtimeMs < cutoff) fs.rmSync(p, { force: true });
    } catch { /* gone already */ }
  }
}

export async function precompress(dir) {
  const files = fs.readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, f))
    .filter((f) => COMPRESSIBLE.test(f) && fs.statSync(f).isFile() && fs.statSync(f).size >= 1024);
  const cache = cacheDir();
  fs.mkdirSync(cache, { recursive: true });
  const counts = { made: 0, reused: 0 };
  let raw = 0, gz = 0, br = 0;
  await Promise.all(files.map(async (f) => {
    const b = await fs.promises.readFile(f);
    const [g, r] = await Promise.all(ENCODINGS.map((e) => compressed(b, e, cache, counts)));
    await fs.promises.writeFile(`${f}.gz`, g);
    await fs.promises.writeFile(`${f}.br`, r);
    raw += b.length; gz += g.length; br += r.length;
  }));
  prune(cache);
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`precompress: ${files.length} files, ${kib(raw)} → ${kib(gz)} gzip, ${kib(br)} brotli`
    + ` (${counts.made} copies made, ${counts.reused} from ${cache})`);
}
