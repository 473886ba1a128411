//! What an oracle printed, kept by everything it could have read, so that a
//! second run of the same official code on the same inputs (the next commit,
//! a fresh clone in CI) reads the answer instead of computing it again: the
//! Python side is nineteen twentieths of the parity tests' time (the prompt
//! oracles alone ran 99 CPU-seconds against our 5).
//!
//! Our side is always computed; only the official side is remembered, and
//! only under a key that covers all it reads:
//!
//! - the interpreter and its venv: the venv's real folder (named by the hash
//!   of its pinned requirements, scripts/cache.sh) and its `pyvenv.cfg`;
//! - the oracle scripts and what they import: every file under
//!   `tests/oracle/` and `tests/corpus/`;
//! - the script's name, each argument (a path in the checkout named from
//!   the checkout's top), and the content of every file or folder an
//!   argument names (names, contents and links of a folder, in order);
//! - the standard input and the tokenizer the scripts load.
//!
//! An output that names the checkout's folder is never kept. Entries live in `oracle-results/` in Cargo's target folder
//! (CARGO_TARGET_DIR, shared by CI's clones) and are removed after 14 days
//! unused. `REPOQA_ORACLE_CACHE=off` runs every oracle.
//! A timing oracle is never remembered
//! ([`crate::run_oracle_uncached`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

const KEEP: Duration = Duration::from_secs(14 * 24 * 3600);

/// Whether outputs are remembered (not with `REPOQA_ORACLE_CACHE=off`).
pub(crate) fn enabled() -> bool {
    !matches!(std::env::var("REPOQA_ORACLE_CACHE").as_deref(), Ok("off" | "0" | "no"))
}

fn dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::root().join("target"));
    target.join("oracle-results")
}

/// The key of one oracle call.
pub(crate) fn key(python: &Path, script: &str, args: &[&str], stdin: Option<&[u8]>) -> String {
    let mut h = Sha256::new();
    let mut field = framed(&mut h);
    let venv = python.parent().and_then(Path::parent).unwrap_or(python);
    let venv = std::fs::canonicalize(venv).unwrap_or_else(|_| venv.to_path_buf());
    field("venv", venv.as_os_str().as_encoded_bytes());
    field("pyvenv.cfg", &std::fs::read(venv.join("pyvenv.cfg")).unwrap_or_default());
    field("sources and tokenizer", fixed_part());
    field("script", script.as_bytes());
    // A path in the checkout is named from the checkout's top (CI's clones
    // live in different folders); its content is in the key either way.
    let checkout = crate::root().to_string_lossy().into_owned();
    for a in args {
        field("arg", a.replacen(&checkout, "<checkout>", 1).as_bytes());
        let p = Path::new(a);
        if p.is_absolute() || p.exists() {
            tree(p, &mut field);
        }
    }
    match stdin {
        Some(bytes) => field("stdin", bytes),
        None => field("no stdin", b""),
    }
    drop(field);
    format!("{:x}", h.finalize())
}

/// A field of a key: its tag, its length, its bytes (so that no two
/// different sequences of fields hash the same bytes).
fn framed(h: &mut Sha256) -> impl FnMut(&str, &[u8]) + '_ {
    |tag, bytes| {
        h.update(tag.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
}

/// The digest of what every call reads and no test changes while it runs:
/// the oracle scripts, the corpus scripts and the tokenizer (about 2 MB),
/// hashed once per test process instead of once per call.
fn fixed_part() -> &'static [u8] {
    static DIGEST: OnceLock<Vec<u8>> = OnceLock::new();
    DIGEST.get_or_init(|| {
        let mut h = Sha256::new();
        let mut field = framed(&mut h);
        for sources in ["tests/oracle", "tests/corpus"] {
            tree(&crate::root().join(sources), &mut field);
        }
        field("tokenizer", &std::fs::read(crate::tokenizer_path()).unwrap_or_default());
        drop(field);
        h.finalize().to_vec()
    })
}

/// A file's bytes, or a folder's entries in name order (each name, then its
/// own tree), into `field`. `p` itself is followed if it is a link; a link
/// inside a folder adds its target, and the file's bytes if it names a file
/// (a folder behind a link is not walked, as `os.walk` does not).
fn tree(p: &Path, field: &mut impl FnMut(&str, &[u8])) {
    match std::fs::metadata(p) {
        Err(_) => field("missing", b""),
        Ok(m) if m.is_dir() => {
            let mut names: Vec<_> = std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name())
                .collect();
            names.sort();
            for n in names.iter().filter(|n| *n != "__pycache__") {
                let child = p.join(n);
                field("name", n.as_encoded_bytes());
                match std::fs::read_link(&child) {
                    Ok(target) => {
                        field("link", target.as_os_str().as_encoded_bytes());
                        if child.is_file() {
                            tree(&child, field);
                        }
                    }
                    Err(_) => tree(&child, field),
                }
            }
            field("end of dir", b"");
        }
        Ok(_) => field("file", &std::fs::read(p).unwrap_or_default()),
    }
}

/// The remembered output under `key`, if any (and marks it used).
pub(crate) fn recall(key: &str) -> Option<Vec<u8>> {
    let p = dir().join(key);
    let out = std::fs::read(&p).ok()?;
    if let Ok(f) = std::fs::File::options().append(true).open(&p) {
        let _ = f.set_modified(SystemTime::now());
    }
    Some(out)
}

/// Keep `out` under `key`: written beside, then renamed, so that a reader
/// never meets half an entry (two test processes may write one key).
/// An output that names the checkout's folder is not kept: it would be read
/// back in another clone.
pub(crate) fn keep(key: &str, out: &[u8]) {
    let checkout = crate::root().to_string_lossy().into_owned();
    if out.windows(checkout.len()).any(|w| w == checkout.as_bytes()) {
        return;
    }
    let d = dir();
    if std::fs::create_dir_all(&d).is_err() {
        return;
    }
    prune_once(&d);
    let part = d.join(format!("{key}.{}.part", std::process::id()));
    let written = std::fs::File::create(&part).and_then(|mut f| f.write_all(out));
    if written.is_err() || std::fs::rename(&part, d.join(key)).is_err() {
        let _ = std::fs::remove_file(&part);
    }
}

/// Entries unused for [`KEEP`], removed once per test process.
fn prune_once(d: &Path) {
    static PRUNED: OnceLock<()> = OnceLock::new();
    PRUNED.get_or_init(|| {
        let now = SystemTime::now();
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > KEEP);
            if old {
                let _ = std::fs::remove_file(e.path());
            }
        }
    });
}
