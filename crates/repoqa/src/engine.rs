//! The compute engine as requests and replies: what needs the grammars or
//! the tokenizer (building tasks, counting tokens, a prompt's anatomy and
//! audit, scoring a reply, explaining a similarity, the self-check), asked
//! for in messages. The web app's page never links this code's
//! callees: it sends a [`Request`] (JSON) to its engine worker, whose wasm
//! runs [`Engine::handle_json`] and sends the [`Reply`] back. The messages
//! carry the core's own types, so an answer computed in the worker is the
//! answer the CLI computes: the same functions, serialised losslessly
//! (floats round-trip exactly).
//!
//! The engine keeps what many requests share: the last
//! [`KEPT_DATASETS`] datasets (by the id their sender gave them, so a
//! request says which it was meant for; the oldest goes when another
//! comes, and a sender that keeps the same count in the same order always
//! knows which are held) and one tokenizer.

use serde::{Deserialize, Serialize};

use crate::api::callpath::{CallPathPlan, CallPathResult, Shortfall};
use crate::callpath::score::CallPathScores;
use crate::callpath::task::{CallPathOutput, CallPathTask};
use crate::code::selfcheck::{GrammarCheck, TokenizerCheck};
use crate::code::tokenize::Tokenizer;
use crate::curate::{CurateError, CurateOptions, CurateReport, Curation, Descriptions, SourceFile};
use crate::exercise::Choice;
use crate::input::dataset::Dataset;
use crate::prompt::anatomy::Anatomy;
use crate::prompt::audit::TaskAudit;
use crate::prompt::context::CommentMode;
use crate::prompt::settings::BuildSettings;
use crate::report::ModelOutput;
use crate::report::Task;
use crate::review::verify::Differing;
use crate::scoring::score::{Evaluation, Explanation, ScoreOptions, Scorer};
use crate::step::Stepper;

/// The engine's own errors (defined with the core's [`crate::Error`], so
/// the error module does not import the engine).
pub use crate::error::EngineError;

/// What the engine is asked to compute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The six grammars, and the tokenizer if the engine has one.
    SelfCheck,
    /// `Scorer::evaluate` of each output against dataset `dataset`.
    Evaluate { dataset: u32, options: ScoreOptions, outputs: Vec<ModelOutput> },
    /// `Scorer::explain` of one output's similarity to candidate `name` at `path`.
    Explain {
        dataset: u32,
        options: ScoreOptions,
        output: Box<ModelOutput>,
        name: String,
        path: String,
    },
    /// The tokenizer's origin and vocabulary (it was read when it came).
    TokenizerInfo,
    /// Token counts of `texts`, in order.
    Count { texts: Vec<String> },
    /// The tasks of one repo's share of a build (`api::build`), as JSON
    /// lines.
    Build { share: Box<crate::api::build::BuildShare> },
    /// `task` built again with `settings` at another depth and window
    /// (`repoqa prompts --position-ratio R --code-context-size S`).
    Rebuild { dataset: u32, settings: BuildSettings, task: Box<Task>, at: Placement },
    /// The anatomy of `task` (or of it rebuilt `at`), with its audit.
    Anatomy { dataset: u32, settings: BuildSettings, task: Box<Task>, at: Option<Placement> },
    /// The audit of each task, built with `settings`' comment mode.
    Audit { dataset: u32, settings: BuildSettings, tasks: Vec<Task> },
    /// Where `task`'s needle is in its context (`mode` tried first, then
    /// the other comment modes) and the audit in `mode`: the task view.
    Locate { dataset: u32, mode: CommentMode, task: Box<Task> },
    /// `verify::best_options`: which other scoring options explain the
    /// records a re-scoring found differing.
    BestOptions { dataset: u32, differing: Box<Differing> },
    /// `exercise::choices`: the functions a student can pick in `task`.
    Choices { dataset: u32, task: Box<Task> },
    /// `curate`: a repository curated from the files given with the
    /// request ([`Inputs::files`]), a file of the function analysis at a
    /// time, with progress.
    Curate { job: Box<CurateJob> },
    /// The call-path tasks (NOT UPSTREAM) `plan` builds from dataset
    /// `dataset` (`api::callpath`), progress a repository at a time.
    CallPathBuild { dataset: u32, plan: Box<CallPathPlan> },
    /// `outputs` (call-path tasks with their replies) judged against
    /// dataset `dataset`'s call graphs and scored (`api::callpath`).
    CallPathScore { dataset: u32, outputs: Vec<CallPathOutput> },
    /// A call-path task's prompt as bands, its path's functions marked
    /// (`api::callpath::anatomy`), against dataset `dataset`.
    CallPathAnatomy { dataset: u32, task: Box<CallPathTask> },
}

/// What comes with a request besides its JSON: bytes (a curation's files)
/// and where progress goes. The page's worker hands both over with every
/// call; most requests use neither.
pub struct Inputs<'a> {
    pub files: &'a [SourceFile],
    pub progress: &'a mut dyn FnMut(usize, usize),
}

/// Where a needle is in a task's code context: a byte range, and the
/// comment mode whose cleaning of the needle found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    pub start: usize,
    pub end: usize,
    pub mode: CommentMode,
}

/// A depth and a window to build a task at.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub position_ratio: f64,
    pub code_context_size: usize,
}

/// The engine's answer to a [`Request`], variant for variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Reply {
    SelfCheck {
        grammars: Vec<GrammarCheck>,
        /// `None`: the engine has no tokenizer; `Err`: it could not count.
        tokenizer: Option<Result<TokenizerCheck, String>>,
    },
    /// One result per output, in order; an `Err` is that output's
    /// `ScoreError`, as its message.
    Evaluate {
        evaluations: Vec<Result<Evaluation, String>>,
    },
    Explain {
        explanation: Result<Option<Box<Explanation>>, String>,
    },
    TokenizerInfo {
        origin: String,
        vocab_size: usize,
    },
    Count {
        counts: Vec<usize>,
    },
    /// The tasks built (JSON lines, in order), and the error that stopped
    /// the share after them, if one did.
    Build {
        tasks: Vec<String>,
        error: Option<String>,
    },
    Rebuild {
        task: Box<Task>,
    },
    /// `task`: the one shown (rebuilt, if asked).
    Anatomy {
        task: Box<Task>,
        anatomy: Anatomy,
        audit: Option<TaskAudit>,
    },
    /// One audit per task that could be located, in task order.
    Audit {
        audits: Vec<TaskAudit>,
    },
    Locate {
        needle: Option<Located>,
        audit: Option<TaskAudit>,
    },
    BestOptions {
        best: Option<(usize, ScoreOptions)>,
    },
    Choices {
        choices: Vec<Choice>,
    },
    Curate {
        report: Box<CurateReport>,
    },
    /// The tasks, in the plan's order, and each repository that gave fewer.
    CallPathBuild {
        tasks: Vec<CallPathTask>,
        shortfalls: Vec<Shortfall>,
    },
    CallPathScore {
        scores: Box<CallPathScores>,
        results: Vec<CallPathResult>,
    },
    CallPathAnatomy {
        anatomy: Anatomy,
    },
}

/// How many datasets the engine holds at once (a loaded dataset, a
/// curated one, one being replaced while a request about it is still
/// waiting).
pub const KEPT_DATASETS: usize = 3;

/// The engine's state between requests.
#[derive(Default)]
pub struct Engine {
    /// Oldest first, at most [`KEPT_DATASETS`].
    datasets: Vec<(u32, Dataset)>,
    tokenizer: Option<Tokenizer>,
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Take the dataset file `bytes` (as its sender read it) as dataset
    /// `id`. The oldest held goes first when [`KEPT_DATASETS`] are held,
    /// whether or not these bytes read (so a sender counting sends knows
    /// what is held).
    pub fn set_dataset(&mut self, id: u32, bytes: &[u8], origin: &str) -> Result<(), crate::Error> {
        self.datasets.retain(|(held, _)| *held != id);
        if self.datasets.len() >= KEPT_DATASETS {
            self.datasets.remove(0);
        }
        let dataset = Dataset::from_bytes(bytes, origin)?;
        self.datasets.push((id, dataset));
        Ok(())
    }

    /// The ids of the datasets held, oldest first.
    pub fn dataset_ids(&self) -> Vec<u32> {
        self.datasets.iter().map(|(id, _)| *id).collect()
    }

    /// Take the tokenizer file `bytes`.
    pub fn set_tokenizer(&mut self, bytes: &[u8], origin: &str) -> Result<(), crate::Error> {
        self.tokenizer = Some(Tokenizer::from_json_bytes(bytes, origin)?);
        Ok(())
    }

    pub fn tokenizer(&self) -> Result<&Tokenizer, EngineError> {
        self.tokenizer.as_ref().ok_or(EngineError::NoTokenizer)
    }

    fn dataset(&self, asked: u32) -> Result<&Dataset, EngineError> {
        self.datasets
            .iter()
            .find(|(id, _)| *id == asked)
            .map(|(_, d)| d)
            .ok_or_else(|| EngineError::NoDataset { asked, held: self.dataset_ids() })
    }

    /// `task` built again with `settings` at `at`'s depth and window.
    fn build_at(
        &self,
        dataset: &Dataset,
        settings: &BuildSettings,
        task: &Task,
        at: Placement,
    ) -> Result<crate::prompt::context::PlacedTask, crate::Error> {
        let spec = crate::prompt::context::spec_of(dataset, task).ok_or_else(|| {
            EngineError::NoSuchNeedle {
                name: task.name.clone(),
                path: task.path.clone(),
                repo: task.repo.clone(),
            }
        })?;
        let settings =
            BuildSettings { code_context_size: at.code_context_size, ..settings.clone() };
        Ok(settings
            .builder(dataset, self.tokenizer()?)
            .at_position_ratio(Some(at.position_ratio))
            .build_placed(&spec)?)
    }

    /// Compute what `request` asks for (with no bytes beside it).
    pub fn handle(&mut self, request: Request) -> Result<Reply, crate::Error> {
        self.handle_with(request, Inputs { files: &[], progress: &mut |_, _| {} })
    }

    /// Compute what `request` asks for with `inputs`: the one entry point
    /// of the engine, whichever worker calls it.
    pub fn handle_with(
        &mut self,
        request: Request,
        inputs: Inputs<'_>,
    ) -> Result<Reply, crate::Error> {
        Ok(match request {
            Request::Curate { job } => {
                if inputs.files.is_empty() {
                    return Err(EngineError::BadRequest(
                        "a curation came without the repository's files".into(),
                    )
                    .into());
                }
                Reply::Curate { report: Box::new(curate(inputs.files, &job, inputs.progress)?) }
            }
            Request::CallPathBuild { dataset, plan } => {
                let d = self.dataset(dataset)?;
                let repos = plan.check(d)?;
                let built = plan.build(d, &repos, self.tokenizer()?, inputs.progress)?;
                Reply::CallPathBuild { tasks: built.tasks, shortfalls: built.shortfalls }
            }
            Request::CallPathScore { dataset, outputs } => {
                let d = self.dataset(dataset)?;
                let (scores, results) =
                    crate::api::callpath::score_outputs(d, &outputs, "the page's answers")?;
                Reply::CallPathScore { scores: Box::new(scores), results }
            }
            Request::CallPathAnatomy { dataset, task } => {
                let d = self.dataset(dataset)?;
                let anatomy = crate::api::callpath::anatomy(d, &task, self.tokenizer()?)?;
                Reply::CallPathAnatomy { anatomy }
            }
            Request::TokenizerInfo => {
                let t = self.tokenizer()?;
                Reply::TokenizerInfo { origin: t.origin.clone(), vocab_size: t.vocab_size() }
            }
            Request::Count { texts } => {
                let t = self.tokenizer()?;
                let counts = texts.iter().map(|x| t.count(x)).collect::<Result<Vec<_>, _>>()?;
                Reply::Count { counts }
            }
            Request::Build { share } => {
                let mut tasks = Vec::new();
                let built = crate::api::build::build_share(&share, self.tokenizer()?, |json| {
                    tasks.push(json)
                });
                Reply::Build { tasks, error: built.err().map(|e| e.error.to_string()) }
            }
            Request::Rebuild { dataset, settings, task, at } => {
                let d = self.dataset(dataset)?;
                Reply::Rebuild { task: Box::new(self.build_at(d, &settings, &task, at)?.task) }
            }
            Request::Anatomy { dataset, settings, task, at } => {
                let d = self.dataset(dataset)?;
                let mode = settings.comment_mode;
                let (task, needle) = match at {
                    Some(at) => {
                        let placed = self.build_at(d, &settings, &task, at)?;
                        (placed.task, Some(placed.needle))
                    }
                    None => (*task, None),
                };
                let needle = needle
                    .or_else(|| {
                        crate::prompt::context::locate_needle_any_mode(d, &task, mode)
                            .map(|(r, _)| r)
                    })
                    .ok_or(EngineError::NeedleNotFound)?;
                let audit = task
                    .protocol
                    .has_context()
                    .then(|| crate::prompt::audit::locate::audit_built_task(d, &task, mode))
                    .flatten();
                let findings = audit.as_ref().map(|a| a.findings.as_slice()).unwrap_or(&[]);
                let anatomy = crate::prompt::anatomy::anatomy(
                    &task,
                    needle,
                    findings,
                    Some(d),
                    self.tokenizer()?,
                )?;
                Reply::Anatomy { task: Box::new(task), anatomy, audit }
            }
            Request::Audit { dataset, settings, tasks } => {
                let d = self.dataset(dataset)?;
                let audits = crate::prompt::audit::locate::audit_built_tasks(
                    d,
                    &tasks,
                    settings.comment_mode,
                );
                Reply::Audit { audits }
            }
            Request::Locate { dataset, mode, task } => {
                let d = self.dataset(dataset)?;
                let needle = crate::prompt::context::locate_needle_any_mode(d, &task, mode)
                    .map(|(r, mode)| Located { start: r.start, end: r.end, mode });
                let audit = crate::prompt::audit::locate::audit_built_task(d, &task, mode);
                Reply::Locate { needle, audit }
            }
            Request::BestOptions { dataset, differing } => {
                let d = self.dataset(dataset)?;
                Reply::BestOptions { best: crate::review::verify::best_options(&differing, d) }
            }
            Request::Choices { dataset, task } => {
                let d = self.dataset(dataset)?;
                Reply::Choices { choices: crate::exercise::choices(d, &task) }
            }
            Request::SelfCheck => Reply::SelfCheck {
                grammars: crate::code::selfcheck::check_all_grammars(),
                tokenizer: self
                    .tokenizer
                    .as_ref()
                    .map(|t| crate::code::selfcheck::check_tokenizer(t).map_err(|e| e.to_string())),
            },
            Request::Evaluate { dataset, options, outputs } => {
                let mut scorer = Scorer::new(self.dataset(dataset)?, options);
                let evaluations =
                    outputs.iter().map(|o| scorer.evaluate(o).map_err(|e| e.to_string())).collect();
                Reply::Evaluate { evaluations }
            }
            Request::Explain { dataset, options, output, name, path } => {
                let mut scorer = Scorer::new(self.dataset(dataset)?, options);
                Reply::Explain {
                    explanation: scorer
                        .explain(&output, &name, &path)
                        .map(|e| e.map(Box::new))
                        .map_err(|e| e.to_string()),
                }
            }
        })
    }

    /// [`Engine::handle`] of a JSON request, the reply as JSON; an error
    /// (the request unreadable, no dataset, …) as its message.
    pub fn handle_json(&mut self, request: &str) -> Result<String, String> {
        self.handle_json_with(request, Inputs { files: &[], progress: &mut |_, _| {} })
    }

    /// [`Engine::handle_with`] of a JSON request, the reply as JSON.
    pub fn handle_json_with(
        &mut self,
        request: &str,
        inputs: Inputs<'_>,
    ) -> Result<String, String> {
        let request: Request = serde_json::from_str(request)
            .map_err(|e| EngineError::BadRequest(e.to_string()).to_string())?;
        let reply = self.handle_with(request, inputs).map_err(|e| e.to_string())?;
        // The reply's types are strings, numbers and lists: serialising cannot fail.
        serde_json::to_string(&reply).map_err(|e| e.to_string())
    }
}

/// A curation the page asks of an engine worker of its own (one worker a
/// curation, so Cancel can stop it): the options and descriptions as JSON,
/// the repository's files beside them as bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurateJob {
    pub options: CurateOptions,
    pub descriptions: Descriptions,
}

/// Curate `files` as `job` says, a file of the function analysis at a
/// time, calling `progress(done, total)` after each: the report
/// [`crate::curate::curate_repo`] gives.
pub fn curate(
    files: &[SourceFile],
    job: &CurateJob,
    mut progress: impl FnMut(usize, usize),
) -> Result<CurateReport, CurateError> {
    let mut curation = Curation::new(files, &job.options, &job.descriptions);
    while !curation.step(1)?.is_done() {
        let (done, total) = curation.progress();
        progress(done, total);
    }
    curation.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> (Engine, Dataset) {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../public/demo/repoqa-demo.json"
        ))
        .expect("the demo dataset");
        let mut engine = Engine::new();
        engine.set_dataset(7, &bytes, "demo").expect("the demo reads");
        (engine, Dataset::from_bytes(&bytes, "demo").expect("the demo reads"))
    }

    /// Several datasets are held by id, the oldest going first; a request
    /// about one no longer held says which are.
    #[test]
    fn datasets_are_kept_by_id_oldest_going_first() {
        let (mut engine, dataset) = demo();
        let bytes = dataset.to_json_string();
        for id in 8..=(7 + KEPT_DATASETS as u32) {
            engine.set_dataset(id, bytes.as_bytes(), "demo").expect("the demo reads");
        }
        let held: Vec<u32> = (8..=(7 + KEPT_DATASETS as u32)).collect();
        assert_eq!(engine.dataset_ids(), held);
        assert!(engine.dataset(8).is_ok());
        let err = engine.dataset(7).expect_err("7 went first");
        assert!(matches!(err, EngineError::NoDataset { asked: 7, .. }), "{err}");
        // Bytes that do not read still push the oldest out.
        assert!(engine.set_dataset(99, b"{", "broken").is_err());
        assert_eq!(engine.dataset_ids(), held[1..].to_vec());
    }

    /// A reply through JSON equals the scorer's own, float for float.
    #[test]
    fn evaluate_through_json_equals_the_scorer() {
        let (mut engine, dataset) = demo();
        let lang = dataset.languages.keys().next().expect("a language").clone();
        let repo = &dataset.repos(&lang).expect("repos")[0];
        let needle = &repo.needles[0];
        let text = format!(
            "{{\"language\":{lang:?},\"repo\":{:?},\"name\":{:?},\"output\":[\"```\\nnot it\\n```\"],\"position_ratio\":0.5,\"needle_token_start\":1,\"needle_token_end\":2}}",
            repo.repo, needle.name
        );
        let outputs = crate::report::read_model_outputs(&text).outputs;
        assert_eq!(outputs.len(), 1);
        let options = ScoreOptions::default();
        let request = Request::Evaluate { dataset: 7, options, outputs: outputs.clone() };
        let json = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap();
        let Reply::Evaluate { evaluations } = serde_json::from_str(&json).unwrap() else {
            panic!("not an Evaluate reply: {json}")
        };
        let direct = Scorer::new(&dataset, options).evaluate(&outputs[0]).unwrap();
        assert_eq!(evaluations, vec![Ok(direct)]);
    }

    /// Call-path tasks built and scored through the engine's JSON equal the
    /// api's own: the page's answers score as the CLI's.
    #[test]
    fn call_path_build_and_score_through_json_equal_the_api() {
        let (mut engine, dataset) = with_tokenizer();
        let plan = CallPathPlan::new(2048);
        let request = Request::CallPathBuild { dataset: 7, plan: Box::new(plan.clone()) };
        let json = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap();
        let Reply::CallPathBuild { tasks, shortfalls } = serde_json::from_str(&json).unwrap()
        else {
            panic!("not a CallPathBuild reply")
        };
        let repos = plan.check(&dataset).unwrap();
        let tok = engine.tokenizer().unwrap();
        let direct = plan.build(&dataset, &repos, tok, |_, _| {}).unwrap();
        assert_eq!((tasks.clone(), shortfalls), (direct.tasks, direct.shortfalls));
        assert!(tasks.len() > 10);
        let outputs: Vec<CallPathOutput> = tasks
            .into_iter()
            .map(|task| {
                let reply =
                    if task.path.is_empty() { "NO PATH".into() } else { task.path.join(" -> ") };
                CallPathOutput { task, output: vec![reply] }
            })
            .collect();
        let request = Request::CallPathScore { dataset: 7, outputs };
        let json = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap();
        let Reply::CallPathScore { scores, results } = serde_json::from_str(&json).unwrap() else {
            panic!("not a CallPathScore reply")
        };
        assert_eq!(scores.overall.pass_at_1, Some(100.0));
        assert!(results.iter().all(|r| r.verdict.passed()));
        // A plan that cannot be built says why, as the CLI does.
        let bad = CallPathPlan { code_context_size: 0, ..CallPathPlan::new(2048) };
        let request = Request::CallPathBuild { dataset: 7, plan: Box::new(bad) };
        let err = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap_err();
        assert!(err.contains("context size"), "{err}");
    }

    fn with_tokenizer() -> (Engine, Dataset) {
        let (mut engine, dataset) = demo();
        let bytes =
            std::fs::read(crate::code::tokenize::test_tokenizer_path()).expect("the tokenizer");
        engine.set_tokenizer(&bytes, "tokenizer.json").expect("the tokenizer reads");
        (engine, dataset)
    }

    fn through_json(engine: &mut Engine, request: &Request) -> Reply {
        let json = engine.handle_json(&serde_json::to_string(request).unwrap()).unwrap();
        serde_json::from_str(&json).unwrap()
    }

    /// A build share, an anatomy and a count through JSON equal the core's own.
    #[test]
    fn build_anatomy_and_count_through_json_equal_the_core() {
        let (mut engine, dataset) = with_tokenizer();
        let tok = crate::code::tokenize::test_tokenizer();
        let settings = BuildSettings::default();
        let specs = settings.task_specs(&dataset).unwrap();
        let plan = crate::api::build::BuildPlan::new(settings.clone());
        let share = plan.shares(&dataset, &specs).remove(0).share;
        let mut direct = Vec::new();
        crate::api::build::build_share(&share, tok, |j| direct.push(j)).unwrap();
        let Reply::Build { tasks, error } =
            through_json(&mut engine, &Request::Build { share: Box::new(share) })
        else {
            panic!("not a Build reply")
        };
        assert_eq!((tasks.clone(), error), (direct, None));

        let task: Task = serde_json::from_str(&tasks[0]).unwrap();
        let request = Request::Anatomy {
            dataset: 7,
            settings: settings.clone(),
            task: Box::new(task.clone()),
            at: None,
        };
        let Reply::Anatomy { task: shown, anatomy, .. } = through_json(&mut engine, &request)
        else {
            panic!("not an Anatomy reply")
        };
        let needle =
            crate::prompt::context::locate_needle_any_mode(&dataset, &task, settings.comment_mode)
                .unwrap()
                .0;
        let audit =
            crate::prompt::audit::locate::audit_built_task(&dataset, &task, settings.comment_mode);
        let findings = audit.as_ref().map(|a| a.findings.as_slice()).unwrap_or(&[]);
        assert_eq!(*shown, task);
        assert_eq!(
            anatomy,
            crate::prompt::anatomy::anatomy(&task, needle.clone(), findings, Some(&dataset), tok)
                .unwrap()
        );

        let mode = settings.comment_mode;
        let request = Request::Locate { dataset: 7, mode, task: Box::new(task.clone()) };
        let Reply::Locate { needle: at, audit: audited } = through_json(&mut engine, &request)
        else {
            panic!("not a Locate reply")
        };
        assert_eq!(at, Some(Located { start: needle.start, end: needle.end, mode }));
        assert_eq!(audited, audit);
        let request = Request::Choices { dataset: 7, task: Box::new(task.clone()) };
        let Reply::Choices { choices } = through_json(&mut engine, &request) else {
            panic!("not a Choices reply")
        };
        assert_eq!(choices, crate::exercise::choices(&dataset, &task));
        assert!(!choices.is_empty());

        let texts = vec![task.prompt(), String::new()];
        let Reply::Count { counts } =
            through_json(&mut engine, &Request::Count { texts: texts.clone() })
        else {
            panic!("not a Count reply")
        };
        assert_eq!(counts, texts.iter().map(|t| tok.count(t).unwrap()).collect::<Vec<_>>());
    }

    #[test]
    fn a_request_for_another_dataset_is_refused() {
        let (mut engine, _) = demo();
        let request =
            Request::Evaluate { dataset: 8, options: ScoreOptions::default(), outputs: vec![] };
        let err = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap_err();
        assert!(err.contains("dataset 8 this request was made for (it holds [7])"), "{err}");
        assert!(Engine::new()
            .handle_json("{\"op\":\"nope\"}")
            .unwrap_err()
            .contains("could not read"));
    }

    #[test]
    fn self_check_passes_and_says_when_there_is_no_tokenizer() {
        let Reply::SelfCheck { grammars, tokenizer } =
            Engine::new().handle(Request::SelfCheck).unwrap()
        else {
            panic!("not a SelfCheck reply")
        };
        assert_eq!(grammars.len(), 6);
        assert!(grammars.iter().all(GrammarCheck::ok));
        assert!(tokenizer.is_none());
    }

    /// A curation through JSON (the job in, the report back) equals
    /// `curate_repo`'s, on a repository of the demo given back as files.
    #[test]
    fn curate_through_json_equals_the_core() {
        let (_, dataset) = demo();
        let (lang, repos) = dataset.languages.iter().next().expect("a language");
        let repo = &repos[0];
        let files: Vec<SourceFile> =
            repo.content.iter().map(|(p, t)| SourceFile::new(p.clone(), t.as_bytes())).collect();
        let language: crate::code::lang::Language = lang.parse().expect("a known language");
        let descriptions: Descriptions =
            repo.needles.iter().map(|n| (n.name.clone(), n.description.clone())).collect();
        let job = CurateJob { options: CurateOptions::new(language, &repo.repo), descriptions };
        let job: CurateJob =
            serde_json::from_str(&serde_json::to_string(&job).unwrap()).expect("the job reads");
        // The engine's one entry point: the request as JSON, the files and
        // a progress callback beside it, the reply as JSON.
        let mut seen = Vec::new();
        let request =
            serde_json::to_string(&Request::Curate { job: Box::new(job.clone()) }).unwrap();
        let mut engine = Engine::new();
        let mut progress = |d, t| seen.push((d, t));
        let reply = engine
            .handle_json_with(&request, Inputs { files: &files, progress: &mut progress })
            .expect("it curates");
        let Reply::Curate { report: back } = serde_json::from_str(&reply).expect("it reads") else {
            panic!("not a curation's reply: {reply:.200}")
        };
        let e = engine.handle_json(&request).expect_err("no files");
        assert!(e.contains("a curation came without the repository's files"), "{e}");
        let direct =
            crate::curate::curate_repo(&files, &job.options, &job.descriptions).expect("curates");
        // Equal as written (a read-back record also knows its key order).
        let written = |r: &CurateReport| serde_json::to_string(r).unwrap();
        assert_eq!(written(&back), written(&direct));
        let back = *back;
        assert_eq!((&back.warnings, &back.stats), (&direct.warnings, &direct.stats));
        assert!(!back.repo.needles.is_empty());
        assert_eq!(seen.last().map(|(d, t)| d == t), Some(true), "{seen:?}");
    }

    /// Which options explain differing records: through JSON equal to
    /// `verify::best_options`, and it finds comments ignored where they were.
    #[test]
    fn best_options_through_json_equal_the_core() {
        let (mut engine, dataset) = demo();
        let lang = dataset.languages.keys().next().expect("a language").clone();
        let repo = &dataset.repos(&lang).expect("repos")[0];
        let needle = &repo.needles[0];
        let code = repo
            .reference_text(&needle.path, needle.start_line, needle.end_line)
            .expect("the needle's code");
        let reply = format!("```\n# a comment the model added\n# and another one\n{code}\n```");
        let line = serde_json::json!({
            "language": lang, "repo": repo.repo, "name": needle.name, "output": [reply],
            "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2,
        });
        let output = crate::report::read_model_outputs(&line.to_string()).outputs.remove(0);
        let ignoring = ScoreOptions { ignore_comments: true, ..ScoreOptions::default() };
        let scored = Scorer::new(&dataset, ignoring).evaluate(&output).unwrap();
        let record = crate::scoring::score::task_result(&output, &scored);
        let differing = Differing {
            model: "m".into(),
            given: ScoreOptions::default(),
            tasks: vec![(output, crate::review::verify::Reproduce::of(&record))],
        };
        let request = Request::BestOptions { dataset: 7, differing: Box::new(differing.clone()) };
        let Reply::BestOptions { best } = through_json(&mut engine, &request) else {
            panic!("not a BestOptions reply")
        };
        assert_eq!(best, crate::review::verify::best_options(&differing, &dataset));
        assert_eq!(best, Some((1, ignoring)));
        assert!(differing.note(best).is_some());
    }
}
