//! Asking models from the CoReQA page: answering the loaded questions (in
//! the three context settings, the repository picked on the page), the
//! judge's scores and the pairwise verdicts. The prompts and the items are
//! the core's (`repoqa::coreqa::{answer, judge, pairwise}`), the same the
//! CLI asks; the asking is the page's one loop (`jobs::ask`) with the Run
//! page's API settings and pace. Every line is appended to its file on the
//! page (`answers-<model>.jsonl`, `judge-<judge>.jsonl`,
//! `pairwise-<judge>-<setting>.jsonl`, as the CLI names them in its
//! examples) and saved in IndexedDB once per batch of replies, so a reload
//! keeps what arrived and the next press asks only the rest.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::coreqa::answer::{
    answer_items, answer_items_across, AnswerSetup, ContextSetting, ANSWER_RUNS,
    ANSWER_TEMPERATURE, MAX_RUNS,
};
use repoqa::coreqa::files::{read_coreqa_file, CoreqaFile};
use repoqa::coreqa::generate::{kept_issues, question_items, reference_items};
use repoqa::coreqa::issues::filter_issues;
use repoqa::coreqa::judge::{judge_items, JUDGE_TEMPERATURE};
use repoqa::coreqa::pairwise::pair_items;
use repoqa::coreqa::prefilter::{prefilter_file_name, prefilter_items, PrefilterLine};
use repoqa::coreqa::qa::questions_file_name;
use repoqa::coreqa::stability::{stability_items, StabilitySample};
use repoqa::coreqa::text_dir::split_repositories;
use repoqa::coreqa::TextFile;
use repoqa::llm::run::{BenchmarkRun, RunEvent, RunItem, RunStats};
use repoqa::llm::runlog::{plan_run, RunLog, TaskSelection};
use repoqa::llm::schedule::ScheduleConfig;
use repoqa::llm::wire::Endpoint;
use repoqa::naming;

use super::ask::{ask_all, endpoint_unchecked, pace_of, summary, AskEnd, RunSession, Sink};
use super::{tokenizer, Ctx, Job, Line, Runner};
use crate::ui::error::UiError;
use crate::ui::state::coreqa::{AskForm, AskLive, AskStep, CoreqaState, LoadedCoreqa};
use crate::ui::state::run::RunState;
use crate::ui::state::AppState;

/// The file a step's lines go to; building, `export` is the issues
/// export's file name (`acme.json` -> `acme-qa.jsonl`).
pub fn output_name(form: &AskForm, model: &str, export: Option<&str>) -> String {
    // A model's name in a file name as upstream writes it (`/` → `_slash_`).
    let m = naming::model_file_stem(model);
    match form.step {
        AskStep::Answer => format!("answers-{m}.jsonl"),
        AskStep::Judge if form.stability > 0 => format!("judge-stability-{m}.jsonl"),
        AskStep::Judge => format!("judge-{m}.jsonl"),
        AskStep::Pairwise => format!("pairwise-{m}-{}.jsonl", form.pair_setting),
        AskStep::Build => {
            let name = export.unwrap_or("issues");
            let stem = name.strip_suffix(".json").or(name.strip_suffix(".jsonl")).unwrap_or(name);
            format!("{}-qa.jsonl", naming::model_file_stem(stem))
        }
    }
}

/// Most rounds of counting a builder may take: each round counts the texts
/// the last one met for the first time, so a builder settles in two or
/// three (its texts depend on counts only where it packs to a budget).
const COUNT_ROUNDS: usize = 16;

/// What `build` makes with the token counts of the texts it asks about,
/// counted by the compute engine: a round runs `build` with the counts known
/// so far (0 for a text not yet counted, noted), the engine counts the noted
/// texts, and the round that met no new text is the answer, so what is kept
/// was made with true counts only.
async fn counted<T>(
    ctx: &Ctx,
    app: AppState,
    build: impl Fn(&mut dyn FnMut(&str) -> usize) -> Result<T, repoqa::coreqa::CoreqaError>,
) -> Result<T, UiError> {
    tokenizer::ensure_in_engine(ctx, app).await?;
    let mut known: HashMap<String, usize> = HashMap::new();
    for _ in 0..COUNT_ROUNDS {
        let mut new: Vec<String> = Vec::new();
        let mut noted: HashSet<String> = HashSet::new();
        let made = build(&mut |text: &str| match known.get(text) {
            Some(n) => *n,
            None => {
                if noted.insert(text.to_string()) {
                    new.push(text.to_string());
                }
                0
            }
        })?;
        if new.is_empty() {
            return Ok(made);
        }
        let counts = tokenizer::count_in_engine(ctx, &new, |_| Ok(())).await?;
        known.extend(new.into_iter().zip(counts));
    }
    Err(UiError::invalid(format!(
        "the prompts' token counts did not settle after {COUNT_ROUNDS} rounds of counting"
    )))
}

/// Ask the model of `st.ask` for the step it names.
pub fn start(app: AppState, rs: RunState, st: CoreqaState, runner: Runner) {
    if !rs.restored.get_untracked() {
        return runner.show(Line::Failed(
            "The Run page's saved API settings are still being read: press Ask again in a moment."
                .into(),
        ));
    }
    let form = st.ask.get_untracked();
    // Only what Ask uses is needed: the API's format, address and key (the
    // Run page's), and a model (this card's, else the Run page's).
    let mut endpoint = endpoint_unchecked(rs);
    let model = if form.model.trim().is_empty() {
        endpoint.model.trim().to_string()
    } else {
        form.model.trim().to_string()
    };
    if model.is_empty() {
        // Say where Ask would send it, and that a model must answer there:
        // a server running at that address, or a provider with a key.
        let keyed = endpoint.api_key.as_deref().is_some_and(|k| !k.trim().is_empty());
        let behind = if keyed {
            String::new()
        } else {
            " A model server must be running there (llama.cpp's server, vLLM, Ollama: set its Base URL), or give a provider's API format and API key (OpenAI, Anthropic, Google Gemini) on the Run page.".to_string()
        };
        return runner.show(Line::Failed(format!(
            "Name the model to ask in this card's model field (or on the Run page). Ask sends it to the API set on the Run page: {} at {}.{behind}",
            endpoint.provider.label(),
            endpoint.base_url_shown(),
        )));
    }
    endpoint.model = model.clone();
    if let Err(e) = endpoint.validate() {
        return runner.show(Line::Failed(format!(
            "The API's address and key, set on the Run page (API format, Base URL, API key): {e}"
        )));
    }
    match form.step {
        AskStep::Judge | AskStep::Pairwise => {
            endpoint.sampling.temperature = Some(JUDGE_TEMPERATURE)
        }
        AskStep::Answer => {
            if !(1..=MAX_RUNS).contains(&form.runs) {
                return runner.show(Line::Failed(format!(
                    "Runs: a whole number from 1 to {MAX_RUNS} (the paper samples {ANSWER_RUNS})."
                )));
            }
            match form.temperature {
                Some(t) if (0.0..=2.0).contains(&t) => endpoint.sampling.temperature = Some(t),
                _ => {
                    return runner.show(Line::Failed(format!(
                        "Temperature: a number from 0 to 2 (the paper answers at {ANSWER_TEMPERATURE})."
                    )))
                }
            }
        }
        AskStep::Build => {
            use repoqa::coreqa::generate::{MAX_QUESTION_SAMPLES, QUESTION_SAMPLES};
            if !(1..=MAX_QUESTION_SAMPLES).contains(&form.samples) {
                return runner.show(Line::Failed(format!(
                    "Question samples: a whole number from 1 to {MAX_QUESTION_SAMPLES} (default {QUESTION_SAMPLES}; 1 writes one question per issue)."
                )));
            }
        }
    }
    let (config, timeout) = match pace_of(rs) {
        Ok(p) => p,
        Err(e) => return runner.show(Line::Failed(format!("The Run page's pace: {e}"))),
    };
    if let Err(e) = super::coreqa::save_form(st) {
        leptos::logging::warn!("CoReQA settings not saved: {e}");
    }
    let export = st.export_of(&form);
    let output = output_name(&form, &model, export.as_ref().map(|(n, _)| n.as_str()));
    let what = match form.step {
        AskStep::Answer => "Answering",
        AskStep::Judge => "Judging",
        AskStep::Pairwise => "Comparing",
        AskStep::Build => "Writing questions",
    };
    let session = RunSession::now(rs);
    st.live.set(AskLive::default());
    runner.spawn(Job::new(format!("{what} with {model}")), move |ctx| async move {
        let qa = st.questions_untracked();
        if qa.is_empty() && form.step != AskStep::Build {
            return Err(UiError::invalid("Load a QA file first (or the demo)."));
        }
        let existing = st.file(&output);
        let job = Asking { ctx: &ctx, st, session, output: &output, timeout };
        match form.step {
            AskStep::Answer => {
                // Each repository the questions name, with its files: the
                // picked folder is the one repository, or holds a folder per
                // owner/name when the questions name several.
                let mut repos: Vec<(String, Vec<TextFile>)> = Vec::new();
                if form.settings.iter().any(|s| *s != ContextSetting::None) {
                    let Some(repo) = st.repo.get_untracked() else {
                        return Err(UiError::invalid(
                            "The retrieval and whole settings read the repository: pick its folder or archive first.",
                        ));
                    };
                    let names = repoqa::coreqa::qa::repositories(&qa);
                    repos = match names[..] {
                        [one] => vec![(one.to_string(), repo.dir.files.clone())],
                        _ => split_repositories(&repo.dir.files, &names).map_err(|e| {
                            UiError::invalid(format!(
                                "The questions are about {} repositories: the folder or archive holds a folder per owner/name, and {e}.",
                                names.len()
                            ))
                        })?,
                    };
                }
                let setup = AnswerSetup {
                    window: form.window,
                    runs: form.runs,
                    ..AnswerSetup::new(&model, &form.settings)
                };
                let given: Vec<(&str, &[TextFile])> =
                    repos.iter().map(|(n, f)| (n.as_str(), f.as_slice())).collect();
                let items = counted(&ctx, app, |count| {
                    if given.is_empty() {
                        answer_items(&qa, &setup, count)
                    } else {
                        answer_items_across(&qa, &given, &setup, count)
                    }
                })
                .await?;
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Answers(lines)) => {
                        lines.iter().filter(|l| l.model == model).map(|l| l.id()).collect()
                    }
                    _ => HashSet::new(),
                };
                job.ask(endpoint, config, &items, &done).await
            }
            AskStep::Judge => {
                let answers = st.answers_untracked();
                let template = form.judge_template.clone();
                let reps = form.repetitions.max(1);
                let check = (form.stability > 0).then(|| StabilitySample::of(form.stability as usize));
                let items = counted(&ctx, app, |count| match &check {
                    // The judge's stability check (Table VI), as `coreqa
                    // judge --stability N` draws and marks it.
                    Some(s) => stability_items(&qa, &answers, s, &model, &template, count),
                    None => judge_items(&qa, &answers, reps, &model, &template, count),
                }).await?;
                if items.is_empty() {
                    return Err(UiError::invalid("No answers to judge: answer the questions first (or load answers files)."));
                }
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Judgments(lines)) => {
                        lines.iter().filter(|l| l.judge == model).map(|l| l.id()).collect()
                    }
                    _ => HashSet::new(),
                };
                job.ask(endpoint, config, &items, &done).await
            }
            AskStep::Pairwise => {
                let answers = st.answers_untracked();
                let template = form.pairwise_template.clone();
                let setting = form.pair_setting;
                let items = counted(&ctx, app, |count| {
                    pair_items(&qa, &answers, setting, None, &model, &template, count)
                }).await?;
                if items.is_empty() {
                    return Err(UiError::invalid(format!(
                        "No question has answers from two models in the {setting} setting: answer with a second model first."
                    )));
                }
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Pairs(lines)) => lines
                        .iter()
                        .filter(|l| l.judge == model && l.setting == setting)
                        .map(|l| l.id())
                        .collect(),
                    _ => HashSet::new(),
                };
                job.ask(endpoint, config, &items, &done).await
            }
            AskStep::Build => {
                let Some((name, file)) = export else {
                    return Err(UiError::invalid(
                        "Load a GitHub issues export first, or fetch one below.",
                    ));
                };
                let CoreqaFile::Export(export) = &*file else {
                    return Err(UiError::invalid(format!("{name} is not an issues export.")));
                };
                let kept = filter_issues(export).kept;
                if kept.is_empty() {
                    return Err(UiError::invalid(format!(
                        "{name}: no issue passes the paper's filters (the table below says why)."
                    )));
                }
                let mut issues = kept_issues(export, &kept);
                let repository = export.repository.as_str();
                let mut verdicts: Vec<PrefilterLine> = Vec::new();
                if form.prefilter {
                    let items = counted(&ctx, app, |count| {
                        prefilter_items(repository, &model, &issues, &form.prefilter_template, count)
                    })
                    .await?;
                    let pname = prefilter_file_name(&output);
                    let written = |st: CoreqaState| match st.file(&pname).as_deref() {
                        Some(CoreqaFile::Prefilter(lines)) => lines.clone(),
                        _ => Vec::new(),
                    };
                    let done: HashSet<String> = written(st).iter().map(|v| v.id()).collect();
                    let asked = Asking { output: &pname, ..job };
                    asked.ask(endpoint.clone(), config, &items, &done).await?;
                    if !session.current() || ctx.cancelled() {
                        return Ok(());
                    }
                    verdicts = written(st);
                    repoqa::coreqa::prefilter::retain_kept(&mut issues, repository, &verdicts);
                    if issues.is_empty() {
                        ctx.done(format!("The pre-filter dropped every issue ({} verdicts in {pname}): no question to write.", verdicts.len()));
                        return Ok(());
                    }
                }
                // The paper's self-consistency, as `coreqa build --samples`:
                // the form's samples (QUESTION_SAMPLES by default).
                let samples = form.samples;
                let questions = counted(&ctx, app, |count| {
                    question_items(repository, &issues, &form.question_template, samples, count)
                }).await?;
                let qname = questions_file_name(&output);
                let written = |st: CoreqaState| match st.file(&qname).as_deref() {
                    Some(CoreqaFile::Questions(lines)) => lines.clone(),
                    _ => Vec::new(),
                };
                let done: HashSet<String> = written(st).iter().map(|q| q.id()).collect();
                let asked = Asking { output: &qname, ..job };
                let mut sampling = endpoint.clone();
                sampling.sampling.temperature =
                    Some(repoqa::coreqa::generate::question_temperature(samples, None));
                asked.ask(sampling, config, &questions, &done).await?;
                if !session.current() || ctx.cancelled() {
                    return Ok(());
                }
                let language = Some(form.language.trim()).filter(|l| !l.is_empty());
                let written = written(st);
                let mut references = counted(&ctx, app, |count| {
                    reference_items(
                        repository,
                        &issues,
                        &written,
                        samples,
                        language,
                        &form.reference_template,
                        count,
                    )
                }).await?;
                repoqa::coreqa::prefilter::mark(&mut references, &verdicts);
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Qa(items)) => items.iter().map(|q| q.id.clone()).collect(),
                    _ => HashSet::new(),
                };
                // The paper writes reference answers at 0.8 (as `coreqa build`).
                let mut endpoint = endpoint;
                endpoint.sampling.temperature = Some(repoqa::coreqa::generate::REFERENCE_TEMPERATURE);
                job.ask(endpoint, config, &references, &done).await
            }
        }
    });
}

/// One asking job: where its lines go.
#[derive(Clone, Copy)]
struct Asking<'a> {
    ctx: &'a Ctx,
    st: CoreqaState,
    session: RunSession,
    output: &'a str,
    timeout: u32,
}

impl Asking<'_> {
    /// Ask the items not in `done` with `endpoint`.
    async fn ask<T: RunItem>(
        &self,
        endpoint: Endpoint,
        config: ScheduleConfig,
        items: &[T],
        done: &HashSet<String>,
    ) -> Result<(), UiError> {
        let ids: Vec<String> = items.iter().map(RunItem::task_id).collect();
        let plan =
            plan_run(&ids, |id| done.contains(id), &RunLog::default(), &TaskSelection::default());
        let (ctx, output) = (self.ctx, self.output);
        if plan.todo.is_empty() {
            ctx.done(format!("Nothing to ask: {output} holds all {} already.", ids.len()));
            return Ok(());
        }
        let total = plan.todo.len();
        ctx.progress(
            format!(
                "Asking {} for {output}: {total} request(s), {} answered before",
                endpoint.model, plan.finished
            ),
            0,
            total,
        );
        self.st.live.update(|l| l.output = output.to_string());
        let seed = js_sys::Date::now() as u64;
        let mut run = BenchmarkRun::new(endpoint, items, &plan.todo, config, seed);
        let mut sink = FileSink {
            st: self.st,
            session: self.session,
            output,
            pending: String::new(),
            pending_log: String::new(),
        };
        if ask_all(ctx, &mut run, self.timeout, &mut sink).await == AskEnd::Superseded {
            ctx.done("Ended by New session: nothing more was stored.");
            return Ok(());
        }
        let summary = summary(&run);
        if let Some(reason) = self.st.live.with_untracked(|l| l.stopped.clone()) {
            return Err(UiError::invalid(format!(
                "Stopped: {reason}. ({summary}; what arrived is kept in {output}: fix it and press Ask to ask the rest.)"
            )));
        }
        if self.ctx.cancelled() {
            ctx.done(format!("Cancelled: {summary}. Press Ask to ask the rest."));
        } else {
            ctx.done(format!("Done: {summary}; the lines are in {output}."));
        }
        Ok(())
    }
}

/// Where a CoReQA run's events go: the lines of its file on the page.
struct FileSink<'a> {
    st: CoreqaState,
    session: RunSession,
    output: &'a str,
    /// Lines of this batch, not yet in the file.
    pending: String,
    /// Run-log records of this batch, not yet in the file's log.
    pending_log: String,
}

impl Sink for FileSink<'_> {
    fn session(&self) -> RunSession {
        self.session
    }

    fn stats(&mut self, stats: RunStats) {
        self.st.live.update(|l| l.stats = stats);
    }

    fn event(&mut self, event: RunEvent) {
        match event {
            RunEvent::Answered { output_line, record, .. } => {
                self.pending.push_str(&output_line);
                self.pending_log.push_str(&record.line());
            }
            RunEvent::Failed { record, .. } => {
                self.pending_log.push_str(&record.line());
                let reason = record.reason.clone().unwrap_or_default();
                self.st.live.update(|l| l.failed.push((record.task_id, reason)));
            }
            RunEvent::Retrying { reason, .. } => {
                self.st.live.update(|l| l.last_retry = Some(reason))
            }
            RunEvent::Stopped { reason } => self.st.live.update(|l| {
                l.stopped.get_or_insert(reason);
            }),
            RunEvent::Ignored => {}
        }
    }

    async fn store(&mut self) {
        if self.pending.is_empty() && self.pending_log.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.pending);
        let log = std::mem::take(&mut self.pending_log);
        let name = self.output.to_string();
        self.st.logs.update(|logs| logs.entry(name.clone()).or_default().push_str(&log));
        // Only failures: the log changed, not the file (a log is kept with
        // its file, so one without a file yet stays in memory).
        let read = if lines.is_empty() {
            Ok(())
        } else {
            let mut text = self.st.file_text(&name).unwrap_or_default();
            text.push_str(&lines);
            read_coreqa_file(text.as_bytes(), &name).map(|file| {
                self.st.add(LoadedCoreqa { name, text: text.into(), file: Arc::new(file) });
            })
        };
        let stored = match read {
            Ok(()) => super::coreqa::save(self.st).await,
            Err(e) => Err(e.into()),
        };
        if let Err(e) = stored {
            self.st.live.update(|l| l.save_error = Some(e.to_string()));
        }
    }
}
