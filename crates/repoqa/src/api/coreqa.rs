//! Asking models for CoReQA: writing the questions from an issues export,
//! answering them, the judge's scores and the pairwise verdicts. `repoqa
//! coreqa build|answer|judge|pairwise` map their flags to a
//! [`QaBuildPlan`], an [`AnswerPlan`], a [`JudgePlan`] or a [`PairwisePlan`],
//! the CoReQA page maps its Ask card to the same plans; both
//! [`check`](AnswerPlan::check) them (one typed error, one message; the
//! front adds where to change it, [`CoreqaPlanError::field`]), make the
//! items with the plan, and ask only those the plan's output file does not
//! hold yet ([`AnswerPlan::answered`], [`JudgePlan::judged`],
//! [`PairwisePlan::judged`]).
//!
//! Counting the prompts' tokens is the one part the fronts do their own
//! way: the CLI counts each text as the items are made (`Tokenizer::
//! counted`), the page counts in its compute engine, a batch at a time,
//! through [`CountRounds`].

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::coreqa::answer::{
    answer_items, answer_items_across, AnswerItem, AnswerLine, AnswerSetup, ContextSetting,
    ANSWER_RUNS, ANSWER_TEMPERATURE, MAX_RUNS,
};
use crate::coreqa::bm25::Bm25Tokenize;
use crate::coreqa::generate::{
    kept_issues, question_items, question_temperature, reference_items, QuestionItem, QuestionLine,
    ReferenceItem, MAX_QUESTION_SAMPLES, QUESTION_SAMPLES, QUESTION_TEMPLATE,
    REFERENCE_TEMPERATURE, REFERENCE_TEMPLATE,
};
use crate::coreqa::issues::{Comment, FilterReport, Issue, IssueExport};
use crate::coreqa::judge::{judge_items, JudgeItem, JudgeLine, JUDGE_TEMPERATURE};
use crate::coreqa::pairwise::{pair_items, PairItem, PairLine};
use crate::coreqa::prefilter::{prefilter_items, PrefilterItem, PrefilterLine};
use crate::coreqa::qa::QaItem;
use crate::coreqa::splitter::{RecursiveSplitter, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE};
use crate::coreqa::stability::{stability_items, StabilitySample};
use crate::coreqa::{CoreqaError, TextFile};
use crate::naming;

/// The highest sampling temperature a plan takes (the APIs' own limit).
pub const MAX_TEMPERATURE: f64 = 2.0;

/// Why a CoReQA plan cannot be asked, in the same words on both fronts.
#[derive(Debug, Error)]
pub enum CoreqaPlanError {
    #[error("no model is named to ask")]
    NoModel,
    #[error("no context setting is chosen (none, retrieval, whole)")]
    NoSetting,
    #[error("{0} is not a whole number from 1 to {MAX_RUNS} (the paper samples {ANSWER_RUNS})")]
    Runs(u32),
    #[error("{} is not a number from 0 to {MAX_TEMPERATURE} (the paper answers at {ANSWER_TEMPERATURE})", shown(*.0))]
    Temperature(f64),
    #[error("the whole setting needs the answering model's context window in tokens")]
    NoWindow,
    #[error("{0}")]
    Chunks(String),
    #[error("the retrieval and whole settings read the repository: its folder (or an archive of it) is needed")]
    NoRepository,
    #[error("the judge needs at least 1 repetition of each answer")]
    Repetitions,
    #[error("the stability check needs a sample of at least 1 answer")]
    StabilitySample,
    #[error("no answers to judge: answer the questions first (or give answers files)")]
    NoAnswers,
    #[error("no question has answers from two models in the {0} setting: answers of a second model are needed")]
    NoPairs(ContextSetting),
    #[error("{0} is not a whole number from 1 to {MAX_QUESTION_SAMPLES} (default {QUESTION_SAMPLES}; 1 writes one question per issue)")]
    Samples(u32),
    #[error("{0}: no issue passes the paper's filters; their report says why each was removed")]
    NoIssues(String),
    #[error(transparent)]
    Unsettled(#[from] Unsettled),
    #[error(transparent)]
    Coreqa(#[from] CoreqaError),
}

/// The setting a plan error is about, for a front to name its own flag or
/// field beside the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanField {
    Model,
    Setting,
    Runs,
    Temperature,
    Window,
    Chunks,
    Repository,
    Repetitions,
    Stability,
    Answers,
    Samples,
    Export,
}

impl CoreqaPlanError {
    /// Which setting to change, None for an error in the inputs' content.
    pub fn field(&self) -> Option<PlanField> {
        Some(match self {
            CoreqaPlanError::NoModel => PlanField::Model,
            CoreqaPlanError::NoSetting => PlanField::Setting,
            CoreqaPlanError::Runs(_) => PlanField::Runs,
            CoreqaPlanError::Temperature(_) => PlanField::Temperature,
            CoreqaPlanError::NoWindow => PlanField::Window,
            CoreqaPlanError::Chunks(_) => PlanField::Chunks,
            CoreqaPlanError::NoRepository => PlanField::Repository,
            CoreqaPlanError::Repetitions => PlanField::Repetitions,
            CoreqaPlanError::StabilitySample => PlanField::Stability,
            CoreqaPlanError::NoAnswers | CoreqaPlanError::NoPairs(_) => PlanField::Answers,
            CoreqaPlanError::Samples(_) => PlanField::Samples,
            CoreqaPlanError::NoIssues(_) => PlanField::Export,
            CoreqaPlanError::Coreqa(_) | CoreqaPlanError::Unsettled(_) => return None,
        })
    }
}

/// A temperature as a message shows it: a blank field is no number.
fn shown(t: f64) -> String {
    if t.is_nan() {
        "blank".to_string()
    } else {
        t.to_string()
    }
}

fn model_named(model: &str) -> Result<(), CoreqaPlanError> {
    if model.trim().is_empty() {
        return Err(CoreqaPlanError::NoModel);
    }
    Ok(())
}

fn temperature_in_range(t: f64) -> Result<(), CoreqaPlanError> {
    if !(0.0..=MAX_TEMPERATURE).contains(&t) {
        return Err(CoreqaPlanError::Temperature(t));
    }
    Ok(())
}

/// Answering the questions: which model, in which context settings, how
/// many samples at which temperature, and how the context is made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnswerPlan {
    pub model: String,
    pub settings: Vec<ContextSetting>,
    /// Answers per question and setting (the paper: 5).
    pub runs: u32,
    /// The answers' sampling temperature (the paper: 0.2).
    pub temperature: f64,
    /// The answering model's context window in tokens (the whole setting
    /// needs it; any prompt over it is refused before a request).
    pub window: Option<usize>,
    /// Chunks per query in the retrieval setting (the paper: 5 + 5).
    pub top: usize,
    pub chunk_size: usize,
    pub chunk_overlap: usize,
    pub tokenize: Bm25Tokenize,
}

impl Default for AnswerPlan {
    /// The paper's answering in the three settings, one run at
    /// temperature 0.2, the paper's retrieval.
    fn default() -> AnswerPlan {
        AnswerPlan {
            model: String::new(),
            settings: ContextSetting::ALL.to_vec(),
            runs: 1,
            temperature: ANSWER_TEMPERATURE,
            window: None,
            top: 5,
            chunk_size: DEFAULT_CHUNK_SIZE,
            chunk_overlap: DEFAULT_CHUNK_OVERLAP,
            tokenize: Bm25Tokenize::Split,
        }
    }
}

impl AnswerPlan {
    /// The plan's own fields are usable: a model and a setting named, runs
    /// and temperature in range, a window for the whole setting, chunks
    /// the splitter takes.
    pub fn check(&self) -> Result<(), CoreqaPlanError> {
        model_named(&self.model)?;
        if self.settings.is_empty() {
            return Err(CoreqaPlanError::NoSetting);
        }
        if !(1..=MAX_RUNS).contains(&self.runs) {
            return Err(CoreqaPlanError::Runs(self.runs));
        }
        temperature_in_range(self.temperature)?;
        if self.settings.contains(&ContextSetting::Whole) && self.window.is_none() {
            return Err(CoreqaPlanError::NoWindow);
        }
        if self.needs_repository() {
            RecursiveSplitter::new(self.chunk_size, self.chunk_overlap)
                .map_err(|e| CoreqaPlanError::Chunks(e.to_string()))?;
        }
        Ok(())
    }

    /// A setting reads the repository's files (retrieval, whole).
    pub fn needs_repository(&self) -> bool {
        self.settings.iter().any(|s| *s != ContextSetting::None)
    }

    /// Several answers at temperature 0 are the same answer asked again: a
    /// note for the fronts to show before asking.
    pub fn notice(&self) -> Option<String> {
        (self.runs > 1 && self.temperature == 0.0).then(|| {
            format!(
                "{} runs at temperature 0 ask for the same answer {} times (the paper samples at temperature {ANSWER_TEMPERATURE})",
                self.runs, self.runs
            )
        })
    }

    /// The answering items of `qa`: each question in each setting, its
    /// context from its repository in `repos` (by `owner/name`; every one
    /// the questions name, when a setting reads the repository), each
    /// prompt counted by `count`.
    pub fn items(
        &self,
        qa: &[QaItem],
        repos: &[(String, Vec<TextFile>)],
        count: &mut dyn FnMut(&str) -> usize,
    ) -> Result<Vec<AnswerItem>, CoreqaPlanError> {
        if self.needs_repository() && repos.is_empty() {
            return Err(CoreqaPlanError::NoRepository);
        }
        let setup = AnswerSetup {
            top: self.top,
            chunk_size: self.chunk_size,
            chunk_overlap: self.chunk_overlap,
            tokenize: self.tokenize,
            window: self.window,
            runs: self.runs,
            ..AnswerSetup::new(&self.model, &self.settings)
        };
        let items = if self.needs_repository() {
            let given: Vec<(&str, &[TextFile])> =
                repos.iter().map(|(n, f)| (n.as_str(), f.as_slice())).collect();
            answer_items_across(qa, &given, &setup, count)?
        } else {
            answer_items(qa, &setup, count)?
        };
        Ok(items)
    }

    /// The ids of the items `lines` (an answers file) already holds for
    /// this plan's model: those a rerun does not ask again.
    pub fn answered(&self, lines: &[AnswerLine]) -> HashSet<String> {
        lines.iter().filter(|l| l.model == self.model).map(AnswerLine::id).collect()
    }

    /// The answers file's name, as the examples name it:
    /// `answers-<model>.jsonl` (`/` in the model's name as `_slash_`).
    pub fn file_name(&self) -> String {
        answers_file_name(&self.model)
    }
}

/// Judging answers with a model: the four criteria, each answer judged
/// `repetitions` times, or the judge's stability check on a sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgePlan {
    /// The judge.
    pub model: String,
    pub repetitions: u32,
    /// The stability check (Table VI): a sample of the answers, each
    /// judged `sample.repetitions` times, in place of `repetitions`.
    pub stability: Option<StabilitySample>,
    pub template: String,
    pub temperature: f64,
}

impl Default for JudgePlan {
    fn default() -> JudgePlan {
        JudgePlan {
            model: String::new(),
            repetitions: 2,
            stability: None,
            template: crate::coreqa::judge::JUDGE_TEMPLATE.to_string(),
            temperature: JUDGE_TEMPERATURE,
        }
    }
}

impl JudgePlan {
    pub fn check(&self) -> Result<(), CoreqaPlanError> {
        model_named(&self.model)?;
        temperature_in_range(self.temperature)?;
        if self.repetitions == 0 {
            return Err(CoreqaPlanError::Repetitions);
        }
        if let Some(s) = &self.stability {
            if s.answers == 0 {
                return Err(CoreqaPlanError::StabilitySample);
            }
            if s.repetitions == 0 {
                return Err(CoreqaPlanError::Repetitions);
            }
        }
        Ok(())
    }

    /// The judging items of `answers` (or of the stability check's
    /// sample of them); none is refused.
    pub fn items(
        &self,
        qa: &[QaItem],
        answers: &[AnswerLine],
        count: &mut dyn FnMut(&str) -> usize,
    ) -> Result<Vec<JudgeItem>, CoreqaPlanError> {
        if answers.is_empty() {
            return Err(CoreqaPlanError::NoAnswers);
        }
        let items = match &self.stability {
            Some(s) => stability_items(qa, answers, s, &self.model, &self.template, count)?,
            None => judge_items(qa, answers, self.repetitions, &self.model, &self.template, count)?,
        };
        if items.is_empty() {
            return Err(CoreqaPlanError::NoAnswers);
        }
        Ok(items)
    }

    /// A judgments line this judge wrote.
    pub fn is_own(&self, line: &JudgeLine) -> bool {
        line.judge == self.model
    }

    /// This judge's lines of a judgments file: what is judged so far.
    pub fn judged(&self, lines: Vec<JudgeLine>) -> Vec<JudgeLine> {
        lines.into_iter().filter(|l| self.is_own(l)).collect()
    }

    /// The judgments file's name: `judge-<judge>.jsonl`, or
    /// `judge-stability-<judge>.jsonl` for the stability check.
    pub fn file_name(&self) -> String {
        judgments_file_name(&self.model, self.stability.is_some())
    }
}

/// Comparing two or more models' answers in one setting, a pair at a
/// time, with a judge (Elo from the verdicts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairwisePlan {
    /// The judge.
    pub model: String,
    pub setting: ContextSetting,
    /// Only the answers of the first `runs` runs (all when None).
    pub runs: Option<u32>,
    pub template: String,
    pub temperature: f64,
}

impl Default for PairwisePlan {
    fn default() -> PairwisePlan {
        PairwisePlan {
            model: String::new(),
            setting: ContextSetting::Retrieval,
            runs: None,
            template: crate::coreqa::pairwise::PAIRWISE_TEMPLATE.to_string(),
            temperature: JUDGE_TEMPERATURE,
        }
    }
}

impl PairwisePlan {
    pub fn check(&self) -> Result<(), CoreqaPlanError> {
        model_named(&self.model)?;
        temperature_in_range(self.temperature)?;
        if self.runs == Some(0) {
            return Err(CoreqaPlanError::Runs(0));
        }
        Ok(())
    }

    /// Every pair of models' answers to a question in the plan's setting,
    /// both orders; none (fewer than two models answered) is refused.
    pub fn items(
        &self,
        qa: &[QaItem],
        answers: &[AnswerLine],
        count: &mut dyn FnMut(&str) -> usize,
    ) -> Result<Vec<PairItem>, CoreqaPlanError> {
        let items =
            pair_items(qa, answers, self.setting, self.runs, &self.model, &self.template, count)?;
        if items.is_empty() {
            return Err(CoreqaPlanError::NoPairs(self.setting));
        }
        Ok(items)
    }

    /// A verdict this judge gave in this setting.
    pub fn is_own(&self, line: &PairLine) -> bool {
        line.judge == self.model && line.setting == self.setting
    }

    /// This judge's verdicts in this setting: what is compared so far.
    pub fn judged(&self, lines: Vec<PairLine>) -> Vec<PairLine> {
        lines.into_iter().filter(|l| self.is_own(l)).collect()
    }

    /// The verdicts' file name: `pairwise-<judge>-<setting>.jsonl`.
    pub fn file_name(&self) -> String {
        pairwise_file_name(&self.model, self.setting)
    }
}

/// Writing a QA file from a GitHub issues export (`repoqa coreqa build`,
/// the CoReQA page's "Build questions"): the paper's filters, then up to
/// three asks in this order — the model's pre-filter (when asked for), the
/// questions (sampled `samples` times, the paper's self-consistency) and
/// the reference answers. Each ask's items, temperature and file come from
/// the plan, so both fronts ask the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QaBuildPlan {
    pub model: String,
    /// Questions written per issue, the one most like the others kept.
    pub samples: u32,
    /// The pre-filter's prompt: the model first drops the issues that
    /// will not make a good question (None: no pre-filter).
    pub prefilter: Option<String>,
    pub question_template: String,
    pub reference_template: String,
    /// The repository's main language, for the reference answers' prompt.
    pub language: Option<String>,
    /// The pre-filter's and the questions' temperature (None: the
    /// questions at 0.8 when sampled, else 0; the pre-filter at the API's
    /// default settings).
    pub temperature: Option<f64>,
    pub reference_temperature: f64,
}

impl Default for QaBuildPlan {
    fn default() -> QaBuildPlan {
        QaBuildPlan {
            model: String::new(),
            samples: QUESTION_SAMPLES,
            prefilter: None,
            question_template: QUESTION_TEMPLATE.to_string(),
            reference_template: REFERENCE_TEMPLATE.to_string(),
            language: None,
            temperature: None,
            reference_temperature: REFERENCE_TEMPERATURE,
        }
    }
}

/// An issues export's issues the paper's filters keep, with their
/// comments.
pub type KeptIssues<'e> = Vec<(&'e Issue, &'e [Comment])>;

impl QaBuildPlan {
    /// The plan's own fields are usable: a model named, samples and
    /// temperatures in range.
    pub fn check(&self) -> Result<(), CoreqaPlanError> {
        model_named(&self.model)?;
        if !(1..=MAX_QUESTION_SAMPLES).contains(&self.samples) {
            return Err(CoreqaPlanError::Samples(self.samples));
        }
        if let Some(t) = self.temperature {
            temperature_in_range(t)?;
        }
        temperature_in_range(self.reference_temperature)
    }

    /// The issues of `export` the paper's filters kept (`report`, from
    /// `filter_issues`, which both fronts also show), with their comments;
    /// none kept is refused (`name` in the message).
    pub fn kept<'e>(
        &self,
        export: &'e IssueExport,
        report: &FilterReport,
        name: &str,
    ) -> Result<KeptIssues<'e>, CoreqaPlanError> {
        if report.kept.is_empty() {
            return Err(CoreqaPlanError::NoIssues(name.to_string()));
        }
        Ok(kept_issues(export, &report.kept))
    }

    /// The pre-filter's requests, None when the plan has no pre-filter.
    pub fn prefilter_items(
        &self,
        repository: &str,
        issues: &[(&Issue, &[Comment])],
        count: &mut dyn FnMut(&str) -> usize,
    ) -> Result<Option<Vec<PrefilterItem>>, CoreqaPlanError> {
        let Some(template) = &self.prefilter else { return Ok(None) };
        Ok(Some(prefilter_items(repository, &self.model, issues, template, count)?))
    }

    /// The issues the pre-filter's `verdicts` keep (each issue's last
    /// verdict counts).
    pub fn keep_prefiltered(
        &self,
        issues: &mut KeptIssues<'_>,
        repository: &str,
        verdicts: &[PrefilterLine],
    ) {
        crate::coreqa::prefilter::retain_kept(issues, repository, verdicts);
    }

    /// The questions' requests, `samples` per issue.
    pub fn question_items(
        &self,
        repository: &str,
        issues: &[(&Issue, &[Comment])],
        count: &mut dyn FnMut(&str) -> usize,
    ) -> Result<Vec<QuestionItem>, CoreqaPlanError> {
        Ok(question_items(repository, issues, &self.question_template, self.samples, count)?)
    }

    /// The questions' temperature.
    pub fn question_temperature(&self) -> f64 {
        question_temperature(self.samples, self.temperature)
    }

    /// The reference answers' requests, one per issue whose questions are
    /// `written`, each marked with its pre-filter verdict.
    pub fn reference_items(
        &self,
        repository: &str,
        issues: &[(&Issue, &[Comment])],
        written: &[QuestionLine],
        verdicts: &[PrefilterLine],
        count: &mut dyn FnMut(&str) -> usize,
    ) -> Result<Vec<ReferenceItem>, CoreqaPlanError> {
        let mut items = reference_items(
            repository,
            issues,
            written,
            self.samples,
            self.language.as_deref().map(str::trim).filter(|l| !l.is_empty()),
            &self.reference_template,
            count,
        )?;
        crate::coreqa::prefilter::mark(&mut items, verdicts);
        Ok(items)
    }
}

/// `model`'s answers file, as the examples name it:
/// `answers-<model>.jsonl` (`/` in the name as `_slash_`).
pub fn answers_file_name(model: &str) -> String {
    format!("answers-{}.jsonl", naming::model_file_stem(model))
}

/// `judge`'s judgments file: `judge-<judge>.jsonl`, or
/// `judge-stability-<judge>.jsonl` for the stability check.
pub fn judgments_file_name(judge: &str, stability: bool) -> String {
    let m = naming::model_file_stem(judge);
    if stability {
        format!("judge-stability-{m}.jsonl")
    } else {
        format!("judge-{m}.jsonl")
    }
}

/// `judge`'s verdicts in `setting`: `pairwise-<judge>-<setting>.jsonl`.
pub fn pairwise_file_name(judge: &str, setting: ContextSetting) -> String {
    format!("pairwise-{}-{setting}.jsonl", naming::model_file_stem(judge))
}

/// The most rounds [`CountRounds`] takes: each round counts the texts the
/// last one met for the first time, so a builder settles in two or three
/// (its texts depend on counts only where it packs to a budget).
pub const COUNT_ROUNDS: usize = 16;

/// Token counts learned in rounds, for a front that counts texts in
/// batches elsewhere (the page's compute engine): a round makes the items
/// with the counts known so far (0 for a text not yet counted, noted); the
/// front counts the noted texts and [`learn`](CountRounds::learn)s them;
/// the round that meets no new text is the answer, so what is kept was made
/// with true counts only.
#[derive(Debug, Default)]
pub struct CountRounds {
    known: HashMap<String, usize>,
    rounds: usize,
}

/// A round's outcome: the items (every count was known), or the texts to
/// count before the next round.
#[derive(Debug)]
pub enum Round<T> {
    Made(T),
    Count(Vec<String>),
}

/// The counts did not settle in [`COUNT_ROUNDS`] rounds.
#[derive(Debug, Error, PartialEq)]
#[error("the prompts' token counts did not settle after {COUNT_ROUNDS} rounds of counting")]
pub struct Unsettled;

impl CountRounds {
    /// Make the items with the counts known so far, or say which texts
    /// to count first; refused after [`COUNT_ROUNDS`] rounds.
    pub fn round<T>(
        &mut self,
        make: impl FnOnce(&mut dyn FnMut(&str) -> usize) -> Result<T, CoreqaPlanError>,
    ) -> Result<Round<T>, CoreqaPlanError> {
        if self.rounds >= COUNT_ROUNDS {
            return Err(Unsettled.into());
        }
        self.rounds += 1;
        let mut new: Vec<String> = Vec::new();
        let mut noted: HashSet<String> = HashSet::new();
        let known = &self.known;
        let made = make(&mut |text: &str| match known.get(text) {
            Some(n) => *n,
            None => {
                if noted.insert(text.to_string()) {
                    new.push(text.to_string());
                }
                0
            }
        })?;
        Ok(if new.is_empty() { Round::Made(made) } else { Round::Count(new) })
    }

    /// The counts of the texts a round asked for, in its order.
    pub fn learn(&mut self, texts: Vec<String>, counts: Vec<usize>) {
        self.known.extend(texts.into_iter().zip(counts));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qa(id: &str, repo: &str) -> QaItem {
        QaItem {
            id: id.into(),
            repository: repo.into(),
            language: None,
            issue_url: None,
            question: format!("Why does {id} fail?"),
            reference_answer: "Because.".into(),
            reference_chunks: None,
            issue: None,
            rest: Default::default(),
        }
    }

    fn files() -> Vec<TextFile> {
        (0..4)
            .map(|i| TextFile {
                path: format!("src/f{i}.py"),
                text: format!("def f{i}(x):\n    return x + {i}\n").repeat(20),
            })
            .collect()
    }

    /// A stand-in tokenizer: a token per four bytes.
    fn count(text: &str) -> usize {
        text.len().div_ceil(4)
    }

    #[test]
    fn a_plan_is_refused_by_its_field_before_anything_is_read() {
        let ok = AnswerPlan { model: "m".into(), window: Some(100_000), ..AnswerPlan::default() };
        assert!(ok.check().is_ok());
        let cases = [
            (AnswerPlan { model: " ".into(), ..ok.clone() }, PlanField::Model),
            (AnswerPlan { settings: vec![], ..ok.clone() }, PlanField::Setting),
            (AnswerPlan { runs: 0, ..ok.clone() }, PlanField::Runs),
            (AnswerPlan { runs: MAX_RUNS + 1, ..ok.clone() }, PlanField::Runs),
            (AnswerPlan { temperature: 2.5, ..ok.clone() }, PlanField::Temperature),
            (AnswerPlan { temperature: f64::NAN, ..ok.clone() }, PlanField::Temperature),
            (AnswerPlan { window: None, ..ok.clone() }, PlanField::Window),
            (AnswerPlan { chunk_size: 10, chunk_overlap: 20, ..ok.clone() }, PlanField::Chunks),
        ];
        for (plan, field) in cases {
            let e = plan.check().expect_err("refused");
            assert_eq!(e.field(), Some(field), "{e}");
        }
        assert_eq!(
            AnswerPlan { temperature: f64::NAN, ..ok.clone() }.check().unwrap_err().to_string(),
            "blank is not a number from 0 to 2 (the paper answers at 0.2)"
        );
        // No window is needed without the whole setting.
        let none = AnswerPlan { settings: vec![ContextSetting::None], window: None, ..ok };
        assert!(none.check().is_ok());
        assert!(!none.needs_repository());
        let judge = JudgePlan { model: "j".into(), ..JudgePlan::default() };
        assert!(judge.check().is_ok());
        assert_eq!(
            JudgePlan { repetitions: 0, ..judge.clone() }.check().unwrap_err().field(),
            Some(PlanField::Repetitions)
        );
        let build = QaBuildPlan { model: "m".into(), ..QaBuildPlan::default() };
        assert!(build.check().is_ok());
        for (plan, field) in [
            (QaBuildPlan { samples: 0, ..build.clone() }, PlanField::Samples),
            (
                QaBuildPlan { samples: MAX_QUESTION_SAMPLES + 1, ..build.clone() },
                PlanField::Samples,
            ),
            (QaBuildPlan { temperature: Some(3.0), ..build.clone() }, PlanField::Temperature),
            (QaBuildPlan { model: String::new(), ..build.clone() }, PlanField::Model),
        ] {
            assert_eq!(plan.check().expect_err("refused").field(), Some(field));
        }
        assert_eq!(build.question_temperature(), 0.8);
        assert_eq!(QaBuildPlan { samples: 1, ..build }.question_temperature(), 0.0);
        let sample = StabilitySample::of(0);
        assert!(matches!(
            JudgePlan { stability: Some(sample), ..judge }.check(),
            Err(CoreqaPlanError::StabilitySample)
        ));
    }

    #[test]
    fn the_answer_items_need_every_repository_the_questions_name() {
        let plan =
            AnswerPlan { model: "org/m".into(), window: Some(100_000), ..AnswerPlan::default() };
        let questions = [qa("q1", "a/one"), qa("q2", "b/two")];
        let mut c = count;
        assert!(matches!(plan.items(&questions, &[], &mut c), Err(CoreqaPlanError::NoRepository)));
        let only_one = [("a/one".to_string(), files())];
        let e = plan.items(&questions, &only_one, &mut c).unwrap_err();
        assert!(e.to_string().contains("b/two"), "{e}");
        let both = [("a/one".to_string(), files()), ("b/two".to_string(), files())];
        let items = plan.items(&questions, &both, &mut c).expect("items");
        assert_eq!(items.len(), 6);
        assert_eq!(plan.file_name(), "answers-org_slash_m.jsonl");
        // A rerun asks only what this model has not answered.
        let line = AnswerLine {
            question_id: "q1".into(),
            setting: ContextSetting::None,
            model: "org/m".into(),
            run: 1,
            answer: "x".into(),
            temperature: None,
            runs: None,
        };
        let other = AnswerLine { model: "other".into(), ..line.clone() };
        let done = plan.answered(&[line.clone(), other]);
        assert_eq!(done, HashSet::from([line.id()]));
    }

    #[test]
    fn counting_in_rounds_makes_what_counting_at_once_makes() {
        // The whole setting packs the repository to the window: its texts
        // depend on the counts, so this takes more than one round.
        let plan = AnswerPlan { model: "m".into(), window: Some(900), ..AnswerPlan::default() };
        let questions = [qa("q1", "a/one")];
        let repos = [("a/one".to_string(), files())];
        let at_once = plan.items(&questions, &repos, &mut count).expect("items");
        let mut rounds = CountRounds::default();
        let mut n = 0;
        let in_rounds = loop {
            n += 1;
            match rounds.round(|c| plan.items(&questions, &repos, c)).expect("a round") {
                Round::Made(items) => break items,
                Round::Count(texts) => {
                    let counts = texts.iter().map(|t| count(t)).collect();
                    rounds.learn(texts, counts);
                }
            }
        };
        assert!(n >= 2, "{n} rounds");
        assert_eq!(in_rounds, at_once);
        // A maker that always meets a new text never settles, and says so.
        let mut fresh = CountRounds::default();
        let mut i = 0;
        let e = loop {
            i += 1;
            match fresh.round(|c| Ok(c(&i.to_string()))) {
                Ok(Round::Count(texts)) => fresh.learn(texts, vec![1]),
                Ok(Round::Made(_)) => panic!("settled"),
                Err(e) => break e,
            }
        };
        assert!(matches!(e, CoreqaPlanError::Unsettled(Unsettled)), "{e}");
        assert_eq!(i, COUNT_ROUNDS + 1);
    }
}
