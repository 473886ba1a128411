//! `repoqa curate`: turn a repository's source folder (or archive) into a
//! dataset repo.

use std::path::PathBuf;

use repoqa::input::dataset::Dataset;

use crate::describe::{describe_with_model, write_descriptions, LlmArgs};
use crate::error::{fs_read, fs_write, refuse_overwriting_inputs, At, CliError};
use crate::input::{load_dataset, InflateArgs};

#[derive(clap::Args)]
pub struct CurateArgs {
    /// Language of the files to keep (python, cpp, java, typescript, rust, go).
    #[arg(long, required_unless_present = "registry", conflicts_with = "registry")]
    language: Option<String>,
    /// "owner/name" recorded in the dataset (also the default seed).
    #[arg(long, required_unless_present = "registry", conflicts_with = "registry")]
    repo: Option<String>,
    /// The repository's root folder, or an archive of it (.zip, .tar,
    /// .tar.gz/.tgz; a single top directory in it is taken as the root).
    #[arg(long, required_unless_present = "registry", conflicts_with = "registry")]
    source: Option<PathBuf>,
    #[command(flatten)]
    pub fresh: FreshArgs,
    /// Entry directory under the root (default: the whole root).
    #[arg(long, conflicts_with = "registry")]
    entry: Option<String>,
    /// How --entry selects files: `directory` (its files only) or `prefix`
    /// (upstream's `path.startswith(entrypoint)`, which made the official
    /// dataset: `src/black` also takes `src/blackd/…`).
    #[arg(long, value_enum, default_value = "directory")]
    entry_match: EntryMatchArg,
    /// Seed of the needle sample (default: crc32 of --repo).
    #[arg(long, conflicts_with = "registry")]
    seed: Option<u64>,
    /// JSON {"needle name": "description"}; needles without one are left out (and listed).
    #[arg(long)]
    pub(crate) descriptions: Option<PathBuf>,
    /// Recorded commit (default: a SHA-1 of the content).
    #[arg(long, conflicts_with = "registry")]
    commit: Option<String>,
    #[arg(long)]
    pub(crate) topic: Option<String>,
    /// Write a descriptions template {name: ""} for the sampled needles here.
    #[arg(long)]
    pub(crate) template: Option<PathBuf>,
    /// Add the repo to this existing dataset file instead of starting a new one.
    #[arg(long)]
    pub(crate) append: Option<PathBuf>,
    /// Dataset JSON to write (default: the --append file, else dataset.json).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
    /// Where the descriptions (the --descriptions file's and the model's) are
    /// saved after each reply, for --descriptions on a rerun (default, with
    /// --llm-*: the dataset path with extension .descriptions.json).
    #[arg(long)]
    pub(crate) descriptions_out: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct FreshArgs {
    /// NOT UPSTREAM: curate a fresh split from a package registry instead of
    /// --source: pypi (Python), npm (TypeScript) or crates (Rust). Each
    /// repository records its package, version, first release and archive
    /// hash; the dataset's freshness is the earliest first release.
    #[arg(long, value_enum, requires = "released_after")]
    pub registry: Option<RegistryArg>,
    /// With --registry: take only packages first released after this day
    /// (YYYY-MM-DD, UTC), by the registry's own metadata.
    #[arg(long, requires = "registry")]
    pub(crate) released_after: Option<String>,
    /// With --registry: the packages to consider, comma-separated.
    #[arg(long, value_delimiter = ',', requires = "registry", conflicts_with = "top")]
    pub(crate) packages: Vec<String>,
    /// With --registry: the N most popular fresh packages by the registry's
    /// own signal (crates.io: recent downloads; npm: search popularity of
    /// TypeScript packages). PyPI publishes none: name them with --packages.
    #[arg(long, requires = "registry")]
    pub(crate) top: Option<usize>,
    /// With --registry: the registry's address (default: https://pypi.org,
    /// https://registry.npmjs.org, https://crates.io).
    #[arg(long, requires = "registry")]
    pub(crate) index_url: Option<String>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RegistryArg {
    Pypi,
    Npm,
    Crates,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum EntryMatchArg {
    Directory,
    Prefix,
}

pub fn run(a: CurateArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    use repoqa::code::lang::Language;
    use repoqa::curate::{self, CurateOptions};
    // clap requires the three without --registry.
    let (Some(language), Some(repo), Some(source)) = (&a.language, &a.repo, &a.source) else {
        return Err(CliError::usage("curate: give --language, --repo and --source, or --registry"));
    };
    let language = Language::from_name(language).at("--language")?;
    let out = a.out_path();
    // Nothing this command reads is written over (`--append` is read and
    // rewritten by design).
    let mut inputs = vec![("--source", source.as_path())];
    if let Some(d) = &a.descriptions {
        inputs.push(("--descriptions", d));
    }
    refuse_overwriting_inputs("--out", &out, &inputs)?;
    if let Some(t) = &a.template {
        refuse_overwriting_inputs("--template", t, &inputs)?;
        refuse_overwriting_inputs("--template", t, &[("--out", &out)])?;
    }
    if let Some(d) = &a.descriptions_out {
        refuse_overwriting_inputs(
            "--descriptions-out",
            d,
            &[("--source", source), ("--out", &out)],
        )?;
    }
    let mut opts = CurateOptions::new(language, repo.clone());
    opts.entry = a.entry.clone();
    opts.entry_match = match a.entry_match {
        EntryMatchArg::Directory => curate::EntryMatch::Directory,
        EntryMatchArg::Prefix => curate::EntryMatch::Prefix,
    };
    if let Some(seed) = a.seed {
        opts.seed = seed;
    }
    opts.commit_sha = a.commit.clone();
    opts.topic = a.topic.clone();
    let descriptions = a.read_descriptions()?;
    let files = if source.is_file() {
        read_source_archive(source, language, opts.max_input_bytes, inflate)?
    } else {
        let dir = curate::read_source_dir_matching(
            source,
            language,
            a.entry.as_deref(),
            opts.entry_match,
        )
        .at(source.display())?;
        for f in &dir.skipped {
            eprintln!("curate: {}: {}: {}", source.display(), f.path, f.reason);
        }
        dir.files
    };
    let mut report = curate::curate_repo(&files, &opts, &descriptions)
        .at(format_args!("{} ({language})", source.display()))?;
    a.describe(&mut report, &descriptions, &out)?;
    if let Some(t) = &a.template {
        fs_write(t, report.description_template() + "\n")?;
        eprintln!(
            "curate: wrote a descriptions template for the sampled needles to {}",
            t.display()
        );
    }
    let mut dataset = match &a.append {
        Some(p) => load_dataset(p, inflate)?,
        None => Dataset::default(),
    };
    if curate::append_repo(&mut dataset, language, report.repo) {
        eprintln!("curate: replaced the earlier {repo} repo of the same name");
    }
    fs_write(&out, dataset.to_json_string())?;
    eprintln!("curate: wrote {}", out.display());
    Ok(())
}

impl CurateArgs {
    /// `--out`, else the `--append` file, else dataset.json.
    pub(crate) fn out_path(&self) -> PathBuf {
        self.out.clone().or(self.append.clone()).unwrap_or_else(|| PathBuf::from("dataset.json"))
    }

    /// The `--descriptions` file's (none: empty).
    pub(crate) fn read_descriptions(&self) -> Result<repoqa::curate::Descriptions, CliError> {
        use repoqa::curate::Descriptions;
        Ok(match &self.descriptions {
            Some(p) => {
                Descriptions::from_json(&fs_read(p, "descriptions")?, &p.display().to_string())?
            }
            None => Descriptions::new(),
        })
    }

    /// Let the `--llm-*` model describe the needles `descriptions` leaves
    /// out (saving them as they come), then say what the curation found,
    /// its warnings and the needles still without a description.
    pub(crate) fn describe(
        &self,
        report: &mut repoqa::curate::CurateReport,
        descriptions: &repoqa::curate::Descriptions,
        out: &std::path::Path,
    ) -> Result<(), CliError> {
        let model = self.llm.endpoint();
        let descriptions_out = self
            .descriptions_out
            .clone()
            .or_else(|| model.as_ref().map(|_| out.with_extension("descriptions.json")));
        if let Some(settings) = &model {
            let obtained = describe_with_model(
                settings,
                self.llm.timeout,
                &self.llm.key_env_names(),
                report,
                descriptions,
                descriptions_out.as_deref(),
            )?;
            report.apply_descriptions(&obtained);
        } else if let Some(path) = &descriptions_out {
            write_descriptions(path, descriptions)?;
        }
        let st = &report.stats;
        eprintln!(
            "curate: {} ({}): {} files ({} skipped), {} dependency edges, {} functions, {} needle candidates, {} needles sampled, {} with a description",
            report.repo.repo,
            report.language,
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
        let missing = report.missing_descriptions();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|n| n.name.as_str()).collect();
            eprintln!(
                "curate: {} sampled needles have no description and are left out of the tasks: {} (fill them with --template, then pass --descriptions; or let a model describe them with --llm-base-url and --llm-model)",
                names.len(),
                names.join(", ")
            );
        }
        Ok(())
    }
}

/// The language's files of an archive, as `read_source_dir` gives them for
/// the unpacked folder.
fn read_source_archive(
    path: &std::path::Path,
    language: repoqa::code::lang::Language,
    max_input_bytes: u64,
    inflate: &InflateArgs,
) -> Result<Vec<repoqa::curate::SourceFile>, CliError> {
    use repoqa::curate::{read_archive, ArchiveLimits};
    let bytes = fs_read(path, "source archive")?;
    let inflate = inflate.limits(repoqa::input::limits::InflateLimits::ARCHIVE);
    let limits = ArchiveLimits {
        max_input_bytes,
        max_unpacked_bytes: inflate.max_bytes,
        max_inflate_ratio: inflate.max_ratio,
        ..ArchiveLimits::default()
    };
    let contents = read_archive(&path.display().to_string(), &bytes, &[language], &limits)?;
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
