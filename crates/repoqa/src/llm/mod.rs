//! A model behind an OpenAI-compatible chat-completions API, as used to
//! write needle descriptions: the settings, the request
//! (`POST {base_url}/chat/completions`) and the reading of the reply, with
//! errors a user can act on.
//!
//! No transport here: the CLI sends [`HttpRequest`] with a blocking client
//! and the browser with `fetch`; both hand the status and body back as an
//! [`HttpReply`]. That keeps this module the same on both targets and
//! testable without a network. [`describe_needles`] (module `needles`) asks
//! for one needle after another over any such transport.
//!
//! Running the benchmark itself: `wire` (the official request and the
//! reply in the OpenAI, Anthropic and Google formats), `schedule` (when to
//! send what: concurrency, retries, stop), `run` (the two together over
//! built tasks, for both fronts), `runlog` (answers and what
//! produced them, kept as they arrive; what a rerun still has to ask).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::curate::description_from_reply;

mod needles;
pub mod presets;
pub mod run;
pub mod runlog;
pub mod schedule;
pub mod wire;
#[cfg(not(target_arch = "wasm32"))]
pub use needles::describe_needles_blocking;
pub use needles::{describe_needles, Described, Progress};

/// The system message: the annotation prompt (the user message) says
/// everything else.
pub const SYSTEM_PROMPT: &str =
    "You describe source code functions precisely and concisely, without naming them.";

/// Default time a request may take before the CLI gives up on it.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// Where the model is and how to call it. Stored by the browser (with the
/// key, in that browser only); the key is never written to any output
/// and `Debug` hides it.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ApiSettings {
    /// e.g. "https://api.openai.com/v1" or "http://localhost:8000/v1";
    /// "/chat/completions" is appended (unless already there).
    pub base_url: String,
    /// Sent as `Authorization: Bearer …`; `None` for local servers.
    pub api_key: Option<String>,
    pub model: String,
    /// `None` leaves the server's default (some models accept no other).
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub timeout_secs: u64,
}

impl Default for ApiSettings {
    fn default() -> ApiSettings {
        ApiSettings {
            base_url: String::new(),
            api_key: None,
            model: String::new(),
            temperature: Some(0.0),
            max_tokens: None,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
        }
    }
}

impl fmt::Debug for ApiSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("model", &self.model)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("timeout_secs", &self.timeout_secs)
            .finish()
    }
}

impl ApiSettings {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> ApiSettings {
        ApiSettings { base_url: base_url.into(), model: model.into(), ..ApiSettings::default() }
    }

    /// The chat-completions URL.
    pub fn endpoint(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        }
    }

    /// What must be set before a request is worth sending.
    pub fn validate(&self) -> Result<(), LlmError> {
        let base = self.base_url.trim();
        if base.is_empty() {
            return Err(LlmError::Settings(
                "the base URL is empty (e.g. https://api.openai.com/v1)".into(),
            ));
        }
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(LlmError::Settings(format!(
                "the base URL {base:?} must start with http:// or https://"
            )));
        }
        if self.model.trim().is_empty() {
            return Err(LlmError::Settings("the model name is empty".into()));
        }
        if self.temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
            return Err(LlmError::Settings("the temperature must be between 0 and 2".into()));
        }
        Ok(())
    }

    /// The request asking the model `prompt` (one user message after the
    /// system message).
    pub fn request(&self, prompt: &str) -> HttpRequest {
        let body = ChatRequest {
            model: self.model.trim(),
            messages: vec![
                ChatMessage { role: "system", content: SYSTEM_PROMPT },
                ChatMessage { role: "user", content: prompt },
            ],
            temperature: self.temperature,
            max_tokens: self.max_tokens,
        };
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if let Some(key) = self.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            headers.push(("Authorization".to_string(), format!("Bearer {key}")));
        }
        HttpRequest {
            url: self.endpoint(),
            headers,
            // Plain strings and numbers: serializing cannot fail.
            body: serde_json::to_string(&body).unwrap_or_default(),
        }
    }
}

/// The JSON body of a chat-completions request.
#[derive(Debug, Serialize)]
pub struct ChatRequest<'a> {
    pub model: &'a str,
    pub messages: Vec<ChatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Serialize)]
pub struct ChatMessage<'a> {
    pub role: &'a str,
    pub content: &'a str,
}

/// The parts of a chat-completions response that are read.
#[derive(Debug, Deserialize)]
pub struct ChatResponse {
    #[serde(default)]
    pub choices: Vec<ChatChoice>,
}

#[derive(Debug, Deserialize)]
pub struct ChatChoice {
    pub message: Option<ChatReplyMessage>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ChatReplyMessage {
    pub content: Option<String>,
}

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

/// Why no description came back. Each message says what to change.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum LlmError {
    #[error("model API settings: {0}")]
    Settings(String),
    #[error("the request to {url} failed before an HTTP status: {message}")]
    Transport { url: String, message: String },
    #[error("{}", redirect_reason(.url, *.status, .location.as_deref()))]
    Redirect { url: String, status: u16, location: Option<String> },
    #[error("{url}: HTTP {status}, the API key was refused{}; check the key (and that it may use this model)", says(.message))]
    BadKey { url: String, status: u16, message: Option<String> },
    #[error("{url}: HTTP 404{}; check the base URL (it usually ends in /v1) and the model name {model:?}", says(.message))]
    NotFound { url: String, model: String, message: Option<String> },
    #[error("{url}: HTTP 429, rate limited{}{}; wait and run again (descriptions obtained so far are kept)", retry(.retry_after), says(.message))]
    RateLimited { url: String, retry_after: Option<String>, message: Option<String> },
    #[error("{url}: HTTP {status}{}", says(.message))]
    Status { url: String, status: u16, message: Option<String> },
    #[error("{url}: the reply (HTTP {status}) is not JSON: {snippet:?}; is the base URL an OpenAI-compatible API?")]
    NotJson { url: String, status: u16, snippet: String },
    #[error("{url}: the reply has no message content ({detail})")]
    NoContent { url: String, detail: String },
    #[error("the model's reply has no numbered points 1 to 4 (purpose, input, output, procedure): {snippet:?}")]
    NoPoints { snippet: String },
}

impl LlmError {
    /// Whether every other request would fail the same way (key, URL,
    /// model, settings, network), so asking for more needles is pointless.
    pub fn repeats_for_every_request(&self) -> bool {
        matches!(
            self,
            LlmError::Settings(_)
                | LlmError::Transport { .. }
                | LlmError::Redirect { .. }
                | LlmError::BadKey { .. }
                | LlmError::NotFound { .. }
        )
    }
}

fn says(message: &Option<String>) -> String {
    message.as_ref().map(|m| format!(": {m}")).unwrap_or_default()
}

fn retry(after: &Option<String>) -> String {
    after.as_ref().map(|s| format!(" (Retry-After: {s})")).unwrap_or_default()
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

/// The content of the first choice of a reply to `settings.request(…)`.
pub fn reply_content(settings: &ApiSettings, reply: &HttpReply) -> Result<String, LlmError> {
    let url = settings.endpoint();
    let status = reply.status;
    if !(200..300).contains(&status) {
        let message = api_message(&reply.body);
        return Err(match status {
            401 | 403 => LlmError::BadKey { url, status, message },
            404 => LlmError::NotFound { url, model: settings.model.trim().to_string(), message },
            429 => LlmError::RateLimited { url, retry_after: reply.retry_after.clone(), message },
            _ => LlmError::Status { url, status, message },
        });
    }
    let parsed: ChatResponse = match serde_json::from_str(&reply.body) {
        Ok(r) => r,
        Err(e) if e.is_data() => {
            return Err(LlmError::NoContent { url, detail: format!("unexpected JSON shape: {e}") })
        }
        Err(_) => return Err(LlmError::NotJson { url, status, snippet: snippet(&reply.body) }),
    };
    let Some(choice) = parsed.choices.into_iter().next() else {
        return Err(LlmError::NoContent { url, detail: "no choices".into() });
    };
    let content = choice.message.and_then(|m| m.content).filter(|c| !c.trim().is_empty());
    content.ok_or_else(|| {
        let detail = match choice.finish_reason.as_deref() {
            Some("length") => "finish_reason \"length\": raise max_tokens".to_string(),
            Some(r) => format!("empty content, finish_reason {r:?}"),
            None => "empty content".to_string(),
        };
        LlmError::NoContent { url, detail }
    })
}

/// The needle description in a reply to an annotation prompt.
pub fn description_of(settings: &ApiSettings, reply: &HttpReply) -> Result<String, LlmError> {
    let content = reply_content(settings, reply)?;
    description_from_reply(&content)
        .ok_or_else(|| LlmError::NoPoints { snippet: snippet(&content) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settings() -> ApiSettings {
        let mut s = ApiSettings::new("https://api.example.com/v1/", "gpt-test");
        s.api_key = Some("sk-secret".into());
        s
    }

    fn ok(content: &str) -> HttpReply {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]});
        HttpReply { status: 200, retry_after: None, body: body.to_string() }
    }

    fn status(status: u16, body: &str) -> HttpReply {
        HttpReply { status, retry_after: None, body: body.into() }
    }

    const FOUR: &str =
        "1. **Purpose**: a.\n2. **Input**: b.\n3. **Output**: c.\n4. **Procedure**: d.";

    #[test]
    fn builds_the_request() {
        let req = settings().request("describe this");
        assert_eq!(req.url, "https://api.example.com/v1/chat/completions");
        assert!(req.headers.contains(&("Authorization".into(), "Bearer sk-secret".into())));
        assert!(req.headers.contains(&("Content-Type".into(), "application/json".into())));
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(
            body,
            json!({"model": "gpt-test", "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": "describe this"}], "temperature": 0.0})
        );
        let mut s = ApiSettings::new("http://localhost:8000/v1/chat/completions", "m");
        s.temperature = None;
        s.max_tokens = Some(300);
        s.api_key = Some("  ".into());
        let req = s.request("p");
        assert_eq!(req.url, "http://localhost:8000/v1/chat/completions");
        assert_eq!(req.headers.len(), 1, "no key, no Authorization header");
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body.get("temperature"), None);
        assert_eq!(body["max_tokens"], 300);
    }

    #[test]
    fn the_key_is_never_shown() {
        let s = settings();
        assert!(!format!("{s:?}").contains("sk-secret"));
        assert!(!format!("{:?}", s.request("p")).contains("sk-secret"));
        // Stored by the browser: round-trips, older stored values still load.
        let back: ApiSettings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let old: ApiSettings =
            serde_json::from_str(r#"{"base_url": "http://x/v1", "model": "m"}"#).unwrap();
        assert_eq!(old.timeout_secs, DEFAULT_TIMEOUT_SECS);
        assert_eq!(old.temperature, Some(0.0));
    }

    #[test]
    fn settings_are_checked() {
        assert!(settings().validate().is_ok());
        let e = |s: ApiSettings| s.validate().unwrap_err().to_string();
        assert!(e(ApiSettings::new("", "m")).contains("base URL is empty"));
        assert!(e(ApiSettings::new("api.example.com/v1", "m")).contains("must start with http"));
        assert!(e(ApiSettings::new("http://x", " ")).contains("model name is empty"));
        let mut hot = settings();
        hot.temperature = Some(3.0);
        assert!(e(hot).contains("temperature"));
    }

    #[test]
    fn reads_the_description() {
        let s = settings();
        assert_eq!(
            description_of(&s, &ok(&format!("Here you go:\n\n{FOUR}\n"))).unwrap(),
            format!("\n{FOUR}\n")
        );
        let e = description_of(&s, &ok("I cannot help with that.")).unwrap_err();
        assert_eq!(e, LlmError::NoPoints { snippet: "I cannot help with that.".into() });
        assert!(e.to_string().contains("no numbered points"), "{e}");
    }

    #[test]
    fn http_errors_say_what_to_fix() {
        let s = settings();
        let url = "https://api.example.com/v1/chat/completions";
        let e = reply_content(&s, &status(401, r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#)).unwrap_err();
        assert_eq!(
            e,
            LlmError::BadKey {
                url: url.into(),
                status: 401,
                message: Some("Incorrect API key provided".into())
            }
        );
        assert_eq!(
            e.to_string(),
            format!("{url}: HTTP 401, the API key was refused: Incorrect API key provided; check the key (and that it may use this model)")
        );
        let e = reply_content(&s, &status(403, "")).unwrap_err();
        assert!(matches!(e, LlmError::BadKey { status: 403, message: None, .. }), "{e:?}");

        let e = reply_content(&s, &status(404, r#"{"error": "model not found"}"#)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{url}: HTTP 404: model not found; check the base URL (it usually ends in /v1) and the model name \"gpt-test\"")
        );

        let mut limited = status(429, r#"{"message": "slow down"}"#);
        limited.retry_after = Some("20".into());
        let e = reply_content(&s, &limited).unwrap_err();
        assert_eq!(
            e,
            LlmError::RateLimited {
                url: url.into(),
                retry_after: Some("20".into()),
                message: Some("slow down".into())
            }
        );
        assert!(e.to_string().contains("rate limited (Retry-After: 20): slow down"), "{e}");

        let e = reply_content(&s, &status(500, "<html>Internal Server Error</html>")).unwrap_err();
        assert_eq!(e.to_string(), format!("{url}: HTTP 500: <html>Internal Server Error</html>"));
        let e = reply_content(&s, &status(502, r#"{"detail": "upstream down"}"#)).unwrap_err();
        assert_eq!(
            e,
            LlmError::Status {
                url: url.into(),
                status: 502,
                message: Some("upstream down".into())
            }
        );
    }

    #[test]
    fn broken_replies_are_named() {
        let s = settings();
        let long = format!("<!doctype html>{}", "x".repeat(500));
        let e = reply_content(&s, &status(200, &long)).unwrap_err();
        let LlmError::NotJson { status: 200, snippet, .. } = &e else { panic!("{e:?}") };
        assert_eq!(snippet.chars().count(), 201, "200 characters and an ellipsis");
        assert!(e.to_string().contains("is not JSON: \"<!doctype html>xxx"), "{e}");

        let e = reply_content(&s, &status(200, r#"{"choices": []}"#)).unwrap_err();
        assert!(
            matches!(&e, LlmError::NoContent { detail, .. } if detail == "no choices"),
            "{e:?}"
        );
        let e = reply_content(&s, &status(200, r#"{"object": "list"}"#)).unwrap_err();
        assert!(
            matches!(&e, LlmError::NoContent { detail, .. } if detail == "no choices"),
            "{e:?}"
        );
        let e = reply_content(&s, &status(200, r#"{"choices": "nope"}"#)).unwrap_err();
        assert!(
            matches!(&e, LlmError::NoContent { detail, .. } if detail.starts_with("unexpected JSON shape")),
            "{e:?}"
        );
        let cut = r#"{"choices": [{"message": {"content": null}, "finish_reason": "length"}]}"#;
        let e = reply_content(&s, &status(200, cut)).unwrap_err();
        assert!(e.to_string().ends_with("(finish_reason \"length\": raise max_tokens)"), "{e}");
        let e = reply_content(&s, &status(200, r#"{"choices": [{"finish_reason": "stop"}]}"#))
            .unwrap_err();
        assert!(e.to_string().contains("empty content, finish_reason \"stop\""), "{e}");
    }

    #[test]
    fn transport_errors_read_well() {
        let e = LlmError::Transport {
            url: "http://x/v1/chat/completions".into(),
            message: "connection refused".into(),
        };
        assert_eq!(e.to_string(), "the request to http://x/v1/chat/completions failed before an HTTP status: connection refused");
        assert!(e.repeats_for_every_request());
        assert!(!LlmError::NoPoints { snippet: String::new() }.repeats_for_every_request());
        assert!(!LlmError::Status { url: String::new(), status: 500, message: None }
            .repeats_for_every_request());
    }
}
