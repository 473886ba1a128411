//! Reading the files a subcommand is given; each failure names the file.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use repoqa::curate::ArchiveError;
use repoqa::dataset::{Dataset, DatasetError};
use repoqa::limits::{DatasetLimits, InflateExceeded, InflateLimits};
use repoqa::report;

use crate::{bad, Failure};

pub fn read_bytes(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| bad(format!("{what} {}: {e}", path.display())))
}

pub fn read_text(path: &Path, what: &str) -> Result<String, Failure> {
    let bytes = read_bytes(path, what)?;
    String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "{what} {}: not UTF-8 text (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// `--max-inflated-bytes` and `--max-inflate-ratio` (global options), set
/// once by `main`.
static INFLATE: OnceLock<(Option<u64>, Option<u64>)> = OnceLock::new();

pub fn set_inflate_limits(max_bytes: Option<u64>, max_ratio: Option<u64>) {
    let _ = INFLATE.set((max_bytes, max_ratio));
}

/// The inflate limits of the command line over `defaults`.
pub fn inflate_limits(defaults: InflateLimits) -> InflateLimits {
    let (bytes, ratio) = INFLATE.get().copied().unwrap_or_default();
    InflateLimits {
        max_bytes: bytes.unwrap_or(defaults.max_bytes),
        max_ratio: ratio.unwrap_or(defaults.max_ratio),
    }
}

/// How to raise the limit a stream went through.
pub fn raise_hint(exceeded: &InflateExceeded) -> &'static str {
    if exceeded.is_ratio() {
        " (if you trust the file, raise the limit with --max-inflate-ratio N)"
    } else {
        " (if you trust the file, raise the limit with --max-inflated-bytes N)"
    }
}

/// An archive error, with the flag that raises an inflate limit.
pub fn archive_failure(e: ArchiveError) -> Failure {
    let hint = match &e {
        ArchiveError::Inflate { exceeded, .. } => raise_hint(exceeded),
        ArchiveError::TooMuchData { .. } => {
            " (if you trust the file, raise the limit with --max-inflated-bytes N)"
        }
        _ => "",
    };
    bad(format!("{e}{hint}"))
}

pub fn load_dataset(path: &Path) -> Result<Dataset, Failure> {
    let bytes = read_bytes(path, "dataset")?;
    let limits = DatasetLimits {
        inflate: inflate_limits(InflateLimits::DATASET),
        ..DatasetLimits::default()
    };
    Dataset::from_bytes_with_limits(&bytes, &path.display().to_string(), limits).map_err(|e| {
        let hint = match &e {
            DatasetError::Inflate { exceeded, .. } => raise_hint(exceeded),
            _ => "",
        };
        if !hint.is_empty() {
            return bad(format!("{e}{hint}"));
        }
        // Another of the project's files given as the dataset: say which.
        match repoqa::sniff::wrong_file(&bytes, repoqa::sniff::FileKind::Dataset) {
            Some(hint) => bad(format!("{}: {hint}", path.display())),
            None => bad(e.to_string()),
        }
    })
}

pub fn dataset_path_or_env(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(p) = given {
        return Ok(p);
    }
    match std::env::var_os("REPOQA_DATA_OVERRIDE_PATH") {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => Err(bad(
            "no dataset: pass --dataset-path (or set REPOQA_DATA_OVERRIDE_PATH); this tool never downloads the release",
        )),
    }
}

pub fn read_outputs(path: &Path, skip_broken: bool) -> Result<Vec<report::ModelOutput>, Failure> {
    let text = read_text(path, "model outputs")?;
    let file = report::read_model_outputs(&text);
    if file.outputs.is_empty() {
        // Nothing usable: if it is another of the project's files, say which.
        let kind = repoqa::sniff::FileKind::OutputsJsonl;
        if let Some(hint) = repoqa::sniff::wrong_file(text.as_bytes(), kind) {
            return Err(bad(format!("{}: {hint}", path.display())));
        }
    }
    for e in &file.errors {
        eprintln!("repoqa: {}: {e}", path.display());
    }
    if !file.errors.is_empty() && !skip_broken {
        return Err(bad(format!(
            "{}: {} broken line(s) (listed above); fix them or pass --skip-broken-lines to score the other {}",
            path.display(),
            file.errors.len(),
            file.outputs.len()
        )));
    }
    if file.outputs.is_empty() {
        return Err(bad(format!("{}: no model outputs", path.display())));
    }
    Ok(file.outputs)
}
