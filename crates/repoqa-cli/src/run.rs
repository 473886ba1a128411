//! `repoqa run`: upstream's `search_needle_function` over an API. Builds
//! the tasks, asks the model through the core's runner (`repoqa::llm::run`)
//! on `--concurrency` threads, appends every answer to the official outputs
//! file (and what produced it to the run log beside it) the moment it
//! arrives, resumes a rerun, and scores the outputs like `repoqa score`.
//!
//! Exit: 0 every task answered; 2 bad input or configuration (including a
//! key, URL or model the API refused); 3 some tasks failed after retries
//! (named).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use repoqa::context::Task;
use repoqa::llm::run::{BenchmarkRun, RunEvent, RunStep};
use repoqa::llm::runlog::{self, RunLog};
use repoqa::llm::schedule::{self, RunLimit, RunPace};
use repoqa::llm::wire::{self, Endpoint, Provider, Sampling, TransportError};
use repoqa::llm::{HttpReply, HttpRequest};
use repoqa::score::ScoreOptions;
use repoqa::{naming, report};

use crate::build_args::{self, BuildArgs};
use crate::error::{fs_read_text, io, At, CliError, FileOp};
use crate::http;
use crate::input::{dataset_path_or_env, load_dataset, read_outputs, InflateArgs};
use crate::phases::Phases;
use crate::score::ScoreArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Openai,
    Anthropic,
    Google,
    /// Upstream's in-process backends: not here (serve the model with an
    /// OpenAI-compatible server and use `--backend openai --base-url`).
    Vllm,
    Hf,
}

#[derive(Args)]
pub struct RunArgs {
    /// Model name as the API knows it (also names the outputs file).
    #[arg(long)]
    pub model: String,
    /// API format: openai (default; also vLLM, Ollama, llama.cpp, LM Studio…), anthropic, google.
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// API base URL (default: the provider's public API), e.g. http://localhost:8000/v1.
    #[arg(long)]
    pub base_url: Option<String>,
    // What `prompts` takes to build the tasks, with the same defaults.
    #[command(flatten)]
    pub build: BuildArgs,
    #[arg(long, default_value_t = wire::DEFAULT_MAX_NEW_TOKENS)]
    pub max_new_tokens: u32,
    /// Outputs go to <result-dir>/ntoken_<N>/<model, "/" as "_slash_">.jsonl
    /// (ntoken_<N>-corrected/ for --protocol corrected).
    #[arg(long, default_value = "results")]
    pub result_dir: PathBuf,
    /// System message (default: none, as upstream).
    #[arg(long)]
    pub system_message: Option<String>,
    /// Dataset file (default: $REPOQA_DATA_OVERRIDE_PATH; nothing is downloaded).
    #[arg(long)]
    pub dataset_path: Option<PathBuf>,
    /// Ignore comments when scoring.
    #[arg(long)]
    pub eval_ignore_comments: bool,
    /// Outputs file (instead of the one under --result-dir).
    #[arg(long)]
    pub model_output_path: Option<PathBuf>,
    /// Requests in flight at once (a local vLLM takes 64).
    #[arg(long, default_value_t = schedule::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Seconds a request may take before it is abandoned and retried.
    #[arg(long, default_value_t = schedule::DEFAULT_TIMEOUT_S)]
    pub timeout_s: f64,
    /// Retries of a request after a rate limit, server error, network drop,
    /// timeout or malformed reply.
    #[arg(long, default_value_t = schedule::DEFAULT_MAX_RETRIES)]
    pub max_retries: u32,
    /// First retry delay in milliseconds (doubled per retry, with jitter;
    /// a Retry-After header wins).
    #[arg(long, default_value_t = 1000.0)]
    pub retry_base_ms: f64,
    /// Stop sequence (repeatable), e.g. the chat template's end-of-turn marker.
    #[arg(long)]
    pub stop: Vec<String>,
    /// Ask only the tasks that failed in an earlier run.
    #[arg(long)]
    pub only_failed: bool,
}

fn provider_of(a: &RunArgs) -> Result<Provider, CliError> {
    Ok(match a.backend {
        None | Some(BackendArg::Openai) => Provider::OpenAi,
        Some(BackendArg::Anthropic) => Provider::Anthropic,
        Some(BackendArg::Google) => Provider::Google,
        Some(b @ (BackendArg::Vllm | BackendArg::Hf)) => {
            return Err(CliError::usage(format!(
                "--backend {}: models are not run in-process here; serve it with an OpenAI-compatible server (e.g. `vllm serve {}`) and pass --backend openai --base-url http://127.0.0.1:8000/v1",
                if b == BackendArg::Vllm { "vllm" } else { "hf" },
                a.model
            )))
        }
    })
}

fn threads_stopped() -> CliError {
    CliError::usage("the request threads stopped unexpectedly")
}

/// Open `path` for appending after cutting a last line left half-written
/// by a killed run; returns the file and its complete text.
/// The file is locked for as long as it is open, so a second run on the
/// same file stops at once instead of writing the same tasks again.
fn open_for_append(path: &Path, what: &'static str) -> Result<(File, String), CliError> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io(FileOp::Open, path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(CliError::usage(format!(
                "{}: another `repoqa run` is writing this {what} file (it is locked); wait for that run to end, or give this one another --result-dir or --model-output-path",
                path.display()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(FileOp::Open, path, e)),
    }
    let text = fs_read_text(path, what)?;
    let keep = runlog::complete_prefix_len(&text);
    if keep < text.len() {
        eprintln!(
            "repoqa: {}: dropping a cut last line ({} bytes) left by an interrupted run",
            path.display(),
            text.len() - keep
        );
        file.set_len(keep as u64).map_err(|e| io(FileOp::Repair, path, e))?;
    }
    Ok((file, text[..keep].to_string()))
}

fn append(file: &mut File, line: &str, path: &Path) -> Result<(), CliError> {
    file.write_all(line.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| io(FileOp::Write, path, e))
}

type Job = (usize, HttpRequest);
type Done = (usize, Result<HttpReply, TransportError>);

/// `concurrency` threads sending what the runner says; replies come back
/// on the returned receiver.
fn start_workers(
    n: usize,
    timeout_s: f64,
) -> (mpsc::Sender<Job>, mpsc::Receiver<Done>, Vec<std::thread::JoinHandle<()>>) {
    let agent = http::agent(Duration::from_secs_f64(timeout_s.max(0.001)), n);
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let handles = (0..n.max(1))
        .map(|_| {
            let (agent, job_rx, done_tx) = (agent.clone(), job_rx.clone(), done_tx.clone());
            std::thread::spawn(move || loop {
                let job = match job_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((task, req)) = job else { return };
                if done_tx.send((task, http::post(&agent, &req))).is_err() {
                    return;
                }
            })
        })
        .collect();
    (job_tx, done_rx, handles)
}

fn seed() -> u64 {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    now.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}

/// The endpoint the flags describe, the key from the provider's
/// environment variables.
fn endpoint_of(a: &RunArgs) -> Result<Endpoint, CliError> {
    let provider = provider_of(a)?;
    let endpoint = Endpoint {
        provider,
        base_url: a.base_url.clone().unwrap_or_default(),
        api_key: http::key_from_env(provider.key_env()),
        model: a.model.clone(),
        sampling: Sampling {
            max_tokens: Some(a.max_new_tokens),
            system_message: a.system_message.clone().filter(|s| !s.is_empty()),
            stop: a.stop.clone(),
            ..Sampling::default()
        },
        from_browser: false,
    };
    endpoint.validate().map_err(CliError::Usage).at(format_args!("--backend {provider}"))?;
    Ok(endpoint)
}

/// The pacing flags, checked by the core's one rule; the error names the flag.
fn pace_of(a: &RunArgs) -> Result<schedule::ScheduleConfig, CliError> {
    let pace = RunPace {
        concurrency: a.concurrency,
        timeout_s: a.timeout_s,
        max_retries: a.max_retries,
        retry_base_ms: a.retry_base_ms,
    };
    pace.check().map_err(|e| {
        let flag = match e.setting() {
            RunLimit::Concurrency => "--concurrency",
            RunLimit::Timeout => "--timeout-s",
            RunLimit::RetryBase => "--retry-base-ms",
        };
        CliError::At { at: flag.to_string(), source: Box::new(e.into()) }
    })
}

/// The outputs file and the run log beside it, open for appending (and
/// locked), with what earlier runs left in them.
struct RunFiles {
    outputs_path: PathBuf,
    outputs: File,
    runlog_path: PathBuf,
    runlog: File,
    existing: report::OutputsFile,
    log: RunLog,
}

impl RunFiles {
    fn open(outputs_path: PathBuf) -> Result<RunFiles, CliError> {
        if let Some(dir) = outputs_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io(FileOp::Create, dir, e))?;
        }
        let outputs_str = outputs_path.to_string_lossy().into_owned();
        let runlog_path = PathBuf::from(runlog::runlog_path_for(&outputs_str));
        let (outputs, out_text) = open_for_append(&outputs_path, "model outputs")?;
        let (runlog, log_text) = open_for_append(&runlog_path, "run log")?;
        let existing = report::read_model_outputs(&out_text);
        if !existing.errors.is_empty() {
            return Err(CliError::usage(format!(
                "{}: {} broken line(s), first {}; fix or move the file before resuming",
                outputs_path.display(),
                existing.errors.len(),
                existing.errors[0]
            )));
        }
        let log: RunLog = runlog::read_runlog(&log_text);
        if !log.bad_lines.is_empty() {
            eprintln!(
                "repoqa: {}: skipping unreadable line(s) {:?}",
                runlog_path.display(),
                log.bad_lines
            );
        }
        Ok(RunFiles { outputs_path, outputs, runlog_path, runlog, existing, log })
    }
}

/// Say what a resume finds: lines answered twice, tasks answered already,
/// tasks that failed before and are asked again.
fn report_plan(plan: &runlog::ResumePlan, outputs_path: &Path, tasks: usize) {
    if !plan.duplicates.is_empty() {
        eprintln!(
            "repoqa: WARNING: {} has several lines for {:?}; the scorer counts each",
            outputs_path.display(),
            plan.duplicates
        );
    }
    if plan.finished > 0 {
        eprintln!(
            "run: resuming {}: {} of {tasks} tasks already answered, not asked again",
            outputs_path.display(),
            plan.finished,
        );
    }
    if !plan.failed_before.is_empty() {
        eprintln!(
            "run: {} task(s) failed in an earlier run, asked again:",
            plan.failed_before.len()
        );
        for (id, why) in &plan.failed_before {
            eprintln!("  {id}: {why}");
        }
    }
}

/// What asking gave besides the answers written: tasks failed (id, why),
/// answers from truncated prompts, the reason the run stopped.
#[derive(Default)]
struct Asked {
    failed: Vec<(String, String)>,
    truncated: Vec<String>,
    stopped: Option<String>,
}

/// Ask every task the runner has to send, on `concurrency` threads,
/// writing each answer and record the moment it arrives.
fn ask_all(
    run: &mut BenchmarkRun,
    ids: &[String],
    files: &mut RunFiles,
    concurrency: usize,
    timeout_s: f64,
    total: usize,
) -> Result<Asked, CliError> {
    let mut asked = Asked::default();
    let mut warned_other_model = false;
    let (job_tx, done_rx, handles) = start_workers(concurrency, timeout_s);
    let t0 = Instant::now();
    let now = || t0.elapsed().as_secs_f64() * 1000.0;
    loop {
        let reply = match run.next(now()) {
            RunStep::Send { task, request, .. } => {
                if job_tx.send((task, request)).is_err() {
                    return Err(threads_stopped());
                }
                continue;
            }
            RunStep::Done => break,
            RunStep::Wait { until_ms } => match until_ms {
                Some(u) => {
                    match done_rx
                        .recv_timeout(Duration::from_secs_f64(((u - now()) / 1000.0).max(0.0)))
                    {
                        Ok(r) => r,
                        Err(mpsc::RecvTimeoutError::Timeout) => continue,
                        Err(mpsc::RecvTimeoutError::Disconnected) => return Err(threads_stopped()),
                    }
                }
                None => done_rx.recv().map_err(|_| threads_stopped())?,
            },
        };
        let (task, result) = reply;
        match run.complete(task, result.as_ref(), now(), report::now_eval_date()) {
            RunEvent::Answered { output_line, record, .. } => {
                append(&mut files.outputs, &output_line, &files.outputs_path)?;
                append(&mut files.runlog, &record.line(), &files.runlog_path)?;
                if let (Some(other), false) = (&record.answered_by, warned_other_model) {
                    warned_other_model = true;
                    let w = runlog::other_model_warning(&record.model, other, &record.task_id);
                    eprintln!("\nrun: {w}");
                }
                if record.truncated {
                    eprintln!(
                        "\nrun: WARNING {}: the API counted {} prompt tokens for a {}-token task: the prompt was cut (is the server's context too small?)",
                        record.task_id,
                        record.usage.prompt_tokens.unwrap_or(0),
                        record.task_ntokens
                    );
                    asked.truncated.push(record.task_id.clone());
                }
            }
            RunEvent::Failed { record, .. } => {
                append(&mut files.runlog, &record.line(), &files.runlog_path)?;
                let why = record.reason.clone().unwrap_or_default();
                eprintln!("\nrun: FAILED {}: {why}", record.task_id);
                asked.failed.push((record.task_id, why));
            }
            RunEvent::Retrying { task, at_ms, attempt, reason } => {
                eprintln!(
                    "\nrun: {} again in {:.1} s (attempt {attempt}): {reason}",
                    ids[task],
                    ((at_ms - now()) / 1000.0).max(0.0)
                );
            }
            RunEvent::Stopped { reason } => {
                eprintln!("\nrun: STOPPED: {reason}");
                asked.stopped.get_or_insert(reason);
            }
            RunEvent::Ignored => {}
        }
        let s = run.stats;
        let done = s.answered + s.failed;
        let elapsed = now() / 1000.0;
        let eta = if done > 0 { elapsed / done as f64 * (total - done) as f64 } else { 0.0 };
        eprint!(
            "\rrun: {done}/{total} ({} answered, {} failed, {} retries) {} prompt + {} completion tokens, {elapsed:.0} s, ETA {eta:.0} s   ",
            s.answered, s.failed, s.retries, s.prompt_tokens, s.completion_tokens
        );
    }
    eprintln!();
    drop(job_tx);
    for h in handles {
        let _ = h.join();
    }
    Ok(asked)
}

pub fn run(a: RunArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let config = pace_of(&a)?;
    let endpoint = endpoint_of(&a)?;
    if endpoint.sampling.system_message.is_none() {
        eprintln!("run: system message is disabled (as upstream)");
    }

    let mut phases = Phases::start();
    let dataset_path = dataset_path_or_env(a.dataset_path.clone())?;
    let dataset = load_dataset(&dataset_path, inflate)?;
    phases.mark("load-dataset");
    // Built as `evaluate_model` builds them (languages in dataset order).
    let build = a.build.settings();
    let specs = build_args::select_tasks(&build, &dataset, &dataset_path)?;
    let tok = a.build.load_tokenizer()?;
    let threads = repoqa::context::default_threads();
    let tasks = build_args::build_tasks(&build, &dataset, &specs, &tok, threads, "run: built")?;
    phases.mark("build-prompts");

    let outputs_path = match &a.model_output_path {
        Some(p) => p.clone(),
        None => a.result_dir.join(naming::run_outputs_path(
            build.code_context_size,
            build.protocol,
            &a.model,
        )),
    };
    let mut files = RunFiles::open(outputs_path.clone())?;
    let ids: Vec<String> = tasks.iter().map(Task::task_id).collect();
    let plan = runlog::plan_resume(&ids, &files.existing, &files.log, a.only_failed);
    report_plan(&plan, &outputs_path, tasks.len());
    eprintln!(
        "run: {} task(s) to ask {} {} at {} (concurrency {}, timeout {} s)",
        plan.todo.len(),
        endpoint.provider,
        endpoint.model.trim(),
        endpoint.base_url_shown(),
        a.concurrency,
        a.timeout_s
    );
    let mut run = BenchmarkRun::new(endpoint, &tasks, &plan.todo, config, seed());
    let asked = if plan.todo.is_empty() {
        Asked::default()
    } else {
        let asked =
            ask_all(&mut run, &ids, &mut files, a.concurrency, a.timeout_s, plan.todo.len())?;
        phases.mark("run");
        asked
    };
    let not_asked: Vec<String> = run.not_asked().into_iter().map(|i| ids[i].clone()).collect();
    drop(files);

    if let Some(reason) = asked.stopped {
        return Err(CliError::usage(format!(
            "the run stopped: {reason}. {} task(s) not asked; answers so far are kept in {}; fix it and run again to resume",
            not_asked.len(),
            outputs_path.display()
        )));
    }

    // Score everything answered so far, exactly as `repoqa score` would,
    // with the dataset already read.
    let answered = report::read_model_outputs(&fs_read_text(&outputs_path, "model outputs")?);
    if answered.outputs.is_empty() {
        eprintln!("run: no answers to score");
    } else {
        let score = ScoreArgs {
            outputs: outputs_path.clone(),
            dataset: Some(dataset_path.clone()),
            options: build.score_options(ScoreOptions {
                ignore_comments: a.eval_ignore_comments,
                ..ScoreOptions::default()
            }),
            model: Some(a.model.clone()),
            out: None,
            overwrite: true,
            train_size: None,
            eval_date: None,
            csv: None,
            skip_broken_lines: false,
            allow_repeated_tasks: false,
        };
        // Read as `repoqa score` reads it (a task answered twice is refused).
        let outputs = read_outputs(&outputs_path, false, false)?;
        crate::score::score_and_write(score, &dataset_path, &dataset, outputs)?;
    }
    if !asked.truncated.is_empty() {
        eprintln!(
            "run: WARNING: {} answer(s) came from silently truncated prompts ({}): their scores are meaningless; raise the server's context size and rerun them",
            asked.truncated.len(),
            asked.truncated.join(", ")
        );
    }
    let mut unfinished = asked.failed;
    unfinished.extend(not_asked.into_iter().map(|id| (id, "not asked".to_string())));
    if !unfinished.is_empty() {
        let tasks = unfinished.iter().map(|(id, why)| format!("{id} ({why})")).collect();
        return Err(CliError::TasksFailed { tasks });
    }
    Ok(())
}
