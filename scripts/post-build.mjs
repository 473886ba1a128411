// Trunk's post_build hook (Trunk.toml), run on the staging directory before
// it becomes dist/; also `node scripts/post-build.mjs DIR` on a built dir.
// 1. Stamps the service worker (sw.js) with this build's files, their sizes,
//    which of them are the shell, and a version derived from their contents:
//    a new build is a new worker, and its cache holds only this build.
// 2. Names the compute engine's files by their content (Trunk names a
//    worker's files after its binary only) and stamps boot.js with them and
//    with the wasm's size (the loading screen's progress).
// 3. Release builds: gzip and brotli copies beside the files (precompress.mjs).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { precompress } from './precompress.mjs';

const dir = process.env.TRUNK_STAGING_DIR || process.argv[2];
if (!dir) { console.error('post-build: no TRUNK_STAGING_DIR and no directory argument'); process.exit(2); }

/** Every file of the build (not sw.js, not a compressed copy of another), relative, sorted. */
function buildFiles(dir) {
  const all = fs.readdirSync(dir, { recursive: true })
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'));
  const present = new Set(all);
  const copy = (f) => /\.(gz|br)$/.test(f) && present.has(f.replace(/\.(gz|br)$/, ''));
  return all.filter((f) => f !== 'sw.js' && !copy(f)).sort();
}

/** Set the line `const NAME = …;` of `file` in `dir` to `value` (JSON).
 *  The line is null as copied from public/boot/, or a stamp from before (a
 *  built dir stamped again, as the deploy test does): set either way. A
 *  file the build does not have is left alone; returns whether it was there. */
function stampConst(dir, file, name, value) {
  const p = path.join(dir, file);
  if (!fs.existsSync(p)) return false;
  const text = fs.readFileSync(p, 'utf8');
  const line = new RegExp(`^const ${name} = .*;$`, 'm');
  if (!line.test(text)) throw new Error(`${p}: no "const ${name} = …;" line to stamp`);
  fs.writeFileSync(p, text.replace(line, () => `const ${name} = ${JSON.stringify(value)};`));
  return true;
}

function stampServiceWorker(dir) {
  const files = buildFiles(dir);
  const hash = crypto.createHash('sha256');
  for (const f of files) hash.update(`${f}\0${crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex')}\n`);
  const version = hash.digest('hex').slice(0, 16);
  // The page is asked for as "./" (the app's address), not as index.html.
  const name = (f) => (f === 'index.html' ? './' : f);
  // The shell: what starts the app, kept at install. The rest (the compute
  // engine, the tokenizer, the demos, the published SCORES files, the in-tab
  // model and its engine) is kept when a visit uses it, or all at once when
  // the visitor asks (sw.js).
  const shell = files.filter((f) => !/^(assets|demo|published|wllama)\//.test(f) && !ENGINE.test(f) && f !== 'engine-worker.js' && f !== 'tab-model.js' && f !== 'model-store.js');
  const sizes = Object.fromEntries(files.map((f) => [name(f), fs.statSync(path.join(dir, f)).size]));
  const precache = { version, files: files.map(name), shell: shell.map(name), sizes };
  if (stampConst(dir, 'sw.js', 'PRECACHE', precache)) {
    console.log(`post-build: service worker stamped, version ${version}, ${files.length} files`);
  }
}

const ENGINE = /^repoqa-engine(-[0-9a-f]{16})?(\.js|_bg\.wasm)$/;

/** The engine's module and wasm, renamed `repoqa-engine-<hash>…` after the
 *  wasm's content (a stale engine is never taken from a cache for a new
 *  page); a dir renamed before keeps its names. */
function nameEngine(dir) {
  const files = fs.readdirSync(dir).filter((f) => ENGINE.test(f));
  const wasm = files.find((f) => f.endsWith('_bg.wasm'));
  const js = files.find((f) => f.endsWith('.js'));
  if (!wasm || !js || files.length !== 2) throw new Error(`post-build: expected the engine's .js and _bg.wasm in ${dir}, found ${files.join(', ') || 'none'}`);
  const hash = crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, wasm))).update(fs.readFileSync(path.join(dir, js))).digest('hex').slice(0, 16);
  const named = { js: `repoqa-engine-${hash}.js`, wasm: `repoqa-engine-${hash}_bg.wasm` };
  for (const [from, to] of [[js, named.js], [wasm, named.wasm]]) {
    if (from !== to) fs.renameSync(path.join(dir, from), path.join(dir, to));
  }
  return { ...named, size: fs.statSync(path.join(dir, named.wasm)).size };
}

/** boot.js learns the wasm's size, so the loading screen counts against
 *  it, and where the engine is. */
function stampBoot(dir, engine) {
  if (!fs.existsSync(path.join(dir, 'boot.js'))) return;
  const wasm = fs.readdirSync(dir).filter((f) => f.endsWith('_bg.wasm') && !ENGINE.test(f));
  if (wasm.length !== 1) throw new Error(`post-build: expected one page _bg.wasm in ${dir}, found ${wasm.length}`);
  stampConst(dir, 'boot.js', 'SIZES', { wasm: fs.statSync(path.join(dir, wasm[0])).size, engine: engine.size });
  stampConst(dir, 'boot.js', 'ENGINE', { js: engine.js, wasm: engine.wasm });
}

// boot.js first: the worker's version covers every file as it is served.
stampBoot(dir, nameEngine(dir));
stampServiceWorker(dir);
if (!process.env.TRUNK_PROFILE || process.env.TRUNK_PROFILE === 'release') await precompress(dir);
