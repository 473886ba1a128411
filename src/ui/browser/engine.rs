//! The compute engine, from the page: one long-lived Web Worker
//! (public/boot/engine-worker.js) running the engine's own wasm
//! (src/engine/main.rs), started on the first request. The page's wasm
//! links no grammar, tokenizer or scorer; it sends the engine a
//! [`Request`] and awaits the [`Reply`] (`repoqa::engine`, the core's own
//! types as JSON), after giving it the dataset and tokenizer those need.
//!
//! Where the engine's files are is stamped into boot.js by
//! scripts/post-build.mjs (`window.repoqaEngine`). The page compiles the
//! engine's wasm once ([`EngineFiles::init`]) and posts the compiled module
//! to every engine worker (this one, the build pool's, curation's): a
//! worker never downloads the wasm itself, so a private window (no disk
//! cache) does not fetch it once per worker, and a build's workers start
//! without compiling it again. A worker that cannot start fails every
//! waiting request with the reason, and the next request starts a new one.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use repoqa::engine::{Reply, Request, KEPT_DATASETS};
use repoqa::input::dataset::Dataset;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::dom::js_object;
use crate::ui::error::UiError;

/// The worker script, copied beside the boot script (index.html).
pub const SCRIPT: &str = "engine-worker.js";

/// Where the engine's wasm-bindgen module, its wasm and the worker script
/// are (absolute URLs).
pub struct EngineFiles {
    pub js: String,
    pub wasm: String,
    pub script: String,
}

impl EngineFiles {
    /// From `window.repoqaEngine` (boot.js), relative to the boot script.
    pub fn find() -> Result<EngineFiles, UiError> {
        let doc = web_sys::window().and_then(|w| w.document()).ok_or(UiError::NoWindow)?;
        let boot = doc
            .query_selector("script[data-repoqa-js]")
            .ok()
            .flatten()
            .and_then(|b| b.get_attribute("src"))
            .ok_or_else(|| UiError::invalid("the page has no boot script"))?;
        let base = doc.base_uri().ok().flatten().unwrap_or_default();
        let resolve = |rel: &str, base: &str| {
            web_sys::Url::new_with_base(rel, base)
                .map(|u| u.href())
                .map_err(|e| UiError::js(format!("resolving {rel}"), &e))
        };
        let boot = resolve(&boot, &base)?;
        let files = js_sys::Reflect::get(&js_sys::global(), &"repoqaEngine".into())
            .ok()
            .filter(|v| v.is_object())
            .ok_or_else(|| {
                UiError::invalid(
                    "the page does not say where the engine is (boot.js has no engine files)",
                )
            })?;
        let name = |key: &str| {
            js_sys::Reflect::get(&files, &key.into())
                .ok()
                .and_then(|v| v.as_string())
                .ok_or_else(|| UiError::invalid(format!("boot.js names no engine {key} file")))
        };
        Ok(EngineFiles {
            js: resolve(&name("js")?, &boot)?,
            wasm: resolve(&name("wasm")?, &boot)?,
            script: resolve(SCRIPT, &boot)?,
        })
    }

    /// The message that starts an engine worker (`init` in
    /// engine-worker.js): the wasm-bindgen module's URL, the engine's wasm
    /// compiled (once for the page) and `extra` fields.
    pub async fn init(&self, extra: &[(&str, JsValue)]) -> Result<JsValue, UiError> {
        let module = compiled(&self.wasm).await?;
        let mut fields =
            vec![("kind", "init".into()), ("js", self.js.as_str().into()), ("module", module)];
        fields.extend_from_slice(extra);
        Ok(js_object(&fields))
    }
}

thread_local! {
    /// The engine's wasm being compiled or compiled (a `WebAssembly.Module`),
    /// and its URL; forgotten if the compile failed, so the next start
    /// tries again.
    static MODULE: RefCell<Option<(String, js_sys::Promise)>> = const { RefCell::new(None) };
}

/// The engine's wasm at `url`, compiled once for the page.
async fn compiled(url: &str) -> Result<JsValue, UiError> {
    let held = MODULE.with(|m| m.borrow().clone()).filter(|(u, _)| u == url);
    let promise = match held {
        Some((_, p)) => p,
        None => {
            let p = wasm_bindgen_futures::future_to_promise(compile(url.to_string()));
            MODULE.with(|m| *m.borrow_mut() = Some((url.to_string(), p.clone())));
            p
        }
    };
    JsFuture::from(promise).await.map_err(|e| {
        MODULE.with(|m| m.borrow_mut().take());
        UiError::js(format!("compiling the engine ({url})"), &e)
    })
}

/// Compile the wasm at `url` as it downloads; from its bytes when the
/// server does not send it as application/wasm (as boot.js does the page's).
async fn compile(url: String) -> Result<JsValue, JsValue> {
    let window = web_sys::window().ok_or_else(|| JsValue::from_str("no window"))?;
    let streamed = js_sys::WebAssembly::compile_streaming(&window.fetch_with_str(&url));
    if let Ok(module) = JsFuture::from(streamed).await {
        return Ok(module);
    }
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(&url)).await?.dyn_into()?;
    if !response.ok() {
        return Err(JsValue::from_str(&format!("the server answered {}", response.status())));
    }
    let bytes = JsFuture::from(response.array_buffer()?).await?;
    JsFuture::from(js_sys::WebAssembly::compile(&bytes)).await
}

type Pending = Rc<RefCell<HashMap<u32, (js_sys::Function, js_sys::Function)>>>;

struct Client {
    worker: web_sys::Worker,
    next_id: Cell<u32>,
    pending: Pending,
    /// Resolved when the engine has loaded (rejected if it could not).
    ready: js_sys::Promise,
    /// The datasets the engine holds, oldest first, as it keeps them
    /// (`KEPT_DATASETS`, the oldest going first): the page's allocation
    /// (kept from reuse by the `Weak`) and the id it was sent as. Recorded
    /// when sent: the worker takes messages in order, so a request posted
    /// after a dataset finds it there.
    datasets: RefCell<Vec<(Weak<Dataset>, u32)>>,
    /// The tokenizer the engine holds (its SHA-256).
    tokenizer: RefCell<Option<String>>,
    _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

thread_local! {
    static CLIENT: RefCell<Option<Rc<Client>>> = const { RefCell::new(None) };
    static NEXT_DATASET: Cell<u32> = const { Cell::new(1) };
}

/// Fail every waiting request (and the start) of the worker whose requests
/// are `pending` with `why`, and forget that worker if it is the running
/// one: the next request starts another. (A worker's start can fail after
/// an error already replaced it: the new one is kept.)
fn fail_all(pending: &Pending, why: &str) {
    let waiting: Vec<_> = pending.borrow_mut().drain().collect();
    for (_, (_, reject)) in waiting {
        let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(why));
    }
    let ours = |c: &mut Rc<Client>| Rc::ptr_eq(&c.pending, pending);
    let Some(client) = CLIENT.with(|c| c.borrow_mut().take_if(ours)) else { return };
    client.worker.terminate();
    // Called from the worker's own handlers: they are dropped (with the
    // client) after they return, never while they run.
    wasm_bindgen_futures::spawn_local(async move { drop(client) });
}

/// Request id 0 is the start (`ready` / `failed`).
const START: u32 = 0;

fn start() -> Result<Rc<Client>, UiError> {
    let files = EngineFiles::find()?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&files.script, &options)
        .map_err(|e| UiError::js("starting the engine", &e))?;
    let pending: Pending = Rc::default();
    let ready = js_sys::Promise::new(&mut |resolve, reject| {
        pending.borrow_mut().insert(START, (resolve, reject));
    });
    let p = pending.clone();
    let on_message = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let data =
            ev.dyn_ref::<web_sys::MessageEvent>().map(|m| m.data()).unwrap_or(JsValue::UNDEFINED);
        let field = |k: &str| js_sys::Reflect::get(&data, &k.into()).unwrap_or(JsValue::UNDEFINED);
        let kind = field("kind").as_string().unwrap_or_default();
        let id = match kind.as_str() {
            "ready" | "failed" => START,
            _ => field("id").as_f64().map_or(u32::MAX, |v| v as u32),
        };
        match kind.as_str() {
            "failed" => {
                let why = field("error").as_string().unwrap_or_default();
                fail_all(&p, &format!("the engine could not load: {why}"));
            }
            "ready" | "reply" | "error" => {
                let Some((resolve, reject)) = p.borrow_mut().remove(&id) else { return };
                let _ = if kind == "error" {
                    reject.call1(&JsValue::NULL, &field("error"))
                } else {
                    resolve.call1(&JsValue::NULL, &field("reply"))
                };
            }
            _ => {}
        }
    });
    let p = pending.clone();
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let text = super::worker::error_text(&ev, "its script could not run");
        fail_all(&p, &format!("the engine stopped: {text}"));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let (w, p) = (worker.clone(), pending.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let posted = match files.init(&[]).await {
            Ok(init) => w.post_message(&init).map_err(|e| UiError::js("starting the engine", &e)),
            Err(e) => Err(e),
        };
        if let Err(e) = posted {
            fail_all(&p, &format!("the engine could not load: {e}"));
        }
    });
    Ok(Rc::new(Client {
        worker,
        next_id: Cell::new(START + 1),
        pending,
        ready,
        datasets: RefCell::new(Vec::new()),
        tokenizer: RefCell::new(None),
        _handlers: vec![on_message, on_error],
    }))
}

/// The running engine, started if need be, once it has loaded.
async fn client() -> Result<Rc<Client>, UiError> {
    let client = match CLIENT.with(|c| c.borrow().clone()) {
        Some(c) => c,
        None => {
            let c = start()?;
            CLIENT.with(|slot| *slot.borrow_mut() = Some(c.clone()));
            c
        }
    };
    JsFuture::from(client.ready.clone()).await.map_err(|e| UiError::js("the engine", &e))?;
    Ok(client)
}

impl Client {
    /// Post `fields` with a new id, await the reply.
    async fn post(&self, fields: &[(&str, JsValue)], what: &str) -> Result<JsValue, UiError> {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1).max(START + 1));
        let mut all = fields.to_vec();
        all.push(("id", JsValue::from_f64(f64::from(id))));
        let msg = js_object(&all);
        let pending = self.pending.clone();
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            pending.borrow_mut().insert(id, (resolve, reject));
        });
        if let Err(e) = self.worker.post_message(&msg) {
            self.pending.borrow_mut().remove(&id);
            return Err(UiError::js(format!("sending the engine {what}"), &e));
        }
        JsFuture::from(promise).await.map_err(|e| UiError::js(format!("the engine, {what}"), &e))
    }
}

/// Ask the engine; its error (no dataset, a bad request) as the page's.
pub async fn call(request: &Request) -> Result<Reply, UiError> {
    let client = client().await?;
    // The request's types are strings, numbers and lists: serialising cannot fail.
    let json = serde_json::to_string(request).map_err(|e| UiError::invalid(e.to_string()))?;
    let reply =
        client.post(&[("kind", "call".into()), ("request", json.into())], "a request").await?;
    let text = reply.as_string().unwrap_or_default();
    serde_json::from_str(&text)
        .map_err(|e| UiError::invalid(format!("the engine's reply could not be read: {e}")))
}

/// Give the engine `dataset` (unless it holds it or has it on the way);
/// the id requests about it name.
pub async fn dataset(dataset: &Arc<Dataset>, origin: &str) -> Result<u32, UiError> {
    let client = client().await?;
    let held =
        client.datasets.borrow().iter().find_map(|(d, id)| {
            (d.upgrade().is_some_and(|d| Arc::ptr_eq(&d, dataset))).then_some(*id)
        });
    if let Some(id) = held {
        return Ok(id);
    }
    let id = NEXT_DATASET.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    });
    let bytes = js_sys::Uint8Array::from(dataset.to_json_string().as_bytes());
    let fields = [
        ("kind", "dataset".into()),
        ("dataset", JsValue::from_f64(f64::from(id))),
        ("bytes", bytes.into()),
        ("origin", origin.into()),
    ];
    {
        // As the engine will: the oldest goes, this one is held.
        let mut held = client.datasets.borrow_mut();
        if held.len() >= KEPT_DATASETS {
            held.remove(0);
        }
        held.push((Arc::downgrade(dataset), id));
    }
    if let Err(e) = client.post(&fields, "the dataset").await {
        client.datasets.borrow_mut().retain(|(_, held)| *held != id);
        return Err(e);
    }
    Ok(id)
}

/// Give the engine the tokenizer file `bytes`, whose SHA-256 is `sha256`
/// (unless it holds it already).
pub async fn tokenizer(bytes: &[u8], origin: &str, sha256: &str) -> Result<(), UiError> {
    let client = client().await?;
    if client.tokenizer.borrow().as_deref() == Some(sha256) {
        return Ok(());
    }
    let fields = [
        ("kind", "tokenizer".into()),
        ("bytes", js_sys::Uint8Array::from(bytes).into()),
        ("origin", origin.into()),
    ];
    // Recorded when sent, as datasets are: a request posted after this
    // one finds the tokenizer there.
    *client.tokenizer.borrow_mut() = Some(sha256.to_string());
    if let Err(e) = client.post(&fields, "the tokenizer").await {
        *client.tokenizer.borrow_mut() = None;
        return Err(e);
    }
    Ok(())
}
