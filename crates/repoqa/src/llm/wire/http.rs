//! What goes over HTTP to a model API and comes back, in every format:
//! the request and the reply as both fronts' transports carry them, the
//! reply's size limit, why a redirect is not followed, and the short
//! quotes of a reply that error messages show.

use std::fmt;

use serde_json::Value;

/// A POST to send: URL, headers, JSON body. `Debug` hides the key.
#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), if is_key_header(k) { "<hidden>" } else { v.as_str() }))
            .collect();
        f.debug_struct("HttpRequest")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body", &self.body)
            .finish()
    }
}

/// Headers that carry an API key (OpenAI, Anthropic, Google, Azure).
fn is_key_header(name: &str) -> bool {
    ["authorization", "x-api-key", "x-goog-api-key", "api-key"]
        .iter()
        .any(|h| name.eq_ignore_ascii_case(h))
}

/// The most a model API's reply may hold, after decompression (64 MiB, the
/// longest outputs line read): a reply past it fails its request.
pub const MAX_REPLY_BYTES: u64 = 64 << 20;

/// Why a redirect is not followed, for a request to `url` answered with
/// `status` (3xx) and `location`: a 301, 302 or 303 turns a POST into a
/// GET (so another page's text would be stored as answers), and a model
/// API answers at the address it is given.
/// A browser hides a redirect's status and target: `status` 0.
pub fn redirect_reason(url: &str, status: u16, location: Option<&str>) -> String {
    let to = location.map(|l| format!(" to {l}")).unwrap_or_default();
    let what = if status == 0 {
        "HTTP 3xx; the browser does not show where to".to_string()
    } else {
        format!("HTTP {status}{to}")
    };
    format!(
        "{url}: the server redirected the request ({what}); redirects are not followed (a 301, 302 or 303 would turn the POST into a GET): give the address a model API answers at as the base URL"
    )
}

/// What came back: the status, the `Retry-After` header if any, the body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
}

/// [`snippet`] on one line, each run of white space (line breaks too) one
/// space: a reply quoted in a sentence, as a person reads it.
pub fn snippet_line(text: &str) -> String {
    snippet(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first 200 characters of a text, for error messages.
pub fn snippet(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

/// The message of an API error body: `{"error": {"message": …}}` (OpenAI),
/// `{"error": "…"}` or `{"message": …}` (other servers), else the body's
/// start when it is text.
pub(crate) fn api_message(body: &str) -> Option<String> {
    let text = body.trim();
    if text.is_empty() {
        return None;
    }
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Some(snippet(text));
    };
    let found = match &v["error"] {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("message").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    found
        .or_else(|| v["message"].as_str().map(str::to_string))
        .or_else(|| v["detail"].as_str().map(str::to_string))
}
