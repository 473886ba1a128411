//! The CoReQA page's state: the files loaded into it (a QA set, answers,
//! judge scores, pairwise verdicts), kept while the user visits other pages
//! and saved in IndexedDB (`jobs::coreqa`), so a reload finds them.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::coreqa::answer::{AnswerLine, ContextSetting};
use repoqa::coreqa::files::CoreqaFile;
use repoqa::coreqa::judge::JudgeLine;
use repoqa::coreqa::pairwise::PairLine;
use repoqa::coreqa::qa::QaItem;
use repoqa::coreqa::text_dir::TextDir;
use repoqa::llm::run::RunStats;
use serde::{Deserialize, Serialize};

/// One loaded file: its name, its text (what is saved) and what it holds.
#[derive(Clone)]
pub struct LoadedCoreqa {
    pub name: String,
    pub text: Arc<str>,
    pub file: Arc<CoreqaFile>,
}

/// The repository the retrieval and whole settings read: every text file
/// of a folder or archive picked on the page (kept in memory only: pick it
/// again after a reload).
pub struct RepoText {
    pub dir: TextDir,
    /// What was read, for the user.
    pub summary: String,
}

/// What the "Ask a model" card asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AskStep {
    /// Answer the questions (the answering model).
    Answer,
    /// Score every answer (the judge).
    Judge,
    /// Compare two models' answers, in both orders (the judge).
    Pairwise,
    /// Write questions and reference answers from an issues export's
    /// kept issues (`repoqa coreqa build`).
    Build,
}

/// The "Ask a model" card's settings (saved in IndexedDB; the API, its key
/// and the pace are the Run page's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AskForm {
    pub step: AskStep,
    /// The model asked; empty: the Run page's.
    pub model: String,
    /// The answering settings.
    pub settings: Vec<ContextSetting>,
    /// The answering model's window in tokens (the whole setting).
    pub window: Option<usize>,
    /// Answers sampled per question and setting (`coreqa answer --runs`;
    /// 0: not a number, refused on Ask).
    pub runs: u32,
    /// The answering model's temperature (`coreqa answer --temperature`;
    /// none: not a number, refused on Ask).
    pub temperature: Option<f64>,
    /// Times each answer is judged.
    pub repetitions: u32,
    /// The judge's stability check (`coreqa judge --stability N`): answers
    /// sampled, each judged five times; 0: the judge's scores.
    pub stability: u32,
    /// Question samples per issue, the most consistent kept
    /// (`coreqa build --samples`; 0: not a number, refused on Ask).
    pub samples: u32,
    /// The setting whose answers are compared pairwise.
    pub pair_setting: ContextSetting,
    pub judge_template: String,
    pub pairwise_template: String,
    /// The issues export questions are built from (a file on the page;
    /// empty: the first).
    pub export: String,
    /// The language written into every built QA item (empty: none).
    pub language: String,
    pub question_template: String,
    pub reference_template: String,
    /// Building: the model screens each issue first (`build --prefilter`).
    pub prefilter: bool,
    pub prefilter_template: String,
}

impl Default for AskForm {
    fn default() -> AskForm {
        AskForm {
            step: AskStep::Answer,
            model: String::new(),
            settings: vec![ContextSetting::None],
            window: None,
            runs: repoqa::coreqa::answer::ANSWER_RUNS,
            temperature: Some(repoqa::coreqa::answer::ANSWER_TEMPERATURE),
            repetitions: 2,
            stability: 0,
            samples: repoqa::coreqa::generate::QUESTION_SAMPLES,
            pair_setting: ContextSetting::None,
            judge_template: repoqa::coreqa::judge::JUDGE_TEMPLATE.to_string(),
            pairwise_template: repoqa::coreqa::pairwise::PAIRWISE_TEMPLATE.to_string(),
            export: String::new(),
            language: String::new(),
            question_template: repoqa::coreqa::generate::QUESTION_TEMPLATE.to_string(),
            reference_template: repoqa::coreqa::generate::REFERENCE_TEMPLATE.to_string(),
            prefilter: false,
            prefilter_template: repoqa::coreqa::prefilter::PREFILTER_TEMPLATE.to_string(),
        }
    }
}

/// What the running (or last) ask shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AskLive {
    /// The file the lines go to.
    pub output: String,
    pub stats: RunStats,
    /// Failed requests: id and reason.
    pub failed: Vec<(String, String)>,
    pub last_retry: Option<String>,
    pub stopped: Option<String>,
    /// Lines not saved (IndexedDB refused): the last error.
    pub save_error: Option<String>,
}

#[derive(Clone, Copy)]
pub struct CoreqaState {
    pub files: RwSignal<Vec<LoadedCoreqa>>,
    pub ask: RwSignal<AskForm>,
    pub repo: RwSignal<Option<Arc<RepoText>>>,
    /// Run logs of the files asked into from the page, by file name.
    pub logs: RwSignal<std::collections::BTreeMap<String, String>>,
    pub live: RwSignal<AskLive>,
    /// The last load's outcome.
    pub status: RwSignal<Option<Result<String, String>>>,
    /// Whether the saved files were read back (once per page load).
    pub restored: RwSignal<bool>,
}

impl Default for CoreqaState {
    fn default() -> CoreqaState {
        CoreqaState::new()
    }
}

impl CoreqaState {
    pub fn new() -> CoreqaState {
        CoreqaState {
            files: RwSignal::new(Vec::new()),
            ask: RwSignal::new(AskForm::default()),
            repo: RwSignal::new(None),
            logs: RwSignal::new(Default::default()),
            live: RwSignal::new(AskLive::default()),
            status: RwSignal::new(None),
            restored: RwSignal::new(false),
        }
    }

    /// Add a file, replacing one of the same name.
    pub fn add(&self, loaded: LoadedCoreqa) {
        self.files.update(|fs| match fs.iter_mut().find(|f| f.name == loaded.name) {
            Some(f) => *f = loaded,
            None => fs.push(loaded),
        });
    }

    /// The issues export `form.export` names (the first when it names
    /// none): its file name and contents.
    pub fn export_of(&self, form: &AskForm) -> Option<(String, Arc<CoreqaFile>)> {
        self.files.with(|fs| {
            fs.iter()
                .filter(|f| matches!(*f.file, CoreqaFile::Export(_)))
                .find(|f| form.export.is_empty() || f.name == form.export)
                .map(|f| (f.name.clone(), f.file.clone()))
        })
    }

    /// The file named `name`, as read.
    pub fn file(&self, name: &str) -> Option<Arc<CoreqaFile>> {
        self.files.with_untracked(|fs| fs.iter().find(|f| f.name == name).map(|f| f.file.clone()))
    }

    /// The text of the file named `name`.
    pub fn file_text(&self, name: &str) -> Option<String> {
        self.files
            .with_untracked(|fs| fs.iter().find(|f| f.name == name).map(|f| f.text.to_string()))
    }

    /// Every question of the loaded QA files (the first of an id wins).
    pub fn questions(&self) -> Vec<QaItem> {
        self.files.track();
        self.questions_untracked()
    }

    /// [`CoreqaState::questions`], untracked (for a job).
    pub fn questions_untracked(&self) -> Vec<QaItem> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        self.files.with_untracked(|fs| {
            for f in fs {
                if let CoreqaFile::Qa(items) = &*f.file {
                    out.extend(items.iter().filter(|q| seen.insert(q.id.clone())).cloned());
                }
            }
        });
        out
    }

    pub fn answers(&self) -> Vec<AnswerLine> {
        self.files.track();
        self.answers_untracked()
    }

    /// [`CoreqaState::answers`], untracked (for a job).
    pub fn answers_untracked(&self) -> Vec<AnswerLine> {
        self.collect_untracked(
            |f| if let CoreqaFile::Answers(v) = f { v.clone() } else { Vec::new() },
        )
    }

    /// The judge's scores (the stability check's judgments left out).
    pub fn judged(&self) -> Vec<JudgeLine> {
        let mut all = self.judged_with_checks();
        all.retain(|j| j.stability_seed.is_none());
        all
    }

    /// Every judgment, the stability check's too (the report splits them).
    pub fn judged_with_checks(&self) -> Vec<JudgeLine> {
        self.collect(|f| if let CoreqaFile::Judgments(v) = f { v.clone() } else { Vec::new() })
    }

    pub fn pairs(&self) -> Vec<PairLine> {
        self.collect(|f| if let CoreqaFile::Pairs(v) = f { v.clone() } else { Vec::new() })
    }

    fn collect<T>(&self, of: impl Fn(&CoreqaFile) -> Vec<T>) -> Vec<T> {
        self.files.track();
        self.collect_untracked(of)
    }

    fn collect_untracked<T>(&self, of: impl Fn(&CoreqaFile) -> Vec<T>) -> Vec<T> {
        self.files.with_untracked(|fs| fs.iter().flat_map(|f| of(&f.file)).collect())
    }
}
