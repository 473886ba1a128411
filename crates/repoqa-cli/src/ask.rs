//! Asking a model API through the core's runner (`repoqa::llm::run`), for
//! every command that does (`repoqa run`, `repoqa coreqa answer|judge`):
//! the API flags, `--concurrency` threads sending what the runner says,
//! every reply's line appended (and what produced it to the run log beside
//! it) the moment it arrives, and a rerun resuming where the last stopped.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use repoqa::llm::reasoning::{Effort, ReasoningMode, ReasoningSettings};
use repoqa::llm::run::{BenchmarkRun, RunEvent, RunItem, RunStep};
use repoqa::llm::runlog::{self, RunLog, TaskSelection};
use repoqa::llm::schedule::{self, RunLimit, RunPace};
use repoqa::llm::wire::{self, Endpoint, Provider, Sampling, TransportError};
use repoqa::llm::{HttpReply, HttpRequest};
use repoqa::report;

use crate::error::{fs_read_text, io, At, CliError, FileOp};
use crate::http;
use crate::interrupt;
use crate::progress::{self, RunProgress};

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

/// The model API and how hard to press it: the flags of `repoqa run`
/// (upstream's names), shared by every command that asks a model.
#[derive(Args)]
pub struct ApiArgs {
    /// Model name as the API knows it (also names the outputs file).
    #[arg(long)]
    pub model: String,
    /// API format: openai (default; also vLLM, Ollama, llama.cpp, LM Studio…), anthropic, google.
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// API base URL (default: the provider's public API), e.g. http://localhost:8000/v1.
    #[arg(long)]
    pub base_url: Option<String>,
    #[arg(long, default_value_t = wire::DEFAULT_MAX_NEW_TOKENS)]
    pub max_new_tokens: u32,
    /// System message (default: none, as upstream).
    #[arg(long)]
    pub system_message: Option<String>,
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
    /// NOT UPSTREAM: ask as a reasoning model: auto (as the table of known
    /// families says: OpenAI o-series and GPT-5, Gemini 2.5 and 3, DeepSeek
    /// reasoner/R1, Qwen3, QwQ), on, or off (RepoQA's own request, for every model).
    #[arg(long, value_enum, default_value = "auto")]
    pub reasoning: ReasoningMode,
    /// NOT UPSTREAM: how hard a reasoning model thinks: sent as
    /// reasoning_effort (OpenAI format) or thinkingLevel (Gemini 3), else
    /// a thinking budget of 0 / 1,024 / 4,096 / 16,384 / 32,768 / 65,536
    /// tokens (default medium's). A value the model does not take (by the
    /// table of models) is refused before any request.
    #[arg(long, value_enum)]
    pub reasoning_effort: Option<Effort>,
    /// NOT UPSTREAM: tokens for the thinking, beside --max-new-tokens (the
    /// answer's); the request's output limit is their sum.
    #[arg(long, value_name = "N")]
    pub reasoning_budget: Option<u32>,
    /// Store each reply's content whole, as upstream does; by default an
    /// inline <think>…</think> block is taken out (NOT UPSTREAM) and kept
    /// in the run log.
    #[arg(long)]
    pub keep_reasoning: bool,
    /// NOT UPSTREAM: seconds between progress lines when stderr is not a
    /// terminal (a log); on a terminal the line is redrawn in place.
    #[arg(long, default_value_t = progress::DEFAULT_EVERY_S, value_name = "S")]
    pub progress_every: f64,
}

fn provider_of(a: &ApiArgs) -> Result<Provider, CliError> {
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

pub fn threads_stopped() -> CliError {
    CliError::usage("the request threads stopped unexpectedly")
}

/// Open `path` for appending after cutting a last line left half-written
/// by a killed run; returns the file and its complete text.
/// The file is locked for as long as it is open, so a second run on the
/// same file stops at once instead of writing the same tasks again.
pub fn open_for_append(
    label: &str,
    path: &Path,
    what: &'static str,
) -> Result<(File, String), CliError> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io(FileOp::Open, path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(CliError::usage(format!(
                "{}: another `repoqa {label}` is writing this {what} file (it is locked); wait for that run to end, or give this one another output file",
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

pub fn append(file: &mut File, line: &str, path: &Path) -> Result<(), CliError> {
    file.write_all(line.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| io(FileOp::Write, path, e))
}

type Job = (usize, HttpRequest);
type Done = (usize, Result<HttpReply, TransportError>);

/// `concurrency` threads sending what the runner says; replies come back
/// on the returned receiver.
pub fn start_workers(
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

pub fn seed() -> u64 {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    now.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}

/// The endpoint the flags describe, the key from the provider's
/// environment variables.
pub fn endpoint_of(a: &ApiArgs) -> Result<Endpoint, CliError> {
    let endpoint = endpoint_unchecked(a)?;
    let provider = endpoint.provider;
    endpoint.validate().map_err(CliError::Usage).at(format_args!("--backend {provider}"))?;
    Ok(endpoint)
}

/// [`endpoint_of`] without its checks (a key is not needed to plan a run).
pub fn endpoint_unchecked(a: &ApiArgs) -> Result<Endpoint, CliError> {
    let provider = provider_of(a)?;
    Ok(Endpoint {
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
        reasoning: ReasoningSettings {
            mode: a.reasoning,
            effort: a.reasoning_effort,
            budget: a.reasoning_budget,
            keep_reasoning: a.keep_reasoning,
        },
    })
}

/// The pacing flags, checked by the core's one rule; the error names the flag.
pub fn pace_of(a: &ApiArgs) -> Result<schedule::ScheduleConfig, CliError> {
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
pub struct RunFiles {
    pub outputs_path: PathBuf,
    outputs: File,
    runlog_path: PathBuf,
    runlog: File,
    /// The outputs file's complete lines (a cut last line is dropped).
    pub outputs_text: String,
    pub log: RunLog,
}

impl RunFiles {
    /// Open `outputs_path` (`what` it holds, for messages) and its run log.
    pub fn open(
        label: &str,
        outputs_path: PathBuf,
        what: &'static str,
    ) -> Result<RunFiles, CliError> {
        if let Some(dir) = outputs_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io(FileOp::Create, dir, e))?;
        }
        let outputs_str = outputs_path.to_string_lossy().into_owned();
        let runlog_path = PathBuf::from(runlog::runlog_path_for(&outputs_str));
        let (outputs, outputs_text) = open_for_append(label, &outputs_path, what)?;
        let (runlog, log_text) = open_for_append(label, &runlog_path, "run log")?;
        let log: RunLog = runlog::read_runlog(&log_text);
        if !log.bad_lines.is_empty() {
            eprintln!(
                "repoqa: {}: skipping unreadable line(s) {:?}",
                runlog_path.display(),
                log.bad_lines
            );
        }
        Ok(RunFiles { outputs_path, outputs, runlog_path, runlog, outputs_text, log })
    }
}

/// What an earlier run left at `outputs_path` (its complete lines) and
/// in its run log, read without creating or locking either.
pub fn peek_run_files(outputs_path: &Path) -> Result<(String, RunLog), CliError> {
    let read = |p: &Path, what: &'static str| -> Result<String, CliError> {
        if !p.exists() {
            return Ok(String::new());
        }
        let text = fs_read_text(p, what)?;
        Ok(text[..runlog::complete_prefix_len(&text)].to_string())
    };
    let outputs_text = read(outputs_path, "model outputs")?;
    let log_path = PathBuf::from(runlog::runlog_path_for(&outputs_path.to_string_lossy()));
    let log = runlog::read_runlog(&read(&log_path, "run log")?);
    Ok((outputs_text, log))
}

/// Say what a resume finds: lines answered twice, tasks answered already,
/// tasks that failed before and are asked again.
/// Warn when the server's model list lacks the model asked for (a server
/// that answers to any name would file the answers under it). Quietly
/// nothing when the server lists no models or cannot be asked.
fn check_model(label: &str, endpoint: &Endpoint) {
    let agent = http::agent(Duration::from_secs(10), 1);
    let Ok(reply) = http::get(&agent, &endpoint.models_request()) else { return };
    if !(200..300).contains(&reply.status) {
        return;
    }
    if let Some(w) = wire::read_models(&reply.body).and_then(|l| endpoint.model_warning(&l)) {
        eprintln!("{label}: WARNING: {w}");
    }
}

/// Before asking `n` `what`s ("task(s)", "request(s)"): check the server
/// ([`check_server`]) when there is something to ask, then say what will
/// be asked, where and how fast.
pub fn announce(
    label: &str,
    what: &str,
    n: usize,
    endpoint: &Endpoint,
    config: &mut schedule::ScheduleConfig,
    timeout_s: f64,
) {
    if n > 0 {
        check_server(label, endpoint, config);
    }
    eprintln!(
        "{label}: {n} {what} to ask {} {} at {} (concurrency {}, timeout {timeout_s} s)",
        endpoint.provider,
        endpoint.model.trim(),
        endpoint.base_url_shown(),
        config.concurrency,
    );
    if endpoint.thinking().is_some() {
        eprintln!("{label}: {}", endpoint.reasoning_summary());
    }
}

/// Before asking: warn about a model the server does not list
/// ([`check_model`]) and run at no more requests than it answers at a time
/// ([`check_slots`]).
fn check_server(label: &str, endpoint: &Endpoint, config: &mut schedule::ScheduleConfig) {
    check_model(label, endpoint);
    check_slots(label, endpoint, config);
}

/// Lower `config`'s concurrency to the server's slots when it says it
/// answers fewer requests at a time (llama.cpp's `/props`), saying so.
/// Quietly nothing when the server has no such route.
fn check_slots(label: &str, endpoint: &Endpoint, config: &mut schedule::ScheduleConfig) {
    let Some(props) = server_props(endpoint) else { return };
    let Some(slots) = wire::read_total_slots(&props) else { return };
    if let Some((c, why)) = endpoint.slots_limit(slots, config.concurrency) {
        config.concurrency = c;
        eprintln!("{label}: {why}");
    }
}

/// The body of a llama.cpp server's `/props`, if it has one.
pub fn server_props(endpoint: &Endpoint) -> Option<String> {
    let req = endpoint.props_request()?;
    let agent = http::agent(Duration::from_secs(10), 1);
    let reply = http::get(&agent, &req).ok()?;
    (200..300).contains(&reply.status).then_some(reply.body)
}

/// The ids of the plan's tasks an interrupted run never asked.
pub fn never_asked(plan: &runlog::ResumePlan, ids: &[String]) -> Vec<String> {
    plan.never_asked.iter().map(|&i| ids[i].clone()).collect()
}

pub fn report_plan(label: &str, plan: &runlog::ResumePlan, outputs_path: &Path, tasks: usize) {
    if !plan.duplicates.is_empty() {
        eprintln!(
            "repoqa: WARNING: {} has several lines for {:?}; the scorer counts each",
            outputs_path.display(),
            plan.duplicates
        );
    }
    if plan.finished > 0 {
        eprintln!(
            "{label}: resuming {}: {} of {tasks} tasks already answered, not asked again",
            outputs_path.display(),
            plan.finished,
        );
    }
    if !plan.never_asked.is_empty() {
        eprintln!(
            "{label}: WARNING: {} selected task(s) have no answer and were never asked (an interrupted run?); --only-failed leaves them out: rerun without it to ask them",
            plan.never_asked.len()
        );
    }
    if !plan.failed_before.is_empty() {
        eprintln!(
            "{label}: {} task(s) failed in an earlier run, asked again:",
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
pub struct Asked {
    pub failed: Vec<(String, String)>,
    pub truncated: Vec<String>,
    /// Answers that ended at the token limit.
    pub cut: Vec<String>,
    pub stopped: Option<String>,
    warned_other_model: bool,
}

impl Asked {
    /// Take one of the runner's events: write an answer and its record the
    /// moment it arrives, log a failure, say a retry or a stop (`say`: a
    /// line for the user; `again_in_s`: seconds until a retry's time).
    pub fn take(
        &mut self,
        label: &str,
        event: RunEvent,
        ids: &[String],
        files: &mut RunFiles,
        say: &dyn Fn(&str),
        again_in_s: impl Fn(f64) -> f64,
    ) -> Result<(), CliError> {
        match event {
            RunEvent::Answered { output_line, record, .. } => {
                append(&mut files.outputs, &output_line, &files.outputs_path)?;
                append(&mut files.runlog, &record.line(), &files.runlog_path)?;
                if let (Some(other), false) = (&record.answered_by, self.warned_other_model) {
                    self.warned_other_model = true;
                    let w = runlog::other_model_warning(&record.model, other, &record.task_id);
                    say(&format!("{label}: {w}"));
                }
                if record.truncated {
                    say(&format!(
                        "{label}: WARNING {}: the API counted {} prompt tokens for a {}-token task: the prompt was cut (is the server's context too small?)",
                        record.task_id,
                        record.usage.prompt_tokens.unwrap_or(0),
                        record.task_ntokens
                    ));
                    self.truncated.push(record.task_id.clone());
                }
                if record.cut {
                    say(&format!(
                        "{label}: WARNING {}: the answer was cut at the token limit (finish reason {:?}); it is stored as it came",
                        record.task_id,
                        record.finish_reason.as_deref().unwrap_or("")
                    ));
                    self.cut.push(record.task_id.clone());
                }
            }
            RunEvent::Failed { record, .. } => {
                append(&mut files.runlog, &record.line(), &files.runlog_path)?;
                let why = record.reason.clone().unwrap_or_default();
                say(&format!("{label}: FAILED {}: {why}", record.task_id));
                self.failed.push((record.task_id, why));
            }
            RunEvent::Retrying { task, at_ms, attempt, reason, lowered_to } => {
                say(&format!(
                    "{label}: {} again in {:.1} s (attempt {attempt}): {reason}",
                    ids[task],
                    again_in_s(at_ms)
                ));
                if let Some(c) = lowered_to {
                    let why = schedule::lowered_message(c);
                    say(&format!("{label}: {why} (start with --concurrency {c} to avoid this)"));
                }
            }
            RunEvent::Stopped { reason } => {
                say(&format!("{label}: STOPPED: {reason}"));
                self.stopped.get_or_insert(reason);
            }
            RunEvent::Ignored => {}
        }
        Ok(())
    }

    /// If the run stopped (a key, URL or model refused): the error saying
    /// what to fix, with `not_asked` requests left and the output kept.
    pub fn stop_error(&self, not_asked: usize, output: &Path) -> Option<CliError> {
        self.stopped.as_ref().map(|reason| {
            CliError::usage(format!(
                "the run stopped: {reason}. {not_asked} task(s) left without an answer; what came so far is kept in {}; fix it and run again to resume",
                output.display()
            ))
        })
    }

    /// Exit 3 naming every request that failed or was not asked, if any.
    /// Exit 3 (naming them) while any selected task has no answer: failed,
    /// not asked after a cancel, or `never_asked` by an interrupted run
    /// and left out by --only-failed; exit 0 only when every one has one.
    pub fn unfinished(
        self,
        not_asked: Vec<String>,
        never_asked: Vec<String>,
    ) -> Result<(), CliError> {
        let mut unfinished = self.failed;
        unfinished.extend(not_asked.into_iter().map(|id| (id, "not asked".to_string())));
        unfinished.extend(
            never_asked
                .into_iter()
                .map(|id| (id, "never asked; --only-failed left it out".to_string())),
        );
        if unfinished.is_empty() {
            return Ok(());
        }
        let tasks = unfinished.iter().map(|(id, why)| format!("{id} ({why})")).collect();
        Err(CliError::TasksFailed { tasks })
    }
}

/// Ask every task the runner has to send, on `api.concurrency` threads,
/// writing each answer and record the moment it arrives, with the
/// progress on stderr; Ctrl-C says where the answers are and how to
/// resume.
pub fn ask_all<T: RunItem>(
    label: &str,
    run: &mut BenchmarkRun<T>,
    ids: &[String],
    files: &mut RunFiles,
    api: &ApiArgs,
    total: usize,
) -> Result<Asked, CliError> {
    let mut asked = Asked::default();
    interrupt::on_ctrl_c(format!(
        "{label}: interrupted. Every answer that arrived is kept in {} (and its record in {}); run the same command again to resume: it asks only the tasks without an answer.",
        files.outputs_path.display(),
        files.runlog_path.display()
    ));
    let (job_tx, done_rx, handles) = start_workers(api.concurrency, api.timeout_s);
    let mut progress = RunProgress::new(label, total, api.progress_every);
    let t0 = Instant::now();
    let now = || t0.elapsed().as_secs_f64() * 1000.0;
    loop {
        let wait = match run.next(now()) {
            RunStep::Send { task, request, .. } => {
                if job_tx.send((task, request)).is_err() {
                    return Err(threads_stopped());
                }
                continue;
            }
            RunStep::Done => break,
            RunStep::Wait { until_ms } => {
                let due = progress.until_due();
                match until_ms {
                    Some(u) => Duration::from_secs_f64(((u - now()) / 1000.0).max(0.0)).min(due),
                    None => due,
                }
            }
        };
        let reply = match done_rx.recv_timeout(wait) {
            Ok(r) => r,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                progress.tick();
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(threads_stopped()),
        };
        let (task, result) = reply;
        let event = run.complete(task, result.as_ref(), now(), report::now_eval_date());
        let again_in_s = |at_ms: f64| ((at_ms - now()) / 1000.0).max(0.0);
        asked.take(label, event, ids, files, &|line| progress.say(line), again_in_s)?;
        progress.update(&run.stats);
    }
    progress.finish();
    interrupt::clear();
    drop(job_tx);
    for h in handles {
        let _ = h.join();
    }
    Ok(asked)
}

/// What to ask and where its lines go: a run of items (CoReQA's requests,
/// call-path tasks) into one output file and its run log.
pub struct ItemsJob<'a> {
    pub label: &'static str,
    pub api: &'a ApiArgs,
    /// Replaces the default sampling temperature when given.
    pub temperature: Option<f64>,
    pub output: &'a Path,
    /// What the output holds, for messages.
    pub what: &'static str,
    /// Which items are asked (filter, sample, `--only-failed`).
    pub selection: TaskSelection,
}

/// Ask `items` through the runner, writing to `job.output`; `answered`
/// reads the ids an existing output file already holds.
pub fn ask_items<T: RunItem>(
    job: &ItemsJob<'_>,
    items: &[T],
    answered: impl Fn(&str) -> Result<HashSet<String>, CliError>,
) -> Result<(), CliError> {
    let ItemsJob { label, api, temperature, output, what, ref selection } = *job;
    let mut config = pace_of(api)?;
    let mut endpoint = endpoint_of(api)?;
    if temperature.is_some() {
        endpoint.sampling.temperature = temperature;
    }
    let mut files = RunFiles::open(label, output.to_path_buf(), what)?;
    let done = answered(&files.outputs_text)?;
    let ids: Vec<String> = items.iter().map(RunItem::task_id).collect();
    let plan = runlog::plan_run(&ids, |id| done.contains(id), &files.log, selection);
    report_plan(label, &plan, output, items.len());
    let n = plan.todo.len();
    announce(label, "request(s)", n, &endpoint, &mut config, api.timeout_s);
    let mut run = BenchmarkRun::new(endpoint, items, &plan.todo, config, seed());
    let asked = if plan.todo.is_empty() {
        Asked::default()
    } else {
        ask_all(label, &mut run, &ids, &mut files, api, plan.todo.len())?
    };
    let not_asked: Vec<String> = run.not_asked().into_iter().map(|i| ids[i].clone()).collect();
    drop(files);
    if let Some(e) = asked.stop_error(not_asked.len(), output) {
        return Err(e);
    }
    if !asked.truncated.is_empty() {
        eprintln!(
            "{label}: WARNING: {} reply(ies) came from silently truncated prompts ({}): raise the server's context size and rerun them",
            asked.truncated.len(),
            asked.truncated.join(", ")
        );
    }
    asked.unfinished(not_asked, never_asked(&plan, &ids))
}
