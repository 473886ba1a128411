//! The OpenAI Chat Completions format, which every OpenAI-compatible server
//! copies (vLLM, SGLang, TGI, Ollama, llama.cpp, LM Studio, OpenRouter…):
//! its headers, URL, request body and where a reply holds the answer.

use serde_json::{json, Map, Value};

use super::reasoning::Style;
use super::{count, joined, text_or_empty, Answer, Parts, Usage};

/// Where the format puts the answer, for messages.
pub(super) const ANSWER_PLACE: &str = "choices[0].message with a text content";

/// The list in a reply that holds the answers.
pub(super) const ANSWER_LIST: &str = "choices";

/// The key as a bearer token.
pub(super) fn headers(key: Option<&str>) -> Vec<(String, String)> {
    key.map(|key| ("Authorization".to_string(), format!("Bearer {key}"))).into_iter().collect()
}

/// `{base}/chat/completions` (a base that ends so is taken as it is).
pub(super) fn url(base: String) -> String {
    super::ending_in(base, "/chat/completions")
}

/// The request body for `p`.
pub(super) fn body(p: &Parts) -> Value {
    let (s, prompt, stops, thinking) = (p.sampling, p.prompt, &p.stops, p.thinking);
    let mut messages = Vec::new();
    if let Some(sys) = s.system() {
        messages.push(json!({"role": "system", "content": sys}));
    }
    messages.push(json!({"role": "user", "content": prompt}));
    let mut b = Map::new();
    b.insert("model".into(), json!(p.model));
    b.insert("messages".into(), Value::Array(messages));
    match &thinking {
        None => {
            if let Some(m) = s.max_tokens {
                b.insert("max_tokens".into(), json!(m));
            }
            if let Some(t) = s.temperature {
                b.insert("temperature".into(), json!(t));
            }
        }
        // OpenAI's reasoning models refuse `max_tokens` and any
        // temperature but the default.
        Some(t) if t.style == Style::OpenAi => {
            b.insert("max_completion_tokens".into(), json!(p.total(t)));
        }
        Some(t) => {
            b.insert("max_tokens".into(), json!(p.total(t)));
            if let Some(temp) = s.temperature {
                b.insert("temperature".into(), json!(temp));
            }
        }
    }
    if let Some(e) = thinking.and_then(|t| t.sent_effort()) {
        b.insert("reasoning_effort".into(), json!(e.name()));
    }
    if let Some(n) = s.n {
        b.insert("n".into(), json!(n));
    }
    if !stops.is_empty() {
        b.insert("stop".into(), json!(stops));
    }
    Value::Object(b)
}

/// The answer in a 2xx body (before an inline `<think>` block is taken
/// out), `None` when the body is not of the format.
pub(super) fn answer(v: &Value) -> Option<Answer> {
    let choice = v.get("choices")?.as_array()?.first()?;
    let message = choice.get("message")?;
    let text = text_or_empty(message.get("content"))?;
    let field = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    Some(Answer {
        text,
        usage: Usage {
            prompt_tokens: count(&v["usage"]["prompt_tokens"]),
            completion_tokens: count(&v["usage"]["completion_tokens"]),
            reasoning_tokens: count(&v["usage"]["completion_tokens_details"]["reasoning_tokens"]),
        },
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(Into::into),
        model: v.get("model").and_then(Value::as_str).map(Into::into),
        reasoning: joined(field.into_iter().collect()),
        ..Answer::default()
    })
}
