//! `--task call-path` (NOT UPSTREAM, docs/call-path.md) on `prompts`, `run`
//! and `score`: the flags mapped to the core's `api::callpath` plan, its
//! tasks written as JSONL or asked through the runner, a model's outputs
//! scored into a SCORES file.

use std::path::{Path, PathBuf};

use std::collections::HashSet;

use repoqa::api::callpath::{
    read_outputs, score_file, score_outputs, CallPathPlan, CallPathResult, CallPathScoresFile,
    RepoRef,
};
use repoqa::callpath::score::{CallPathScores, PassRate};
use repoqa::callpath::task::{CallPathOutput, CallPathTask, LABEL};
use repoqa::code::tokenize::Tokenizer;
use repoqa::input::dataset::Dataset;
use repoqa::llm::runlog::{self, TaskSelection};
use repoqa::prompt::settings::TaskFilter;

use crate::ask::{ask_items, ItemsJob};
use crate::build_args::{BuildArgs, CallPathArgs};
use crate::error::{fs_read_text, fs_write, refuse_overwriting_inputs, CliError};
use crate::input::{dataset_path_or_env, load_dataset, InflateArgs};
use crate::progress;
use crate::run::{Asking, RunArgs};
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
        let plan = plan_of(build, selection, n);
        let repos = plan.check(&dataset)?;
        let out = out.map(Path::to_path_buf).unwrap_or_else(|| {
            PathBuf::from(repoqa::naming::call_path_tasks_file_name(
                &dataset_path.display().to_string(),
                n,
                plan.closed_book,
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
        let built = build_tasks(&plan, &dataset, &repos, tok)?;
        let mut text = String::new();
        for t in &built {
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
            built.len(),
            out.display()
        );
    }
    Ok(())
}

/// The plan of the build flags and the selection at one length.
fn plan_of(build: &BuildArgs, selection: &CallPathArgs, code_context_size: usize) -> CallPathPlan {
    CallPathPlan {
        code_context_size,
        filter: TaskFilter {
            languages: build.languages.clone(),
            repos: build.repos.clone(),
            excluded_repos: Vec::new(),
        },
        selection: selection.selection(),
        closed_book: build.closed_book,
    }
}

/// Build `plan`'s tasks with a progress line, each shortfall warned of.
fn build_tasks(
    plan: &CallPathPlan,
    dataset: &Dataset,
    repos: &[RepoRef],
    tok: &Tokenizer,
) -> Result<Vec<CallPathTask>, CliError> {
    let built = plan.build(dataset, repos, tok, |done, total| {
        progress::count(&format!("call-path tasks: {done}/{total} repositories"), done == total)
    })?;
    for s in &built.shortfalls {
        eprintln!("repoqa: warning: {}", s.text());
    }
    Ok(built.tasks)
}

/// `repoqa run --task call-path`: each length's tasks asked through the
/// runner (retries, run log, resume, `--only-failed`, the task selection
/// flags), the answers scored as `score --task call-path` scores them, a
/// selected task left without an answer scored as a failure.
pub fn run(a: &RunArgs, inflate: &InflateArgs, asking: &Asking) -> Result<(), CliError> {
    let b = &a.build;
    let refused = [
        (!matches!(asking, Asking::Live), "a batch (export or import)"),
        (a.plan.plan, "--plan"),
        (!b.depths.is_empty(), "--depths"),
        (
            b.clean_ctx_comments != repoqa::prompt::context::CommentMode::None,
            "--clean-ctx-comments",
        ),
        (b.control.is_some(), "--control"),
        (b.protocol != repoqa::report::Protocol::Official, "--protocol"),
        (!a.needles.is_empty(), "--needles"),
        (a.eval_ignore_comments, "--eval-ignore-comments"),
        (a.score_answered_only, "--score-answered-only"),
    ];
    if let Some((_, what)) = refused.iter().find(|(given, _)| *given) {
        return Err(CliError::usage(format!(
            "{what} is not for --task call-path yet (docs/call-path.md)"
        )));
    }
    let lengths = b.lengths();
    if lengths.len() > 1 && a.model_output_path.is_some() {
        return Err(CliError::usage(
            "--model-output-path with several lengths: each writes its own file under --result-dir; give no --model-output-path",
        ));
    }
    eprintln!("repoqa: note: {LABEL}");
    let dataset_path = dataset_path_or_env(a.dataset_path.clone())?;
    let dataset = load_dataset(&dataset_path, inflate)?;
    let tok = b.load_tokenizer()?;
    let mut left = Vec::new();
    for n in lengths {
        let plan = plan_of(b, &a.call_path, n);
        let repos = plan.check(&dataset)?;
        let tasks = build_tasks(&plan, &dataset, &repos, &tok)?;
        let output = a.model_output_path.clone().unwrap_or_else(|| {
            a.result_dir.join(repoqa::naming::call_path_run_outputs_path(
                n,
                &a.api.model,
                plan.closed_book,
            ))
        });
        let selection = TaskSelection {
            filter: a.filter.clone().unwrap_or_default(),
            needles: Vec::new(),
            sample: a.tasks,
            seed: a.seed,
            max: a.max_tasks,
            only_failed: a.only_failed,
        };
        let origin = output.display().to_string();
        let job = ItemsJob {
            label: "run",
            api: &a.api,
            temperature: None,
            output: &output,
            what: "call-path outputs",
            selection: selection.clone(),
        };
        let asked = ask_items(&job, &tasks, |text| {
            if text.trim().is_empty() {
                return Ok(HashSet::new());
            }
            Ok(read_outputs(text, &origin)?.into_iter().map(|o| o.task.id()).collect())
        });
        // Score what is answered, the selected tasks without an answer as
        // failures (an empty reply), as SNF's run does by default.
        let text = fs_read_text(&output, "call-path outputs")?;
        let mut outputs =
            if text.trim().is_empty() { Vec::new() } else { read_outputs(&text, &origin)? };
        let answered: HashSet<String> = outputs.iter().map(|o| o.task.id()).collect();
        let ids: Vec<String> = tasks.iter().map(CallPathTask::id).collect();
        let missing: Vec<usize> = runlog::select_tasks(&ids, &selection)
            .into_iter()
            .filter(|&i| !answered.contains(&ids[i]))
            .collect();
        if !missing.is_empty() {
            eprintln!("run: {} selected task(s) have no answer: scored as failures", missing.len());
        }
        outputs.extend(
            missing
                .iter()
                .map(|&i| CallPathOutput { task: tasks[i].clone(), output: vec![String::new()] }),
        );
        if !outputs.is_empty() {
            let out = PathBuf::from(repoqa::naming::scores_path_for(
                &origin,
                repoqa::report::Protocol::Official,
                true,
            ));
            let file = score_outputs_file(&dataset, &outputs, &origin, a.api.model.clone(), None)?;
            write_scores(&file, &out, false)?;
        }
        match asked {
            Err(CliError::TasksFailed { tasks }) => {
                left.extend(tasks.into_iter().map(|t| format!("ntoken_{n}: {t}")))
            }
            r => r?,
        }
    }
    if left.is_empty() {
        Ok(())
    } else {
        Err(CliError::TasksFailed { tasks: left })
    }
}

/// `repoqa verify` of a call-path SCORES file: its scores recomputed from
/// its results; with the outputs and the dataset, every reply judged again.
pub fn verify(
    scores_path: &Path,
    text: &str,
    outputs: Option<&Path>,
    dataset: Option<&Path>,
    inflate: &InflateArgs,
) -> Result<(), CliError> {
    let source = scores_path.display().to_string();
    let file = CallPathScoresFile::read(text, &source)?;
    let rescored = match (outputs, dataset) {
        (Some(o), Some(d)) => {
            let origin = o.display().to_string();
            let outputs = read_outputs(&fs_read_text(o, "--model-output-path")?, &origin)?;
            let data = load_dataset(d, inflate)?;
            Some(score_outputs(&data, &outputs, &origin)?.1)
        }
        _ => None,
    };
    let checks = repoqa::api::callpath::verify(&file, rescored.as_deref());
    outln!(
        "{source}: call-path scores of {} ({} tasks, pass@1 {}; {LABEL})",
        file.model,
        file.results.len(),
        file.pass_at_1.map_or("–".into(), |p| format!("{p:.1}"))
    );
    for c in &checks {
        outln!("  {} {}", if c.ok { "ok  " } else { "FAIL" }, c.text);
    }
    let bad = checks.iter().filter(|c| !c.ok).count();
    if bad == 0 {
        Ok(())
    } else {
        Err(CliError::Mismatches { file: source, count: bad })
    }
}

/// `repoqa ladder --task call-path`: every `ntoken_<N>-call-path/` run of
/// `result_dir` (of `model`, or every model), pass@1 by length and by path
/// length × length.
pub fn ladder(result_dir: &Path, model: Option<&str>, json: bool) -> Result<(), CliError> {
    let cannot = |e: std::io::Error| {
        CliError::usage(format!("result directory {}: cannot list it: {e}", result_dir.display()))
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(result_dir)
        .map_err(cannot)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            n.starts_with("ntoken_") && n.ends_with("-call-path") && p.is_dir()
        })
        .collect();
    dirs.sort();
    let mut files = Vec::new();
    for d in &dirs {
        let mut found: Vec<PathBuf> = std::fs::read_dir(d)
            .map_err(cannot)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with("-SCORES.json"))
            .collect();
        found.sort();
        for p in found {
            let file = CallPathScoresFile::read(
                &fs_read_text(&p, "call-path SCORES file")?,
                &p.display().to_string(),
            )?;
            if model.is_none_or(|m| m == file.model) {
                files.push(file);
            }
        }
    }
    if files.is_empty() {
        return Err(CliError::usage(format!(
            "no call-path SCORES file{} under {}/ntoken_<N>-call-path/: run `repoqa run --task call-path --code-context-size 4096,16384 …` first",
            model.map_or(String::new(), |m| format!(" of {m}")),
            result_dir.display()
        )));
    }
    let ladders = repoqa::api::callpath::ladders(&files);
    if json {
        outln!("{}", serde_json::to_string(&ladders).unwrap_or_default());
        return Ok(());
    }
    eprintln!("repoqa: note: {LABEL}");
    for l in &ladders {
        outln!("Call-path pass@1 of {} by context length:", l.model);
        let head: String = l.lengths.iter().map(|n| format!("{n:>16}")).collect();
        outln!("  {:<12}{head}", "path (calls)");
        let mut rows: Vec<(String, Vec<Option<&PassRate>>)> = l
            .scores
            .by_path_length_and_context
            .iter()
            .map(|(k, row)| (k.clone(), l.lengths.iter().map(|n| row.get(n)).collect()))
            .collect();
        rows.push((
            "all".into(),
            l.lengths.iter().map(|n| l.scores.by_context_length.get(n)).collect(),
        ));
        for (k, cells) in rows {
            let cells: String =
                cells.iter().map(|c| format!("{:>16}", c.map_or("–".into(), rate))).collect();
            outln!("  {k:<12}{cells}");
        }
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
    let file = score_outputs_file(&dataset, &outputs, &origin, model, a.eval_date)?;
    write_scores(&file, &out, a.json)
}

/// Score `outputs` into a SCORES file's contents.
fn score_outputs_file(
    dataset: &Dataset,
    outputs: &[CallPathOutput],
    origin: &str,
    model: String,
    eval_date: Option<String>,
) -> Result<CallPathScoresFile, CliError> {
    let scored = score_file(dataset, outputs, origin)?;
    let eval_date = eval_date.unwrap_or_else(repoqa::report::now_eval_date);
    Ok(CallPathScoresFile::new(model, eval_date, scored, dataset))
}

/// Write the SCORES file and print its scores (as one JSON object with
/// `json`).
fn write_scores(file: &CallPathScoresFile, out: &Path, json: bool) -> Result<(), CliError> {
    fs_write(out, file.text())?;
    if json {
        let mut summary = serde_json::to_value(file).unwrap_or_default();
        if let Some(m) = summary.as_object_mut() {
            m.remove("results");
        }
        outln!("{}", serde_json::to_string(&summary).unwrap_or_default());
    } else {
        eprintln!("repoqa: note: {LABEL}");
        outln!("{}", render(&file.model, &file.scores, &file.results));
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
