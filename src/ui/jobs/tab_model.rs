//! Loading the model in this tab (the Run page's "In this tab"), on the
//! model-run job line: the file is checked by the core's rules first
//! (`repoqa::llm::in_tab`: a GGUF, not empty, within what a tab can hold,
//! a window in range), then the engine is fetched and the model loaded;
//! the form's model name becomes the file's. A Cancel while loading lets
//! the model go once it is in.

use leptos::prelude::*;
use repoqa::llm::in_tab;

use super::run::use_model_run;
use super::Job;
use crate::ui::browser::tab_model;
use crate::ui::error::UiError;
use crate::ui::format;
use crate::ui::state::run::{RunState, TabModel};

/// Load `file` with a window of `window` tokens.
pub fn load(rs: RunState, file: web_sys::File, window: u32) {
    let name = file.name();
    let bytes = file.size();
    if let Some(why) =
        in_tab::refuse_file(&name, bytes as u64).or_else(|| in_tab::refuse_window(window))
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
    let what = format!("Loading {name} ({}) into this tab", format::bytes_label(bytes as usize));
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
