//! The page knows the built-in tokenizer's digest without downloading it
//! (src/ui/jobs/tokenizer.rs, `BUILTIN_SHA256`): it is the tasks cache key,
//! so it must be the digest of the file Trunk ships (.tools/tokenizer.json,
//! pinned by scripts/setup.sh). A new pin without a new constant fails here.

use sha2::{Digest, Sha256};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn builtin_constant() -> String {
    let src = std::fs::read_to_string(root().join("src/ui/jobs/tokenizer.rs"))
        .expect("src/ui/jobs/tokenizer.rs");
    let line = src
        .lines()
        .find(|l| l.starts_with("pub const BUILTIN_SHA256: &str = \""))
        .expect("BUILTIN_SHA256 in src/ui/jobs/tokenizer.rs");
    line.split('"').nth(1).expect("a quoted digest").to_string()
}

#[test]
fn builtin_digest_is_the_pinned_file() {
    let constant = builtin_constant();
    let setup = std::fs::read_to_string(root().join("scripts/setup.sh")).expect("setup.sh");
    let pinned = setup
        .lines()
        .find_map(|l| l.strip_prefix("tok_sha="))
        .expect("tok_sha= in scripts/setup.sh");
    assert_eq!(constant, pinned, "BUILTIN_SHA256 differs from setup.sh's tok_sha");
    let bytes = std::fs::read(root().join(".tools/tokenizer.json"))
        .expect(".tools/tokenizer.json (run scripts/setup.sh)");
    let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(constant, digest, "BUILTIN_SHA256 is not the digest of .tools/tokenizer.json");
}
