//! Bytes from the network and from local files: a same-origin asset in one
//! go, or a body / file read piece by piece so the caller can show progress,
//! stop early, and refuse what is too large before it is all in memory.

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use repoqa::llm::wire::TransportError;

use crate::ui::error::UiError;

/// Slice size when reading a local file.
const FILE_SLICE: f64 = 8.0 * 1024.0 * 1024.0;

/// GET `url`: the response when its status is a success, else why not.
async fn get_ok(url: &str) -> Result<gloo_net::http::Response, UiError> {
    let resp = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| UiError::Unreachable { url: url.to_string(), detail: e.to_string() })?;
    if !resp.ok() {
        return Err(UiError::Http {
            url: url.to_string(),
            status: resp.status(),
            text: resp.status_text(),
        });
    }
    Ok(resp)
}

/// GET `url` with `headers` (another site's API): the status and the body
/// as text, read up to `max` bytes; any status is an answer.
pub async fn get_text(
    url: &str,
    headers: &[(String, String)],
    max: usize,
) -> Result<(u16, String), UiError> {
    let (status, body, _) = get_text_and_header(url, headers, max, None).await?;
    Ok((status, body))
}

/// [`get_text`], with the reply's header `header` too (when the other site
/// lets the page read it: CORS' `Access-Control-Expose-Headers`).
pub async fn get_text_and_header(
    url: &str,
    headers: &[(String, String)],
    max: usize,
    header: Option<&str>,
) -> Result<(u16, String, Option<String>), UiError> {
    let unreachable = |detail: String| UiError::Unreachable { url: url.to_string(), detail };
    let mut req = gloo_net::http::Request::get(url);
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let resp = req.send().await.map_err(|e| unreachable(e.to_string()))?;
    let status = resp.status();
    let wanted = header.and_then(|h| resp.headers().get(h));
    let bytes = match resp.body() {
        None => Vec::new(),
        Some(body) => read_stream(body, max, 0, |_| true).await.map_err(|stop| match stop {
            StreamStop::TooLarge(_) => {
                UiError::TooLarge { what: url.to_string(), size: max + 1, max }
            }
            StreamStop::Read(e) => unreachable(format!("reading the reply: {e:?}")),
            StreamStop::NotAStream | StreamStop::Cancelled => {
                unreachable("the reply cannot be read as a stream".into())
            }
        })?,
    };
    Ok((status, String::from_utf8_lossy(&bytes).into_owned(), wanted))
}

/// GET `url` as bytes in one go (same-origin assets).
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, UiError> {
    let resp = get_ok(url).await?;
    resp.binary()
        .await
        .map_err(|e| UiError::Unreachable { url: url.to_string(), detail: e.to_string() })
}

/// GET `url` as bytes, reading the body as a stream: `on_chunk(done,
/// total)` runs after each piece (total is 0 when the server does not say)
/// and returns false to stop (then `Err(Cancelled)`). `max` is enforced
/// from the header and while reading.
pub async fn fetch_stream(
    url: &str,
    max: usize,
    mut on_chunk: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<u8>, UiError> {
    let resp = get_ok(url).await?;
    let total: usize =
        resp.headers().get("content-length").and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    if total > max {
        return Err(UiError::TooLarge { what: url.to_string(), size: total, max });
    }
    let Some(body) = resp.body() else { return Ok(Vec::new()) };
    let out = read_stream(body, max, total, |done| on_chunk(done, total)).await;
    out.map_err(|stop| match stop {
        StreamStop::NotAStream => {
            UiError::invalid(format!("{url}: the response body cannot be read as a stream"))
        }
        StreamStop::Read(e) => UiError::js(format!("Download of {url} failed: read"), &e),
        StreamStop::TooLarge(size) => UiError::TooLarge { what: url.to_string(), size, max },
        StreamStop::Cancelled => UiError::cancelled(format!("Cancelled while downloading {url}.")),
    })
}

/// Why [`read_stream`] stopped before the end.
enum StreamStop {
    NotAStream,
    Read(wasm_bindgen::JsValue),
    /// The bytes read with the piece that went past the limit.
    TooLarge(usize),
    Cancelled,
}

/// Read `body` to its end, at most `max` bytes (`capacity` reserved first):
/// `on_chunk(done)` runs before each piece and returns false to stop.
async fn read_stream(
    body: web_sys::ReadableStream,
    max: usize,
    capacity: usize,
    mut on_chunk: impl FnMut(usize) -> bool,
) -> Result<Vec<u8>, StreamStop> {
    let reader: web_sys::ReadableStreamDefaultReader =
        body.get_reader().dyn_into().map_err(|_| StreamStop::NotAStream)?;
    let mut out: Vec<u8> = Vec::with_capacity(capacity.min(max));
    loop {
        if !on_chunk(out.len()) {
            let _ = reader.cancel();
            return Err(StreamStop::Cancelled);
        }
        let chunk = JsFuture::from(reader.read()).await.map_err(StreamStop::Read)?;
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        if let Ok(value) = js_sys::Reflect::get(&chunk, &"value".into()) {
            let arr: Uint8Array = value.unchecked_into();
            let old = out.len();
            let n = arr.length() as usize;
            if old + n > max {
                let _ = reader.cancel();
                return Err(StreamStop::TooLarge(old + n));
            }
            out.resize(old + n, 0);
            arr.copy_to(&mut out[old..]);
        }
    }
    Ok(out)
}

/// Read a local file in slices: `before_slice(done, total)` runs before
/// each and returns false to stop (then `Err(Cancelled)`). Files over
/// `max` are refused unread.
pub async fn read_file(
    file: &web_sys::File,
    max: usize,
    mut before_slice: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<u8>, UiError> {
    let name = file.name();
    let size = file.size();
    if size > max as f64 {
        return Err(UiError::TooLarge { what: name, size: size as usize, max });
    }
    let total = size as usize;
    let mut out: Vec<u8> = Vec::with_capacity(total);
    let mut start = 0.0;
    while start < size {
        if !before_slice(out.len(), total) {
            return Err(UiError::cancelled(format!("Cancelled while reading {name}.")));
        }
        let end = (start + FILE_SLICE).min(size);
        let blob = file.slice_with_f64_and_f64(start, end).map_err(|e| UiError::js(&name, &e))?;
        let chunk = read_blob(&blob, &name).await?;
        out.extend_from_slice(&chunk);
        start = end;
    }
    Ok(out)
}

/// A whole Blob (or File) as bytes.
pub async fn read_blob(blob: &web_sys::Blob, name: &str) -> Result<Vec<u8>, UiError> {
    let buf = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| UiError::js(format!("Could not read {name}: read"), &e))?;
    Ok(Uint8Array::new(&buf).to_vec())
}

/// POST a model request with `fetch`, giving up after `timeout_ms`: the
/// page's one POST, for benchmark runs and needle descriptions alike. Every
/// HTTP status is a reply; a redirect is not followed (see
/// `repoqa::llm::redirect_reason`; the browser hides where it points); the
/// body is read as a stream up to `MAX_REPLY_BYTES`, so a compressed bomb
/// cannot fill the tab's memory. A failure before any status is a timeout
/// or a network failure, and in a browser the latter includes a server
/// that does not allow this page's origin (CORS), which `fetch` cannot
/// tell apart from a server that is down. A request to the model in this
/// tab (`repoqa::llm::in_tab`) goes to it instead (`tab_model::post`, no
/// timeout).
pub async fn post_model_request(
    req: &repoqa::llm::HttpRequest,
    timeout_ms: u32,
) -> Result<repoqa::llm::HttpReply, TransportError> {
    // The model in this tab: not a network address.
    if repoqa::llm::in_tab::is_tab(&req.url) {
        return super::tab_model::post(req).await;
    }
    let failed = |e: gloo_net::Error| {
        let text = e.to_string();
        if text.contains("TimeoutError") {
            TransportError::Timeout
        } else {
            TransportError::NoStatus(format!("{} ({text})", repoqa::llm::presets::NO_STATUS))
        }
    };
    let timeout = web_sys::AbortSignal::timeout_with_u32(timeout_ms.max(1));
    let mut call = gloo_net::http::Request::post(&req.url)
        .abort_signal(Some(&timeout))
        .redirect(web_sys::RequestRedirect::Manual);
    for (k, v) in &req.headers {
        call = call.header(k, v);
    }
    let resp = call.body(req.body.as_str()).map_err(failed)?.send().await.map_err(failed)?;
    if resp.type_() == web_sys::ResponseType::Opaqueredirect {
        return Err(TransportError::Redirect { status: 0, location: None });
    }
    let status = resp.status();
    let retry_after = resp.headers().get("retry-after");
    let max = repoqa::llm::MAX_REPLY_BYTES as usize;
    let bytes = match resp.body() {
        None => Vec::new(),
        Some(body) => read_stream(body, max, 0, |_| true).await.map_err(|stop| match stop {
            StreamStop::TooLarge(_) => TransportError::Network(format!(
                "the reply is longer than {} MiB (after decompression); not read",
                repoqa::llm::MAX_REPLY_BYTES >> 20
            )),
            StreamStop::Read(e) => TransportError::Network(format!("reading the reply: {e:?}")),
            StreamStop::NotAStream | StreamStop::Cancelled => {
                TransportError::Network("the reply cannot be read as a stream".into())
            }
        })?,
    };
    let body = String::from_utf8_lossy(&bytes).into_owned();
    Ok(repoqa::llm::HttpReply { status, retry_after, body })
}
