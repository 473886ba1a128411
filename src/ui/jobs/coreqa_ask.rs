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

use std::collections::HashSet;
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::api::coreqa::{
    answers_file_name, judgments_file_name, pairwise_file_name, AnswerPlan, CoreqaPlanError,
    CountRounds, JudgePlan, PairwisePlan, PlanField, QaBuildPlan, Round,
};
use repoqa::coreqa::files::{read_coreqa_file, CoreqaFile};
use repoqa::coreqa::issues::filter_issues;
use repoqa::coreqa::prefilter::{prefilter_file_name, PrefilterLine};
use repoqa::coreqa::qa::questions_file_name;
use repoqa::coreqa::stability::StabilitySample;
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
    // The plans' file names (`/` in a model's name as `_slash_`).
    match form.step {
        AskStep::Answer => answers_file_name(model),
        AskStep::Judge => judgments_file_name(model, form.stability > 0),
        AskStep::Pairwise => pairwise_file_name(model, form.pair_setting),
        AskStep::Build => {
            let name = export.unwrap_or("issues");
            let stem = name.strip_suffix(".json").or(name.strip_suffix(".jsonl")).unwrap_or(name);
            format!("{}-qa.jsonl", naming::model_file_stem(stem))
        }
    }
}

/// What `build` makes with the token counts of the texts it asks about,
/// counted by the compute engine a batch at a time, in the core's rounds
/// (`CountRounds`): what is kept was made with true counts only.
async fn counted<T>(
    ctx: &Ctx,
    app: AppState,
    build: impl Fn(&mut dyn FnMut(&str) -> usize) -> Result<T, CoreqaPlanError>,
) -> Result<T, UiError> {
    tokenizer::ensure_in_engine(ctx, app).await?;
    let mut rounds = CountRounds::default();
    loop {
        let round = rounds.round(&build).map_err(|e| match e.field() {
            Some(_) => UiError::invalid(plan_refusal(e)),
            None => e.into(),
        })?;
        match round {
            Round::Made(made) => return Ok(made),
            Round::Count(texts) => {
                let counts = tokenizer::count_in_engine(ctx, &texts, |_| Ok(())).await?;
                rounds.learn(texts, counts);
            }
        }
    }
}

/// A CoReQA plan's refusal, naming the Ask card's field to change (the
/// message is the plan's, the CLI's too).
fn plan_refusal(e: CoreqaPlanError) -> String {
    let field = match e.field() {
        None => return e.to_string(),
        Some(PlanField::Model) => "Model",
        Some(PlanField::Setting) => "Settings",
        Some(PlanField::Runs) => "Runs",
        Some(PlanField::Temperature) => "Temperature",
        Some(PlanField::Window) => "Window",
        Some(PlanField::Chunks) => "Chunks",
        Some(PlanField::Repository) => "Repository",
        Some(PlanField::Repetitions) => "Repetitions",
        Some(PlanField::Stability) => "Stability check",
        Some(PlanField::Answers) => "Answers",
        Some(PlanField::Samples) => "Question samples",
        Some(PlanField::Export) => "Issues export",
    };
    format!("{field}: {e}.")
}

/// The plan of the step the Ask card names.
enum AskPlan {
    Answer(AnswerPlan),
    Judge(JudgePlan),
    Pairwise(PairwisePlan),
    Build(QaBuildPlan),
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
    // The step's plan (the CLI's `coreqa answer|judge|pairwise` make the
    // same), checked before anything is read or asked.
    let plan = match form.step {
        AskStep::Answer => AskPlan::Answer(AnswerPlan {
            model: model.clone(),
            settings: form.settings.clone(),
            runs: form.runs,
            // A blank field is no number: refused by the plan, by name.
            temperature: form.temperature.unwrap_or(f64::NAN),
            window: form.window,
            ..AnswerPlan::default()
        }),
        AskStep::Judge => AskPlan::Judge(JudgePlan {
            model: model.clone(),
            repetitions: form.repetitions,
            stability: (form.stability > 0).then(|| StabilitySample::of(form.stability as usize)),
            template: form.judge_template.clone(),
            ..JudgePlan::default()
        }),
        AskStep::Pairwise => AskPlan::Pairwise(PairwisePlan {
            model: model.clone(),
            setting: form.pair_setting,
            template: form.pairwise_template.clone(),
            ..PairwisePlan::default()
        }),
        AskStep::Build => AskPlan::Build(QaBuildPlan {
            model: model.clone(),
            samples: form.samples,
            prefilter: form.prefilter.then(|| form.prefilter_template.clone()),
            question_template: form.question_template.clone(),
            reference_template: form.reference_template.clone(),
            language: Some(form.language.clone()),
            ..QaBuildPlan::default()
        }),
    };
    let checked = match &plan {
        AskPlan::Answer(p) => p.check().map(|()| Some(p.temperature)),
        AskPlan::Judge(p) => p.check().map(|()| Some(p.temperature)),
        AskPlan::Pairwise(p) => p.check().map(|()| Some(p.temperature)),
        // Each of the build's asks sets its own temperature.
        AskPlan::Build(p) => p.check().map(|()| None),
    };
    match checked {
        Err(e) => return runner.show(Line::Failed(plan_refusal(e))),
        Ok(Some(t)) => endpoint.sampling.temperature = Some(t),
        Ok(None) => {}
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
        match plan {
            AskPlan::Answer(plan) => {
                // Each repository the questions name, with its files: the
                // picked folder is the one repository, or holds a folder per
                // owner/name when the questions name several.
                let mut repos: Vec<(String, Vec<TextFile>)> = Vec::new();
                if plan.needs_repository() {
                    let Some(repo) = st.repo.get_untracked() else {
                        return Err(UiError::invalid(plan_refusal(CoreqaPlanError::NoRepository)));
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
                let items = counted(&ctx, app, |count| plan.items(&qa, &repos, count)).await?;
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Answers(lines)) => plan.answered(lines),
                    _ => HashSet::new(),
                };
                job.ask(endpoint, config, &items, &done).await
            }
            AskPlan::Judge(plan) => {
                let answers = st.answers_untracked();
                let items = counted(&ctx, app, |count| plan.items(&qa, &answers, count)).await?;
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Judgments(lines)) => {
                        lines.iter().filter(|l| plan.is_own(l)).map(|l| l.id()).collect()
                    }
                    _ => HashSet::new(),
                };
                job.ask(endpoint, config, &items, &done).await
            }
            AskPlan::Pairwise(plan) => {
                let answers = st.answers_untracked();
                let items = counted(&ctx, app, |count| plan.items(&qa, &answers, count)).await?;
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Pairs(lines)) => {
                        lines.iter().filter(|l| plan.is_own(l)).map(|l| l.id()).collect()
                    }
                    _ => HashSet::new(),
                };
                job.ask(endpoint, config, &items, &done).await
            }
            AskPlan::Build(plan) => {
                let Some((name, file)) = export else {
                    return Err(UiError::invalid(
                        "Load a GitHub issues export first, or fetch one below.",
                    ));
                };
                let CoreqaFile::Export(export) = &*file else {
                    return Err(UiError::invalid(format!("{name} is not an issues export.")));
                };
                let mut issues = plan
                    .kept(export, &filter_issues(export), &name)
                    .map_err(|e| UiError::invalid(plan_refusal(e)))?;
                let repository = export.repository.as_str();
                let mut verdicts: Vec<PrefilterLine> = Vec::new();
                let prefilter = counted(&ctx, app, |count| plan.prefilter_items(repository, &issues, count)).await?;
                if let Some(items) = prefilter {
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
                    plan.keep_prefiltered(&mut issues, repository, &verdicts);
                    if issues.is_empty() {
                        ctx.done(format!("The pre-filter dropped every issue ({} verdicts in {pname}): no question to write.", verdicts.len()));
                        return Ok(());
                    }
                }
                // The paper's self-consistency, as `coreqa build --samples`.
                let questions = counted(&ctx, app, |count| plan.question_items(repository, &issues, count)).await?;
                let qname = questions_file_name(&output);
                let written = |st: CoreqaState| match st.file(&qname).as_deref() {
                    Some(CoreqaFile::Questions(lines)) => lines.clone(),
                    _ => Vec::new(),
                };
                let done: HashSet<String> = written(st).iter().map(|q| q.id()).collect();
                let asked = Asking { output: &qname, ..job };
                let mut sampling = endpoint.clone();
                sampling.sampling.temperature = Some(plan.question_temperature());
                asked.ask(sampling, config, &questions, &done).await?;
                if !session.current() || ctx.cancelled() {
                    return Ok(());
                }
                let written = written(st);
                let references = counted(&ctx, app, |count| {
                    plan.reference_items(repository, &issues, &written, &verdicts, count)
                }).await?;
                let done: HashSet<String> = match existing.as_deref() {
                    Some(CoreqaFile::Qa(items)) => items.iter().map(|q| q.id.clone()).collect(),
                    _ => HashSet::new(),
                };
                // The paper writes reference answers at 0.8 (as `coreqa build`).
                let mut endpoint = endpoint;
                endpoint.sampling.temperature = Some(plan.reference_temperature);
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
