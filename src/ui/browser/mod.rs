//! Floor 1: the browser itself — the clock, a turn of the event loop,
//! fetching and reading files, downloads, the clipboard, DOM event values,
//! Web Workers and the compute engine's, the offline copy, the model in the
//! tab and the models kept for it, and JS errors turned into [`UiError`](super::error::UiError). Nothing
//! here knows the app's state.

pub mod boot_api;
pub mod clipboard;
pub mod dom;
pub mod download;
pub mod engine;
pub mod fetch;
pub mod model_store;
pub mod offline;
pub mod tab_model;
pub mod time;
pub mod worker;
