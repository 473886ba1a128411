//! The app's compute engine (built to wasm by Trunk as a worker, index.html):
//! the grammars, the tokenizer, the task builder and the scorer, run in Web
//! Workers (public/boot/engine-worker.js) so that the page itself never
//! downloads, compiles or waits for them. The page's wasm (`src/main.rs`)
//! links none of this; it sends requests.
//!
//! One kind of work comes in: a request of [`repoqa::engine`] (a share of a
//! task build, a curation with its files, score, explain, count, anatomy,
//! audit, self-check), answered as JSON by the core's own [`Engine`] — the
//! page's engine worker, the build pool's workers and a curation's worker
//! alike — with progress where the work is long.

#[cfg(target_arch = "wasm32")]
mod exports {
    use std::cell::RefCell;

    use repoqa::curate::SourceFile;
    use repoqa::engine::{Engine, Inputs};
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
    /// `paths[i]` names the bytes `blobs[i]` (a `Uint8Array`): the files a
    /// request reads (a curation's), none for most; `on_progress(done,
    /// total)` as long work goes on. The engine's one entry point
    /// ([`Engine::handle_with`]), whichever worker calls it.
    #[wasm_bindgen]
    pub fn repoqa_engine_call(
        request: &str,
        paths: Vec<String>,
        blobs: js_sys::Array,
        on_progress: &js_sys::Function,
    ) -> Result<String, JsError> {
        if paths.len() != blobs.length() as usize {
            return Err(JsError::new("the request's paths and files do not pair up"));
        }
        let files: Vec<SourceFile> = paths
            .into_iter()
            .zip(blobs.iter())
            .map(|(path, blob)| SourceFile::new(path, js_sys::Uint8Array::new(&blob).to_vec()))
            .collect();
        drop(blobs);
        let mut progress = |done: usize, total: usize| {
            let _ = on_progress.call2(
                &JsValue::NULL,
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            );
        };
        let inputs = Inputs { files: &files, progress: &mut progress };
        ENGINE
            .with(|e| e.borrow_mut().handle_json_with(request, inputs))
            .map_err(|e| JsError::new(&e))
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
