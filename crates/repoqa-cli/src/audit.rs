//! `repoqa audit`: the artifacts by which the official prompts mark the
//! needle (docs/parity.md P3, P6, K5), per task and per language, and the
//! official score of the artifact-only answerer on official and on
//! corrected prompts.

use std::path::PathBuf;

use repoqa::prompt::settings::BuildSettings;

use crate::build_args::{select_tasks, BuildArgs};
use crate::error::{fs_write, CliError};
use crate::input::{load_dataset, InflateArgs};
use crate::progress;
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct AuditArgs {
    /// Dataset file (.json or .json.gz).
    #[arg(long)]
    dataset_path: PathBuf,
    // The prompts audited (and answered by --baseline-out): `--protocol`
    // chooses them; the answerer is scored on both protocols.
    #[command(flatten)]
    build: BuildArgs,
    /// Print JSON: {"tasks": [{"language", "repo", "name", "artifacts"}], "counts": {NAME: {LANG: N}}}.
    #[arg(long)]
    json: bool,
    /// Write the artifact-only answerer's outputs (model-outputs JSONL, ready
    /// for `repoqa score`) for the chosen protocol.
    #[arg(long)]
    baseline_out: Option<PathBuf>,
}

pub fn run(a: AuditArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    use repoqa::prompt::audit::{self, measure};
    use repoqa::report::Protocol;
    let chosen_settings = a.build.settings()?;
    let dataset = load_dataset(&a.dataset_path, inflate)?;
    let chosen = chosen_settings.protocol;
    if !chosen.has_context() {
        return Err(CliError::usage(format!(
            "the audit looks for artifacts in the code context; the {} has none",
            chosen.label()
        )));
    }
    let mode = chosen_settings.comment_mode;
    let specs = select_tasks(&chosen_settings, &dataset, &a.dataset_path)?;
    let tok = a.build.load_tokenizer()?;
    // Both protocols: the chosen one is audited, the answerer scored on both.
    let mut runs = Vec::new();
    for protocol in Protocol::ALL.iter().copied().filter(|p| p.has_context()) {
        let settings = BuildSettings { protocol, ..chosen_settings.clone() };
        let run = measure::audit_dataset(&dataset, &specs, &settings, &tok, |done, total| {
            if done % 10 == 0 || done == total {
                progress::count(
                    &format!("audit ({protocol}): {done}/{total} tasks"),
                    done == total,
                );
            }
        })?;
        let scored = measure::score_baseline(&dataset, &run.tasks, &settings)?;
        runs.push((protocol, run, scored));
    }
    let Some((_, run, _)) = runs.iter().find(|(p, _, _)| *p == chosen) else {
        return Err(CliError::usage("no run for the chosen protocol"));
    };
    if let Some(path) = &a.baseline_out {
        fs_write(path, measure::baseline_outputs(&run.tasks)?)?;
        eprintln!(
            "repoqa: wrote the artifact-only answers on {} prompts to {}",
            chosen,
            path.display()
        );
    }
    let headline = |th: usize| -> Vec<(Protocol, f64)> {
        runs.iter()
            .map(|(p, _, s)| (*p, s.table.rows.first().map_or(0.0, |r| r.pass_at_1[th])))
            .collect()
    };
    if a.json {
        let mut v = audit::report_json(&run.audits);
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("protocol".into(), chosen.as_str().into());
            let mut base = serde_json::Map::new();
            for (p, _, s) in &runs {
                base.insert(p.as_str().into(), s.table.to_value());
            }
            m.insert("baseline".into(), serde_json::Value::Object(base));
        }
        let text = serde_json::to_string_pretty(&v)?;
        outln!("{text}");
        return Ok(());
    }
    outln!(
        "Artifacts by which the prompts mark the needle ({}; {} tasks, context {} tokens, comments {})",
        chosen.label(),
        run.audits.len(),
        chosen_settings.code_context_size,
        mode
    );
    out!("{}", audit::counts_table(&run.audits));
    outln!();
    outln!("Artifact-only answerer (never reads the description), official scorer, pass@1:");
    for (th, key) in [(5usize, "0.5"), (8, "0.8")] {
        let parts: Vec<String> =
            headline(th).iter().map(|(p, v)| format!("{} prompts {:.1}%", p, v * 100.0)).collect();
        outln!("  threshold {key}: {}", parts.join(", "));
    }
    for (p, _, s) in &runs {
        outln!();
        outln!(
            "{}",
            s.table.render_text(&format!("Artifact-only answerer on {} prompts", p.label()))
        );
    }
    Ok(())
}
