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
//! reply in the OpenAI, Anthropic and Google formats), `reasoning` (which
//! models think, how each API asks them to, the answer apart from the
//! thinking, a reply cut at the token limit), `schedule` (when to
//! send what: concurrency, retries, stop), `run` (the two together over
//! built tasks, for both fronts), `runlog` (answers and what
//! produced them, kept as they arrive; what a rerun still has to ask),
//! `in_tab` (the page's model in the tab, spoken to as such a server;
//! `gguf` reads what its file says of itself).

use serde_json::Value;
use thiserror::Error;

use crate::curate::description_from_reply;

pub mod batch;
pub mod gguf;
pub mod in_tab;
mod needles;
pub mod plan;
pub mod presets;
pub mod progress;
pub mod provider;
pub mod reasoning;
pub mod run;
pub mod runlog;
pub mod schedule;
pub mod wire;
#[cfg(not(target_arch = "wasm32"))]
pub use needles::describe_needles_blocking;
pub use needles::{describe_needles, Described, Progress};
pub(crate) use wire::api_message;
pub use wire::{
    redirect_reason, snippet, snippet_line, Endpoint, HttpReply, HttpRequest, Provider, Sampling,
    MAX_REPLY_BYTES,
};

/// The system message of a needle description request: the annotation
/// prompt (the user message) says everything else.
pub const SYSTEM_PROMPT: &str =
    "You describe source code functions precisely and concisely, without naming them.";

/// Default time a description request may take before it is given up.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// The sampling of a needle description request: the system message
/// above, temperature 0, the server's default length, as before a user
/// changes them.
pub fn describe_sampling() -> Sampling {
    Sampling {
        max_tokens: None,
        temperature: Some(0.0),
        n: None,
        system_message: Some(SYSTEM_PROMPT.to_string()),
        stop: Vec::new(),
    }
}

/// Why no description came back. Each message says what to change.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum LlmError {
    #[error("model API settings: {0}")]
    Settings(String),
    /// No reply came: the transport's error (the one both fronts' POST
    /// helpers give, for descriptions and benchmark runs alike).
    #[error("{}", transport_failure(.url, .error))]
    Transport { url: String, error: wire::TransportError },
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
                | LlmError::BadKey { .. }
                | LlmError::NotFound { .. }
        )
    }
}

/// Why no reply came from `url`, with what to change.
fn transport_failure(url: &str, error: &wire::TransportError) -> String {
    use wire::TransportError;
    match error {
        TransportError::Timeout => format!(
            "{url}: no reply before the timeout; raise the timeout (--llm-timeout, or the model settings of the page)"
        ),
        TransportError::Network(m)
        | TransportError::NoStatus(m)
        | TransportError::Unreachable(m) => {
            format!("the request to {url} failed before an HTTP status: {m}")
        }
        TransportError::Redirect { status, location } => {
            redirect_reason(url, *status, location.as_deref())
        }
    }
}

fn says(message: &Option<String>) -> String {
    message.as_ref().map(|m| format!(": {m}")).unwrap_or_default()
}

fn retry(after: &Option<String>) -> String {
    after.as_ref().map(|s| format!(" (Retry-After: {s})")).unwrap_or_default()
}

/// The text of a reply to `endpoint.request(…)`, in the endpoint's
/// provider's format (`wire::answer_of`, as benchmark runs read it).
pub fn reply_content(endpoint: &Endpoint, reply: &HttpReply) -> Result<String, LlmError> {
    reply_text(endpoint, reply).map(|(text, _)| text)
}

/// [`reply_content`] with the reply's finish reason.
fn reply_text(
    endpoint: &Endpoint,
    reply: &HttpReply,
) -> Result<(String, Option<String>), LlmError> {
    let url = wire::redact_url(&endpoint.endpoint());
    let status = reply.status;
    if !(200..300).contains(&status) {
        let message = api_message(&reply.body);
        return Err(match status {
            401 | 403 => LlmError::BadKey { url, status, message },
            404 => LlmError::NotFound { url, model: endpoint.model.trim().to_string(), message },
            429 => LlmError::RateLimited { url, retry_after: reply.retry_after.clone(), message },
            _ => LlmError::Status { url, status, message },
        });
    }
    let Ok(value) = serde_json::from_str::<Value>(&reply.body) else {
        return Err(LlmError::NotJson { url, status, snippet: snippet(&reply.body) });
    };
    let list = wire::answer_list(endpoint.provider);
    let (text, finish_reason) = match wire::answer_of(endpoint, &value) {
        Some(answer) => {
            // A reasoning model's reply cut at the token limit, or all
            // thinking: say what to raise (a plain cut reply: below).
            let thought = endpoint.thinking().is_some()
                || answer.reasoning.is_some()
                || answer.usage.reasoning_tokens.is_some_and(|n| n > 0);
            if let Some(detail) = wire::no_answer(endpoint, &answer).filter(|_| thought) {
                return Err(LlmError::NoContent { url, detail });
            }
            (answer.text, answer.finish_reason)
        }
        None => match value.get(list) {
            None => return Err(LlmError::NoContent { url, detail: format!("no {list}") }),
            Some(Value::Array(items)) => match items.first() {
                None => return Err(LlmError::NoContent { url, detail: format!("no {list}") }),
                // An answer without a message: empty, say why it ended.
                Some(Value::Object(item)) => (
                    String::new(),
                    item.get("finish_reason").and_then(Value::as_str).map(str::to_string),
                ),
                Some(_) => return Err(unexpected_shape(endpoint, url)),
            },
            Some(_) => return Err(unexpected_shape(endpoint, url)),
        },
    };
    if text.trim().is_empty() {
        let detail = match finish_reason.as_deref() {
            Some(r @ ("length" | "max_tokens" | "MAX_TOKENS")) => {
                format!("finish_reason {r:?}: raise max_tokens")
            }
            Some(r) => format!("empty content, finish_reason {r:?}"),
            None => "empty content".to_string(),
        };
        return Err(LlmError::NoContent { url, detail });
    }
    Ok((text, finish_reason))
}

fn unexpected_shape(endpoint: &Endpoint, url: String) -> LlmError {
    let detail =
        format!("unexpected JSON shape: {} expected", wire::answer_place(endpoint.provider));
    LlmError::NoContent { url, detail }
}

/// The needle description in a reply to an annotation prompt.
pub fn description_of(endpoint: &Endpoint, reply: &HttpReply) -> Result<String, LlmError> {
    let (content, finish_reason) = reply_text(endpoint, reply)?;
    description_from_reply(&content).ok_or_else(|| match finish_reason {
        // Cut before its points: not a malformed reply, a short limit.
        Some(r) if reasoning::is_cut(Some(&r)) => LlmError::NoContent {
            url: wire::redact_url(&endpoint.endpoint()),
            detail: format!(
                "cut at the token limit (finish reason {r:?}) before the four points were whole: raise the max tokens"
            ),
        },
        _ => LlmError::NoPoints { snippet: snippet(&content) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settings() -> Endpoint {
        describing("https://api.example.com/v1/", "gpt-test", Some("sk-secret"))
    }

    fn describing(base_url: &str, model: &str, key: Option<&str>) -> Endpoint {
        Endpoint {
            base_url: base_url.into(),
            model: model.into(),
            api_key: key.map(Into::into),
            sampling: describe_sampling(),
            ..Endpoint::default()
        }
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
    fn builds_the_description_request() {
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
        let mut s = describing("http://localhost:8000/v1/chat/completions", "m", Some("  "));
        s.sampling.temperature = None;
        s.sampling.max_tokens = Some(300);
        let req = s.request("p");
        assert_eq!(req.url, "http://localhost:8000/v1/chat/completions");
        assert_eq!(req.headers.len(), 1, "no key, no Authorization header");
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body.get("temperature"), None);
        assert_eq!(body["max_tokens"], 300);
        // The same endpoint speaks Anthropic's and Google's formats too.
        s.provider = Provider::Anthropic;
        let body: Value = serde_json::from_str(&s.request("p").body).unwrap();
        assert_eq!(body["system"], SYSTEM_PROMPT);
        assert_eq!(body["max_tokens"], 300);
    }

    #[test]
    fn the_key_is_never_shown() {
        let s = settings();
        assert!(!format!("{s:?}").contains("sk-secret"));
        assert!(!format!("{:?}", s.request("p")).contains("sk-secret"));
        // Stored by the browser without the key: round-trips otherwise.
        let text = serde_json::to_string(&s).unwrap();
        assert!(!text.contains("sk-secret"), "{text}");
        let back: Endpoint = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Endpoint { api_key: None, ..s });
        // Settings stored by earlier versions still load: the Curate
        // page's (temperature, max_tokens) and the Run page's
        // (max_new_tokens).
        let old: Endpoint = serde_json::from_str(
            r#"{"base_url": "http://x/v1", "model": "m", "temperature": 0.5, "max_tokens": null, "timeout_secs": 60}"#,
        )
        .unwrap();
        assert_eq!((old.sampling.temperature, old.sampling.max_tokens), (Some(0.5), None));
        let old: Endpoint = serde_json::from_str(
            r#"{"provider": "anthropic", "base_url": "", "model": "m", "max_new_tokens": 64, "system_message": null, "stop": ["x"], "from_browser": true}"#,
        )
        .unwrap();
        assert_eq!(old.provider, Provider::Anthropic);
        assert_eq!(old.sampling.max_tokens, Some(64));
        assert_eq!(old.sampling.stop, ["x"]);
    }

    #[test]
    fn settings_are_checked() {
        assert!(settings().validate().is_ok());
        let e = |s: Endpoint| s.validate().unwrap_err();
        assert!(e(describing("api.example.com/v1", "m", None)).contains("must start with http"));
        assert!(e(describing("http://x", " ", None)).contains("model name is empty"));
        let mut hot = settings();
        hot.sampling.temperature = Some(3.0);
        assert!(e(hot).contains("temperature"));
        // No base URL: the provider's public API, as in benchmark runs.
        assert_eq!(
            describing("", "m", None).endpoint(),
            "https://api.openai.com/v1/chat/completions"
        );
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
        let body = json!({"choices": [{"message": {"content": "1. Purpose: to"}, "finish_reason": "length"}]});
        let cut = HttpReply { status: 200, retry_after: None, body: body.to_string() };
        let why = description_of(&settings(), &cut).unwrap_err().to_string();
        assert!(why.ends_with("(cut at the token limit (finish reason \"length\") before the four points were whole: raise the max tokens)"), "{why}");
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
    fn a_reply_quoted_in_a_sentence_is_one_line() {
        assert_eq!(snippet_line("```\nOK\n```\n\n  Ready."), "``` OK ``` Ready.");
        assert_eq!(snippet_line("OK"), "OK");
    }

    #[test]
    fn transport_errors_read_well() {
        let e = LlmError::Transport {
            url: "http://x/v1/chat/completions".into(),
            error: wire::TransportError::Network("connection refused".into()),
        };
        assert_eq!(e.to_string(), "the request to http://x/v1/chat/completions failed before an HTTP status: connection refused");
        assert!(e.repeats_for_every_request());
        assert!(!LlmError::NoPoints { snippet: String::new() }.repeats_for_every_request());
        assert!(!LlmError::Status { url: String::new(), status: 500, message: None }
            .repeats_for_every_request());
    }
}
