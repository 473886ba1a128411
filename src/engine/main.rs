//! The app's compute engine (built to wasm by Trunk as a worker, index.html):
//! the grammars, the tokenizer, the task builder and the scorer, run in Web
//! Workers (public/boot/engine-worker.js) so that the page itself never
//! downloads, compiles or waits for them. The page's wasm (`src/main.rs`)
//! links none of this; it sends requests.
//!
//! Two kinds of work come in: a request of [`repoqa::engine`] (a share of a
//! task build, score, explain, count, anatomy, audit, self-check), answered
//! as JSON by the core's own [`Engine`] — the page's engine worker and the
//! build pool's workers alike — and a curation (`repoqa::engine::curate`,
//! in a worker of its own, with progress).

#[cfg(target_arch = "wasm32")]
mod exports {
    use std::cell::RefCell;

    use repoqa::curate::SourceFile;
    use repoqa::engine::{curate, CurateJob, Engine};
    use wasm_bindgen::prelude::*;

    thread_local! {
        static ENGINE: RefCell<Engine> = RefCell::new(Engine::new());
    }

    /// Take the tokenizer (its bytes and their origin, for messages).
    #[wasm_bindgen]
    pub fn repoqa_engine_tokenizer(bytes: &[u8], origin: &str) -> Result<(), JsError> {
        ENGINE
            .with(|e| e.borrow_mut().set_tokenizer(bytes, origin))
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Take a dataset file's bytes as dataset `id`.
    #[wasm_bindgen]
    pub fn repoqa_engine_dataset(id: u32, bytes: &[u8], origin: &str) -> Result<(), JsError> {
        ENGINE
            .with(|e| e.borrow_mut().set_dataset(id, bytes, origin))
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Answer a request (JSON) with its reply (JSON); throws the error.
    #[wasm_bindgen]
    pub fn repoqa_engine_call(request: &str) -> Result<String, JsError> {
        ENGINE.with(|e| e.borrow_mut().handle_json(request)).map_err(|e| JsError::new(&e))
    }

    /// Curate a repository: `job` is a [`CurateJob`] (JSON), `paths[i]`
    /// names the bytes `blobs[i]` (a `Uint8Array`). `on_progress(done,
    /// total)` after each file of the function analysis; the report as
    /// JSON, or throws the curation's error.
    #[wasm_bindgen]
    pub fn repoqa_engine_curate(
        job: &str,
        paths: Vec<String>,
        blobs: js_sys::Array,
        on_progress: &js_sys::Function,
    ) -> Result<String, JsError> {
        let job: CurateJob = serde_json::from_str(job)
            .map_err(|e| JsError::new(&format!("the engine could not read the curation: {e}")))?;
        if paths.len() != blobs.length() as usize {
            return Err(JsError::new("the curation's paths and files do not pair up"));
        }
        let files: Vec<SourceFile> = paths
            .into_iter()
            .zip(blobs.iter())
            .map(|(path, blob)| SourceFile::new(path, js_sys::Uint8Array::new(&blob).to_vec()))
            .collect();
        drop(blobs);
        let report = curate(&files, &job, |done, total| {
            let _ = on_progress.call2(
                &JsValue::NULL,
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            );
        })
        .map_err(|e| JsError::new(&e.to_string()))?;
        serde_json::to_string(&report).map_err(|e| JsError::new(&e.to_string()))
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("repoqa-engine is the browser app's compute engine: trunk builds it (see README.md); use the `repoqa` binary for the command line.");
    std::process::exit(2);
}
