//! `--task call-path` (NOT UPSTREAM, docs/call-path.md) on `prompts` and
//! `score`: the flags mapped to the core's `api::callpath` plan, its tasks
//! written as JSONL, a model's outputs scored into a SCORES file.

use std::path::{Path, PathBuf};

use repoqa::api::callpath::{
    read_outputs, score_outputs, CallPathPlan, CallPathResult, CallPathScoresFile,
};
use repoqa::callpath::score::{CallPathScores, PassRate};
use repoqa::callpath::task::LABEL;
use repoqa::prompt::settings::TaskFilter;

use crate::build_args::{BuildArgs, CallPathArgs};
use crate::error::{fs_read_text, fs_write, refuse_overwriting_inputs, CliError};
use crate::input::{load_dataset, InflateArgs};
use crate::progress;
use crate::stdout::outln;

/// `repoqa prompts --task call-path`: a file of tasks per length.
pub fn prompts(
    dataset_path: &Path,
    build: &BuildArgs,
    selection: &CallPathArgs,
    out: Option<&Path>,
    inflate: &InflateArgs,
) -> Result<(), CliError> {
    let lengths = build.lengths();
    if lengths.len() > 1 && out.is_some() {
        return Err(CliError::usage(format!(
            "--out with {} lengths: each gets its own file, named after it; give no --out",
            lengths.len()
        )));
    }
    eprintln!("repoqa: note: {LABEL}");
    let dataset = load_dataset(dataset_path, inflate)?;
    let tok_path = build.tokenizer_path();
    let mut tok = None;
    for n in lengths {
        let plan = CallPathPlan {
            code_context_size: n,
            filter: TaskFilter {
                languages: build.languages.clone(),
                repos: build.repos.clone(),
                excluded_repos: Vec::new(),
            },
            selection: selection.selection(),
        };
        let repos = plan.check(&dataset)?;
        let out = out.map(Path::to_path_buf).unwrap_or_else(|| {
            PathBuf::from(repoqa::naming::call_path_tasks_file_name(
                &dataset_path.display().to_string(),
                n,
            ))
        });
        refuse_overwriting_inputs(
            "--out",
            &out,
            &[("--dataset-path", dataset_path), ("--tokenizer", &tok_path)],
        )?;
        if tok.is_none() {
            tok = Some(build.load_tokenizer()?);
        }
        let Some(tok) = tok.as_ref() else { continue };
        let built = plan.build(&dataset, &repos, tok, |done, total| {
            progress::count(&format!("call-path tasks: {done}/{total} repositories"), done == total)
        })?;
        for s in &built.shortfalls {
            eprintln!("repoqa: warning: {}", s.text());
        }
        let mut text = String::new();
        for t in &built.tasks {
            // Strings and numbers: serializing cannot fail.
            text.push_str(&serde_json::to_string(t).unwrap_or_default());
            text.push('\n');
        }
        if out.exists() {
            eprintln!("repoqa: replacing {}", out.display());
        }
        fs_write(&out, text)?;
        eprintln!(
            "prompts: wrote {} call-path tasks ({n} tokens) to {}",
            built.tasks.len(),
            out.display()
        );
    }
    Ok(())
}

/// What `repoqa score --task call-path` takes.
pub struct CallPathScoreArgs<'a> {
    pub outputs: &'a Path,
    pub dataset: &'a Path,
    pub model: Option<String>,
    pub out: Option<PathBuf>,
    pub overwrite: bool,
    pub eval_date: Option<String>,
    pub json: bool,
}

/// `repoqa score --task call-path`: judge each reply, print the scores
/// (or, with `--json`, one JSON object) and write the SCORES file.
pub fn score(a: CallPathScoreArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let origin = a.outputs.display().to_string();
    let text = fs_read_text(a.outputs, "--model-output-path")?;
    let outputs = read_outputs(&text, &origin)?;
    let dataset = load_dataset(a.dataset, inflate)?;
    let model = a.model.unwrap_or_else(|| repoqa::naming::model_name_from_path(&origin));
    let explicit_out = a.out.is_some();
    let out = a.out.unwrap_or_else(|| {
        PathBuf::from(repoqa::naming::scores_path_for(
            &origin,
            repoqa::report::Protocol::Official,
            true,
        ))
    });
    let inputs = [("--model-output-path", a.outputs), ("--dataset-path", a.dataset)];
    refuse_overwriting_inputs("--out", &out, &inputs)?;
    if out.exists() && !a.overwrite && !explicit_out {
        return Err(CliError::usage(format!(
            "{} already exists; pass --overwrite or --out",
            out.display()
        )));
    }
    let (scores, results) = score_outputs(&dataset, &outputs, &origin)?;
    let file = CallPathScoresFile {
        task: repoqa::callpath::task::TASK.to_string(),
        protocol: LABEL.to_string(),
        model: model.clone(),
        eval_date: a.eval_date.unwrap_or_else(repoqa::report::now_eval_date),
        pass_at_1: scores.overall.pass_at_1,
        scores,
        results,
    };
    // Strings, numbers and maps with string keys: cannot fail.
    let json = serde_json::to_string_pretty(&file).unwrap_or_default();
    fs_write(&out, format!("{json}\n"))?;
    if a.json {
        let mut summary = serde_json::to_value(&file).unwrap_or_default();
        if let Some(m) = summary.as_object_mut() {
            m.remove("results");
        }
        outln!("{}", serde_json::to_string(&summary).unwrap_or_default());
    } else {
        eprintln!("repoqa: note: {LABEL}");
        outln!("{}", render(&model, &file.scores, &file.results));
    }
    eprintln!("score: wrote {}", out.display());
    Ok(())
}

fn rate(r: &PassRate) -> String {
    match r.pass_at_1 {
        Some(p) => format!("{p:5.1} % ({}/{})", r.passed, r.total),
        None => "–".into(),
    }
}

/// The scores as text: pass@1 and each breakdown.
fn render(model: &str, s: &CallPathScores, results: &[CallPathResult]) -> String {
    let mut out =
        format!("Call-path pass@1 of {model} ({} tasks): {}\n", results.len(), rate(&s.overall));
    let mut section = |title: &str, rows: Vec<(String, &PassRate)>| {
        out.push_str(&format!("  by {title}:\n"));
        for (k, r) in rows {
            out.push_str(&format!("    {k:<12} {}\n", rate(r)));
        }
    };
    section("language", s.by_language.iter().map(|(k, r)| (k.clone(), r)).collect());
    section("path length (calls)", s.by_path_length.iter().map(|(k, r)| (k.clone(), r)).collect());
    section("depth spread", s.by_depth_spread.iter().map(|(k, r)| (k.clone(), r)).collect());
    section(
        "context length",
        s.by_context_length.iter().map(|(k, r)| (k.to_string(), r)).collect(),
    );
    let verdicts: Vec<String> = s.verdicts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    out.push_str(&format!("  verdicts: {}\n", verdicts.join(", ")));
    let pct = |x: Option<f64>| x.map_or("–".into(), |p| format!("{:.1} %", 100.0 * p));
    out.push_str(&format!(
        "  NO PATH answers: {} ({} right); precision {}, recall {} of {} no-path tasks",
        s.no_path.answered,
        s.no_path.right,
        pct(s.no_path.precision),
        pct(s.no_path.recall),
        s.no_path.no_path_tasks
    ));
    out
}
