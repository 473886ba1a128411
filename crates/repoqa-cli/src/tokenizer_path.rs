//! Where the CLI finds its default tokenizer, CodeLlama's `tokenizer.json`
//! (`scripts/setup.sh` puts it in the checkout's `.tools/`), when no
//! `--tokenizer` is given: `$REPOQA_TOKENIZER`; else `.tools/tokenizer.json`
//! in the current folder or the nearest folder above it that has one; else
//! in the checkout the binary sits in (`<checkout>/target/<profile>/repoqa`).
//! Nothing is compiled in: a binary copied elsewhere looks where it is run.

use std::path::{Path, PathBuf};

/// Where a checkout keeps the tokenizer, relative to its root.
const IN_CHECKOUT: &str = ".tools/tokenizer.json";

/// The default tokenizer's path; when none is found, `.tools/tokenizer.json`
/// of the current folder, so the error that follows names where it was
/// looked for.
pub fn default_tokenizer_path() -> PathBuf {
    if let Some(p) = std::env::var_os("REPOQA_TOKENIZER") {
        return p.into();
    }
    let mut starts: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf))
    {
        starts.push(dir);
    }
    for start in &starts {
        for dir in start.ancestors() {
            let p = dir.join(IN_CHECKOUT);
            if p.is_file() {
                return p;
            }
        }
    }
    PathBuf::from(IN_CHECKOUT)
}
