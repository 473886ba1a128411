//! `repoqa`: the native command-line tool over the same core as the web app.
//!
//! - `repoqa prompts`: the official task dicts (JSONL) for a dataset;
//! - `repoqa score`: score a model-outputs JSONL like `repoqa.compute_score`
//!   and write the official `-SCORES.json`;
//! - `repoqa verify`: recompute a SCORES file's table (and, given the
//!   outputs and dataset, every task) and list each mismatch;
//! - `repoqa curate`: turn a repository's source folder into a dataset repo;
//! - `repoqa self-check`: the grammars and tokenizer check of the web app's
//!   About page, natively (the browser test compares the two).
//!
//! Exit codes: 0 success, 1 `verify` found mismatches, 2 bad input (one line
//! naming the file, line and field).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use repoqa::dataset::Dataset;
use repoqa::report::{self, ScoresFile};
use repoqa::score::{self, Candidates, ScoreOptions, Scorer};

#[derive(Parser)]
#[command(
    name = "repoqa",
    version,
    about = "RepoQA Searching-Needle-Function: official prompts and scores, computed locally"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CandidatesArg {
    /// Official: the repo's needles.
    Needles,
    /// NOT OFFICIAL: every repo function that appears in the prompt.
    Context,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CleanArg {
    None,
    PositionalPadding,
    NoPadding,
}

#[derive(Subcommand)]
enum Command {
    /// Build the official tasks (one JSON dict per line, official key order).
    Prompts {
        /// Dataset file (.json or .json.gz).
        #[arg(long)]
        dataset_path: PathBuf,
        #[arg(long, default_value_t = 16384)]
        code_context_size: usize,
        /// Comma-separated languages to keep (default: all, dataset order).
        #[arg(long, value_delimiter = ',')]
        languages: Option<Vec<String>>,
        /// Comment cleaning of upstream HEAD (none = PyPI 0.1.2 behaviour).
        #[arg(long, value_enum, default_value = "none")]
        clean_ctx_comments: CleanArg,
        /// HF tokenizer.json (default: $REPOQA_TOKENIZER or .tools/tokenizer.json).
        #[arg(long)]
        tokenizer: Option<PathBuf>,
        /// Output JSONL file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Score model outputs like `repoqa.compute_score` and write the SCORES file.
    Score {
        /// Model outputs JSONL (task dicts with "output": [reply]).
        #[arg(long)]
        model_output_path: PathBuf,
        /// Dataset file (default: $REPOQA_DATA_OVERRIDE_PATH; nothing is downloaded).
        #[arg(long)]
        dataset_path: Option<PathBuf>,
        /// Remove comments from replies and references before comparing.
        #[arg(long)]
        ignore_comments: bool,
        /// Candidates a reply is matched against.
        #[arg(long, value_enum, default_value = "needles")]
        candidates: CandidatesArg,
        /// Model name (default: from the file name, `_slash_` → `/`, like the official tool).
        #[arg(long)]
        model: Option<String>,
        /// SCORES file to write (default: <outputs without extension>-SCORES.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an existing SCORES file (the old one is kept as <file>.bak, like the official tool).
        #[arg(long)]
        overwrite: bool,
        /// train_size to record (default: the official rules; hub lookups give "N/A" offline).
        #[arg(long)]
        train_size: Option<String>,
        /// eval_date to record (default: now, UTC, as `str(datetime)`).
        #[arg(long)]
        eval_date: Option<String>,
        /// Also write the per-task results as CSV.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Score the good lines even if some lines are broken (they are listed).
        #[arg(long)]
        skip_broken_lines: bool,
    },
    /// Check a SCORES file: recompute its table from its results; with the
    /// outputs and dataset, re-score every task too.
    Verify {
        #[arg(long)]
        scores: PathBuf,
        #[arg(long, requires = "dataset_path")]
        model_output_path: Option<PathBuf>,
        #[arg(long, requires = "model_output_path")]
        dataset_path: Option<PathBuf>,
        /// The scores were made with --ignore-comments.
        #[arg(long)]
        ignore_comments: bool,
        /// Re-score the good lines even if some outputs lines are broken.
        #[arg(long)]
        skip_broken_lines: bool,
    },
    /// Curate a repository into a RepoQA dataset repo (upstream semantics):
    /// files, dependencies, functions, 10 needles, descriptions.
    Curate(Box<CurateArgs>),
    /// Check the grammars and the tokenizer like the web app's About page.
    SelfCheck {
        /// HF tokenizer.json (default: $REPOQA_TOKENIZER or .tools/tokenizer.json).
        #[arg(long)]
        tokenizer: Option<PathBuf>,
        /// Print JSON (what the browser test reads).
        #[arg(long)]
        json: bool,
    },
}

/// Phase timings on stderr when `REPOQA_TIMINGS=1` (read by the speed
/// benchmark, which compares loops with loops and processes with processes).
struct Phases {
    on: bool,
    last: std::time::Instant,
}

impl Phases {
    fn start() -> Phases {
        Phases {
            on: std::env::var_os("REPOQA_TIMINGS").is_some_and(|v| v == "1"),
            last: std::time::Instant::now(),
        }
    }

    fn mark(&mut self, phase: &str) {
        let now = std::time::Instant::now();
        if self.on {
            eprintln!("timing: {phase} {:.6}", (now - self.last).as_secs_f64());
        }
        self.last = now;
    }
}

/// A user-facing failure: the message (one line) and the exit code.
struct Failure(String, u8);

fn bad(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Prompts {
            dataset_path,
            code_context_size,
            languages,
            clean_ctx_comments,
            tokenizer,
            out,
        } => prompts(
            &dataset_path,
            code_context_size,
            languages,
            clean_ctx_comments,
            tokenizer,
            &out,
        ),
        Command::Score {
            model_output_path,
            dataset_path,
            ignore_comments,
            candidates,
            model,
            out,
            overwrite,
            train_size,
            eval_date,
            csv,
            skip_broken_lines,
        } => score_cmd(ScoreArgs {
            outputs: model_output_path,
            dataset: dataset_path,
            options: ScoreOptions {
                ignore_comments,
                candidates: match candidates {
                    CandidatesArg::Needles => Candidates::Needles,
                    CandidatesArg::Context => Candidates::Context,
                },
            },
            model,
            out,
            overwrite,
            train_size,
            eval_date,
            csv,
            skip_broken_lines,
        }),
        Command::Verify {
            scores,
            model_output_path,
            dataset_path,
            ignore_comments,
            skip_broken_lines,
        } => verify(
            &scores,
            model_output_path.as_deref(),
            dataset_path.as_deref(),
            ignore_comments,
            skip_broken_lines,
        ),
        Command::Curate(args) => curate(*args),
        Command::SelfCheck { tokenizer, json } => self_check(tokenizer, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg, code)) => {
            eprintln!("repoqa: {msg}");
            ExitCode::from(code)
        }
    }
}

fn read_bytes(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| bad(format!("{what} {}: {e}", path.display())))
}

fn read_text(path: &Path, what: &str) -> Result<String, Failure> {
    let bytes = read_bytes(path, what)?;
    String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "{what} {}: not UTF-8 text (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

fn load_dataset(path: &Path) -> Result<Dataset, Failure> {
    let bytes = read_bytes(path, "dataset")?;
    Dataset::from_bytes(&bytes, &path.display().to_string()).map_err(|e| bad(e.to_string()))
}

fn dataset_path_or_env(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(p) = given {
        return Ok(p);
    }
    match std::env::var_os("REPOQA_DATA_OVERRIDE_PATH") {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => Err(bad(
            "no dataset: pass --dataset-path (or set REPOQA_DATA_OVERRIDE_PATH); this tool never downloads the release",
        )),
    }
}

/// `str(datetime)` of now, in UTC.
fn now_eval_date() -> String {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    report::format_eval_date(now.as_secs() as i64, now.subsec_micros())
}

fn prompts(
    dataset_path: &Path,
    size: usize,
    languages: Option<Vec<String>>,
    clean: CleanArg,
    tokenizer: Option<PathBuf>,
    out: &Path,
) -> Result<(), Failure> {
    use repoqa::context::{self, CommentMode, ContextBuilder, ContextOptions};
    use repoqa::lang::Language;
    let mut phases = Phases::start();
    let dataset = load_dataset(dataset_path)?;
    phases.mark("load-dataset");
    let selected: Option<Vec<Language>> = match &languages {
        None => None,
        Some(names) => {
            let mut ls = Vec::new();
            for name in names {
                let l = Language::from_name(name.trim())
                    .map_err(|e| bad(format!("--languages: {e}")))?;
                if dataset.repos(l.name()).is_none() {
                    eprintln!(
                        "repoqa: note: the dataset {} has no {l} repos",
                        dataset_path.display()
                    );
                }
                ls.push(l);
            }
            Some(ls)
        }
    };
    let tok_path = tokenizer.unwrap_or_else(repoqa::tokenize::default_tokenizer_path);
    let tok = repoqa::tokenize::Tokenizer::from_file(&tok_path).map_err(|e| bad(e.to_string()))?;
    phases.mark("load-tokenizer");
    let options = ContextOptions {
        code_context_size: size,
        comment_mode: match clean {
            CleanArg::None => CommentMode::None,
            CleanArg::PositionalPadding => CommentMode::PositionalPadding,
            CleanArg::NoPadding => CommentMode::NoPadding,
        },
        ..ContextOptions::default()
    };
    let specs = context::task_specs(&dataset, selected.as_deref());
    let mut builder = ContextBuilder::new(&dataset, options, &tok);
    let mut text = String::new();
    let total = specs.len();
    for (i, spec) in specs.iter().enumerate() {
        let task = builder.build(spec).map_err(|e| bad(e.to_string()))?;
        text.push_str(&report::jsonl_line(&task).map_err(|e| bad(e.to_string()))?);
        if (i + 1) % 10 == 0 || i + 1 == total {
            eprint!("\rprompts: {}/{} tasks", i + 1, total);
        }
    }
    eprintln!();
    phases.mark("build-prompts");
    if out.exists() {
        eprintln!("repoqa: replacing {}", out.display());
    }
    std::fs::write(out, text).map_err(|e| bad(format!("cannot write {}: {e}", out.display())))?;
    phases.mark("write");
    eprintln!("prompts: wrote {total} tasks to {}", out.display());
    Ok(())
}

struct ScoreArgs {
    outputs: PathBuf,
    dataset: Option<PathBuf>,
    options: ScoreOptions,
    model: Option<String>,
    out: Option<PathBuf>,
    overwrite: bool,
    train_size: Option<String>,
    eval_date: Option<String>,
    csv: Option<PathBuf>,
    skip_broken_lines: bool,
}

fn read_outputs(path: &Path, skip_broken: bool) -> Result<Vec<report::ModelOutput>, Failure> {
    let text = read_text(path, "model outputs")?;
    let file = report::read_model_outputs(&text);
    for e in &file.errors {
        eprintln!("repoqa: {}: {e}", path.display());
    }
    if !file.errors.is_empty() && !skip_broken {
        return Err(bad(format!(
            "{}: {} broken line(s) (listed above); fix them or pass --skip-broken-lines to score the other {}",
            path.display(),
            file.errors.len(),
            file.outputs.len()
        )));
    }
    if file.outputs.is_empty() {
        return Err(bad(format!("{}: no model outputs", path.display())));
    }
    Ok(file.outputs)
}

fn score_cmd(a: ScoreArgs) -> Result<(), Failure> {
    let outputs_str = a.outputs.to_string_lossy().into_owned();
    let dataset_path = dataset_path_or_env(a.dataset)?;
    let mut phases = Phases::start();
    let outputs = read_outputs(&a.outputs, a.skip_broken_lines)?;
    phases.mark("read-outputs");
    let dataset = load_dataset(&dataset_path)?;
    phases.mark("load-dataset");
    let model = a.model.unwrap_or_else(|| report::model_name_from_path(&outputs_str));
    let official = a.options.candidates == Candidates::Needles;
    if !official {
        eprintln!("repoqa: NOTE: --candidates context is NOT the official scoring; these scores are not comparable with published ones");
    }
    let out = a.out.unwrap_or_else(|| {
        let p = report::scores_path_for(&outputs_str);
        // Never let a non-official file take the official name.
        PathBuf::from(if official { p } else { p.replace("-SCORES.json", "-CONTEXT-SCORES.json") })
    });
    if out.exists() && !a.overwrite {
        return Err(bad(format!(
            "{} already exists; pass --overwrite (it is then kept as a .bak) or --out",
            out.display()
        )));
    }

    let mut scorer = Scorer::new(&dataset, a.options);
    let total = outputs.len();
    let run = scorer
        .score_all(&outputs, |done, total| {
            if done % 25 == 0 || done == total {
                eprint!("\rscoring {model}: {done}/{total}");
            }
        })
        .map_err(|e| bad(e.to_string()))?;
    eprintln!();
    phases.mark("score");

    let train_size = match a.train_size {
        Some(t) => t,
        None => {
            let t = report::train_size(&model);
            if t.needs_hub_lookup {
                eprintln!(
                    "repoqa: train_size of {model} needs a Hugging Face hub lookup (no network here): writing \"N/A\", as the official tool does when the lookup fails; use --train-size to set it"
                );
            }
            t.value
        }
    };
    let eval_date = a.eval_date.unwrap_or_else(now_eval_date);
    let file = ScoresFile::single(&model, run.model_scores(&eval_date, &train_size));

    println!(
        "{}",
        run.table
            .render_text(&format!("Scores (%) of {model} at different thresholds ({total} tasks)"))
    );

    if out.exists() {
        let mut bak = PathBuf::from(format!("{}.bak", out.display()));
        while bak.exists() {
            bak = PathBuf::from(format!("{}.bak", bak.display()));
        }
        std::fs::rename(&out, &bak)
            .map_err(|e| bad(format!("cannot back up {}: {e}", out.display())))?;
        eprintln!("repoqa: backed up {} to {}", out.display(), bak.display());
    }
    std::fs::write(&out, file.to_python_json())
        .map_err(|e| bad(format!("cannot write {}: {e}", out.display())))?;
    eprintln!("repoqa: wrote {}", out.display());
    if let Some(csv) = a.csv {
        std::fs::write(&csv, report::results_csv(&run.results))
            .map_err(|e| bad(format!("cannot write {}: {e}", csv.display())))?;
        eprintln!("repoqa: wrote {}", csv.display());
    }
    Ok(())
}

fn verify(
    scores_path: &Path,
    outputs: Option<&Path>,
    dataset: Option<&Path>,
    ignore_comments: bool,
    skip_broken_lines: bool,
) -> Result<(), Failure> {
    let text = read_text(scores_path, "scores file")?;
    let file = ScoresFile::parse(&text, &scores_path.display().to_string())
        .map_err(|e| bad(e.to_string()))?;
    let mut mismatches = Vec::new();
    for (model, ms) in &file.models {
        let found = score::verify_table(ms);
        println!(
            "{}: {model}: table of {} rows recomputed from {} tasks: {}",
            scores_path.display(),
            ms.scores.as_object().map_or(0, |o| o.len()),
            ms.task_count(),
            if found.is_empty() {
                "OK".to_string()
            } else {
                format!("{} mismatch(es)", found.len())
            }
        );
        mismatches.extend(found.into_iter().map(|m| (model.clone(), m)));
    }
    if let (Some(outputs_path), Some(dataset_path)) = (outputs, dataset) {
        if file.models.len() != 1 {
            return Err(bad(format!(
                "{}: holds {} models; re-scoring needs a single-model file",
                scores_path.display(),
                file.models.len()
            )));
        }
        let outputs = read_outputs(outputs_path, skip_broken_lines)?;
        let dataset = load_dataset(dataset_path)?;
        let options = ScoreOptions { ignore_comments, candidates: Candidates::Needles };
        let run = Scorer::new(&dataset, options)
            .score_all(&outputs, |done, total| {
                if done % 25 == 0 || done == total {
                    eprint!("\rre-scoring: {done}/{total}");
                }
            })
            .map_err(|e| bad(e.to_string()))?;
        eprintln!();
        let (model, ms) = file.models.iter().next().expect("one model");
        let found = score::verify_results(&ms.results, &run.results);
        println!(
            "{}: {model}: {} tasks re-scored from {}: {}",
            scores_path.display(),
            run.evaluations.len(),
            outputs_path.display(),
            if found.is_empty() {
                "OK".to_string()
            } else {
                format!("{} mismatch(es)", found.len())
            }
        );
        mismatches.extend(found.into_iter().map(|m| (model.clone(), m)));
        let ours = run.table.to_value();
        if repoqa::pyjson::dumps(&ours) != repoqa::pyjson::dumps(&ms.scores) {
            mismatches.push((
                model.clone(),
                score::Mismatch {
                    at: "scores (from re-scored tasks)".into(),
                    expected: "the file's table".into(),
                    actual: "a different table".into(),
                },
            ));
        }
    }
    let mut stdout = std::io::stdout().lock();
    for (model, m) in &mismatches {
        let _ = writeln!(stdout, "MISMATCH {model}: {m}");
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(Failure(format!("{}: {} mismatch(es)", scores_path.display(), mismatches.len()), 1))
    }
}

#[derive(clap::Args)]
struct CurateArgs {
    /// Language of the files to keep (python, cpp, java, typescript, rust, go).
    #[arg(long)]
    language: String,
    /// "owner/name" recorded in the dataset (also the default seed).
    #[arg(long)]
    repo: String,
    /// The repository's root folder, or an archive of it (.zip, .tar,
    /// .tar.gz/.tgz; a single top directory in it is taken as the root).
    #[arg(long)]
    source: PathBuf,
    /// Entry directory under the root (default: the whole root).
    #[arg(long)]
    entry: Option<String>,
    /// Seed of the needle sample (default: crc32 of --repo).
    #[arg(long)]
    seed: Option<u64>,
    /// JSON {"needle name": "description"}; needles without one are left out (and listed).
    #[arg(long)]
    descriptions: Option<PathBuf>,
    /// Recorded commit (default: a SHA-1 of the content).
    #[arg(long)]
    commit: Option<String>,
    #[arg(long)]
    topic: Option<String>,
    /// Write a descriptions template {name: ""} for the sampled needles here.
    #[arg(long)]
    template: Option<PathBuf>,
    /// Add the repo to this existing dataset file instead of starting a new one.
    #[arg(long)]
    append: Option<PathBuf>,
    /// Dataset JSON to write (default: the --append file, else dataset.json).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    llm: LlmArgs,
    /// Where the descriptions (the --descriptions file's and the model's) are
    /// saved after each reply, for --descriptions on a rerun (default, with
    /// --llm-*: the dataset path with extension .descriptions.json).
    #[arg(long)]
    descriptions_out: Option<PathBuf>,
}

/// The model that writes missing descriptions (all optional: no
/// --llm-base-url, no model).
#[derive(clap::Args)]
struct LlmArgs {
    /// Describe the sampled needles that --descriptions does not cover with
    /// a model behind this OpenAI-compatible API (e.g. https://api.openai.com/v1).
    #[arg(long = "llm-base-url", requires = "model")]
    base_url: Option<String>,
    /// The model to ask (with --llm-base-url).
    #[arg(long = "llm-model", requires = "base_url")]
    model: Option<String>,
    /// Environment variable holding the API key (unset: no key is sent).
    #[arg(long = "llm-api-key-env", default_value = "OPENAI_API_KEY")]
    key_env: String,
    #[arg(long = "llm-temperature", default_value_t = 0.0)]
    temperature: f64,
    #[arg(long = "llm-max-tokens")]
    max_tokens: Option<u32>,
    /// Seconds one request may take.
    #[arg(long = "llm-timeout", default_value_t = repoqa::llm::DEFAULT_TIMEOUT_SECS)]
    timeout: u64,
}

impl LlmArgs {
    /// The API settings, if a model was asked for; the key is read from
    /// the environment (never from the command line, which others can see).
    fn settings(&self) -> Option<repoqa::llm::ApiSettings> {
        let (base_url, model) = self.base_url.clone().zip(self.model.clone())?;
        let mut s = repoqa::llm::ApiSettings::new(base_url, model);
        s.temperature = Some(self.temperature);
        s.max_tokens = self.max_tokens;
        s.timeout_secs = self.timeout;
        s.api_key = std::env::var(&self.key_env).ok().filter(|k| !k.trim().is_empty());
        Some(s)
    }
}

fn curate(a: CurateArgs) -> Result<(), Failure> {
    use repoqa::curate::{self, CurateOptions, Descriptions};
    use repoqa::lang::Language;
    let language = Language::from_name(&a.language).map_err(|e| bad(format!("--language: {e}")))?;
    let mut opts = CurateOptions::new(language, a.repo.clone());
    opts.entry = a.entry.clone();
    if let Some(seed) = a.seed {
        opts.seed = seed;
    }
    opts.commit_sha = a.commit;
    opts.topic = a.topic;
    let descriptions = match &a.descriptions {
        Some(p) => {
            Descriptions::from_json(&read_bytes(p, "descriptions")?, &p.display().to_string())
                .map_err(|e| bad(e.to_string()))?
        }
        None => Descriptions::new(),
    };
    let files = if a.source.is_file() {
        read_source_archive(&a.source, language, opts.max_input_bytes)?
    } else {
        curate::read_source_dir(&a.source, language, a.entry.as_deref())
            .map_err(|e| bad(format!("{}: {e}", a.source.display())))?
    };
    let mut report = curate::curate_repo(&files, &opts, &descriptions)
        .map_err(|e| bad(format!("{} ({language}): {e}", a.source.display())))?;
    let out = a.out.clone().or(a.append.clone()).unwrap_or_else(|| PathBuf::from("dataset.json"));
    let model = a.llm.settings();
    let descriptions_out = a
        .descriptions_out
        .clone()
        .or_else(|| model.as_ref().map(|_| out.with_extension("descriptions.json")));
    if let Some(settings) = &model {
        let obtained = describe_with_model(
            settings,
            &a.llm.key_env,
            &report,
            &descriptions,
            descriptions_out.as_deref(),
        )?;
        report.apply_descriptions(&obtained);
    } else if let Some(path) = &descriptions_out {
        write_descriptions(path, &descriptions)?;
    }
    let st = &report.stats;
    eprintln!(
        "curate: {} ({language}): {} files ({} skipped), {} dependency edges, {} functions, {} needle candidates, {} needles sampled, {} with a description",
        a.repo,
        st.files,
        st.skipped_files,
        st.edges,
        st.functions,
        st.candidates,
        report.sampled.len(),
        report.repo.needles.len()
    );
    for w in &report.warnings {
        eprintln!("curate: warning: {w}");
    }
    if let Some(t) = &a.template {
        std::fs::write(t, report.description_template() + "\n")
            .map_err(|e| bad(format!("cannot write {}: {e}", t.display())))?;
        eprintln!(
            "curate: wrote a descriptions template for the sampled needles to {}",
            t.display()
        );
    }
    let missing = report.missing_descriptions();
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|n| n.name.as_str()).collect();
        eprintln!(
            "curate: {} sampled needles have no description and are left out of the tasks: {} (fill them with --template, then pass --descriptions; or let a model describe them with --llm-base-url and --llm-model)",
            names.len(),
            names.join(", ")
        );
    }
    let mut dataset = match &a.append {
        Some(p) => load_dataset(p)?,
        None => Dataset::default(),
    };
    if curate::append_repo(&mut dataset, language, report.repo) {
        eprintln!("curate: replaced the earlier {} repo of the same name", a.repo);
    }
    std::fs::write(&out, dataset.to_json_string())
        .map_err(|e| bad(format!("cannot write {}: {e}", out.display())))?;
    eprintln!("curate: wrote {}", out.display());
    Ok(())
}

fn write_descriptions(path: &Path, d: &repoqa::curate::Descriptions) -> Result<(), Failure> {
    std::fs::write(path, d.to_json_pretty() + "\n")
        .map_err(|e| bad(format!("cannot write {}: {e}", path.display())))
}

/// Ask the model for every needle `report` lacks a description of; returns
/// the descriptions obtained. After each one, `given` plus all obtained so
/// far are saved to `save_to`, so a failure later loses nothing. A needle
/// whose request fails is reported and stays without a description; a
/// failure every request would repeat (key, URL, model) stops the run.
fn describe_with_model(
    settings: &repoqa::llm::ApiSettings,
    key_env: &str,
    report: &repoqa::curate::CurateReport,
    given: &repoqa::curate::Descriptions,
    save_to: Option<&Path>,
) -> Result<repoqa::curate::Descriptions, Failure> {
    use repoqa::curate::Descriptions;
    use repoqa::llm;
    settings.validate().map_err(|e| bad(e.to_string()))?;
    let jobs = report.describe_jobs();
    if jobs.is_empty() {
        eprintln!("curate: every sampled needle has a description; the model is not called");
        return Ok(Descriptions::new());
    }
    if settings.api_key.is_none() {
        eprintln!("curate: note: ${} is not set; the requests carry no API key", key_env);
    }
    eprintln!(
        "curate: describing {} needles with {} at {}",
        jobs.len(),
        settings.model,
        settings.endpoint()
    );
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(settings.timeout_secs)))
        .http_status_as_error(false)
        .build()
        .into();
    let total = jobs.len();
    let mut saved = given.clone();
    let save_error = std::cell::RefCell::new(None::<Failure>);
    let run = llm::describe_needles_blocking(
        settings,
        &jobs,
        |req| post(&agent, &req),
        |p| match p {
            llm::Progress::Asking { index, job } => {
                eprint!("[{}/{total}] describing {} ... ", index + 1, job.name)
            }
            llm::Progress::Answered { job, result: Ok(d), .. } => {
                eprintln!("ok");
                saved.insert(job.name.clone(), d);
                if let Some(path) = save_to {
                    if let Err(e) = write_descriptions(path, &saved) {
                        save_error.replace(Some(e));
                    }
                }
            }
            llm::Progress::Answered { job, result: Err(e), .. } => {
                eprintln!("failed\ncurate: {}: {e}", job.name)
            }
        },
        // A descriptions file that cannot be written stops the run: its
        // point is that no reply is lost.
        || save_error.borrow().is_some(),
    );
    if let Some(e) = save_error.into_inner() {
        return Err(e);
    }
    let kept = save_to.map(|p| {
        format!(" (the {} descriptions obtained are in {})", run.obtained.len(), p.display())
    });
    if let Some(e) = &run.stopped {
        return Err(bad(format!("stopped describing needles: {e}{}", kept.unwrap_or_default())));
    }
    if let Some(path) = save_to {
        write_descriptions(path, &saved)?;
        eprintln!(
            "curate: saved the descriptions to {} (pass it as --descriptions to reuse them)",
            path.display()
        );
    }
    if !run.failures.is_empty() {
        let names: Vec<&str> = run.failures.iter().map(|(n, _)| n.as_str()).collect();
        let retry =
            save_to.map(|p| format!(" with --descriptions {}", p.display())).unwrap_or_default();
        eprintln!(
            "curate: {} of {total} needles could not be described and are left out: {} (run again{retry} to ask only for them)",
            names.len(),
            names.join(", ")
        );
    }
    Ok(run.obtained)
}

/// Send one request; any HTTP status is a reply, only a failure to get one
/// is an error.
fn post(
    agent: &ureq::Agent,
    req: &repoqa::llm::HttpRequest,
) -> Result<repoqa::llm::HttpReply, repoqa::llm::LlmError> {
    let failed = |e: ureq::Error| repoqa::llm::LlmError::Transport {
        url: req.url.clone(),
        message: e.to_string(),
    };
    let mut call = agent.post(&req.url);
    for (k, v) in &req.headers {
        call = call.header(k, v);
    }
    let mut resp = call.send(req.body.as_str()).map_err(failed)?;
    let status = resp.status().as_u16();
    let retry_after =
        resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
    let body = resp.body_mut().read_to_string().map_err(failed)?;
    Ok(repoqa::llm::HttpReply { status, retry_after, body })
}

/// The language's files of an archive, as `read_source_dir` gives them for
/// the unpacked folder.
fn read_source_archive(
    path: &std::path::Path,
    language: repoqa::lang::Language,
    max_input_bytes: u64,
) -> Result<Vec<repoqa::curate::SourceFile>, Failure> {
    use repoqa::curate::{read_archive, ArchiveLimits};
    let bytes = read_bytes(path, "source archive")?;
    let limits = ArchiveLimits { max_input_bytes, ..ArchiveLimits::default() };
    let contents = read_archive(&path.display().to_string(), &bytes, &[language], &limits)
        .map_err(|e| bad(e.to_string()))?;
    eprintln!(
        "curate: {} ({}): {} entries, {} {language} files{}",
        path.display(),
        contents.format.name(),
        contents.entries,
        contents.files.len(),
        contents.root.as_ref().map(|r| format!(", root directory {r}/")).unwrap_or_default()
    );
    Ok(contents.files)
}

fn self_check(tokenizer: Option<PathBuf>, json: bool) -> Result<(), Failure> {
    let path = tokenizer.unwrap_or_else(repoqa::tokenize::default_tokenizer_path);
    let tok = repoqa::tokenize::Tokenizer::from_file(&path).map_err(|e| bad(e.to_string()))?;
    let report = repoqa::selfcheck::report_json(&tok).map_err(|e| bad(e.to_string()))?;
    let grammars_ok =
        report["grammars"].as_array().is_some_and(|gs| gs.iter().all(|g| g["ok"] == true));
    if json {
        println!("{report}");
    } else {
        for g in report["grammars"].as_array().into_iter().flatten() {
            println!(
                "{:<11} {:<28} {}",
                g["language"].as_str().unwrap_or("?"),
                g["grammar"].as_str().unwrap_or("?"),
                if g["ok"] == true { "ok" } else { "FAILED" }
            );
        }
        println!(
            "tokenizer   {} tokens in the sample line (vocabulary {})",
            report["tokenizer"]["sample_count"], report["tokenizer"]["vocab_size"]
        );
    }
    if grammars_ok {
        Ok(())
    } else {
        Err(Failure("a grammar failed its self-check".into(), 1))
    }
}
