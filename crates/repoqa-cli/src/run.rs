//! `repoqa run`: upstream's `search_needle_function` over an API. Builds
//! the tasks, asks the model through the core's runner (`repoqa::llm::run`)
//! on `--concurrency` threads, appends every answer to the official outputs
//! file (and what produced it to the run log beside it) the moment it
//! arrives, resumes a rerun, and scores the outputs like `repoqa score`.
//!
//! Exit: 0 every selected task answered; 2 bad input or configuration
//! (including a key, URL or model the API refused, or a server that cannot
//! be reached); 3 some selected tasks left without an answer (named: failed,
//! or never asked by an interrupted run and left out by --only-failed).

use std::path::PathBuf;

use clap::Args;

use repoqa::llm::batch;
use repoqa::llm::run::BenchmarkRun;
use repoqa::llm::runlog::{self, TaskSelection};
use repoqa::report::Task;
use repoqa::report::{Unanswered, UnansweredScoring};
use repoqa::scoring::score::ScoreOptions;
use repoqa::{naming, report};

use crate::ask::{self, ApiArgs, Asked, RunFiles};
use crate::build_args::{self, BuildArgs};
use crate::error::{fs_read_text, fs_write, CliError};
use crate::input::{dataset_path_or_env, load_dataset, read_outputs, InflateArgs};
use crate::phases::Phases;
use crate::preflight::{self, PlanArgs};
use crate::score::ScoreArgs;

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub api: ApiArgs,
    // What `prompts` takes to build the tasks, with the same defaults.
    #[command(flatten)]
    pub build: BuildArgs,
    /// Which task: RepoQA's Searching Needle Function, or the call-path
    /// task (NOT UPSTREAM, docs/call-path.md), whose outputs go to
    /// <result-dir>/ntoken_<N>-call-path/.
    #[arg(long, value_enum, default_value = "snf")]
    pub task: repoqa::api::TaskKind,
    #[command(flatten)]
    pub call_path: build_args::CallPathArgs,
    /// Outputs go to <result-dir>/ntoken_<N>/<model, "/" as "_slash_">.jsonl
    /// (ntoken_<N>-corrected/ for --protocol corrected; a depth grid's row in
    /// ntoken_<N>/depth_<r>/).
    #[arg(long, default_value = "results")]
    pub result_dir: PathBuf,
    /// Dataset file (default: $REPOQA_DATA_OVERRIDE_PATH; nothing is downloaded).
    #[arg(long)]
    pub dataset_path: Option<PathBuf>,
    /// Ignore comments when scoring.
    #[arg(long)]
    pub eval_ignore_comments: bool,
    /// NOT UPSTREAM: the model's training cutoff as its maker states it
    /// (YYYY-MM-DD), recorded in the SCORES file; a dataset first released
    /// before it is warned about (see `curate --registry`).
    #[arg(long, value_parser = crate::score::parse_day)]
    pub model_cutoff: Option<String>,
    /// Outputs file (instead of the one under --result-dir).
    #[arg(long)]
    pub model_output_path: Option<PathBuf>,
    /// Ask only the tasks that failed in an earlier run.
    #[arg(long)]
    pub only_failed: bool,
    /// NOT UPSTREAM (an addition): only the tasks whose id
    /// (language::repo::name) contains TEXT, as the Run page's filter.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// NOT UPSTREAM: only these needles (function names, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub needles: Vec<String>,
    /// NOT UPSTREAM: a random sample of N of the selected tasks, the same
    /// for the same --seed (a smoke test: --tasks 5).
    #[arg(long, value_name = "N")]
    pub tasks: Option<usize>,
    /// Seed of the --tasks sample (the Run page's default).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// NOT UPSTREAM: at most N tasks, the first in task order.
    #[arg(long, value_name = "N")]
    pub max_tasks: Option<usize>,
    /// NOT UPSTREAM: score only the answered tasks. By default a selected
    /// task left without an answer is scored as a failure (an empty reply),
    /// so the score is comparable with a full run's; either way the SCORES
    /// file lists such tasks (`unanswered_tasks`).
    #[arg(long)]
    pub score_answered_only: bool,
    #[command(flatten)]
    pub plan: PlanArgs,
}

/// How the run's requests are answered.
pub enum Asking {
    /// Sent to the API now.
    Live,
    /// Written as a batch file to this path (`repoqa batch export`).
    Export(PathBuf),
    /// Answered by a batch's results file, and OpenAI's error file
    /// (`repoqa batch import`).
    Import { results: PathBuf, errors: Option<PathBuf> },
}

/// What the SCORES file will record of the replies, said once.
fn say_reply_notes(notes: &report::ReplyNotes, api: &ask::ApiArgs) {
    if !notes.cut.is_empty() {
        eprintln!(
            "run: {} answer(s) were cut at the token limit and are scored as they came ({}); the SCORES file lists them (cut_replies); raise {} to give them room",
            notes.cut.len(),
            notes.cut.join(", "),
            if api.reasoning_budget.is_some() || api.reasoning != repoqa::llm::reasoning::ReasoningMode::Off { "--max-new-tokens or --reasoning-budget" } else { "--max-new-tokens" }
        );
    }
    if notes.reasoning_removed > 0 {
        eprintln!(
            "run: NOT UPSTREAM: {} answer(s) began with a <think> block, taken out before scoring (kept in the run log; the SCORES file says so: inline_reasoning_removed); --keep-reasoning stores the content whole, as upstream",
            notes.reasoning_removed
        );
    }
}

/// `repoqa run`, its requests answered as `asking` says; with several
/// `--code-context-size` lengths (a ladder), each length in turn, into
/// its own `ntoken_<N>/` files. A length that leaves tasks unanswered
/// does not stop the next; what every length left is named at the end.
pub fn run_as(a: RunArgs, inflate: &InflateArgs, asking: Asking) -> Result<(), CliError> {
    if a.call_path.selection() != repoqa::callpath::select::Selection::default() {
        return Err(CliError::usage(
            "--tasks-per-repo, --path-lengths and --no-path-share choose call-path tasks: give --task call-path",
        ));
    }
    let lengths = a.build.lengths();
    let depths = a.build.depths();
    let grid = !a.build.depths.is_empty();
    let runs: Vec<(usize, Option<f64>)> =
        lengths.iter().flat_map(|&n| depths.iter().map(move |&d| (n, d))).collect();
    if runs.len() > 1 || grid {
        if a.model_output_path.is_some() {
            return Err(CliError::usage(
                "--model-output-path with several lengths or depths: each writes its own file under --result-dir (ntoken_<N>/, depth_<r>/); give no --model-output-path",
            ));
        }
        if !matches!(asking, Asking::Live) {
            return Err(CliError::usage(
                "a batch is of one length at the official depths: export (and import) each --code-context-size on its own, without --depths",
            ));
        }
    }
    if lengths.len() > 1 {
        eprintln!(
            "run: NOT UPSTREAM: a length ladder, {} lengths ({}), each into {}/ntoken_<N>/",
            lengths.len(),
            lengths.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            a.result_dir.display()
        );
    }
    if grid {
        eprintln!(
            "run: NOT UPSTREAM: a depth grid, every needle at each of {} depths ({}), each into ntoken_<N>/depth_<r>/",
            depths.len(),
            depths.iter().flatten().map(f64::to_string).collect::<Vec<_>>().join(", "),
        );
    }
    let mut left: Vec<String> = Vec::new();
    for &(n, depth) in &runs {
        let place = match depth {
            Some(d) => format!("ntoken_{n}/{}", naming::depth_dir(d)),
            None => format!("ntoken_{n}"),
        };
        if runs.len() > 1 {
            match depth {
                Some(d) => eprintln!("run: ── {n} tokens, depth {d} ──"),
                None => eprintln!("run: ── {n} tokens ──"),
            }
        }
        match run_length(&a, inflate, &asking, n, depth) {
            Err(CliError::TasksFailed { tasks }) if runs.len() > 1 => {
                left.extend(tasks.into_iter().map(|t| format!("{place}: {t}")));
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

/// One length (at one depth of a grid) of `repoqa run`.
fn run_length(
    a: &RunArgs,
    inflate: &InflateArgs,
    asking: &Asking,
    code_context_size: usize,
    depth: Option<f64>,
) -> Result<(), CliError> {
    let mut config = ask::pace_of(&a.api)?;
    // Only a live run needs a key.
    let endpoint = if a.plan.plan || !matches!(asking, Asking::Live) {
        ask::endpoint_unchecked(&a.api)?
    } else {
        ask::endpoint_of(&a.api)?
    };
    if endpoint.sampling.system_message.is_none() {
        eprintln!("run: system message is disabled (as upstream)");
    }

    let mut phases = Phases::start();
    let dataset_path = dataset_path_or_env(a.dataset_path.clone())?;
    let dataset = load_dataset(&dataset_path, inflate)?;
    phases.mark("load-dataset");
    // Built as `evaluate_model` builds them (languages in dataset order).
    let build = a.build.settings_at(code_context_size);
    let specs = build_args::select_tasks(&build, &dataset, &dataset_path)?;
    let tok = a.build.load_tokenizer()?;
    let threads = repoqa::prompt::context::default_threads();
    let tasks =
        build_args::build_tasks_at(&build, &dataset, &specs, &tok, threads, depth, "run: built")?;
    phases.mark("build-prompts");

    let outputs_path = match &a.model_output_path {
        Some(p) => p.clone(),
        None => a.result_dir.join(naming::run_outputs_path_at(
            build.code_context_size,
            build.protocol,
            depth,
            &a.api.model,
        )),
    };
    let ids: Vec<String> = tasks.iter().map(Task::task_id).collect();
    let selection = TaskSelection {
        filter: a.filter.clone().unwrap_or_default(),
        needles: a.needles.clone(),
        sample: a.tasks,
        seed: a.seed,
        max: a.max_tasks,
        only_failed: a.only_failed,
    };
    let selected_tasks = runlog::select_tasks(&ids, &selection);
    let selected = selected_tasks.len();
    if selected == 0 {
        return Err(CliError::usage(
            "no task matches --filter/--needles/--tasks/--max-tasks (task ids are language::repo::name, as in the run log)",
        ));
    }
    if selected < ids.len() {
        eprintln!("run: {selected} of {} tasks selected", ids.len());
    }
    // What earlier runs left: answered tasks are not asked again.
    let resume = |outputs_text: &str, log: &runlog::RunLog| {
        let existing = report::read_model_outputs(outputs_text);
        if let Some(first) = existing.errors.first() {
            return Err(CliError::usage(format!(
                "{}: {} broken line(s), first {first}; fix or move the file before resuming",
                outputs_path.display(),
                existing.errors.len(),
            )));
        }
        let plan = runlog::plan_resume(&ids, &existing, log, &selection);
        ask::report_plan("run", &plan, &outputs_path, tasks.len());
        Ok(plan)
    };
    if a.plan.plan {
        // Only read: a plan writes nothing.
        let (text, log) = ask::peek_run_files(&outputs_path)?;
        let plan = resume(&text, &log)?;
        let c = config.concurrency;
        return preflight::print_plan(&a.plan, &endpoint, &tasks, &plan.todo, &tok, &log, c);
    }
    if let Asking::Export(out) = &asking {
        // Only read: an export writes nothing but its file.
        let (text, log) = ask::peek_run_files(&outputs_path)?;
        let plan = resume(&text, &log)?;
        let file = batch::export(&endpoint, &tasks, &plan.todo)?;
        fs_write(out, file)?;
        eprintln!(
            "batch: wrote {} request(s) for {} to {}: submit it to the {} batch API, then read its results back with `repoqa batch import --results FILE` and the same flags",
            plan.todo.len(),
            endpoint.model.trim(),
            out.display(),
            endpoint.provider
        );
        return Ok(());
    }
    let mut files = RunFiles::open("run", outputs_path.clone(), "model outputs")?;
    let plan = resume(&files.outputs_text, &files.log)?;
    let (asked, not_asked) = match &asking {
        Asking::Import { results, errors } => {
            let label = "batch";
            let mut all = Vec::new();
            for path in std::iter::once(results).chain(errors) {
                let text = fs_read_text(path, "batch results")?;
                let origin = path.display().to_string();
                all.extend(batch::read_results(endpoint.provider, &text, &origin)?);
            }
            let imported =
                batch::import(endpoint, &tasks, &ids, &plan.todo, &all, report::now_eval_date);
            if let Some(first) = imported.unknown.first() {
                return Err(CliError::usage(format!(
                    "{} result(s) name no task of this run (first: custom_id {first:?}): they come from another task list; give the flags (dataset, size, selection) the batch was exported with",
                    imported.unknown.len()
                )));
            }
            let mut asked = Asked::default();
            let mut answered = std::collections::HashSet::new();
            for event in imported.events {
                if let repoqa::llm::run::RunEvent::Answered { task, .. }
                | repoqa::llm::run::RunEvent::Failed { task, .. } = &event
                {
                    answered.insert(*task);
                }
                asked.take(label, event, &ids, &mut files, &|l| eprintln!("{l}"), |_| 0.0)?;
            }
            let not_in: Vec<String> = plan
                .todo
                .iter()
                .filter(|i| !answered.contains(i))
                .map(|&i| ids[i].clone())
                .collect();
            eprintln!(
                "batch: {} result(s) read; {} answered, {} failed, {} selected task(s) without a result",
                all.len(),
                answered.len() - asked.failed.len(),
                asked.failed.len(),
                not_in.len()
            );
            (asked, not_in)
        }
        _ => {
            let n = plan.todo.len();
            ask::announce("run", "task(s)", n, &endpoint, &mut config, a.api.timeout_s);
            let todo = plan.todo.clone();
            let mut run = BenchmarkRun::new(endpoint, &tasks, &todo, config, ask::seed());
            let asked = if todo.is_empty() {
                Asked::default()
            } else {
                let n = todo.len();
                let asked = ask::ask_all("run", &mut run, &ids, &mut files, &a.api, n)?;
                phases.mark("run");
                asked
            };
            (asked, run.not_asked().into_iter().map(|i| ids[i].clone()).collect())
        }
    };
    drop(files);

    if let Some(e) = asked.stop_error(not_asked.len(), &outputs_path) {
        return Err(e);
    }

    // Score everything answered so far, exactly as `repoqa score` would,
    // with the dataset already read; the selected tasks still without an
    // answer count as failures unless --score-answered-only.
    let answered = report::read_model_outputs(&fs_read_text(&outputs_path, "model outputs")?);
    if answered.outputs.is_empty() {
        eprintln!("run: no answers to score");
    } else {
        // Read as `repoqa score` reads it (a task answered twice is refused).
        let mut outputs = read_outputs(&outputs_path, false, false)?;
        // Every selected task, --only-failed or not.
        let missing = repoqa::scoring::run::without_answer(
            selected_tasks.iter().map(|&i| &tasks[i]),
            &outputs,
        );
        // What the run log says of the answers scored: cut, thinking taken out.
        let log_path = runlog::runlog_path_for(&outputs_path.to_string_lossy());
        let log = runlog::read_runlog(&fs_read_text(std::path::Path::new(&log_path), "run log")?);
        let in_outputs: std::collections::HashSet<String> =
            outputs.iter().map(|o| o.task_id()).collect();
        let replies = runlog::answer_notes(&log, |id| in_outputs.contains(id));
        say_reply_notes(&replies, &a.api);
        let scoring = if a.score_answered_only {
            UnansweredScoring::AnsweredOnly
        } else {
            UnansweredScoring::Failures
        };
        let unanswered = (!missing.is_empty())
            .then(|| Unanswered { scoring, tasks: missing.iter().map(|t| t.task_id()).collect() });
        if let Some(u) = &unanswered {
            eprintln!(
                "run: {} selected task(s) have no answer: scored as {}{}",
                u.tasks.len(),
                scoring.as_str(),
                if a.score_answered_only { "" } else { " (--score-answered-only leaves them out)" }
            );
            if scoring == UnansweredScoring::Failures {
                let first = outputs.len() + 1;
                outputs.extend(
                    repoqa::scoring::run::no_answer_outputs(&missing, first)
                        .map_err(|e| CliError::usage(e.to_string()))?,
                );
            }
        }
        let score = ScoreArgs {
            outputs: outputs_path.clone(),
            dataset: Some(dataset_path.clone()),
            options: build.score_options(ScoreOptions {
                ignore_comments: a.eval_ignore_comments,
                ..ScoreOptions::default()
            }),
            model: Some(a.api.model.clone()),
            out: None,
            overwrite: true,
            train_size: None,
            eval_date: None,
            csv: None,
            skip_broken_lines: false,
            allow_repeated_tasks: false,
            unanswered,
            replies,
            ci: crate::intervals::CiArgs::none(),
            model_cutoff: a.model_cutoff.clone(),
        };
        crate::score::score_and_write(score, &dataset_path, &dataset, outputs)?;
    }
    if !asked.truncated.is_empty() {
        eprintln!(
            "run: WARNING: {} answer(s) came from silently truncated prompts ({}): their scores are meaningless; raise the server's context size and rerun them",
            asked.truncated.len(),
            asked.truncated.join(", ")
        );
    }
    asked.unfinished(not_asked, ask::never_asked(&plan, &ids))
}
