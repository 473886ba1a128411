//! `repoqa curate --registry pypi|npm|crates --released-after DATE`: a fresh
//! split, from packages whose first release is after a date (NOT UPSTREAM).
//!
//! Each package's metadata is read from the registry (`--index-url`, pip's
//! convention, points at another one), its source archive downloaded and
//! checked against the registry's hash, then curated as `curate --source`
//! curates an archive. The dataset is written once, at the end: a package
//! that fails (a hash mismatch, no source archive, a bomb, an archive that
//! climbs out of its root, a registry answering garbage) stops the command
//! with its message and leaves any dataset already written as it was. With
//! `--top N`, a package that cannot be curated (no source archive, too few
//! functions) is passed over and said; a bad archive or hash still stops.

use std::cell::Cell;
use std::path::Path;
use std::time::{Duration, Instant};

use repoqa::curate::{self, CurateReport, Descriptions, Registry, RegistryError, Release};
use repoqa::input::dataset::Dataset;
use repoqa::input::freshness::{freshness, Day};

use crate::curate::{CurateArgs, RegistryArg};
use crate::error::{fs_write, refuse_overwriting_inputs, At, CliError};
use crate::input::{load_dataset, InflateArgs};

/// A package's metadata document is read up to this size (npm's documents
/// of old, much-published packages run to tens of MiB).
const MAX_METADATA_BYTES: u64 = 256 << 20;
/// A source archive is downloaded up to this size.
const MAX_ARCHIVE_BYTES: u64 = 256 << 20;
/// `--top` looks at most this many pages of the popularity list.
const MAX_POPULAR_PAGES: usize = 10;

fn registry_of(r: RegistryArg) -> Registry {
    match r {
        RegistryArg::Pypi => Registry::Pypi,
        RegistryArg::Npm => Registry::Npm,
        RegistryArg::Crates => Registry::Crates,
    }
}

pub fn run(a: &CurateArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let f = &a.fresh;
    let Some(registry) = f.registry.map(registry_of) else {
        return Err(CliError::usage("curate: --registry is not given"));
    };
    let given = f.released_after.clone().unwrap_or_default();
    let after = Day::parse(&given).ok_or(RegistryError::BadDate { given })?;
    let index = f.index_url.clone().unwrap_or_else(|| registry.default_index().to_string());
    let out = a.out_path();
    if let Some(d) = &a.descriptions {
        refuse_overwriting_inputs("--out", &out, &[("--descriptions", d)])?;
    }
    let descriptions = a.read_descriptions()?;
    // A broken --append file fails before anything is downloaded.
    let mut dataset = match &a.append {
        Some(p) => load_dataset(p, inflate)?,
        None => Dataset::default(),
    };
    let fetch = Fetcher::new(registry, &index);
    let mut run =
        FreshRun { a, registry, after, fetch, descriptions, out: &out, inflate, taken: vec![] };
    match (f.packages.as_slice(), f.top) {
        ([], Some(n)) => run.take_top(n, &index)?,
        (packages, None) if !packages.is_empty() => {
            for p in packages {
                run.consider(p.trim(), false)?;
            }
        }
        _ => {
            return Err(CliError::usage(
                "curate --registry: name the packages with --packages a,b,c, or take the --top N",
            ))
        }
    }
    let considered = run.fetch.considered.get();
    if run.taken.is_empty() {
        return Err(CliError::usage(format!(
            "curate: none of the {considered} package(s) considered on {} was first released after {after} and curated; nothing written",
            registry.title()
        )));
    }
    let mut template = serde_json::Map::new();
    let language = registry.language();
    for report in run.taken {
        let parsed: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&report.description_template()).unwrap_or_default();
        template.extend(parsed);
        let name = report.repo.repo.clone();
        if curate::append_repo(&mut dataset, language, report.repo) {
            eprintln!("curate: replaced the earlier {name} repo of the same name");
        }
    }
    if let Some(t) = &a.template {
        fs_write(t, serde_json::to_string_pretty(&template)? + "\n")?;
        eprintln!(
            "curate: wrote a descriptions template for the sampled needles to {}",
            t.display()
        );
    }
    fs_write(&out, dataset.to_json_string())?;
    let fresh = match freshness(&dataset) {
        Some(f) => format!("its freshness: {f}"),
        None => {
            "some of its repositories record no first release, so it has no freshness date".into()
        }
    };
    eprintln!("curate: wrote {} ({fresh})", out.display());
    Ok(())
}

/// One `--registry` command's state: what was taken so far.
struct FreshRun<'a> {
    a: &'a CurateArgs,
    registry: Registry,
    after: Day,
    fetch: Fetcher,
    descriptions: Descriptions,
    out: &'a Path,
    inflate: &'a InflateArgs,
    taken: Vec<CurateReport>,
}

impl FreshRun<'_> {
    /// Take the `n` most popular fresh packages.
    fn take_top(&mut self, n: usize, index: &str) -> Result<(), CliError> {
        let registry = self.registry;
        let mut page = 0;
        while self.taken.len() < n && page < MAX_POPULAR_PAGES {
            let url = registry.popular_url(index, page)?;
            let (status, body) = self.fetch.get(&url, MAX_METADATA_BYTES)?;
            let list = registry.read_popular(&url, status, &String::from_utf8_lossy(&body))?;
            if list.is_empty() {
                break;
            }
            for (name, created) in list {
                if self.taken.len() >= n {
                    break;
                }
                // crates.io's list gives the date: no need to ask for an old one.
                if let Some(day) = created.filter(|d| *d <= self.after) {
                    self.fetch.considered.set(self.fetch.considered.get() + 1);
                    eprintln!(
                        "curate: {name}: first released {day}, not after {}; passed over",
                        self.after
                    );
                    continue;
                }
                self.consider(&name, true)?;
            }
            page += 1;
        }
        if self.taken.len() < n {
            eprintln!(
                "curate: only {} of the {} most popular packages considered on {} were first released after {} and could be curated (asked for {n})",
                self.taken.len(),
                self.fetch.considered.get(),
                registry.title(),
                self.after
            );
        }
        Ok(())
    }

    /// Read a package's metadata; take it if it is fresh. `lenient`
    /// (`--top`): a package with no source archive, or one too small to
    /// curate, is passed over instead of stopping the command.
    fn consider(&mut self, package: &str, lenient: bool) -> Result<(), CliError> {
        let registry = self.registry;
        self.fetch.considered.set(self.fetch.considered.get() + 1);
        let url = registry.metadata_url(&self.fetch.index, package);
        let (status, body) = self.fetch.get(&url, MAX_METADATA_BYTES)?;
        let release =
            match registry.read_release(package, &url, status, &String::from_utf8_lossy(&body)) {
                Ok(r) => r,
                Err(e @ RegistryError::NoSourceArchive { .. }) if lenient => {
                    eprintln!("curate: {e}; passed over");
                    return Ok(());
                }
                Err(e) => return Err(e.into()),
            };
        if !release.is_fresh(self.after) {
            eprintln!(
                "curate: {package} {}: first released {}, not after {}; passed over",
                release.version, release.first_day, self.after
            );
            return Ok(());
        }
        match self.curate(&release) {
            Ok(report) => {
                self.taken.push(report);
                Ok(())
            }
            Err(e @ CliError::At { .. }) if lenient && is_curation_error(&e) => {
                eprintln!("curate: {e}; passed over");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Download, check and curate a fresh release.
    fn curate(&self, release: &Release) -> Result<CurateReport, CliError> {
        let language = self.registry.language();
        let (status, bytes) = self.fetch.get(&release.archive_url, MAX_ARCHIVE_BYTES)?;
        if status != 200 {
            return Err(CliError::usage(format!(
                "{}: the source archive of {} {} answered {status}",
                release.archive_url, release.package, release.version
            )));
        }
        let sha256 = release.check_archive(&bytes)?;
        let opts = curate::CurateOptions::new(language, release.repo_name());
        let inflate = self.inflate.limits(repoqa::input::limits::InflateLimits::ARCHIVE);
        let limits = curate::ArchiveLimits {
            max_input_bytes: opts.max_input_bytes,
            max_unpacked_bytes: inflate.max_bytes,
            max_inflate_ratio: inflate.max_ratio,
            ..curate::ArchiveLimits::default()
        };
        let contents = curate::read_archive(&release.archive_url, &bytes, &[language], &limits)?;
        eprintln!(
            "curate: {} {} (first released {}): {} ({} bytes, SHA-256 {sha256}), {} {language} files",
            release.package,
            release.version,
            release.first_day,
            release.archive_url,
            bytes.len(),
            contents.files.len(),
        );
        let mut report = curate::curate_repo(&contents.files, &opts, &self.descriptions)
            .at(format_args!("{} {} ({language})", release.package, release.version))?;
        self.a.describe(&mut report, &self.descriptions, self.out)?;
        release.record(&mut report.repo, &sha256);
        Ok(report)
    }
}

/// A package too small or too odd to curate (not a bad archive).
fn is_curation_error(e: &CliError) -> bool {
    match e {
        CliError::At { source, .. } => is_curation_error(source),
        CliError::Core(repoqa::Error::Curate(_)) => true,
        _ => false,
    }
}

/// GETs to one registry, paced as its policy asks (crates.io: one request
/// a second).
struct Fetcher {
    agent: ureq::Agent,
    index: String,
    gap: Duration,
    last: Cell<Option<Instant>>,
    /// Packages considered so far (for the messages).
    considered: Cell<usize>,
}

impl Fetcher {
    fn new(registry: Registry, index: &str) -> Fetcher {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(300)))
            .http_status_as_error(false)
            .max_redirects(5)
            .user_agent(concat!("repoqa-web/", env!("CARGO_PKG_VERSION"), " (curate --registry)"))
            .build()
            .into();
        let public = index.trim_end_matches('/') == registry.default_index();
        let gap = if registry == Registry::Crates && public {
            Duration::from_secs(1)
        } else {
            Duration::ZERO
        };
        Fetcher {
            agent,
            index: index.trim_end_matches('/').to_string(),
            gap,
            last: Cell::new(None),
            considered: Cell::new(0),
        }
    }

    fn get(&self, url: &str, limit: u64) -> Result<(u16, Vec<u8>), CliError> {
        if let Some(last) = self.last.get() {
            let since = last.elapsed();
            if since < self.gap {
                std::thread::sleep(self.gap - since);
            }
        }
        self.last.set(Some(Instant::now()));
        crate::http::get_bytes(&self.agent, url, limit).at(url)
    }
}
