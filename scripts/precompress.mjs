// Next to each compressible file of a release build, a gzip (.gz) and a
// brotli (.br) copy, for hosts that serve precompressed files (nginx
// gzip_static/brotli_static, Caddy's precompressed, Netlify, …). The
// originals stay: a host that does not use the copies serves those.
// Called by scripts/post-build.mjs (release builds only: brotli at quality
// 11 takes about half a minute on the wasm).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const COMPRESSIBLE = /\.(html|js|mjs|wasm|css|json|jsonl|svg|txt|webmanifest)$/;
export function precompress(dir) {
const files = fs.readdirSync(dir, { recursive: true })
  .map((f) => path.join(dir, f))
  .filter((f) => COMPRESSIBLE.test(f) && fs.statSync(f).isFile() && fs.statSync(f).size >= 1024);
let raw = 0, gz = 0, br = 0;
for (const f of files) {
  const b = fs.readFileSync(f);
  const g = zlib.gzipSync(b, { level: 9 });
  const r = zlib.brotliCompressSync(b, { params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length,
  } });
  fs.writeFileSync(`${f}.gz`, g);
  fs.writeFileSync(`${f}.br`, r);
  raw += b.length; gz += g.length; br += r.length;
}
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`precompress: ${files.length} files, ${kib(raw)} → ${kib(gz)} gzip, ${kib(br)} brotli`);
}
