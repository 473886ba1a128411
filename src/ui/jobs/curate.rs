//! The Curate page's jobs, on its own line: read a picked folder or an
//! archive (refused by size before anything is read, then read in slices),
//! read a descriptions file, curate (the core's `Curation`, in a compute
//! engine worker of its own, with its progress), and ask a model for the missing
//! descriptions. The page shows the line's label while a job runs, then
//! its message (`CurateState::status`) or its error.

use std::future::Future;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::code::lang::Language;
use repoqa::curate::{
    append_repo, count_by_language, default_seed, has_language_suffix, strip_common_root,
    ArchiveContents, ArchiveLimits, ArchiveRead, CurateOptions, CurateReport, Descriptions,
    SourceFile, DEFAULT_MAX_INPUT_BYTES,
};
use repoqa::engine::{CurateJob, Reply, Request};
use repoqa::input::dataset::Dataset;
use repoqa::step::{Step, Stepper};

use super::{dataset, describe, Ctx, Job, Line, Runner};
use wasm_bindgen::JsValue;

use crate::ui::browser::dom::{js_object, relative_path, set_hash};
use crate::ui::browser::engine::EngineFiles;
use crate::ui::browser::fetch::read_blob;
use crate::ui::browser::time::now_ms;
use crate::ui::browser::worker::{field_num, field_str, Workers};
use crate::ui::error::UiError;
use crate::ui::format::bytes_label;
use crate::ui::state::curate::{CurateState, Input};
use crate::ui::state::AppState;

/// Archives of this size or more are refused unread: the page would hold
/// the archive and its unpacked files in memory at once.
const MAX_ARCHIVE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// A descriptions file larger than this is not a descriptions file.
const MAX_DESCRIPTIONS_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Slice size when reading an archive.
const SLICE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// How long the page may go without a turn of the event loop while reading.
const CURATE_BUDGET_MS: f64 = 40.0;

/// How often the wait for the curation's worker looks at Cancel.
const POLL_MS: i32 = 100;

/// The Curate page's state and its job line (provided by `App`).
#[derive(Clone, Copy)]
pub struct Curator {
    pub st: CurateState,
    pub runner: Runner,
}

impl Default for Curator {
    fn default() -> Self {
        Curator::new()
    }
}

impl Curator {
    pub fn new() -> Curator {
        Curator { st: CurateState::new(), runner: Runner::new() }
    }

    /// The status text: the running job's label, else the last message.
    pub fn status(self) -> String {
        match self.runner.line() {
            Line::Running { what, .. } if self.runner.busy() => what,
            _ => self.st.status.get(),
        }
    }

    /// Run a step of the page (unless one runs): its message becomes the
    /// status, its error the error box.
    fn spawn<T, F, Fut>(self, what: String, f: F, then: impl FnOnce(T) + 'static)
    where
        T: 'static,
        F: FnOnce(Ctx) -> Fut + 'static,
        Fut: Future<Output = Result<T, UiError>> + 'static,
    {
        if self.runner.busy_untracked() {
            self.st.error.set(Some("Busy: wait for the current step to finish.".into()));
            return;
        }
        self.st.error.set(None);
        let st = self.st;
        let job = Job::new(what).budget_ms(CURATE_BUDGET_MS).on_end(move |end| match end {
            Line::Done(m) => st.status.set(m.clone()),
            Line::Failed(e) => {
                st.status.set(String::new());
                st.error.set(Some(e.clone()));
            }
            _ => st.status.set(String::new()),
        });
        spawn_local(async move {
            if let Ok(v) = self.runner.run(job, f).await {
                then(v);
            }
        });
    }
}

pub fn use_curator() -> Curator {
    expect_context::<Curator>()
}

fn all_suffixes() -> String {
    Language::ALL
        .iter()
        .flat_map(|l| repoqa::curate::language_suffixes(*l).iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The source files of a picked folder. Sizes are checked before reading.
async fn read_folder(ctx: &Ctx, files: Vec<web_sys::File>) -> Result<Input, UiError> {
    let start = now_ms();
    let total_files = files.len();
    let source: Vec<(String, web_sys::File)> = files
        .into_iter()
        .map(|f| (relative_path(&f), f))
        .filter(|(path, _)| Language::ALL.iter().any(|l| has_language_suffix(path, *l)))
        .collect();
    let folder =
        source.first().and_then(|(p, _)| p.split('/').next()).unwrap_or("folder").to_string();
    if source.is_empty() {
        return Err(UiError::invalid(format!("{folder}: none of its {total_files} files is a source file of a supported language ({}).", all_suffixes())));
    }
    let bytes: f64 = source.iter().map(|(_, f)| f.size()).sum();
    if bytes > DEFAULT_MAX_INPUT_BYTES as f64 {
        return Err(UiError::invalid(format!(
            "{folder}: its {} source files hold {}, over the {} this page curates. Pick a smaller folder (the directory to curate), or use the command-line tool `repoqa curate`.",
            source.len(),
            bytes_label(bytes as usize),
            bytes_label(DEFAULT_MAX_INPUT_BYTES as usize)
        )));
    }
    let mut out = Vec::with_capacity(source.len());
    let mut read = 0.0;
    for (i, (path, file)) in source.iter().enumerate() {
        if ctx.over_budget() {
            ctx.progress(
                format!(
                    "Reading {folder}: {i} of {} files ({} of {})…",
                    source.len(),
                    bytes_label(read as usize),
                    bytes_label(bytes as usize)
                ),
                i,
                source.len(),
            );
            // Reading is not cancelled (it has no Stop button).
            let _ = ctx.turn().await;
        }
        out.push(SourceFile::new(path.clone(), read_blob(file, path).await?));
        read += file.size();
    }
    strip_common_root(&mut out);
    let counts = count_by_language(&out);
    Ok(Input {
        summary: format!(
            "folder {folder}: {total_files} files, {} of them source files ({})",
            out.len(),
            bytes_label(read as usize)
        ),
        name: folder,
        files: out,
        counts,
        read_ms: now_ms() - start,
    })
}

/// An archive: refused by size unread, read in slices, then unpacked.
async fn read_archive_file(ctx: &Ctx, file: web_sys::File) -> Result<Input, UiError> {
    let start = now_ms();
    let name = file.name();
    let (contents, size) = unpack_archive(ctx, &file, false).await?;
    if contents.files.is_empty() {
        return Err(UiError::invalid(format!(
            "{name}: none of its {} entries is a source file of a supported language ({}).",
            contents.entries,
            all_suffixes()
        )));
    }
    let counts = count_by_language(&contents.files);
    Ok(Input {
        summary: format!(
            "{} archive {name} ({}): {} entries, {} source files{}",
            contents.format.name(),
            bytes_label(size),
            contents.entries,
            contents.files.len(),
            contents.root.as_ref().map(|r| format!(", root directory {r}/")).unwrap_or_default()
        ),
        name,
        files: contents.files,
        counts,
        read_ms: now_ms() - start,
    })
}

/// An archive's files (and its size): refused by size unread, read in
/// slices, then unpacked a step at a time. The source files of every
/// language, or with `every_file` every file (CoReQA's repository).
pub async fn unpack_archive(
    ctx: &Ctx,
    file: &web_sys::File,
    every_file: bool,
) -> Result<(ArchiveContents, usize), UiError> {
    let name = file.name();
    let size = file.size();
    if size >= MAX_ARCHIVE_BYTES {
        return Err(UiError::invalid(format!(
            "{name} is {}: this page reads archives under {}, and did not read it. Pack only the directory to curate, or use the command-line tool `repoqa curate --source {name}`.",
            bytes_label(size as usize),
            bytes_label(MAX_ARCHIVE_BYTES as usize)
        )));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    let mut at = 0.0;
    while at < size {
        ctx.progress(
            format!(
                "Reading {name}: {} of {}…",
                bytes_label(at as usize),
                bytes_label(size as usize)
            ),
            at as usize,
            size as usize,
        );
        let end = (at + SLICE_BYTES).min(size);
        let blob = file.slice_with_f64_and_f64(at, end).map_err(|e| UiError::js(&name, &e))?;
        bytes.extend_from_slice(&read_blob(&blob, &name).await?);
        at = end;
        let _ = ctx.turn().await;
    }
    ctx.progress(format!("Unpacking {name} ({})…", bytes_label(bytes.len())), 0, 0);
    let _ = ctx.turn().await;
    // A zip a kept entry per step; a tar stream is one step.
    let limits = ArchiveLimits::default();
    let mut read = ArchiveRead::new(&name, &bytes, Language::ALL, &limits)?;
    if every_file {
        read = read.every_file();
    }
    while read.step(1)? == Step::More {
        if ctx.over_budget() {
            let (done, total) = read.progress();
            ctx.progress(format!("Unpacking {name}: {done} of {total} files…"), done, total);
            let _ = ctx.turn().await;
        }
    }
    Ok((read.finish()?, bytes.len()))
}

/// Read a picked folder (`folder`) or one archive, and make it the input.
pub fn load_input(cur: Curator, files: Vec<web_sys::File>, folder: bool) {
    if files.is_empty() {
        cur.st.error.set(Some("No file was picked (an empty folder?).".into()));
        return;
    }
    let st = cur.st;
    let what = format!("Reading {} file(s)…", files.len());
    cur.spawn(
        what,
        move |ctx| async move {
            let _ = ctx.turn().await;
            let input = if folder {
                read_folder(&ctx, files).await?
            } else {
                // The format is told by the content, whatever the name.
                match files.into_iter().next() {
                    Some(f) => read_archive_file(&ctx, f).await?,
                    None => return Err(UiError::invalid("Nothing to read.")),
                }
            };
            ctx.done(format!(
                "Read {} in {:.0} ms. Choose the options, then Curate.",
                input.summary, input.read_ms
            ));
            st.adopt(input);
            Ok(())
        },
        |_| {},
    );
}

/// The repository of the demo dataset a visitor can curate without one of
/// their own (a real crate, `dtolnay/semver`), with the demo's needle
/// descriptions as the descriptions file.
pub const SAMPLE_REPO: &str = "dtolnay/semver";

/// Read the sample: the demo dataset's `SAMPLE_REPO`, its files as a picked
/// folder's, its needles' descriptions as a descriptions file.
pub fn load_sample(cur: Curator) {
    let st = cur.st;
    cur.spawn(
        format!("Reading the sample, {SAMPLE_REPO} from the demo dataset…"),
        move |ctx| async move {
            let start = now_ms();
            let bytes = crate::ui::browser::fetch::fetch_bytes(dataset::DEMO_URL).await?;
            let _ = ctx.turn().await;
            let demo = Dataset::from_bytes(&bytes, "the demo dataset")
                .map_err(|e| UiError::invalid(e.to_string()))?;
            let repo =
                demo.languages.values().flatten().find(|r| r.repo == SAMPLE_REPO).ok_or_else(
                    || UiError::invalid(format!("the demo dataset has no {SAMPLE_REPO}")),
                )?;
            let files: Vec<SourceFile> = repo
                .content
                .iter()
                .map(|(path, text)| SourceFile::new(path.clone(), text.as_bytes().to_vec()))
                .collect();
            let mut descriptions = Descriptions::new();
            for n in &repo.needles {
                descriptions.insert(n.name.clone(), n.description.clone());
            }
            let counts = count_by_language(&files);
            let input = Input {
                summary: format!(
                    "the sample {SAMPLE_REPO} from the demo dataset: {} source files",
                    files.len()
                ),
                name: SAMPLE_REPO.replace('/', "-"),
                files,
                counts,
                read_ms: now_ms() - start,
            };
            ctx.done(format!(
                "Read {}, with its {} needle descriptions. Choose the options, then Curate.",
                input.summary,
                descriptions.len()
            ));
            st.adopt(input);
            st.repo.set(SAMPLE_REPO.to_string());
            st.descriptions.set(descriptions);
            st.descriptions_name
                .set(Some(format!("the demo dataset's descriptions of {SAMPLE_REPO}")));
            Ok(())
        },
        |_| {},
    );
}

/// Read a descriptions file (JSON: needle name → description).
pub fn load_descriptions(cur: Curator, file: web_sys::File) {
    let st = cur.st;
    let name = file.name();
    cur.spawn(
        format!("Reading {name}…"),
        move |ctx| async move {
            if file.size() > MAX_DESCRIPTIONS_BYTES {
                return Err(UiError::invalid(format!(
                    "{name} is {}: too large for a descriptions file.",
                    bytes_label(file.size() as usize)
                )));
            }
            let bytes = read_blob(&file, &name).await?;
            let d = Descriptions::from_json(&bytes, &name)?;
            let n = d.len();
            st.descriptions.set(d);
            st.descriptions_name.set(Some(name.clone()));
            ctx.done(format!("Descriptions: {n} from {name}; Curate (again) to use them."));
            Ok(())
        },
        |_| {},
    );
}

/// Curate the input with the chosen options.
pub fn run(cur: Curator) {
    let st = cur.st;
    let Some(input) = st.input.get_untracked() else {
        st.error.set(Some("Pick a folder or an archive first.".into()));
        return;
    };
    let Some(language) = st.language.get_untracked() else {
        st.error.set(Some("Choose a language.".into()));
        return;
    };
    let repo = st.repo.get_untracked().trim().to_string();
    if repo.is_empty() {
        st.error.set(Some("Enter the repository name (\"owner/name\").".into()));
        return;
    }
    let seed_text = st.seed.get_untracked().trim().to_string();
    let seed = if seed_text.is_empty() {
        default_seed(&repo)
    } else {
        match seed_text.parse::<u64>() {
            Ok(s) => s,
            Err(_) => {
                st.error.set(Some(format!("Seed {seed_text:?} is not a whole number ≥ 0.")));
                return;
            }
        }
    };
    let entry = st.entry.get_untracked();
    let entry_match = st.entry_match.get_untracked();
    let descriptions = st.merged_descriptions();
    let what = format!("Curating {repo} ({language}, {} files)…", input.files.len());
    cur.spawn(
        what,
        move |ctx| async move {
            let _ = ctx.turn().await;
            let mut opts = CurateOptions::new(language, repo.clone());
            opts.entry = (entry != ".").then_some(entry);
            opts.entry_match = entry_match;
            opts.seed = seed;
            let start = now_ms();
            // In the engine's worker, its progress shown as it comes.
            st.curating.set(true);
            let result = curate(&ctx, &input, &opts, &descriptions, &repo, language).await;
            st.curating.set(false);
            let report = match result {
                Ok(r) => r,
                Err(e) => {
                    if !e.is_cancelled() {
                        st.report.set(None);
                        st.curate_ms.set(None);
                    }
                    return Err(e);
                }
            };
            let ms = now_ms() - start;
            ctx.done(format!(
                "Curated {repo} in {ms:.0} ms: {} needles with a description of {} sampled.",
                report.repo.needles.len(),
                report.sampled.len()
            ));
            st.report.set(Some(Arc::new(report)));
            st.curate_ms.set(Some(ms));
            Ok(())
        },
        |_| {},
    );
}

/// Curate in an engine worker of its own (the page's wasm has no
/// grammar): the files posted once, the function analysis's progress
/// shown as it comes; Cancel ends the worker.
async fn curate(
    ctx: &Ctx,
    input: &Input,
    opts: &CurateOptions,
    descriptions: &Descriptions,
    repo: &str,
    language: Language,
) -> Result<CurateReport, UiError> {
    let job = CurateJob { options: opts.clone(), descriptions: descriptions.clone() };
    let request = serde_json::to_string(&Request::Curate { job: Box::new(job) })?;
    let engine = EngineFiles::find()?;
    let init = engine.init(&[]).await?;
    let worker = Workers::start(&engine.script, 1)?;
    worker.post(0, &init)?;
    let stopped = || {
        UiError::cancelled(format!(
            "Curation of {repo} stopped; nothing was changed. Curate again to start over."
        ))
    };
    loop {
        let next = ctx.wait_for(worker.next(POLL_MS)).await;
        // The previous result (if any) stays as it was; dropping the
        // worker ends the curation.
        ctx.check().map_err(|_| stopped())?;
        let Some((_, data)) = next else { continue };
        match field_str(&data, "kind").as_str() {
            "ready" => {
                let paths = js_sys::Array::new();
                let blobs = js_sys::Array::new();
                for f in &input.files {
                    paths.push(&f.path.as_str().into());
                    blobs.push(&js_sys::Uint8Array::from(f.bytes.as_slice()));
                }
                let msg = js_object(&[
                    ("kind", "call".into()),
                    ("id", JsValue::from_f64(1.0)),
                    ("request", request.as_str().into()),
                    ("paths", paths.into()),
                    ("blobs", blobs.into()),
                ]);
                worker.post(0, &msg)?;
            }
            "progress" => {
                let done = field_num(&data, "done").unwrap_or(0.0) as usize;
                let total = field_num(&data, "total").unwrap_or(0.0) as usize;
                ctx.progress(
                    format!("Curating {repo} ({language}): functions of {done} of {total} files…"),
                    done,
                    total,
                );
            }
            "reply" => {
                let reply: Reply =
                    serde_json::from_str(&field_str(&data, "reply")).map_err(|e| {
                        UiError::invalid(format!("the engine's curation could not be read: {e}"))
                    })?;
                return match reply {
                    Reply::Curate { report } => Ok(*report),
                    _ => Err(UiError::invalid(
                        "the engine answered another question than a curation",
                    )),
                };
            }
            "error" => return Err(UiError::invalid(field_str(&data, "error"))),
            "failed" => {
                return Err(UiError::invalid(format!(
                    "The compute engine could not start ({}), so nothing was curated.",
                    field_str(&data, "error")
                )))
            }
            _ => {}
        }
    }
}

/// Ask the model API for the descriptions the curation lacks; the ones
/// obtained become the page's edits (so the user can still change them)
/// and the repository is curated again with them. Needles the model could
/// not describe are named and stay out, as they would without a model.
pub fn describe_with_model(cur: Curator) {
    let st = cur.st;
    let Some(report) = st.report.get_untracked() else { return };
    if report.missing_descriptions().is_empty() {
        st.status.set("Every sampled needle has a description.".into());
        return;
    }
    let settings = st.model.get_untracked();
    let what = format!("Asking {} for descriptions…", settings.endpoint.model);
    cur.spawn(
        what,
        move |ctx| async move {
            st.model_message.set(None);
            st.describing.set(true);
            let model = settings.endpoint.model.clone();
            let (c1, c2) = (ctx.clone(), ctx.clone());
            let (obtained, failures) = describe::describe_missing(
                &settings,
                &report,
                move |done, total| {
                    c1.progress(
                        format!("Asking {model} for descriptions: {done} of {total} done…"),
                        done,
                        total,
                    )
                },
                move || c2.cancelled(),
            )
            .await;
            st.describing.set(false);
            let got = obtained.len();
            st.edits.update(|edits| {
                for name in obtained.names() {
                    if let Some(text) = obtained.get(name) {
                        edits.insert(name.to_string(), text.to_string());
                    }
                }
            });
            let message = if failures.is_empty() {
                Ok(format!("{got} descriptions written by {}.", settings.endpoint.model))
            } else {
                let list: Vec<String> =
                    failures.iter().map(|(name, why)| format!("{name}: {why}")).collect();
                Err(format!(
                    "{got} descriptions written by {}; {} needles have none and stay out of the tasks — {}",
                    settings.endpoint.model,
                    failures.len(),
                    list.join("; ")
                ))
            };
            st.model_message.set(Some(message));
            ctx.done(String::new());
            Ok(got)
        },
        move |got| {
            if got > 0 {
                run(cur);
            }
        },
    );
}

/// A dataset holding only this report's repo.
pub fn dataset_of(report: &CurateReport) -> Dataset {
    let mut d = Dataset::default();
    append_repo(&mut d, report.language, report.repo.clone());
    d
}

/// Make `dataset` the app's current one, through the Dataset page's file
/// loading (the same checks, storage and task-cache handling), and show
/// the Dataset page.
pub fn open_in_app(cur: Curator, state: AppState, main: Runner, dataset: &Dataset, name: &str) {
    let parts = js_sys::Array::of1(&dataset.to_json_string().into());
    match web_sys::File::new_with_str_sequence(&parts, name) {
        Ok(file) => {
            dataset::load_file(state, main, file);
            set_hash("dataset");
        }
        Err(e) => cur.st.error.set(Some(UiError::js("File", &e).to_string())),
    }
}

/// A file name for a repo ("owner/name" → "owner-name").
pub fn file_stem(repo: &str) -> String {
    repo.replace('/', "-")
}
