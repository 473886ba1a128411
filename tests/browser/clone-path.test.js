// A clone in a folder whose path has a space (issue 85's test-loop hazard):
// scripts/setup.sh passes there, the browser tests find the checkout where
// it is, and llama.cpp's build (run only on a machine without it cached)
// would get the include's whole path. `URL.pathname` escapes a space as
// %20, so no script takes a path from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './browser.js';

test('a clone whose path has a space sets up, and its scripts find it where it is', (t) => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa clone '));
  t.after(() => fs.rmSync(parent, { recursive: true, force: true }));
  const clone = path.join(parent, "with space's");
  execFileSync('git', ['clone', '-q', ROOT, clone]);
  // The tools come from the machine's cache, as in CI: linked, not fetched.
  execFileSync('bash', ['scripts/setup.sh'], { cwd: clone, stdio: 'pipe', env: { ...process.env } });
  const root = execFileSync(process.execPath, ['--input-type=module', '-e',
    'const b = await import(process.argv[1]); console.log(b.ROOT);',
    path.join(clone, 'tests', 'browser', 'browser.js')], { cwd: clone, encoding: 'utf8' }).trim();
  assert.equal(root, clone, 'the browser tests look for the checkout elsewhere');
  assert.ok(fs.existsSync(path.join(root, '.tools', 'tokenizer.json')), 'setup linked the tools');

  // llama.cpp's CMAKE_ARGS as setup.sh writes them, split as pip's build splits them.
  const args = execFileSync('bash', ['-c',
    'eval "$(sed -n "/^llama_pkgs=/,/^llama_cmake=/p" scripts/setup.sh)"; CMAKE_ARGS="$llama_cmake" python3 -c "import os, shlex, json; print(json.dumps(shlex.split(os.environ[\'CMAKE_ARGS\'])))"'],
  { cwd: clone, encoding: 'utf8', env: { ...process.env, root: clone } });
  const include = JSON.parse(args).find((a) => a.startsWith('-DCMAKE_PROJECT_INCLUDE='));
  assert.equal(include, `-DCMAKE_PROJECT_INCLUDE=${clone}/scripts/llama-no-common.cmake`);
  assert.ok(fs.existsSync(include.slice('-DCMAKE_PROJECT_INCLUDE='.length)));

  // No script takes a path from a URL's pathname.
  const scripts = [
    ...fs.readdirSync(path.join(ROOT, 'tests', 'browser')).filter((f) => /\.(m?js)$/.test(f)).map((f) => path.join('tests', 'browser', f)),
    ...fs.readdirSync(path.join(ROOT, 'scripts')).filter((f) => /\.(m?js)$/.test(f)).map((f) => path.join('scripts', f)),
  ];
  const offenders = scripts.filter((f) => /import\.meta\.url\)\.pathname/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
  assert.deepEqual(offenders, []);
});
