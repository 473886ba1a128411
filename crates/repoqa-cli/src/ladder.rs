//! `repoqa ladder`: a model's runs at several code-context lengths
//! (`repoqa run --code-context-size 4096,8192,…` writes upstream's layout,
//! `<result-dir>/ntoken_<N>/<model>-SCORES.json`), side by side: pass@1 by
//! length with its intervals, per language, the depth × length table and
//! the effective context length (`repoqa::review::ladder`, where its rule is
//! stated); a depth grid's runs (`repoqa run --depths`, in
//! `ntoken_<N>/depth_<r>/`) add the depth × length grid.

use std::path::{Path, PathBuf};

use repoqa::review::ladder::{depth_of_dir, ladders, ntoken_of_dir, Ladder, DEFAULT_FRACTION};
use repoqa::review::leaderboard::{check_threshold, read_scores};

use crate::error::{fs_read, At, CliError};
use crate::intervals::ResampleArgs;
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct LadderArgs {
    /// The result directory of the runs (`repoqa run --result-dir`): its
    /// `ntoken_<N>/` directories hold each length's SCORES files.
    #[arg(long, default_value = "results")]
    result_dir: PathBuf,
    /// Only this model (as its SCORES file names it); default: every model found.
    #[arg(long)]
    model: Option<String>,
    /// A task passes when its best target is the needle and its similarity
    /// is at least this.
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// The effective length keeps at least this share of the model's
    /// shortest-length pass@1 at every length up to it.
    #[arg(long, default_value_t = DEFAULT_FRACTION)]
    fraction: f64,
    /// The confidence level of the intervals.
    #[arg(long, default_value_t = 0.95, value_name = "LEVEL")]
    ci: f64,
    #[command(flatten)]
    resample: ResampleArgs,
    /// Print `{"threshold", "fraction", "models": [ladder…]}` (`Ladder::to_value`).
    #[arg(long)]
    json: bool,
    /// Which task's runs: `call-path` (NOT UPSTREAM) reads the
    /// `ntoken_<N>-call-path/` folders `repoqa run --task call-path` writes.
    #[arg(long, value_enum, default_value = "snf")]
    task: repoqa::api::TaskKind,
}

fn cannot_list(dir: &Path, e: &std::io::Error) -> CliError {
    CliError::usage(format!("result directory {}: cannot list it: {e}", dir.display()))
}

/// Every `-SCORES.json` (or `.json.gz`) in `dir`, sorted.
fn scores_files(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let entries = std::fs::read_dir(dir).map_err(|e| cannot_list(dir, &e))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            n.ends_with("-SCORES.json") || n.ends_with("-SCORES.json.gz")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// The `depth_<r>/` folders of a length's directory (a depth grid), by depth.
fn depth_dirs(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let entries = std::fs::read_dir(dir).map_err(|e| cannot_list(dir, &e))?;
    let mut out: Vec<(f64, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .filter_map(|e| Some((depth_of_dir(&e.file_name().to_string_lossy())?, e.path())))
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(out.into_iter().map(|(_, p)| p).collect())
}

pub fn run(a: LadderArgs) -> Result<(), CliError> {
    if a.task == repoqa::api::TaskKind::CallPath {
        return crate::call_path::ladder(&a.result_dir, a.model.as_deref(), a.json);
    }
    let threshold = check_threshold(a.threshold).at("--threshold")?;
    if !(a.fraction > 0.0 && a.fraction <= 1.0) {
        return Err(CliError::usage(format!(
            "--fraction {}: expected a share above 0 and at most 1, such as 0.9",
            a.fraction
        )));
    }
    let resampling = a.resample.at(a.ci)?;
    let entries = std::fs::read_dir(&a.result_dir).map_err(|e| cannot_list(&a.result_dir, &e))?;
    let mut dirs: Vec<(usize, PathBuf)> = Vec::new();
    let mut other = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().to_string();
        if !e.path().is_dir() {
            continue;
        }
        match ntoken_of_dir(&name) {
            Some(n) => dirs.push((n, e.path())),
            None if name.starts_with("ntoken_") => other.push(name),
            None => {}
        }
    }
    dirs.sort();
    if !other.is_empty() {
        other.sort();
        eprintln!(
            "ladder: not official lengths, left out: {} (another protocol's runs are not on the official ladder)",
            other.join(", ")
        );
    }
    if dirs.is_empty() {
        return Err(CliError::usage(format!(
            "{}: no ntoken_<N> directory: run `repoqa run --code-context-size 4096,8192,16384 --result-dir {}` first",
            a.result_dir.display(),
            a.result_dir.display()
        )));
    }
    let mut files = Vec::new();
    for (n, dir) in &dirs {
        // A depth grid's rows (`repoqa run --depths`) in `depth_<r>/` beside them.
        let mut places = vec![dir.clone()];
        places.extend(depth_dirs(dir)?);
        for place in &places {
            for path in scores_files(place)? {
                let name = path.display().to_string();
                files.push((
                    *n,
                    name.clone(),
                    read_scores(&fs_read(&path, "scores file")?, &name)?,
                ));
            }
        }
    }
    let files: Vec<_> = files.iter().map(|(n, name, f)| (*n, name.as_str(), f)).collect();
    let ladders = ladders(&files, a.model.as_deref(), threshold, a.fraction, resampling)
        .map_err(CliError::usage)?;
    if ladders.is_empty() {
        return Err(CliError::usage(match &a.model {
            Some(m) => {
                format!("no SCORES file under {} names the model {m:?}", a.result_dir.display())
            }
            None => {
                format!("no SCORES file under {}'s ntoken_<N> directories", a.result_dir.display())
            }
        }));
    }
    if a.json {
        let v = serde_json::json!({
            "threshold": threshold,
            "fraction": a.fraction,
            "models": ladders.iter().map(Ladder::to_value).collect::<Vec<_>>(),
        });
        outln!("{}", repoqa::python::json::dumps(&v));
    } else {
        for (i, l) in ladders.iter().enumerate() {
            if i > 0 {
                outln!();
            }
            out!("{}", l.render_text());
        }
    }
    Ok(())
}
