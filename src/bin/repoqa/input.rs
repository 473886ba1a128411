//! Reading the files a subcommand is given; each failure names the file.

use std::path::{Path, PathBuf};

use repoqa::dataset::Dataset;
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

pub fn load_dataset(path: &Path) -> Result<Dataset, Failure> {
    let bytes = read_bytes(path, "dataset")?;
    Dataset::from_bytes(&bytes, &path.display().to_string()).map_err(|e| {
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
