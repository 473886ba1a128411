//! Module Web Workers (the build pool's engines): start a few with one
//! script, post them messages, and await what they post back, in arrival
//! order, from one inbox. Dropping a [`Workers`] terminates them.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::dom::js_object;
use crate::ui::error::UiError;

type Queue = Rc<RefCell<VecDeque<(usize, JsValue)>>>;
type Wake = Rc<RefCell<Option<js_sys::Function>>>;

/// Running workers and the inbox of their messages.
pub struct Workers {
    workers: Vec<web_sys::Worker>,
    queue: Queue,
    wake: Wake,
    // Kept alive as long as the workers can call them.
    _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

impl Workers {
    /// Start `n` module workers running `script`. A worker that fails to
    /// load or throws posts `{kind: "failed", error}` to the inbox.
    pub fn start(script: &str, n: usize) -> Result<Workers, UiError> {
        let queue: Queue = Rc::default();
        let wake: Wake = Rc::default();
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let mut workers = Vec::with_capacity(n);
        let mut handlers = Vec::with_capacity(2 * n);
        for i in 0..n {
            let worker = web_sys::Worker::new_with_options(script, &options)
                .map_err(|e| UiError::js("starting a worker", &e))?;
            let push = move |queue: &Queue, wake: &Wake, data: JsValue| {
                queue.borrow_mut().push_back((i, data));
                if let Some(f) = wake.borrow_mut().take() {
                    let _ = f.call0(&JsValue::NULL);
                }
            };
            let (q, w) = (queue.clone(), wake.clone());
            let on_message = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
                let data = ev
                    .dyn_ref::<web_sys::MessageEvent>()
                    .map(|m| m.data())
                    .unwrap_or(JsValue::UNDEFINED);
                push(&q, &w, data);
            });
            let (q, w) = (queue.clone(), wake.clone());
            let on_error = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
                let text = error_text(&ev, "the worker script could not run");
                push(&q, &w, js_object(&[("kind", "failed".into()), ("error", text.into())]));
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            workers.push(worker);
            handlers.push(on_message);
            handlers.push(on_error);
        }
        Ok(Workers { workers, queue, wake, _handlers: handlers })
    }

    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Post `data` to worker `i`.
    pub fn post(&self, i: usize, data: &JsValue) -> Result<(), UiError> {
        let w = self.workers.get(i).ok_or_else(|| UiError::invalid("no such worker"))?;
        w.post_message(data).map_err(|e| UiError::js("posting to a worker", &e))
    }

    /// The next message (which worker, what it posted), or `None` after
    /// `ms` milliseconds without one. The page keeps its turns meanwhile.
    pub async fn next(&self, ms: i32) -> Option<(usize, JsValue)> {
        if let Some(m) = self.queue.borrow_mut().pop_front() {
            return Some(m);
        }
        let wake = self.wake.clone();
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
            }
            *wake.borrow_mut() = Some(resolve);
        });
        let _ = JsFuture::from(promise).await;
        self.wake.borrow_mut().take();
        self.queue.borrow_mut().pop_front()
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        for w in &self.workers {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
    }
}

/// Field `key` of a message, as text (empty if absent).
pub fn field_str(data: &JsValue, key: &str) -> String {
    js_sys::Reflect::get(data, &JsValue::from_str(key))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Field `key` of a message, as a number (`None` if absent).
pub fn field_num(data: &JsValue, key: &str) -> Option<f64> {
    js_sys::Reflect::get(data, &JsValue::from_str(key)).ok().and_then(|v| v.as_f64())
}

/// What a worker's `error` event says, or `otherwise` when it says nothing
/// (a script that could not load gives an empty message).
pub fn error_text(ev: &JsValue, otherwise: &str) -> String {
    ev.dyn_ref::<web_sys::ErrorEvent>()
        .map(|e| e.message())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| otherwise.to_string())
}
