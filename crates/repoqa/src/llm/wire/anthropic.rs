//! The Anthropic Messages format: its headers, URL, request body and where
//! a reply holds the answer (and the thinking blocks).

use serde_json::{json, Map, Value};

use super::{count, joined, text_or_empty, Answer, Parts, Usage};

/// Where the format puts the answer, for messages.
pub(super) const ANSWER_PLACE: &str = "content list with a text";

/// The list in a reply that holds the answers.
pub(super) const ANSWER_LIST: &str = "content";

/// The key in `x-api-key`, the API version, and (from a browser) the
/// header that lets a page call the API directly.
pub(super) fn headers(key: Option<&str>, from_browser: bool) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if let Some(key) = key {
        headers.push(("x-api-key".into(), key.to_string()));
    }
    headers.push(("anthropic-version".into(), "2023-06-01".into()));
    if from_browser {
        headers.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
    }
    headers
}

/// `{base}/messages` (a base that ends so is taken as it is).
pub(super) fn url(base: String) -> String {
    super::ending_in(base, "/messages")
}

/// The request body for `p`.
pub(super) fn body(p: &Parts) -> Value {
    let (s, prompt, stops, thinking) = (p.sampling, p.prompt, &p.stops, p.thinking);
    let mut b = Map::new();
    b.insert("model".into(), json!(p.model));
    match &thinking {
        None => b.insert("max_tokens".into(), json!(p.answer_budget)),
        Some(t) => b.insert("max_tokens".into(), json!(p.total(t))),
    };
    b.insert("messages".into(), json!([{"role": "user", "content": prompt}]));
    match &thinking {
        // With thinking on, no temperature may be set.
        Some(t) if !t.off() => {
            b.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": t.budget}));
        }
        // Effort `none`: thinking said off, the official temperature kept.
        off => {
            if off.is_some() {
                b.insert("thinking".into(), json!({"type": "disabled"}));
            }
            if let Some(t) = s.temperature {
                b.insert("temperature".into(), json!(t));
            }
        }
    }
    if let Some(sys) = s.system() {
        b.insert("system".into(), json!(sys));
    }
    if !stops.is_empty() {
        b.insert("stop_sequences".into(), json!(stops));
    }
    Value::Object(b)
}

/// The answer in a 2xx body (before an inline `<think>` block is taken
/// out), `None` when the body is not of the format.
pub(super) fn answer(v: &Value) -> Option<Answer> {
    let content = v.get("content")?.as_array()?;
    let kind = |c: &Value| c.get("type").and_then(Value::as_str).map(str::to_string);
    let mut thoughts = Vec::new();
    for block in content {
        match kind(block).as_deref() {
            Some("thinking") => {
                thoughts.extend(block.get("thinking").and_then(Value::as_str).map(str::to_string))
            }
            Some("redacted_thinking") => thoughts.push("[redacted thinking]".into()),
            _ => {}
        }
    }
    let first_text = content
        .iter()
        .find(|c| !matches!(kind(c).as_deref(), Some("thinking" | "redacted_thinking")));
    let text = text_or_empty(first_text.and_then(|c| c.get("text")))?;
    Some(Answer {
        text,
        usage: Usage {
            prompt_tokens: count(&v["usage"]["input_tokens"]),
            completion_tokens: count(&v["usage"]["output_tokens"]),
            reasoning_tokens: None,
        },
        finish_reason: v.get("stop_reason").and_then(Value::as_str).map(Into::into),
        model: v.get("model").and_then(Value::as_str).map(Into::into),
        reasoning: joined(thoughts),
        ..Answer::default()
    })
}
