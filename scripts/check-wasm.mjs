// Fails if the built .wasm still imports anything from the C world ("env"):
// such an import only fails at page load, in the browser. Prints sizes.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dist = process.argv[2] || 'dist';
const files = fs.readdirSync(dist, { recursive: true }).map((f) => path.join(dist, f)).filter((f) => fs.statSync(f).isFile());
const wasm = files.filter((f) => f.endsWith('.wasm'));
if (wasm.length !== 1) { console.error(`expected one .wasm in ${dist}, found ${wasm.length}`); process.exit(1); }
const mod = new WebAssembly.Module(fs.readFileSync(wasm[0]));
const env = WebAssembly.Module.imports(mod).filter((i) => i.module === 'env');
if (env.length) {
  console.error(`${wasm[0]}: unresolved C imports: ${env.map((i) => i.name).join(', ')}`);
  process.exit(1);
}
// What a first visit fetches: the page, its JS/wasm/CSS, the tokenizer and
// the demo dataset it opens with.
const firstLoad = (f) => /\.(html|js|wasm|css)$/.test(f) || f.endsWith('tokenizer.json') || f.endsWith('repoqa-demo.json');
let raw = 0, gz = 0;
for (const f of files.filter(firstLoad)) {
  const b = fs.readFileSync(f);
  const g = zlib.gzipSync(b, { level: 9 }).length;
  raw += b.length; gz += g;
  console.log(`${(b.length / 1024).toFixed(0).padStart(8)} KiB  ${(g / 1024).toFixed(0).padStart(6)} KiB gzip  ${path.relative(dist, f)}`);
}
console.log(`${(raw / 1024).toFixed(0).padStart(8)} KiB  ${(gz / 1024).toFixed(0).padStart(6)} KiB gzip  total first load (target: ≤ 4096 KiB gzip)`);
const rest = files.filter((f) => !firstLoad(f));
if (rest.length) console.log(`(also in dist, not fetched on first load: ${rest.map((f) => path.relative(dist, f)).join(', ')})`);
console.log(`${wasm[0]}: no "env" imports`);
if (gz > 4 * 1024 * 1024) { console.error('first load exceeds 4 MiB gzip'); process.exit(1); }
