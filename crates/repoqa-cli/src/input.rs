//! Loading the dataset and outputs a subcommand is given; each failure
//! names the file.

use std::path::{Path, PathBuf};

use repoqa::input::dataset::{Dataset, DatasetError};
use repoqa::input::limits::{DatasetLimits, InflateLimits};
use repoqa::report;

use crate::error::{fs_read, fs_read_text, CliError};

/// The global options that bound what a compressed input may inflate to,
/// handed by `main` to each subcommand that reads a dataset or an archive.
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub struct InflateArgs {
    /// Refuse a gzip-compressed dataset that inflates to more bytes than this
    /// (default 512 MiB; a compression-bomb guard, raise it for a trusted file).
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_inflated_bytes: Option<u64>,
    /// Refuse a gzip dataset, a .tar.gz or a zip entry that inflates more than
    /// N:1 once past 64 MiB of output (default 100).
    #[arg(long, global = true, value_name = "N")]
    pub max_inflate_ratio: Option<u64>,
}

impl InflateArgs {
    /// The limits of the command line over `defaults`.
    pub fn limits(&self, defaults: InflateLimits) -> InflateLimits {
        InflateLimits {
            max_bytes: self.max_inflated_bytes.unwrap_or(defaults.max_bytes),
            max_ratio: self.max_inflate_ratio.unwrap_or(defaults.max_ratio),
        }
    }
}

pub fn load_dataset(path: &Path, inflate: &InflateArgs) -> Result<Dataset, CliError> {
    let bytes = fs_read(path, "dataset")?;
    let limits = DatasetLimits {
        inflate: inflate.limits(InflateLimits::DATASET),
        ..DatasetLimits::default()
    };
    Dataset::from_bytes_with_limits(&bytes, &path.display().to_string(), limits).map_err(|e| {
        if matches!(e, DatasetError::Inflate { .. }) {
            return e.into(); // the message says which flag raises the limit
        }
        // Another of the project's files given as the dataset: say which.
        match repoqa::input::sniff::wrong_file(&bytes, repoqa::input::sniff::FileKind::Dataset) {
            Some(hint) => CliError::WrongFile { path: path.into(), hint },
            None => e.into(),
        }
    })
}

pub fn dataset_path_or_env(given: Option<PathBuf>) -> Result<PathBuf, CliError> {
    if let Some(p) = given {
        return Ok(p);
    }
    match std::env::var_os("REPOQA_DATA_OVERRIDE_PATH") {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => Err(CliError::usage(
            "no dataset: pass --dataset-path (or set REPOQA_DATA_OVERRIDE_PATH); this tool never downloads the release",
        )),
    }
}

/// The outputs at `path`; a task answered twice is a broken line unless
/// `allow_repeats` (`--allow-repeated-tasks`: each counts, as officially).
pub fn read_outputs(
    path: &Path,
    skip_broken: bool,
    allow_repeats: bool,
) -> Result<Vec<report::ModelOutput>, CliError> {
    let text = fs_read_text(path, "model outputs")?;
    let mut file = report::read_model_outputs(&text);
    if !allow_repeats {
        file.drop_repeated_tasks();
    }
    if file.outputs.is_empty() {
        // Nothing usable: if it is another of the project's files, say which.
        let kind = repoqa::input::sniff::FileKind::OutputsJsonl;
        if let Some(hint) = repoqa::input::sniff::wrong_file(text.as_bytes(), kind) {
            return Err(CliError::WrongFile { path: path.into(), hint });
        }
    }
    for e in &file.errors {
        eprintln!("repoqa: {}: {e}", path.display());
    }
    if !file.errors.is_empty() && !skip_broken {
        return Err(CliError::usage(format!(
            "{}: {} broken line(s) (listed above); fix them or pass --skip-broken-lines to score the other {} (a task answered again: --allow-repeated-tasks scores every line, as the official scorer does)",
            path.display(),
            file.errors.len(),
            file.outputs.len()
        )));
    }
    if file.outputs.is_empty() {
        return Err(CliError::usage(format!("{}: no model outputs", path.display())));
    }
    Ok(file.outputs)
}
