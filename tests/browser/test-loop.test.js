// The test loop's shared target folder (issue 85, "The test loop"): CI's
// clones share one target folder, which holds one copy of each binary cargo
// uplifts (target/debug/repoqa, the wasm Trunk packs), so a clone testing
// while another builds would run the other's binaries. scripts/test.sh
// claims the folder for its run: planted here, another clone's live run
// holding it makes this one wait (and give up, saying whose run it is,
// without building anything); a run that ends lets it in; a dead holder's
// claim is taken over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './browser.js';

const OTHER = '/elsewhere/another clone';

/** scripts/test.sh --quick on `target`, up to the claim; its exit, output and seconds. */
function claim(target, wait) {
  const t0 = Date.now();
  const r = spawnSync('bash', ['scripts/test.sh', '--quick'], {
    cwd: ROOT, encoding: 'utf8', timeout: 120000,
    env: { ...process.env, CARGO_TARGET_DIR: target, REPOQA_TARGET_WAIT: String(wait), REPOQA_TEST_CLAIM_ONLY: '1' },
  });
  return { code: r.status, out: r.stdout + r.stderr, secs: (Date.now() - t0) / 1000 };
}

/** A process standing for another clone's test run, written in as the holder. */
function plantHolder(target, seconds) {
  const p = spawn('sleep', [String(seconds)], { stdio: 'ignore' });
  fs.writeFileSync(path.join(target, '.repoqa-test-owner'), `${p.pid} ${OTHER}\n`);
  return p;
}

test('a target folder in use by another clone\'s test run is waited for, never shared', async (t) => {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), 'repoqa-shared-target-'));
  t.after(() => fs.rmSync(target, { recursive: true, force: true }));
  const owner = path.join(target, '.repoqa-test-owner');

  // Another clone is testing: this run waits, then gives up naming it.
  const busy = plantHolder(target, 60);
  t.after(() => busy.kill());
  const refused = claim(target, 2);
  assert.equal(refused.code, 2, refused.out);
  assert.match(refused.out, new RegExp(`in use by the test run of ${OTHER} \\(test.sh, pid ${busy.pid}\\); waiting`));
  assert.match(refused.out, /gave up after 2 s/);
  assert.doesNotMatch(refused.out, /==> |Compiling/, 'nothing was built or run');
  assert.equal(fs.readFileSync(owner, 'utf8'), `${busy.pid} ${OTHER}\n`, 'the other run keeps its claim');
  busy.kill();

  // The other run ends while this one waits: this one goes on.
  const ending = plantHolder(target, 2);
  const waited = claim(target, 60);
  assert.equal(waited.code, 0, waited.out);
  assert.match(waited.out, /waiting for it to end/);
  assert.match(waited.out, /claimed /);
  assert.ok(waited.secs >= 1, `went on after ${waited.secs} s, before the other run ended`);
  await new Promise((r) => (ending.exitCode !== null ? r() : ending.on('exit', r)));

  // A holder that died without releasing: its claim is taken over at once.
  fs.writeFileSync(owner, `999999999 ${OTHER}\n`);
  const stale = claim(target, 60);
  assert.equal(stale.code, 0, stale.out);
  assert.doesNotMatch(stale.out, /waiting/);
  assert.ok(!fs.existsSync(owner), 'the claim is released when the run ends');
  console.log(`test-loop: a live holder refused in ${refused.secs.toFixed(1)} s; an ending one waited for ${waited.secs.toFixed(1)} s; a dead one taken over`);
});
