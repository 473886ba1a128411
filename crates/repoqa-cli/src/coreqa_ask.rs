//! `repoqa coreqa answer` and `repoqa coreqa judge`: CoReQA's answering
//! model (in the three context settings) and its judge, asked through the
//! same runner and files as `repoqa run` (`crate::ask`): the API flags,
//! retries and faults, every line appended the moment it arrives with its
//! run-log record beside it, and a rerun asking only what is missing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::text_dir::read_text_dir;
use repoqa::api::coreqa::{
    AnswerPlan, CoreqaPlanError, JudgePlan, PairwisePlan, PlanField, QaBuildPlan,
};
use repoqa::code::tokenize::Tokenizer;
use repoqa::coreqa::answer::{
    read_answers, AnswerLine, ContextSetting, ANSWER_RUNS, ANSWER_TEMPERATURE, MAX_RUNS,
};
use repoqa::coreqa::elo::{compare, Comparison};
use repoqa::coreqa::generate::{
    read_questions, QuestionLine, QUESTION_TEMPLATE, REFERENCE_TEMPLATE,
};
use repoqa::coreqa::issues::{filter_issues, read_export};
use repoqa::coreqa::judge::{
    per_question, read_judge_lines, summarize, JudgeLine, JudgeRow, JUDGE_TEMPERATURE,
    JUDGE_TEMPLATE,
};
use repoqa::coreqa::pairwise::{in_item_order, read_pair_lines, PairLine, PAIRWISE_TEMPLATE};
use repoqa::coreqa::prefilter::{
    prefilter_file_name, read_prefilter, PrefilterLine, PREFILTER_TEMPLATE,
};
use repoqa::coreqa::qa::{one_repository, questions_file_name, read_qa, QaItem};
use repoqa::coreqa::splitter::{DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE};
use repoqa::coreqa::text_dir::TextDirLimits;
use repoqa::coreqa::Bm25Tokenize;
use repoqa::llm::run::RunItem;
use repoqa::llm::runlog::TaskSelection;

use crate::ask::{ask_items, ApiArgs, ItemsJob};
use crate::error::{fs_read, fs_read_text, CliError};
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct AnswerArgs {
    #[command(flatten)]
    api: ApiArgs,
    /// The QA file (JSON list or JSON Lines of {"id", "repository",
    /// "question", "reference_answer", …}).
    #[arg(long)]
    qa: PathBuf,
    /// The repository folder the questions are about (the retrieval and
    /// whole settings read it).
    #[arg(long, conflicts_with = "repos")]
    repo: Option<PathBuf>,
    /// Questions about several repositories: a folder holding one folder
    /// per repository, `DIR/owner/name`; each question is answered from the
    /// one its "repository" names (all of them read before any request).
    #[arg(long)]
    repos: Option<PathBuf>,
    /// Context settings to answer in, comma-separated: none (the question
    /// alone), retrieval (BM25: the best --top chunks for the question's
    /// prose and for its code), whole (the repository as Markdown).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "none")]
    setting: Vec<ContextSetting>,
    /// Chunks per query in the retrieval setting (the paper: 5 + 5).
    #[arg(long, default_value_t = 5)]
    top: usize,
    #[arg(long, default_value_t = DEFAULT_CHUNK_SIZE)]
    chunk_size: usize,
    #[arg(long, default_value_t = DEFAULT_CHUNK_OVERLAP)]
    chunk_overlap: usize,
    #[arg(long, value_enum, default_value_t = Bm25Tokenize::Split)]
    bm25_tokenize: Bm25Tokenize,
    /// The answering model's context window in tokens (the whole setting
    /// needs it: a repository that does not fit is refused, saying how
    /// many tokens it needs). Given, every prompt of every setting is
    /// checked against it before anything is sent.
    #[arg(long)]
    window: Option<usize>,
    /// HF tokenizer.json that counts prompt tokens (default:
    /// $REPOQA_TOKENIZER or .tools/tokenizer.json, CodeLlama's).
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// Sampling temperature (the paper's 0.2; 0 with --runs 1 for one
    /// greedy answer).
    #[arg(long, default_value_t = ANSWER_TEMPERATURE)]
    temperature: f64,
    /// Answers sampled per question and setting (the paper's 5); runs
    /// after the first are marked "run" in their lines, and the judge's
    /// table then gives the mean and standard deviation over the runs, per
    /// model and per question.
    #[arg(long, default_value_t = ANSWER_RUNS, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    runs: u32,
    /// The answers file (JSON Lines of {"question_id", "setting", "model",
    /// "answer"}, and "run" from the second run on); a rerun resumes it.
    /// Its run log goes beside it.
    #[arg(long)]
    output: PathBuf,
    /// Ask only what failed in an earlier run.
    #[arg(long)]
    only_failed: bool,
}

/// What both judges take: the judge model and its API, the answers and
/// where the verdicts go.
#[derive(clap::Args)]
struct JudgingArgs {
    /// The judge model and its API.
    #[command(flatten)]
    api: ApiArgs,
    /// The QA file the answers are to.
    #[arg(long)]
    qa: PathBuf,
    /// Answers files (`repoqa coreqa answer`'s output).
    #[arg(long, required = true)]
    answers: Vec<PathBuf>,
    /// A prompt of your own (a text file with {{…}} places; the default,
    /// with its places, is printed by `repoqa coreqa prompt
    /// judge|pairwise`).
    #[arg(long)]
    template: Option<PathBuf>,
    /// Sampling temperature (the paper's 0.2).
    #[arg(long, default_value_t = JUDGE_TEMPERATURE)]
    temperature: f64,
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// The judgments file (JSON Lines; the pairwise one is what `repoqa
    /// coreqa compare` reads); a rerun resumes it. Its run log goes beside it.
    #[arg(long)]
    output: PathBuf,
    /// Ask only what failed in an earlier run.
    #[arg(long)]
    only_failed: bool,
}

#[derive(clap::Args)]
pub struct JudgeArgs {
    #[command(flatten)]
    judging: JudgingArgs,
    /// Times each answer is judged (default 2, the paper's average; 5
    /// with --stability, its robustness check).
    #[arg(long)]
    repetitions: Option<u32>,
    /// The judge's stability (the paper's Table VI): judge a seeded sample
    /// of N of the answers (the paper's 200), each 5 times, and print the
    /// mean and the standard deviation of each answer's judgments.
    #[arg(long, value_name = "N")]
    stability: Option<usize>,
    /// The seed of the --stability sample.
    #[arg(long, default_value_t = repoqa::coreqa::stability::STABILITY_SEED, requires = "stability")]
    stability_seed: u64,
    /// Print the table as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct PairwiseArgs {
    #[command(flatten)]
    judging: JudgingArgs,
    /// The context setting whose answers are compared.
    #[arg(long, value_enum, default_value_t = ContextSetting::None)]
    setting: ContextSetting,
    /// Compare the first N answer runs only (run r of one model with run r
    /// of the other); by default every run both models answered, so PCE
    /// has the paper's spread over five runs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    runs: Option<u32>,
    /// Shuffles for the Elo interval.
    #[arg(long, default_value_t = repoqa::coreqa::elo::BOOTSTRAP_ROUNDS)]
    bootstrap: usize,
    #[arg(long, default_value_t = repoqa::coreqa::elo::BOOTSTRAP_SEED)]
    seed: u64,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// The model that writes questions and reference answers, and its API.
    #[command(flatten)]
    api: ApiArgs,
    /// The GitHub issues export ({"repository", "issues", "comments"}, as
    /// `repoqa coreqa issues` reads it); the paper's filters pick the issues.
    #[arg(long)]
    export: PathBuf,
    /// The repository's language, written into every QA item.
    #[arg(long)]
    language: Option<String>,
    /// A question prompt of your own ({{repository}}, {{title}},
    /// {{description}}); `repoqa coreqa prompt question` prints the default.
    #[arg(long)]
    question_template: Option<PathBuf>,
    /// First ask the writing model whether each issue the filters kept is
    /// a question its discussion answers ("keep") or not ("drop"), with its
    /// reasons; only kept issues become questions. The verdicts go to
    /// <output without .jsonl>.prefilter.jsonl, and each QA item keeps its
    /// own under "prefilter". The prompt is ours (the paper's is not
    /// published): `repoqa coreqa prompt prefilter` prints it.
    #[arg(long)]
    prefilter: bool,
    /// A pre-filter prompt of your own ({{repository}}, {{title}},
    /// {{description}}, {{comments}}; the reply's last line `Verdict: keep`
    /// or `Verdict: drop`).
    #[arg(long, requires = "prefilter")]
    prefilter_template: Option<PathBuf>,
    /// A reference-answer prompt of your own ({{repository}}, {{question}},
    /// {{labels}}, {{title}}, {{description}}, {{comments}}); `repoqa
    /// coreqa prompt reference` prints the default.
    #[arg(long)]
    reference_template: Option<PathBuf>,
    /// Sampling temperature of the pre-filter (default 0) and the questions
    /// (default 0.8 with several --samples, 0 with one).
    #[arg(long)]
    temperature: Option<f64>,
    /// Questions sampled per issue (the paper's self-consistency; it does
    /// not give K): the one whose words overlap the others' most is kept,
    /// and every QA item records all of them.
    #[arg(long, default_value_t = repoqa::coreqa::generate::QUESTION_SAMPLES)]
    samples: u32,
    /// Sampling temperature of the reference answers (the paper's 0.8,
    /// "diverse reference answers"); each QA item records it as
    /// "reference_temperature".
    #[arg(long, default_value_t = repoqa::coreqa::generate::REFERENCE_TEMPERATURE)]
    reference_temperature: f64,
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// The QA file to write (JSON Lines); the questions go first to
    /// <output without .jsonl>.questions.jsonl. A rerun resumes both.
    #[arg(long)]
    output: PathBuf,
    /// Ask only what failed in an earlier run.
    #[arg(long)]
    only_failed: bool,
}

fn tokenizer(path: &Option<PathBuf>) -> Result<Tokenizer, CliError> {
    let path = path.clone().unwrap_or_else(crate::tokenizer_path::default_tokenizer_path);
    Ok(Tokenizer::from_file(&path)?)
}

fn load_qa(path: &Path) -> Result<Vec<QaItem>, CliError> {
    Ok(read_qa(&fs_read(path, "QA file")?, &path.display().to_string())?)
}

/// A CoReQA plan's refusal as a usage error naming the flag to change
/// (the message is the plan's, the page's too).
fn plan_error(e: CoreqaPlanError) -> CliError {
    let flag = match e.field() {
        None => return e.into(),
        Some(PlanField::Model) => "--model",
        Some(PlanField::Setting) => "--setting",
        Some(PlanField::Runs) => "--runs",
        Some(PlanField::Temperature) => "--temperature",
        Some(PlanField::Window) => "--window",
        Some(PlanField::Chunks) => "--chunk-size/--chunk-overlap",
        Some(PlanField::Repository) => "--repo/--repos",
        Some(PlanField::Repetitions) => "--repetitions",
        Some(PlanField::Stability) => "--stability",
        Some(PlanField::Answers) => "--answers",
        Some(PlanField::Samples) => "--samples",
        Some(PlanField::Export) => "--export",
    };
    CliError::usage(format!("{flag}: {e}"))
}

pub fn answer(a: AnswerArgs) -> Result<(), CliError> {
    let plan = AnswerPlan {
        model: a.api.model.clone(),
        settings: a.setting.clone(),
        runs: a.runs,
        temperature: a.temperature,
        window: a.window,
        top: a.top,
        chunk_size: a.chunk_size,
        chunk_overlap: a.chunk_overlap,
        tokenize: a.bm25_tokenize,
    };
    plan.check().map_err(plan_error)?;
    if let Some(note) = plan.notice() {
        eprintln!("repoqa: coreqa answer: {note}");
    }
    let qa = load_qa(&a.qa)?;
    let tok = tokenizer(&a.tokenizer)?;
    // The repositories' names and files: one with --repo, each the
    // questions name with --repos.
    let mut repos: Vec<(String, Vec<repoqa::coreqa::TextFile>)> = Vec::new();
    if plan.needs_repository() {
        let read = |dir: &Path| -> Result<Vec<repoqa::coreqa::TextFile>, CliError> {
            let read = read_text_dir(dir, TextDirLimits::default())?;
            for (path, why) in &read.skipped {
                eprintln!("repoqa: coreqa: left out {path}: {why}");
            }
            Ok(read.files)
        };
        match (&a.repo, &a.repos) {
            (Some(repo), _) => {
                let name =
                    one_repository(&qa).map_err(|e| CliError::usage(format!("--repo: {e}")))?;
                repos.push((name.to_string(), read(repo)?));
            }
            (None, Some(root)) => {
                for name in repoqa::coreqa::qa::repositories(&qa) {
                    let dir = root.join(name);
                    if !dir.is_dir() {
                        return Err(CliError::usage(format!(
                            "--repos: no folder {} for the questions of {name} (one folder per owner/name); nothing was sent",
                            dir.display()
                        )));
                    }
                    repos.push((name.to_string(), read(&dir)?));
                }
            }
            (None, None) => return Err(plan_error(CoreqaPlanError::NoRepository)),
        }
    }
    let items = tok.counted(|count| plan.items(&qa, &repos, count)).map_err(plan_or)?;
    let answered = |text: &str| -> Result<HashSet<String>, CliError> {
        Ok(plan.answered(&read_answers(text, &a.output.display().to_string(), true)?))
    };
    let job = ItemsJob {
        label: "coreqa answer",
        api: &a.api,
        temperature: Some(plan.temperature),
        output: &a.output,
        what: "answers",
        selection: TaskSelection { only_failed: a.only_failed, ..TaskSelection::default() },
    };
    ask_items(&job, &items, answered)?;
    eprintln!("coreqa answer: {} answer(s) in {}", items.len(), a.output.display());
    Ok(())
}

/// What counting a plan's items gave: the plan's refusal with its flag,
/// or the tokenizer's error.
fn plan_or(e: CountedError) -> CliError {
    match e {
        CountedError::Plan(e) => plan_error(e),
        CountedError::Tokenizer(e) => e.into(),
    }
}

/// Why a plan's items could not be counted.
#[derive(Debug)]
enum CountedError {
    Plan(CoreqaPlanError),
    Tokenizer(repoqa::code::tokenize::TokenizerError),
}

impl From<CoreqaPlanError> for CountedError {
    fn from(e: CoreqaPlanError) -> CountedError {
        CountedError::Plan(e)
    }
}

impl From<repoqa::code::tokenize::TokenizerError> for CountedError {
    fn from(e: repoqa::code::tokenize::TokenizerError) -> CountedError {
        CountedError::Tokenizer(e)
    }
}

pub fn judge(a: JudgeArgs) -> Result<(), CliError> {
    use repoqa::coreqa::stability::STABILITY_REPETITIONS;
    use repoqa::coreqa::stability::{sample_answers, stability, StabilitySample};
    let repetitions =
        a.repetitions.unwrap_or(if a.stability.is_some() { STABILITY_REPETITIONS } else { 2 });
    let j = &a.judging;
    let plan = JudgePlan {
        model: j.api.model.clone(),
        repetitions,
        stability: a.stability.map(|n| StabilitySample {
            answers: n,
            seed: a.stability_seed,
            repetitions,
        }),
        template: template_or(&j.template, JUDGE_TEMPLATE)?,
        temperature: j.temperature,
    };
    plan.check().map_err(plan_error)?;
    let mut inputs = JudgeInputs::load(j)?;
    let items = inputs.items(|count| plan.items(&inputs.qa, &inputs.answers, count))?;
    if let Some(s) = &plan.stability {
        // The table's BLEU is of the sampled answers.
        inputs.answers = sample_answers(&inputs.answers, s.answers, s.seed);
    }
    let (qa, answers) = (&inputs.qa, &inputs.answers);
    let name = j.output.display().to_string();
    let judged_so_far = |text: &str| -> Result<Vec<JudgeLine>, CliError> {
        Ok(plan.judged(read_judge_lines(text, &name, true)?))
    };
    let asked = JudgeInputs::ask(j, "coreqa judge", &items, |text| {
        Ok(judged_so_far(text)?.iter().map(JudgeLine::id).collect())
    });
    // The table of what is judged so far, whether or not all of it is.
    let judged = judged_so_far(&fs_read_text(&j.output, "judgments")?)?;
    if plan.stability.is_some() {
        let rows = stability(qa, &judged, answers);
        if a.json {
            // Finite figures and strings: serializing cannot fail.
            outln!("{}", serde_json::to_string(&rows).unwrap_or_default());
        } else {
            out!("{}", repoqa::coreqa::stability::render_text(&rows));
        }
    } else {
        print_table(&summarize(qa, &judged, answers), &judged, a.json);
    }
    asked
}

/// Read every answers file.
fn load_answers(paths: &[PathBuf]) -> Result<Vec<AnswerLine>, CliError> {
    let mut answers = Vec::new();
    for path in paths {
        let text = fs_read_text(path, "answers")?;
        answers.extend(read_answers(&text, &path.display().to_string(), false)?);
    }
    Ok(answers)
}

/// What the judging commands read: the QA file, the answers and the
/// tokenizer (the prompt template is the plan's).
struct JudgeInputs {
    qa: Vec<QaItem>,
    answers: Vec<AnswerLine>,
    tok: Tokenizer,
}

impl JudgeInputs {
    fn load(a: &JudgingArgs) -> Result<JudgeInputs, CliError> {
        Ok(JudgeInputs {
            qa: load_qa(&a.qa)?,
            answers: load_answers(&a.answers)?,
            tok: tokenizer(&a.tokenizer)?,
        })
    }

    /// Ask `items` with the judge, writing `a.output`; `answered` as for
    /// [`ask_items`].
    fn ask<T: RunItem>(
        a: &JudgingArgs,
        label: &'static str,
        items: &[T],
        answered: impl Fn(&str) -> Result<HashSet<String>, CliError>,
    ) -> Result<(), CliError> {
        let job = ItemsJob {
            label,
            api: &a.api,
            temperature: Some(a.temperature),
            output: &a.output,
            what: "judgments",
            selection: TaskSelection { only_failed: a.only_failed, ..TaskSelection::default() },
        };
        ask_items(&job, items, answered)
    }

    /// The items a plan makes, given a token counter.
    fn items<T>(
        &self,
        build: impl FnOnce(&mut dyn FnMut(&str) -> usize) -> Result<Vec<T>, CoreqaPlanError>,
    ) -> Result<Vec<T>, CliError> {
        self.tok.counted(build).map_err(plan_or)
    }
}

/// The prompt template at `path`, or `default`.
fn template_or(path: &Option<PathBuf>, default: &str) -> Result<String, CliError> {
    match path {
        Some(p) => fs_read_text(p, "prompt template"),
        None => Ok(default.to_string()),
    }
}

pub fn pairwise(a: PairwiseArgs) -> Result<(), CliError> {
    let j = &a.judging;
    let plan = PairwisePlan {
        model: j.api.model.clone(),
        setting: a.setting,
        runs: a.runs,
        template: template_or(&j.template, PAIRWISE_TEMPLATE)?,
        temperature: j.temperature,
    };
    plan.check().map_err(plan_error)?;
    let inputs = JudgeInputs::load(j)?;
    let items = inputs.items(|count| plan.items(&inputs.qa, &inputs.answers, count))?;
    let name = j.output.display().to_string();
    let judged_so_far = |text: &str| -> Result<Vec<PairLine>, CliError> {
        Ok(plan.judged(read_pair_lines(text, &name, true)?))
    };
    let asked = JudgeInputs::ask(j, "coreqa pairwise", &items, |text| {
        Ok(judged_so_far(text)?.iter().map(PairLine::id).collect())
    });
    let lines = judged_so_far(&fs_read_text(&j.output, "judgments")?)?;
    let judgments: Vec<_> = in_item_order(lines, &items).into_iter().map(|l| l.judgment).collect();
    print_comparison(&compare(&judgments, a.bootstrap, a.seed), a.json);
    asked
}

/// Elo, the bootstrap interval, the records and the position-bias table,
/// as a table (`Comparison::render_text`) or as JSON.
pub fn print_comparison(c: &Comparison, json: bool) {
    if json {
        // Finite numbers and strings: serializing cannot fail.
        outln!("{}", serde_json::to_string(c).unwrap_or_default());
    } else {
        out!("{}", c.render_text());
    }
}

pub fn generate(a: GenerateArgs) -> Result<(), CliError> {
    let plan = QaBuildPlan {
        model: a.api.model.clone(),
        samples: a.samples,
        prefilter: match (a.prefilter, &a.prefilter_template) {
            (false, _) => None,
            (true, path) => Some(template_or(path, PREFILTER_TEMPLATE)?),
        },
        question_template: template_or(&a.question_template, QUESTION_TEMPLATE)?,
        reference_template: template_or(&a.reference_template, REFERENCE_TEMPLATE)?,
        language: a.language.clone(),
        temperature: a.temperature,
        reference_temperature: a.reference_temperature,
    };
    plan.check().map_err(plan_error)?;
    let name = a.export.display().to_string();
    let export = read_export(&fs_read(&a.export, "issues export")?, &name)?;
    let report = filter_issues(&export);
    let removed: Vec<String> =
        report.removed.iter().filter(|(_, n)| **n > 0).map(|(f, n)| format!("{f} {n}")).collect();
    eprintln!(
        "coreqa build: {}: {} issues, removed by the filters: {}; kept {}",
        report.repository,
        report.issues,
        if removed.is_empty() { "none".to_string() } else { removed.join(", ") },
        report.kept.len()
    );
    let mut issues = plan.kept(&export, &report, &name).map_err(|e| {
        CliError::usage(format!("{e} (`repoqa coreqa issues --export {name}` shows it)"))
    })?;
    let tok = tokenizer(&a.tokenizer)?;
    let repository = export.repository.as_str();
    let mut verdicts: Vec<PrefilterLine> = Vec::new();
    let mut asked_prefilter = Ok(());
    if let Some(items) =
        tok.counted(|count| plan.prefilter_items(repository, &issues, count)).map_err(plan_or)?
    {
        let ppath = PathBuf::from(prefilter_file_name(&a.output.to_string_lossy()));
        let pname = ppath.display().to_string();
        let job = ItemsJob {
            label: "coreqa build",
            api: &a.api,
            temperature: plan.temperature,
            output: &ppath,
            what: "pre-filter verdicts",
            selection: TaskSelection { only_failed: a.only_failed, ..TaskSelection::default() },
        };
        asked_prefilter = ask_items(&job, &items, |text| {
            Ok(read_prefilter(text, &pname, true)?.iter().map(PrefilterLine::id).collect())
        });
        verdicts = read_prefilter(&fs_read_text(&ppath, "pre-filter verdicts")?, &pname, true)?;
        let before = issues.len();
        plan.keep_prefiltered(&mut issues, repository, &verdicts);
        let dropped = verdicts.iter().filter(|v| !v.keep).count();
        eprintln!(
            "coreqa build: the pre-filter kept {} of {before} issue(s), dropped {dropped} (verdicts in {})",
            issues.len(),
            ppath.display()
        );
    }
    let questions =
        tok.counted(|count| plan.question_items(repository, &issues, count)).map_err(plan_or)?;

    let qpath = PathBuf::from(questions_file_name(&a.output.to_string_lossy()));
    let qname = qpath.display().to_string();
    let job = ItemsJob {
        label: "coreqa build",
        api: &a.api,
        output: &qpath,
        what: "questions",
        temperature: Some(plan.question_temperature()),
        selection: TaskSelection { only_failed: a.only_failed, ..TaskSelection::default() },
    };
    let asked_questions = ask_items(&job, &questions, |text| {
        Ok(read_questions(text, &qname, true)?.iter().map(QuestionLine::id).collect())
    });
    let written = read_questions(&fs_read_text(&qpath, "questions")?, &qname, true)?;
    let references = tok
        .counted(|count| plan.reference_items(repository, &issues, &written, &verdicts, count))
        .map_err(plan_or)?;
    let oname = a.output.display().to_string();
    let job = ItemsJob {
        output: &a.output,
        what: "QA items",
        temperature: Some(plan.reference_temperature),
        ..job
    };
    let asked_references = ask_items(&job, &references, |text| {
        Ok(read_qa(text.as_bytes(), &oname)?.into_iter().map(|q| q.id).collect())
    });
    eprintln!(
        "coreqa build: {} question(s) in {}, {} QA item(s) in {}",
        written.len(),
        qpath.display(),
        read_qa(&fs_read(&a.output, "QA file")?, &oname)?.len(),
        a.output.display()
    );
    // Every step's failed requests together; another error as it is.
    let mut tasks = Vec::new();
    for asked in [asked_prefilter, asked_questions, asked_references] {
        match asked {
            Ok(()) => {}
            Err(CliError::TasksFailed { tasks: failed }) => tasks.extend(failed),
            Err(e) => return Err(e),
        }
    }
    if tasks.is_empty() {
        Ok(())
    } else {
        Err(CliError::TasksFailed { tasks })
    }
}

fn print_table(rows: &[JudgeRow], judged: &[JudgeLine], json: bool) {
    if json {
        // Finite numbers and strings: serializing cannot fail.
        outln!("{}", serde_json::to_string(rows).unwrap_or_default());
        return;
    }
    outln!(
        "{:<20} {:<9} {:<10} {:>4} {:>4}  {:>11} {:>11} {:>11} {:>11} {:>11}  {:>5}",
        "model",
        "setting",
        "language",
        "qs",
        "reps",
        "accuracy",
        "complete",
        "relevance",
        "clarity",
        "overall",
        "bleu"
    );
    let ms = |m: repoqa::coreqa::judge::MeanStd| format!("{:.2}±{:.2}", m.mean, m.std);
    for r in rows {
        outln!(
            "{:<20} {:<9} {:<10} {:>4} {:>4}  {:>11} {:>11} {:>11} {:>11} {:>11}  {:>5}",
            r.model,
            r.setting.to_string(),
            r.language,
            r.questions,
            r.repetitions,
            ms(r.criteria.accuracy),
            ms(r.criteria.completeness),
            ms(r.criteria.relevance),
            ms(r.criteria.clarity),
            ms(r.overall),
            r.bleu.map_or("-".to_string(), |b| format!("{b:.3}"))
        );
    }
    if rows.iter().any(|r| r.runs > 1) {
        outln!("± over runs where a model answered more than once (each run's mean over its questions), else over repetitions; per question, the overall score over its runs:");
        for s in per_question(judged).iter().filter(|s| s.runs > 1) {
            outln!(
                "  {} {} {}: {} over {} runs",
                s.question_id,
                s.model,
                s.setting,
                ms(s.overall),
                s.runs
            );
        }
    }
}
