//! Loading the model in this tab (the Run page's "In this tab"), on the
//! model-run job line: the file's header is read first (what it says of
//! itself, shown before anything loads; `repoqa::llm::gguf`), the file is
//! checked by the core's rules (`repoqa::llm::in_tab`: a GGUF, not empty,
//! within what a tab can hold, a window in range and within the model's
//! training), then the engine is fetched and the model loaded;
//! the form's model name becomes the file's. A Cancel while loading lets
//! the model go once it is in.

use leptos::prelude::*;
use repoqa::llm::gguf::{self, GgufError, GgufInfo};
use repoqa::llm::in_tab;

use super::run::use_model_run;
use super::Job;
use crate::ui::browser::fetch::read_blob;
use crate::ui::browser::tab_model;
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
/// with a window of `window` tokens.
pub fn load(rs: RunState, file: web_sys::File, window: u32, trained: Option<u64>) {
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
                ctx.done(format!("{model} is loaded in this tab ({secs:.1} s)."));
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
