//! `repoqa prompts`: the official task dicts (JSONL) for a dataset.

use std::path::PathBuf;

use repoqa::naming;
use repoqa::report;

use repoqa::api::TaskKind;

use crate::build_args::{build_tasks_at, select_tasks, BuildArgs, CallPathArgs};
use crate::error::{fs_write, refuse_overwriting_inputs, CliError};
use crate::input::{load_dataset, InflateArgs};
use crate::phases::Phases;

#[derive(clap::Args)]
pub struct PromptsArgs {
    /// Dataset file (.json or .json.gz).
    #[arg(long)]
    pub dataset_path: PathBuf,
    #[command(flatten)]
    pub build: BuildArgs,
    /// Which task: RepoQA's Searching Needle Function, or the call-path
    /// task (NOT UPSTREAM, docs/call-path.md: name the shortest chain of
    /// calls from one function to another, or NO PATH).
    #[arg(long, value_enum, default_value = "snf")]
    pub task: TaskKind,
    #[command(flatten)]
    pub call_path: CallPathArgs,
    /// Output JSONL file (default: named after the dataset and settings,
    /// as the app names its download, e.g.
    /// repoqa-2024-04-20_ntoken_16384-tasks.jsonl).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// NOT OFFICIAL: the same contexts with an instruction asking for the
    /// function's name only (score the replies with `name-match`).
    #[arg(long)]
    pub name_protocol: bool,
    /// NOT UPSTREAM (an addition): threads that build tasks, a repo at
    /// a time each (default: the machine's cores). The output is the
    /// same whatever the number.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// NOT UPSTREAM (teaching): put every needle at this depth, 0 to 1,
    /// instead of the official (needle index + 0.5) / needles; the tasks'
    /// `position_ratio` says so. The app's task view rebuilds a task the
    /// same way.
    #[arg(long, value_parser = ratio_arg, allow_negative_numbers = true, conflicts_with = "depths")]
    pub position_ratio: Option<f64>,
}

/// `--position-ratio`: a number from 0 to 1.
fn ratio_arg(text: &str) -> Result<f64, String> {
    repoqa::prompt::settings::parse_position_ratio(text).map_err(|e| e.to_string())
}

/// The depths to build at: `--position-ratio`'s one, else `--depths`'
/// (`[None]`: the official depths).
fn depths(a: &PromptsArgs) -> Vec<Option<f64>> {
    match a.position_ratio {
        Some(r) => vec![Some(r)],
        None => a.build.depths(),
    }
}

pub fn run(a: PromptsArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    if a.task == TaskKind::CallPath {
        return call_path_prompts(&a, inflate);
    }
    if a.call_path.selection() != repoqa::callpath::select::Selection::default() {
        return Err(CliError::usage(
            "--tasks-per-repo, --path-lengths and --no-path-share choose call-path tasks: give --task call-path",
        ));
    }
    let lengths = a.build.lengths();
    let depths = depths(&a);
    if lengths.len() * depths.len() > 1 && a.out.is_some() {
        return Err(CliError::usage(format!(
            "--out with {} lengths and {} depths: each gets its own file, named after it; give no --out",
            lengths.len(),
            depths.len()
        )));
    }
    let mut phases = Phases::start();
    let dataset = load_dataset(&a.dataset_path, inflate)?;
    phases.mark("load-dataset");
    let tok_path = a.build.tokenizer_path();
    if a.name_protocol {
        eprintln!("repoqa: note: {}", repoqa::prompt::name_protocol::LABEL);
    }
    if let Some(r) = a.position_ratio {
        eprintln!("repoqa: note: NOT UPSTREAM: every needle at position_ratio {r}");
    } else if !a.build.depths.is_empty() {
        eprintln!(
            "repoqa: note: NOT UPSTREAM: a depth grid, every needle at each of {} depths, a file per depth",
            depths.len()
        );
    }
    let mut tok = None;
    for (n, depth) in lengths.iter().flat_map(|&n| depths.iter().map(move |&d| (n, d))) {
        // The core's settings type, so both fronts select and name tasks alike.
        let settings = a.build.settings_at(n);
        let out = out_path(&a, &settings, depth);
        refuse_overwriting_inputs(
            "--out",
            &out,
            &[("--dataset-path", &a.dataset_path), ("--tokenizer", &tok_path)],
        )?;
        let specs = select_tasks(&settings, &dataset, &a.dataset_path)?;
        if tok.is_none() {
            tok = Some(a.build.load_tokenizer()?);
            phases.mark("load-tokenizer");
        }
        let Some(tok) = tok.as_ref() else { continue };
        let text = prompts_text(&a, &settings, &dataset, &specs, tok, depth)?;
        phases.mark("build-prompts");
        if out.exists() {
            eprintln!("repoqa: replacing {}", out.display());
        }
        let tag = settings.protocol.as_str();
        if !settings.protocol.is_official() && !out.to_string_lossy().contains(tag) {
            eprintln!("repoqa: NOTE: name the file after the protocol, e.g. tasks-{tag}.jsonl");
        }
        fs_write(&out, text)?;
        phases.mark("write");
        let at = depth.map_or(String::new(), |d| format!(", every needle at depth {d}"));
        eprintln!("prompts: wrote {} tasks ({n} tokens{at}) to {}", specs.len(), out.display());
    }
    Ok(())
}

/// `--task call-path`: the flags SNF's prompts take that it does not are
/// refused by name, the rest go to the call-path plan.
fn call_path_prompts(a: &PromptsArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let refused = [
        (a.name_protocol, "--name-protocol"),
        (a.position_ratio.is_some(), "--position-ratio"),
        (!a.build.depths.is_empty(), "--depths"),
        (
            a.build.clean_ctx_comments != repoqa::prompt::context::CommentMode::None,
            "--clean-ctx-comments",
        ),
        (a.build.control.is_some(), "--control"),
        (a.build.protocol != repoqa::report::Protocol::Official, "--protocol"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(CliError::usage(format!(
            "{flag} is for SNF tasks; the call-path task builds its windows one way (docs/call-path.md)"
        )));
    }
    crate::call_path::prompts(&a.dataset_path, &a.build, &a.call_path, a.out.as_deref(), inflate)
}

/// `--out`, else the default name for these settings (the length, and a
/// depth that is not the official one, in it).
fn out_path(
    a: &PromptsArgs,
    settings: &repoqa::prompt::settings::BuildSettings,
    depth: Option<f64>,
) -> PathBuf {
    let origin = a.dataset_path.display().to_string();
    a.out.clone().unwrap_or_else(|| {
        PathBuf::from(match depth {
            Some(r) => naming::tasks_at_ratio_file_name(&origin, settings, r),
            None => naming::tasks_file_name(&origin, settings),
        })
    })
}

/// The tasks of `specs` built with `settings`, as JSONL lines.
fn prompts_text(
    a: &PromptsArgs,
    settings: &repoqa::prompt::settings::BuildSettings,
    dataset: &repoqa::input::dataset::Dataset,
    specs: &[repoqa::prompt::context::TaskSpec],
    tok: &repoqa::code::tokenize::Tokenizer,
    depth: Option<f64>,
) -> Result<String, CliError> {
    let jobs = a.jobs.map_or_else(repoqa::prompt::context::default_threads, usize::from);
    let tasks = build_tasks_at(settings, dataset, specs, tok, jobs, depth, "prompts:")?;
    let mut text = String::new();
    for task in &tasks {
        let line = if a.name_protocol {
            repoqa::prompt::name_protocol::task_line(task)
        } else {
            report::jsonl_line(task)
        };
        text.push_str(&line?);
    }
    Ok(text)
}
