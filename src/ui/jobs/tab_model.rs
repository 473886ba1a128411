//! Loading the model in this tab (the Run page's "In this tab"), on the
//! model-run job line: the file's header is read first (what it says of
//! itself, shown before anything loads; `repoqa::llm::gguf`), the file is
//! checked by the core's rules (`repoqa::llm::in_tab`: a GGUF, not empty,
//! within what a tab can hold, a window in range and within the model's
//! training), then the engine is fetched and the model loaded;
//! the form's model name becomes the file's. A Cancel while loading lets
//! the model go once it is in. A model can be kept in this browser
//! (`browser::model_store`: copied on Load, or fetched from an address),
//! so a reload or the next visit loads it without picking it again.

use leptos::prelude::*;
use repoqa::llm::gguf::{self, GgufError, GgufInfo};
use repoqa::llm::in_tab;

use super::run::use_model_run;
use super::Job;
use crate::ui::browser::fetch::read_blob;
use crate::ui::browser::{model_store, tab_model};
use crate::ui::error::UiError;
use crate::ui::state::run::{RunState, TabModel};

/// What `file` says of itself (its GGUF header), read from its first
/// bytes (more while the header goes on, up to `in_tab::MAX_HEADER_BYTES`);
/// or why it cannot be loaded, by name.
pub async fn read_header(file: &web_sys::File) -> Result<GgufInfo, String> {
    let name = file.name();
    let size = file.size() as usize;
    if let Some(why) = in_tab::refuse_file(&name, size as u64) {
        return Err(why);
    }
    let mut have = in_tab::FIRST_HEADER_READ.min(size);
    loop {
        let blob = file
            .slice_with_f64_and_f64(0.0, have as f64)
            .map_err(|e| UiError::js(&name, &e).to_string())?;
        let bytes = read_blob(&blob, &name).await.map_err(|e| e.to_string())?;
        match gguf::read_header(&bytes) {
            Ok(info) => return Ok(info),
            Err(GgufError::Truncated { need, .. })
                if need <= size && need <= in_tab::MAX_HEADER_BYTES =>
            {
                have = need.max(have.saturating_mul(2)).min(size);
            }
            Err(GgufError::Truncated { need, .. }) if need > size => {
                return Err(format!("{name} ends inside its GGUF header: the file is cut"));
            }
            Err(GgufError::Truncated { .. }) => {
                return Err(format!(
                    "{name}: the GGUF header goes on past {} MiB; not read",
                    in_tab::MAX_HEADER_BYTES >> 20
                ));
            }
            Err(e) => return Err(format!("{name}: {e}")),
        }
    }
}

/// Load `file` (whose header said `trained` tokens of window, if it said)
/// with a window of `window` tokens; with `keep`, the file is kept in this
/// browser first (when there is room: a model that cannot be kept still
/// loads, and the line says why it was not kept); `kept` is called once it
/// is.
pub fn load(
    rs: RunState,
    file: web_sys::File,
    (window, trained): (u32, Option<u64>),
    keep: bool,
    kept: impl Fn() + 'static,
) {
    let name = file.name();
    let bytes = file.size();
    if let Some(why) =
        in_tab::refuse_file(&name, bytes as u64).or_else(|| in_tab::refuse_window(window, trained))
    {
        rs.tab.set(TabModel::Failed(why));
        return;
    }
    let runner = use_model_run().runner;
    if runner.busy_untracked() {
        rs.tab.set(TabModel::Failed(
            "a run or another load is under way: wait for it, or cancel it, then load".into(),
        ));
        return;
    }
    rs.tab.set(TabModel::Loading { name: name.clone(), bytes });
    let what = format!("Loading {name} ({}) into this tab", in_tab::megabytes(bytes as u64));
    runner.spawn(Job::new(what).shown_on(&["run"]), move |ctx| async move {
        let not_kept = if keep {
            let why = keep_file(&ctx, &file).await.err();
            if why.is_none() {
                kept();
            }
            if ctx.cancelled() {
                rs.tab.set(TabModel::None);
                return Err(UiError::cancelled(format!("Cancelled: {name} was not loaded.")));
            }
            ctx.progress(format!("Loading {name} into this tab"), 0, 0);
            why
        } else {
            None
        };
        match tab_model::load(&file, window).await {
            Ok(loaded) => {
                if ctx.cancelled() {
                    let _ = tab_model::unload().await;
                    rs.tab.set(TabModel::None);
                    return Err(UiError::cancelled(format!("Cancelled: {name} was not kept.")));
                }
                let model = in_tab::model_name(&loaded.name);
                rs.form.update(|f| f.settings.model = model.clone());
                if let Err(e) = rs.save_form() {
                    leptos::logging::warn!("form not saved: {e}");
                }
                let secs = loaded.load_ms / 1000.0;
                let kept = match (keep, not_kept) {
                    (false, _) => String::new(),
                    (true, None) => " It is kept in this browser for the next visit.".to_string(),
                    (true, Some(why)) => format!(" It was not kept in this browser: {why}"),
                };
                ctx.done(format!("{model} is loaded in this tab ({secs:.1} s).{kept}"));
                rs.tab.set(TabModel::Ready(loaded));
                Ok(())
            }
            Err(e) => {
                let why = format!("{name} could not be loaded: {e}");
                rs.tab.set(TabModel::Failed(why.clone()));
                Err(UiError::invalid(why))
            }
        }
    });
}

/// Keep `file` in this browser (`browser::model_store`), the copy's
/// progress on the line; why not, if it cannot be (no room, no private
/// file system).
async fn keep_file(ctx: &super::Ctx, file: &web_sys::File) -> Result<(), String> {
    let name = file.name();
    let bytes = file.size();
    let (usage, quota) = model_store::estimate().await.map_err(|e| e.to_string())?;
    if quota > 0.0 && usage + bytes > quota {
        return Err(format!(
            "{name} ({}) does not fit in the {} this browser lets this site keep ({} used)",
            in_tab::megabytes(bytes as u64),
            in_tab::megabytes(quota as u64),
            in_tab::megabytes(usage as u64)
        ));
    }
    let line = ctx.clone();
    let what = format!("Keeping {name} in this browser");
    let on_progress =
        move |done: f64, total: f64| line.progress(what.clone(), done as usize, total as usize);
    model_store::keep(file, on_progress).await.map(|_| ()).map_err(|e| e.to_string())
}

/// Fetch the model at `url` (a server that allows this page) into this
/// browser, on the model-run line with its progress; `done` gets the kept
/// file. The address names the file (`in_tab::url_file_name`); a file over
/// what a tab can hold, or one that does not start as a GGUF does, stops
/// the download there.
pub fn fetch(url: String, done: impl Fn(Result<web_sys::File, String>) + 'static) {
    let name = match in_tab::url_file_name(&url) {
        Ok(n) => n,
        Err(why) => return done(Err(why)),
    };
    let runner = use_model_run().runner;
    if runner.busy_untracked() {
        return done(Err(
            "a run or a load is under way: wait for it, or cancel it, then fetch".into()
        ));
    }
    let what = format!("Fetching {name} into this browser");
    runner.spawn(Job::new(what.clone()).shown_on(&["run"]), move |ctx| async move {
        let line = ctx.clone();
        let stopping = std::cell::Cell::new(false);
        let on_progress = move |got: f64, total: f64| {
            if line.cancelled() && !stopping.replace(true) {
                leptos::task::spawn_local(async {
                    let _ = model_store::stop().await;
                });
            }
            line.progress(what.clone(), got as usize, total as usize);
        };
        let fetched =
            model_store::fetch_keep(&url, &name, in_tab::MAX_MODEL_BYTES, on_progress).await;
        let result = match fetched {
            Ok(k) => model_store::file(&k.name).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Ok(f) = &result {
            ctx.done(format!(
                "{name} ({}) is kept in this browser: press Load.",
                in_tab::megabytes(f.size() as u64)
            ));
        }
        let cancelled = ctx.cancelled();
        let error = result.as_ref().err().cloned();
        done(result);
        match (cancelled, error) {
            (true, _) => Err(UiError::cancelled(format!("Cancelled: {name} was not kept."))),
            (false, Some(e)) => Err(UiError::invalid(e)),
            (false, None) => Ok(()),
        }
    });
}
