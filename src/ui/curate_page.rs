//! The Curate page (`#curate`): make a RepoQA dataset from the user's own
//! repository, in the page. A folder (picked with `webkitdirectory`) or an
//! archive (.zip, .tar, .tar.gz; picked or dropped) is read into memory,
//! the core's `repoqa::curate` does the rest (files, dependencies,
//! functions, the seeded needle sample) exactly as `repoqa curate` does,
//! and the user writes the missing needle descriptions here.
//!
//! Sizes are refused by the files' `size` before anything is read; reading
//! yields to the browser between files and slices, with progress text.
//! Everything taken from the user's files is shown as text (Leptos text
//! nodes and `value` properties), never as HTML. The state lives in memory
//! for the session ([`CurateState`], provided by `App`), not in storage.

use std::collections::BTreeMap;
use std::sync::Arc;

use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::curate::{
    append_repo, count_by_language, default_seed, directories_of, has_language_suffix,
    strip_common_root, ArchiveLimits, ArchiveRead, CurateOptions, CurateReport, Curation,
    CurationStep, Descriptions, SourceFile, DEFAULT_MAX_INPUT_BYTES,
};
use repoqa::dataset::Dataset;
use repoqa::lang::Language;
use repoqa::llm::ApiSettings;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::dataset_page;
use super::download::download_text;
use super::model_api::{self, ModelApiSettings};
use super::progress::{bytes_label, now_ms, yield_to_browser};
use super::state::{use_state, AppState};
use super::storage::js_error;

/// Archives of this size or more are refused unread: the page would hold
/// the archive and its unpacked files in memory at once.
const MAX_ARCHIVE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// A descriptions file larger than this is not a descriptions file.
const MAX_DESCRIPTIONS_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Slice size when reading an archive.
const SLICE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// How long the page may go without a turn of the event loop while reading.
const YIELD_EVERY_MS: f64 = 40.0;

/// The files read from one folder or archive.
pub struct Input {
    /// The folder's or archive's name, as picked.
    pub name: String,
    /// Source files of every language, paths relative to the repository root.
    pub files: Vec<SourceFile>,
    /// Files per language, most first.
    pub counts: Vec<(Language, usize)>,
    /// What was read, for the user ("zip, 312 entries, root rxjs-7.8.1/").
    pub summary: String,
    pub read_ms: f64,
}

/// The page's state, kept while the app runs (navigating away and back
/// keeps it). `Copy`: every field is a signal handle.
#[derive(Clone, Copy)]
pub struct CurateState {
    input: RwSignal<Option<Arc<Input>>>,
    language: RwSignal<Option<Language>>,
    entry: RwSignal<String>,
    repo: RwSignal<String>,
    /// Empty = the default, crc32 of the repo name.
    seed: RwSignal<String>,
    descriptions: RwSignal<Descriptions>,
    descriptions_name: RwSignal<Option<String>>,
    /// Descriptions written in the page, by needle name; over the file's.
    edits: RwSignal<BTreeMap<String, String>>,
    report: RwSignal<Option<Arc<CurateReport>>>,
    curate_ms: RwSignal<Option<f64>>,
    /// Repos appended so far (any languages), one dataset.
    collection: RwSignal<Dataset>,
    status: RwSignal<String>,
    error: RwSignal<Option<String>>,
    busy: RwSignal<bool>,
    /// The model that writes missing descriptions (stored in this browser).
    model: RwSignal<ApiSettings>,
    describing: RwSignal<bool>,
    /// A curation runs (its Stop button shows).
    curating: RwSignal<bool>,
    cancel: RwSignal<bool>,
    /// What the last model run gave (kept while the repo is curated again).
    model_message: RwSignal<Option<Result<String, String>>>,
    /// Steps finished (read, curate, descriptions), for tests to wait on.
    steps: RwSignal<u32>,
}

impl CurateState {
    pub fn new() -> CurateState {
        CurateState {
            input: RwSignal::new(None),
            language: RwSignal::new(None),
            entry: RwSignal::new(".".to_string()),
            repo: RwSignal::new(String::new()),
            seed: RwSignal::new(String::new()),
            descriptions: RwSignal::new(Descriptions::new()),
            descriptions_name: RwSignal::new(None),
            edits: RwSignal::new(BTreeMap::new()),
            report: RwSignal::new(None),
            curate_ms: RwSignal::new(None),
            collection: RwSignal::new(Dataset::default()),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            busy: RwSignal::new(false),
            model: RwSignal::new(model_api::load_settings()),
            describing: RwSignal::new(false),
            curating: RwSignal::new(false),
            cancel: RwSignal::new(false),
            model_message: RwSignal::new(None),
            steps: RwSignal::new(0),
        }
    }

    /// Start a job unless one runs; the previous message is cleared.
    fn begin(self) -> bool {
        if self.busy.get_untracked() {
            self.error.set(Some("Busy: wait for the current step to finish.".into()));
            return false;
        }
        self.busy.set(true);
        self.error.set(None);
        true
    }

    fn end(self, result: Result<String, String>) {
        match result {
            Ok(status) => self.status.set(status),
            Err(e) => {
                self.status.set(String::new());
                self.error.set(Some(e));
            }
        }
        self.busy.set(false);
        self.steps.update(|n| *n += 1);
    }

    /// A new input: defaults from it, results of the old one dropped.
    fn adopt(self, input: Input) {
        let language = input.counts.first().filter(|c| c.1 > 0).map(|c| c.0);
        self.repo.set(format!("local/{}", repo_name_from(&input.name)));
        self.language.set(language);
        self.entry.set(".".to_string());
        self.seed.set(String::new());
        self.edits.set(BTreeMap::new());
        self.report.set(None);
        self.curate_ms.set(None);
        self.model_message.set(None);
        self.input.set(Some(Arc::new(input)));
    }

    /// The descriptions a run uses: the file's, then the page's edits.
    fn merged_descriptions(self) -> Descriptions {
        let mut d = self.descriptions.get_untracked();
        for (name, text) in self.edits.get_untracked() {
            d.insert(name, text);
        }
        d
    }
}

/// "rxjs-7.8.1.tar.gz" → "rxjs-7.8.1"; characters a repo name would not
/// have become "-".
fn repo_name_from(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let stem_len = [".tar.gz", ".tgz", ".tar", ".zip"]
        .iter()
        .find(|s| lower.ends_with(*s))
        .map_or(name.len(), |s| name.len() - s.len());
    let stem: String = name[..stem_len]
        .chars()
        .map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '-' })
        .collect();
    if stem.is_empty() {
        "repo".to_string()
    } else {
        stem
    }
}

/// The `value` of an input, select or textarea.
fn target_value(ev: &leptos::ev::Event) -> String {
    ev.target()
        .and_then(|t| js_sys::Reflect::get(&t, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

fn input_files(ev: &leptos::ev::Event) -> (Option<web_sys::HtmlInputElement>, Vec<web_sys::File>) {
    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
    let files =
        input.as_ref().and_then(|i| i.files()).map(|list| file_list(&list)).unwrap_or_default();
    (input, files)
}

fn file_list(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

async fn read_blob(blob: &web_sys::Blob, name: &str) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| format!("Could not read {name}: {}", js_error("read", &e)))?;
    Ok(Uint8Array::new(&buf).to_vec())
}

/// The source files of a picked folder. Sizes are checked before reading.
async fn read_folder(st: CurateState, files: Vec<web_sys::File>) -> Result<Input, String> {
    let start = now_ms();
    let total_files = files.len();
    let source: Vec<(String, web_sys::File)> = files
        .into_iter()
        .map(|f| {
            // `webkitRelativePath`: "folder/sub/file.py" (web-sys lacks it).
            let rel = js_sys::Reflect::get(&f, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            (if rel.is_empty() { f.name() } else { rel }, f)
        })
        .filter(|(path, _)| Language::ALL.iter().any(|l| has_language_suffix(path, *l)))
        .collect();
    let folder =
        source.first().and_then(|(p, _)| p.split('/').next()).unwrap_or("folder").to_string();
    if source.is_empty() {
        return Err(format!("{folder}: none of its {total_files} files is a source file of a supported language ({}).", all_suffixes()));
    }
    let bytes: f64 = source.iter().map(|(_, f)| f.size()).sum();
    if bytes > DEFAULT_MAX_INPUT_BYTES as f64 {
        return Err(format!(
            "{folder}: its {} source files hold {}, over the {} this page curates. Pick a smaller folder (the directory to curate), or use the command-line tool `repoqa curate`.",
            source.len(),
            bytes_label(bytes as usize),
            bytes_label(DEFAULT_MAX_INPUT_BYTES as usize)
        ));
    }
    let mut out = Vec::with_capacity(source.len());
    let mut read = 0.0;
    let mut last_yield = now_ms();
    for (i, (path, file)) in source.iter().enumerate() {
        if now_ms() - last_yield > YIELD_EVERY_MS {
            st.status.set(format!(
                "Reading {folder}: {i} of {} files ({} of {})…",
                source.len(),
                bytes_label(read as usize),
                bytes_label(bytes as usize)
            ));
            yield_to_browser().await;
            last_yield = now_ms();
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
async fn read_archive_file(st: CurateState, file: web_sys::File) -> Result<Input, String> {
    let start = now_ms();
    let name = file.name();
    let size = file.size();
    if size >= MAX_ARCHIVE_BYTES {
        return Err(format!(
            "{name} is {}: this page reads archives under {}, and did not read it. Pack only the directory to curate, or use the command-line tool `repoqa curate --source {name}`.",
            bytes_label(size as usize),
            bytes_label(MAX_ARCHIVE_BYTES as usize)
        ));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    let mut at = 0.0;
    while at < size {
        st.status.set(format!(
            "Reading {name}: {} of {}…",
            bytes_label(at as usize),
            bytes_label(size as usize)
        ));
        let end = (at + SLICE_BYTES).min(size);
        let blob = file.slice_with_f64_and_f64(at, end).map_err(|e| js_error(&name, &e))?;
        bytes.extend_from_slice(&read_blob(&blob, &name).await?);
        at = end;
        yield_to_browser().await;
    }
    st.status.set(format!("Unpacking {name} ({})…", bytes_label(bytes.len())));
    yield_to_browser().await;
    // A zip a kept entry per step; a tar stream is one step.
    let limits = ArchiveLimits::default();
    let mut read =
        ArchiveRead::new(&name, &bytes, &Language::ALL, &limits).map_err(|e| e.to_string())?;
    let mut slice = now_ms();
    while read.step().map_err(|e| e.to_string())? {
        if now_ms() - slice > YIELD_EVERY_MS {
            let (done, total) = read.progress();
            st.status.set(format!("Unpacking {name}: {done} of {total} source files…"));
            yield_to_browser().await;
            slice = now_ms();
        }
    }
    let contents = read.finish().map_err(|e| e.to_string())?;
    if contents.files.is_empty() {
        return Err(format!(
            "{name}: none of its {} entries is a source file of a supported language ({}).",
            contents.entries,
            all_suffixes()
        ));
    }
    let counts = count_by_language(&contents.files);
    Ok(Input {
        summary: format!(
            "{} archive {name} ({}): {} entries, {} source files{}",
            contents.format.name(),
            bytes_label(bytes.len()),
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

fn all_suffixes() -> String {
    Language::ALL
        .iter()
        .flat_map(|l| repoqa::curate::language_suffixes(*l).iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

fn load_input(st: CurateState, files: Vec<web_sys::File>, folder: bool) {
    if files.is_empty() {
        st.error.set(Some("No file was picked (an empty folder?).".into()));
        return;
    }
    if !st.begin() {
        return;
    }
    spawn_local(async move {
        st.status.set(format!("Reading {} file(s)…", files.len()));
        yield_to_browser().await;
        let result = if folder {
            read_folder(st, files).await
        } else {
            // The format is told by the content, whatever the name.
            match files.into_iter().next() {
                Some(f) => read_archive_file(st, f).await,
                None => Err("Nothing to read.".into()),
            }
        };
        let result = result.map(|input| {
            let msg = format!(
                "Read {} in {:.0} ms. Choose the options, then Curate.",
                input.summary, input.read_ms
            );
            st.adopt(input);
            msg
        });
        st.end(result);
    });
}

fn load_descriptions(st: CurateState, file: web_sys::File) {
    if !st.begin() {
        return;
    }
    spawn_local(async move {
        let name = file.name();
        let result = async {
            if file.size() > MAX_DESCRIPTIONS_BYTES {
                return Err(format!(
                    "{name} is {}: too large for a descriptions file.",
                    bytes_label(file.size() as usize)
                ));
            }
            let bytes = read_blob(&file, &name).await?;
            let d = Descriptions::from_json(&bytes, &name).map_err(|e| e.to_string())?;
            let n = d.len();
            st.descriptions.set(d);
            st.descriptions_name.set(Some(name.clone()));
            Ok(format!("Descriptions: {n} from {name}; Curate (again) to use them."))
        }
        .await;
        st.end(result);
    });
}

/// Curate the input with the chosen options.
fn run(st: CurateState) {
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
    if !st.begin() {
        return;
    }
    let entry = st.entry.get_untracked();
    let descriptions = st.merged_descriptions();
    spawn_local(async move {
        st.status.set(format!("Curating {repo} ({language}, {} files)…", input.files.len()));
        yield_to_browser().await;
        let mut opts = CurateOptions::new(language, repo.clone());
        opts.entry = (entry != ".").then_some(entry);
        opts.seed = seed;
        let start = now_ms();
        // A step at a time (one file of the function analysis per step),
        // with a turn for the browser every YIELD_EVERY_MS.
        st.cancel.set(false);
        st.curating.set(true);
        let mut curation = Curation::new(&input.files, &opts, &descriptions);
        let mut slice = now_ms();
        let result = loop {
            match curation.step() {
                Err(e) => break Err(e.to_string()),
                Ok(CurationStep::Done(report)) => break Ok(*report),
                Ok(CurationStep::More(next)) => curation = next,
            }
            if now_ms() - slice > YIELD_EVERY_MS {
                let (done, total) = curation.progress();
                st.status.set(format!(
                    "Curating {repo} ({language}): functions of {done} of {total} files…"
                ));
                yield_to_browser().await;
                if st.cancel.get_untracked() {
                    st.curating.set(false);
                    // The previous result (if any) stays as it was.
                    st.end(Err(format!("Curation of {repo} stopped; nothing was changed. Curate again to start over.")));
                    return;
                }
                slice = now_ms();
            }
        };
        st.curating.set(false);
        let ms = now_ms() - start;
        let result = result.map(|report| {
            let msg = format!(
                "Curated {repo} in {ms:.0} ms: {} needles with a description of {} sampled.",
                report.repo.needles.len(),
                report.sampled.len()
            );
            st.report.set(Some(Arc::new(report)));
            st.curate_ms.set(Some(ms));
            msg
        });
        if result.is_err() {
            st.report.set(None);
            st.curate_ms.set(None);
        }
        st.end(result);
    });
}

/// Ask the model API for the descriptions the curation lacks; the ones
/// obtained become the page's edits (so the user can still change them)
/// and the repository is curated again with them. Needles the model could
/// not describe are named and stay out, as they would without a model.
fn describe_with_model(st: CurateState) {
    let Some(report) = st.report.get_untracked() else { return };
    if report.missing_descriptions().is_empty() {
        st.status.set("Every sampled needle has a description.".into());
        return;
    }
    if !st.begin() {
        return;
    }
    st.cancel.set(false);
    st.describing.set(true);
    st.model_message.set(None);
    let settings = st.model.get_untracked();
    spawn_local(async move {
        let model = settings.model.clone();
        let (obtained, failures) = model_api::describe_missing(
            &settings,
            &report,
            move |done, total| {
                st.status.set(format!("Asking {model} for descriptions: {done} of {total} done…"))
            },
            move || st.cancel.get_untracked(),
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
        let result = if failures.is_empty() {
            Ok(format!("{got} descriptions written by {}.", settings.model))
        } else {
            let list: Vec<String> =
                failures.iter().map(|(name, why)| format!("{name}: {why}")).collect();
            Err(format!(
                "{got} descriptions written by {}; {} needles have none and stay out of the tasks — {}",
                settings.model,
                failures.len(),
                list.join("; ")
            ))
        };
        st.model_message.set(Some(result));
        st.end(Ok(String::new()));
        if got > 0 {
            run(st);
        }
    });
}

/// A dataset holding only this report's repo.
fn dataset_of(report: &CurateReport) -> Dataset {
    let mut d = Dataset::default();
    append_repo(&mut d, report.language, report.repo.clone());
    d
}

/// Make `dataset` the app's current one, through the Dataset page's file
/// loading (the same checks, storage and task-cache handling).
fn open_in_app(st: CurateState, state: AppState, dataset: &Dataset, name: &str) {
    let parts = js_sys::Array::of1(&dataset.to_json_string().into());
    match web_sys::File::new_with_str_sequence(&parts, name) {
        Ok(file) => {
            dataset_page::load_file(state, file);
            if let Some(w) = web_sys::window() {
                let _ = w.location().set_hash("dataset");
            }
        }
        Err(e) => st.error.set(Some(js_error("File", &e))),
    }
}

fn file_stem(repo: &str) -> String {
    repo.replace('/', "-")
}

#[component]
pub fn CuratePage() -> impl IntoView {
    let st = expect_context::<CurateState>();
    let dragging = RwSignal::new(false);
    // `webkitdirectory` (pick a folder) is not an attribute the view macro
    // knows: set it on the element.
    let folder_ref = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = folder_ref.get() {
            let _ = el.set_attribute("webkitdirectory", "");
        }
    });

    let on_folder = move |ev: leptos::ev::Event| {
        let (input, files) = input_files(&ev);
        load_input(st, files, true);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let on_archive = move |ev: leptos::ev::Event| {
        let (input, files) = input_files(&ev);
        load_input(st, files, false);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let files =
            ev.data_transfer().and_then(|d| d.files()).map(|l| file_list(&l)).unwrap_or_default();
        match files.len() {
            1 => load_input(st, files, false),
            0 => st.error.set(Some("Nothing to read: drop a .zip or .tar.gz file (for a folder, use the folder picker).".into())),
            n => st.error.set(Some(format!("{n} files dropped: drop one archive, or pick a folder with the folder picker."))),
        }
    };

    view! {
        <section class="card" id="curate">
            <h2>"Curate a dataset from your repository"</h2>
            <p>"Pick a repository folder, or a " <code>".zip"</code> ", " <code>".tar"</code> " or " <code>".tar.gz"</code>
               " of it. The files stay in this browser; the curation is the one of " <code>"repoqa curate"</code>
               " (upstream rules: files, dependencies, functions, 10 needles sampled with the seed)."</p>
            <div class="load-options">
                <label class="file-pick">"Folder: "
                    <input type="file" id="curate-folder" node_ref=folder_ref multiple=true on:change=on_folder
                        disabled=move || st.busy.get() />
                </label>
                <label class="file-pick">"Archive: "
                    <input type="file" id="curate-archive" accept=".zip,.tar,.gz,.tgz,application/zip,application/gzip,application/x-tar"
                        on:change=on_archive disabled=move || st.busy.get() />
                </label>
            </div>
            <div id="curate-drop" class="drop-zone" class:dragging=move || dragging.get()
                on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop>
                "Drop a .zip or .tar.gz here"
            </div>
            <p id="curate-status" class="muted" role="status" aria-live="polite" data-busy=move || st.busy.get().to_string() data-steps=move || st.steps.get().to_string()>
                {move || st.status.get()}
            </p>
            {move || st.error.get().map(|e| view! { <p class="fail error-box" id="curate-error" role="alert">{e}</p> })}
        </section>
        <CurateOptionsCard/>
        <CurateResult/>
        <CurateCollection/>
    }
}

#[component]
fn CurateOptionsCard() -> impl IntoView {
    let st = expect_context::<CurateState>();
    let on_descriptions = move |ev: leptos::ev::Event| {
        let (input, files) = input_files(&ev);
        if let Some(f) = files.into_iter().next() {
            load_descriptions(st, f);
        }
        if let Some(i) = input {
            i.set_value("");
        }
    };
    view! {
        {move || st.input.get().map(|input| {
            let counts: Vec<(Language, usize)> = input.counts.iter().copied().filter(|c| c.1 > 0).collect();
            let input2 = input.clone();
            let directories = move || st.language.get().map(|l| directories_of(&input2.files, l)).unwrap_or_default();
            view! {
                <section class="card" id="curate-options">
                    <h2>"Options"</h2>
                    <p id="curate-input" class="muted">{input.summary.clone()}</p>
                    <div class="settings-grid">
                        <label>"Language "
                            <select id="curate-language" on:change=move |ev| {
                                st.language.set(Language::from_name(&target_value(&ev)).ok());
                                st.entry.set(".".into());
                            }>
                                {counts.into_iter().map(|(l, n)| view! {
                                    <option value=l.name() selected=move || st.language.get() == Some(l)>{format!("{} ({n} files)", l.name())}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <label>"Entry directory "
                            <select id="curate-entry" on:change=move |ev| st.entry.set(target_value(&ev))>
                                {move || directories().into_iter().map(|d| {
                                    let label = if d == "." { ". (the whole repository)".to_string() } else { d.clone() };
                                    let d2 = d.clone();
                                    view! { <option value=d selected=move || st.entry.get() == d2>{label}</option> }
                                }).collect_view()}
                            </select>
                        </label>
                        <label>"Repository (owner/name) "
                            <input type="text" id="curate-repo" prop:value=move || st.repo.get()
                                on:input=move |ev| st.repo.set(target_value(&ev)) />
                        </label>
                        <label>"Seed "
                            <input type="text" id="curate-seed" inputmode="numeric" prop:value=move || st.seed.get()
                                placeholder=move || format!("{} (crc32 of the name)", default_seed(st.repo.get().trim()))
                                on:input=move |ev| st.seed.set(target_value(&ev)) />
                        </label>
                        <label>"Descriptions (JSON, optional) "
                            <input type="file" id="curate-descriptions" accept=".json,application/json" on:change=on_descriptions />
                        </label>
                    </div>
                    <p class="note" id="curate-descriptions-name">{move || match st.descriptions_name.get() {
                        Some(n) => format!("{} descriptions from {n}.", st.descriptions.with(|d| d.len())),
                        None => "No descriptions file: write them below after curating, or download the template.".to_string(),
                    }}</p>
                    <button type="button" class="primary" id="curate-run" on:click=move |_| run(st)
                        disabled=move || st.busy.get()>"Curate"</button>
                    " "
                    <button type="button" id="curate-stop" style:display=move || if st.curating.get() { "" } else { "none" }
                        on:click=move |_| st.cancel.set(true)>"Stop"</button>
                </section>
            }
        })}
    }
}

#[component]
fn CurateResult() -> impl IntoView {
    let st = expect_context::<CurateState>();
    let state = use_state();
    let download_error = RwSignal::new(None::<String>);
    let download = move |name: String, text: String| {
        download_error.set(download_text(&name, "application/json", &text).err());
    };
    view! {
        {move || st.report.get().map(|report| {
            let s = report.stats.clone();
            let needles = report.repo.needles.len();
            let ms = st.curate_ms.get_untracked().unwrap_or(0.0);
            let read_ms = st.input.with_untracked(|i| i.as_ref().map(|i| i.read_ms).unwrap_or(0.0));
            let warnings: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
            let sampled = report.sampled.clone();
            let (r1, r2, r3) = (report.clone(), report.clone(), report.clone());
            let stem = file_stem(&report.repo.repo);
            let stem2 = stem.clone();
            view! {
                <section class="card" id="curate-result">
                    <h2>{format!("{} ({})", report.repo.repo, report.language)}</h2>
                    <p id="curate-stats" data-files=s.files.to_string() data-functions=s.functions.to_string()
                        data-candidates=s.candidates.to_string() data-sampled=report.sampled.len().to_string()
                        data-needles=needles.to_string() data-ms=format!("{ms:.1}") data-read-ms=format!("{read_ms:.1}")>
                        {format!(
                            "{} files ({} skipped), {} characters, {} dependency edges, {} functions, {} needle candidates, {} needles sampled, {needles} with a description. Curated in {ms:.0} ms.",
                            s.files, s.skipped_files, s.chars, s.edges, s.functions, s.candidates, report.sampled.len()
                        )}
                    </p>
                    {(!warnings.is_empty()).then(|| view! {
                        <ul id="curate-warnings" class="warning">
                            {warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}
                        </ul>
                    })}
                    <div class="row">
                        <button type="button" id="curate-download-dataset"
                            on:click=move |_| download(format!("{stem}.json"), dataset_of(&r1).to_json_string())>"Download dataset JSON"</button>
                        <button type="button" id="curate-download-template"
                            on:click=move |_| download(format!("{stem2}-descriptions.json"), r2.description_template() + "\n")>"Download descriptions template"</button>
                        <button type="button" id="curate-append" on:click=move |_| {
                            let r = r3.clone();
                            let replaced = st.collection.try_update(|d| append_repo(d, r.language, r.repo.clone())).unwrap_or(false);
                            st.status.set(format!("{} {} the collection.", r.repo.repo, if replaced { "replaced in" } else { "appended to" }));
                        }>"Append to dataset"</button>
                        <button type="button" id="curate-open" on:click={
                            let r = report.clone();
                            move |_| open_in_app(st, state, &dataset_of(&r), &format!("{}.json", file_stem(&r.repo.repo)))
                        }>"Open in the app"</button>
                    </div>
                    {move || download_error.get().map(|e| view! { <p class="fail error-box">{e}</p> })}
                    <h3>"Sampled needles"</h3>
                    <p class="note">"A needle without a description is left out of the dataset. Write the missing ones here, then apply them (the repository is curated again with them)."</p>
                    <div class="row">
                        <button type="button" id="curate-apply" on:click=move |_| run(st) disabled=move || st.busy.get()>"Apply descriptions"</button>
                        <button type="button" id="curate-describe-model"
                            on:click=move |_| describe_with_model(st)
                            disabled=move || st.busy.get() || st.model.with(|m| m.validate().is_err())
                            title="Ask the model set below for the missing descriptions (the paper's annotation prompt)">
                            "Describe missing with model API"</button>
                        <button type="button" id="curate-describe-cancel"
                            style:display=move || if st.describing.get() { "" } else { "none" }
                            on:click=move |_| st.cancel.set(true)>"Stop asking"</button>
                    </div>
                    {move || st.model_message.get().map(|m| match m {
                        Ok(t) => view! { <p class="pass" id="curate-model-message">{t}</p> }.into_any(),
                        Err(e) => view! { <p class="fail" id="curate-model-message">{e}</p> }.into_any(),
                    })}
                    <details class="model-api-box" id="curate-model-api">
                        <summary>"Model API for descriptions"</summary>
                        <ModelApiSettings settings=st.model />
                    </details>
                    <ol id="curate-needles">
                        {sampled.into_iter().map(|n| {
                            let code = report.needle_code(&n).unwrap_or_default();
                            let name = n.name.clone();
                            let name2 = n.name.clone();
                            let original = n.description.clone();
                            let missing = original.trim().is_empty();
                            view! {
                                <li class="needle" data-name=n.name.clone() data-missing=missing.to_string()>
                                    <p><strong>{n.name.clone()}</strong>
                                       {format!(" — {}, lines {}-{}", n.path, n.start_line + 1, n.end_line)}
                                       {missing.then(|| view! { <span class="fail">" (no description)"</span> })}</p>
                                    <pre class="code">{code}</pre>
                                    <textarea class="needle-description" rows="3" placeholder="What the function does, without its name"
                                        prop:value=move || st.edits.with(|e| e.get(&name).cloned().unwrap_or_else(|| original.clone()))
                                        on:input=move |ev| { let v = target_value(&ev); st.edits.update(|e| { e.insert(name2.clone(), v); }); }>
                                    </textarea>
                                </li>
                            }
                        }).collect_view()}
                    </ol>
                </section>
            }
        })}
    }
}

/// The repos appended so far, as one dataset.
#[component]
fn CurateCollection() -> impl IntoView {
    let st = expect_context::<CurateState>();
    let state = use_state();
    let download_error = RwSignal::new(None::<String>);
    view! {
        {move || {
            let d = st.collection.get();
            (!d.languages.is_empty()).then(|| {
                let rows: Vec<(String, String, usize)> = d.languages.iter()
                    .flat_map(|(l, repos)| repos.iter().map(move |r| (l.clone(), r.repo.clone(), r.needles.len())))
                    .collect();
                let repos = rows.len();
                let needles = d.needle_count();
                let d2 = d.clone();
                view! {
                    <section class="card" id="curate-collection" data-repos=repos.to_string() data-needles=needles.to_string()>
                        <h2>"Dataset being assembled"</h2>
                        <p>{format!("{repos} repos, {needles} needles.")}</p>
                        <table class="grid">
                            <thead><tr><th>"Language"</th><th>"Repo"</th><th>"Needles"</th></tr></thead>
                            <tbody>{rows.into_iter().map(|(l, r, n)| view! { <tr><td>{l}</td><td>{r}</td><td>{n}</td></tr> }).collect_view()}</tbody>
                        </table>
                        <div class="row">
                            <button type="button" id="curate-download-collection" on:click=move |_| {
                                download_error.set(download_text("curated-dataset.json", "application/json", &d.to_json_string()).err());
                            }>"Download dataset JSON"</button>
                            <button type="button" id="curate-open-collection"
                                on:click=move |_| open_in_app(st, state, &d2, "curated-dataset.json")>"Open in the app"</button>
                            <button type="button" id="curate-clear-collection" on:click=move |_| st.collection.set(Dataset::default())>"Clear"</button>
                        </div>
                        {move || download_error.get().map(|e| view! { <p class="fail error-box">{e}</p> })}
                    </section>
                }
            })
        }}
    }
}
