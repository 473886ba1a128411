//! The Google Gemini `generateContent` format: its headers, URL, request
//! body and where a reply holds the answer (and the thought parts).

use serde_json::{json, Map, Value};

use super::{count, joined, text_or_empty, Answer, Parts, Usage};

/// Where the format puts the answer, for messages.
pub(super) const ANSWER_PLACE: &str = "candidates list with a text";

/// The list in a reply that holds the answers.
pub(super) const ANSWER_LIST: &str = "candidates";

/// The key in `x-goog-api-key`.
pub(super) fn headers(key: Option<&str>) -> Vec<(String, String)> {
    key.map(|key| ("x-goog-api-key".to_string(), key.to_string())).into_iter().collect()
}

/// `{base}/models/{model}:generateContent` (a model named `models/…` as
/// the model list names it is taken without the prefix).
pub(super) fn url(base: String, model: &str) -> String {
    let model = model.strip_prefix("models/").unwrap_or(model);
    format!("{base}/models/{model}:generateContent")
}

/// The request body for `p`.
pub(super) fn body(p: &Parts) -> Value {
    let (s, prompt, stops, thinking) = (p.sampling, p.prompt, &p.stops, p.thinking);
    let mut config = Map::new();
    if let Some(n) = s.n {
        config.insert("candidateCount".into(), json!(n));
    }
    match &thinking {
        None => {
            if let Some(m) = s.max_tokens {
                config.insert("maxOutputTokens".into(), json!(m));
            }
        }
        Some(t) => {
            config.insert("maxOutputTokens".into(), json!(p.total(t)));
        }
    }
    if let Some(t) = s.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if !stops.is_empty() {
        config.insert("stopSequences".into(), json!(stops));
    }
    if let Some(t) = &thinking {
        // Gemini 3 takes a level or a budget, never both.
        let mut tc = Map::new();
        match t.level {
            Some(level) => tc.insert("thinkingLevel".into(), json!(level)),
            None => tc.insert("thinkingBudget".into(), json!(t.budget)),
        };
        // The thought summaries go to the run log (none with thinking off).
        if !t.off() {
            tc.insert("includeThoughts".into(), json!(true));
        }
        config.insert("thinkingConfig".into(), Value::Object(tc));
    }
    let mut b = Map::new();
    b.insert("contents".into(), json!([{"role": "user", "parts": [{"text": prompt}]}]));
    if let Some(sys) = s.system() {
        b.insert("systemInstruction".into(), json!({"parts": [{"text": sys}]}));
    }
    b.insert("generationConfig".into(), Value::Object(config));
    Value::Object(b)
}

/// The answer in a 2xx body (before an inline `<think>` block is taken
/// out), `None` when the body is not of the format.
pub(super) fn answer(v: &Value) -> Option<Answer> {
    let candidates = v.get("candidates")?.as_array()?;
    let first = candidates.first();
    let parts = first.and_then(|c| c["content"]["parts"].as_array());
    let is_thought = |p: &&Value| p.get("thought").and_then(Value::as_bool) == Some(true);
    let thoughts = parts
        .into_iter()
        .flatten()
        .filter(is_thought)
        .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_string))
        .collect();
    // Upstream: parts[0].text, or "" when the candidate has no parts.
    let text = parts.and_then(|p| p.iter().find(|p| !is_thought(p))).and_then(|p| p.get("text"));
    let text = text_or_empty(text)?;
    Some(Answer {
        text,
        usage: Usage {
            prompt_tokens: count(&v["usageMetadata"]["promptTokenCount"]),
            completion_tokens: count(&v["usageMetadata"]["candidatesTokenCount"]),
            reasoning_tokens: count(&v["usageMetadata"]["thoughtsTokenCount"]),
        },
        finish_reason: first
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str)
            .map(Into::into),
        model: v.get("modelVersion").and_then(Value::as_str).map(Into::into),
        reasoning: joined(thoughts),
        ..Answer::default()
    })
}
