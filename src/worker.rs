//! What the page's task-build workers run (public/boot/build-worker.js):
//! the same wasm as the page, entered here instead of mounting the app.
//! Each worker reads the tokenizer once, then builds a repo's tasks per
//! message with the core ([`repoqa::context::build_share`]).

use std::cell::RefCell;

use repoqa::context::build_share;
use repoqa::tokenize::Tokenizer;
use wasm_bindgen::prelude::*;

thread_local! {
    static TOKENIZER: RefCell<Option<Tokenizer>> = const { RefCell::new(None) };
}

/// Read the tokenizer (the page's bytes and their origin, for messages).
#[wasm_bindgen]
pub fn repoqa_worker_init(tokenizer: &[u8], origin: &str) -> Result<(), JsError> {
    let tok = Tokenizer::from_json_bytes(tokenizer, origin)?;
    TOKENIZER.with(|t| *t.borrow_mut() = Some(tok));
    Ok(())
}

/// Build the tasks of one share message, calling `on_task` with each
/// task's JSON line in order. Throws the build error (after the tasks built
/// before it).
#[wasm_bindgen]
pub fn repoqa_worker_build(message: &str, on_task: &js_sys::Function) -> Result<(), JsError> {
    TOKENIZER.with(|t| {
        let t = t.borrow();
        let Some(tok) = t.as_ref() else {
            return Err(JsError::new("the worker has no tokenizer (no init message)"));
        };
        let mut posted: Result<(), JsValue> = Ok(());
        let built = build_share(message, tok, |json| {
            if posted.is_ok() {
                posted = on_task.call1(&JsValue::NULL, &JsValue::from_str(&json)).map(|_| ());
            }
        });
        if let Err(e) = posted {
            return Err(JsError::new(&format!("posting a task failed: {e:?}")));
        }
        built.map_err(|e| JsError::new(&e.error.to_string()))
    })
}
