//! The model in this tab, as boot.js offers it (`window.repoqaTabModel`,
//! over public/boot/tab-model.js and llama.cpp compiled to WebAssembly):
//! load a GGUF file, answer a Chat Completions request, stop, let go. The
//! engine is fetched only when a model is loaded; requests to the in-tab
//! base URL (`repoqa::llm::in_tab`) come here instead of the network.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use repoqa::llm::in_tab::Timing;
use repoqa::llm::wire::TransportError;
use repoqa::llm::{HttpReply, HttpRequest};

use super::boot_api::BootApi;
use crate::ui::error::UiError;

/// A model loaded in the tab, as the engine reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// The file's name.
    pub name: String,
    pub bytes: f64,
    /// The window it was loaded with (tokens).
    pub window: u32,
    /// The window it was trained with (the GGUF's context length).
    pub trained_window: u32,
    pub threads: u32,
    /// The page is cross-origin isolated (threads are possible).
    pub isolated: bool,
    /// The GGUF carries a chat template.
    pub chat_template: bool,
    pub load_ms: f64,
}

const API: BootApi = BootApi {
    global: "repoqaTabModel",
    what: "The model in this tab",
    missing: "this page was started without boot.js, so it cannot run a model in the tab",
};

async fn call(method: &str, args: &[JsValue]) -> Result<JsValue, UiError> {
    API.call(method, args).await
}

fn num(v: &JsValue, k: &str) -> f64 {
    js_sys::Reflect::get(v, &k.into()).ok().and_then(|x| x.as_f64()).unwrap_or(0.0)
}
fn flag(v: &JsValue, k: &str) -> bool {
    js_sys::Reflect::get(v, &k.into()).ok().and_then(|x| x.as_bool()).unwrap_or(false)
}
fn text(v: &JsValue, k: &str) -> Option<String> {
    js_sys::Reflect::get(v, &k.into()).ok().and_then(|x| x.as_string())
}

/// Load `file` with a window of `window` tokens (the engine is fetched
/// first, once); a model loaded before is let go.
pub async fn load(file: &web_sys::File, window: u32) -> Result<Loaded, UiError> {
    let v = call("load", &[file.into(), window.into()]).await?;
    Ok(Loaded {
        name: text(&v, "name").unwrap_or_else(|| file.name()),
        bytes: num(&v, "bytes"),
        window: num(&v, "nCtx") as u32,
        trained_window: num(&v, "nCtxTrain") as u32,
        threads: num(&v, "threads") as u32,
        isolated: flag(&v, "isolated"),
        chat_template: flag(&v, "chatTemplate"),
        load_ms: num(&v, "loadMs"),
    })
}

/// Let the model go, and its memory.
pub async fn unload() -> Result<(), UiError> {
    call("unload", &[]).await.map(|_| ())
}

/// Stop the answer being generated, if any.
pub async fn stop() -> Result<(), UiError> {
    call("stop", &[]).await.map(|_| ())
}

/// The timings of every answer since the model was loaded, in order.
pub async fn timings() -> Vec<Timing> {
    let Ok(v) = call("stats", &[]).await else { return Vec::new() };
    let Ok(list) = v.dyn_into::<js_sys::Array>() else { return Vec::new() };
    list.iter()
        .map(|t| Timing {
            prompt_tokens: num(&t, "prompt_n"),
            prompt_per_second: num(&t, "prompt_per_second"),
            generated_tokens: num(&t, "predicted_n"),
            generated_per_second: num(&t, "predicted_per_second"),
        })
        .collect()
}

/// One model request to the tab's model, answered as a server would
/// (`fetch::post_model_request` sends requests to the in-tab base URL here),
/// with no timeout: a model in the tab is no server that drops a request,
/// and a slow answer is still being written (`in_tab::PACE_NOTE`); [`stop`]
/// ends it.
pub async fn post(req: &HttpRequest) -> Result<HttpReply, TransportError> {
    let v = call("chat", &[req.body.as_str().into(), NO_TIMEOUT.into()])
        .await
        .map_err(|e| TransportError::NoStatus(e.to_string()))?;
    reply_of(&v)
}

/// tab-model.js's `chat` with this many milliseconds never gives up.
const NO_TIMEOUT: u32 = 0;

/// How far an answer being written is: the text so far, the tokens
/// written, and while the prompt is read, how many of its tokens are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Writing {
    pub text: String,
    /// Prompt tokens read so far, and of how many (llama.cpp's
    /// `prompt_progress`), until the first token is written.
    pub prompt: Option<(u32, u32)>,
    /// Tokens written so far (the stream's pieces).
    pub written: u32,
}

/// [`post`], with the answer streamed to `on_text` as it is written; the
/// reply in the end is the one [`post`] gets (the same tokens, gathered by
/// tab-model.js), read by the core as any reply.
pub async fn post_streaming(
    req: &HttpRequest,
    on_text: impl Fn(Writing) + 'static,
) -> Result<HttpReply, TransportError> {
    let callback = Closure::<dyn Fn(JsValue)>::new(move |v: JsValue| {
        let processed = js_sys::Reflect::get(&v, &"processed".into()).ok().and_then(|x| x.as_f64());
        let total = js_sys::Reflect::get(&v, &"total".into()).ok().and_then(|x| x.as_f64());
        on_text(Writing {
            text: text(&v, "text").unwrap_or_default(),
            prompt: processed.zip(total).map(|(p, t)| (p as u32, t as u32)),
            written: num(&v, "written") as u32,
        });
    });
    let f: &JsValue = callback.as_ref();
    let v = call("chat", &[req.body.as_str().into(), NO_TIMEOUT.into(), f.clone()])
        .await
        .map_err(|e| TransportError::NoStatus(e.to_string()));
    // The engine calls back only while the request is answered: the
    // closure may go now.
    drop(callback);
    reply_of(&v?)
}

fn reply_of(v: &JsValue) -> Result<HttpReply, TransportError> {
    if flag(v, "timeout") {
        return Err(TransportError::Timeout);
    }
    if let Some(why) = text(v, "noStatus") {
        return Err(TransportError::NoStatus(why));
    }
    let status = num(v, "status") as u16;
    let body = text(v, "body").unwrap_or_default();
    Ok(HttpReply { status, retry_after: None, body })
}
