//! What comes back from a model API: the answer (text, thinking, tokens,
//! finish reason) read from each format's reply ([`read_reply`]), or the
//! [`Outcome`] the scheduler acts on (retry, fail the task, stop the run);
//! and the other replies a run reads (model lists, llama.cpp's slots).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{anthropic, google, openai, redact_url, Endpoint, Provider};
use super::{api_message, snippet, HttpReply};
use crate::llm::reasoning;

/// Tokens the API says it used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: Option<u64>,
    /// All the reply's tokens, thinking included where the API counts it
    /// so (OpenAI, Anthropic); Gemini counts the thinking apart.
    pub completion_tokens: Option<u64>,
    /// The thinking's tokens, where the API reports them (OpenAI
    /// `completion_tokens_details.reasoning_tokens`, Gemini
    /// `thoughtsTokenCount`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

/// A prompt the API reports fewer than this share of the task's own
/// token count for was cut before the model saw it (tokenizers differ by
/// far less than half).
pub const TRUNCATION_RATIO: f64 = 0.5;

impl Usage {
    /// Whether the reported prompt tokens are far below the task's count
    /// (`code_context_ntokens`): the server truncated the prompt silently.
    pub fn looks_truncated(&self, task_ntokens: usize) -> bool {
        self.prompt_tokens.is_some_and(|p| (p as f64) < task_ntokens as f64 * TRUNCATION_RATIO)
    }
}

/// A model's answer to one prompt.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// What follows the thinking: the outputs file's `output`.
    pub text: String,
    pub usage: Usage,
    pub finish_reason: Option<String>,
    /// The model the reply says answered (`model`; Google's
    /// `modelVersion`), to compare with the one asked for.
    pub model: Option<String>,
    /// The thinking the reply showed (a field of its own, thinking blocks,
    /// thought parts, or an inline `<think>` block), for the run log.
    pub reasoning: Option<String>,
    /// An inline `<think>` block was taken out of the content (NOT
    /// UPSTREAM; `--keep-reasoning` keeps it).
    pub reasoning_inline: bool,
    /// A `<think>` opened and never closed: the reply has no answer.
    pub unfinished_think: bool,
}

impl Answer {
    /// The reply ended at the token limit.
    pub fn cut(&self) -> bool {
        reasoning::is_cut(self.finish_reason.as_deref())
    }
}

/// What a reply (or the failure to get one) means for the run.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Answer(Answer),
    /// Worth asking again: rate limit, server error, network drop,
    /// timeout, malformed body. `retry_after_s` from the header.
    Retry {
        reason: String,
        retry_after_s: Option<f64>,
        /// No reply within the timeout: at a server that answers one
        /// request at a time, the time queued behind the others counted
        /// against it (`schedule` then lowers the concurrency).
        timed_out: bool,
    },
    /// This task cannot be answered (its prompt is too long for the
    /// model, or the API refused this one request): mark it failed, go on.
    TaskFailed {
        reason: String,
    },
    /// Every request would fail alike (key, URL, model): stop the run.
    Stop {
        reason: String,
    },
}

/// Why no reply came at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportError {
    Timeout,
    /// Connection reset or dropped; a body cut off.
    Network(String),
    /// The browser's `fetch` failed before any HTTP status: the server is
    /// down or unreachable, or it does not allow the page's origin (CORS);
    /// a page cannot tell which. Before any reply of a run, a whole first
    /// wave of these stops the run ([`super::run::BenchmarkRun`]).
    NoStatus(String),
    /// No connection at all: refused, or the host name does not resolve.
    /// Before any reply of a run it means a wrong URL or a server that is
    /// down, and stops the run ([`super::run::BenchmarkRun`]); later it is
    /// retried like a dropped connection (a server restarting).
    Unreachable(String),
    /// A 3xx answer (redirects are not followed: see
    /// [`super::redirect_reason`]).
    Redirect {
        status: u16,
        location: Option<String>,
    },
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Timeout => f.write_str("timed out"),
            TransportError::Network(m)
            | TransportError::NoStatus(m)
            | TransportError::Unreachable(m) => f.write_str(m),
            TransportError::Redirect { status, location } => write!(
                f,
                "redirected (HTTP {status}{})",
                location.as_deref().map(|l| format!(" to {l}")).unwrap_or_default()
            ),
        }
    }
}

impl std::error::Error for TransportError {}

/// `Retry-After`: seconds (an HTTP date is treated as absent).
pub fn parse_retry_after(value: Option<&str>) -> Option<f64> {
    let v = value?.trim().parse::<f64>().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v)
}

fn is_context_length_error(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "context_length_exceeded",
        "context length",
        "context window",
        "maximum context",
        "prompt is too long",
        "input token count",
        "too many tokens",
        "exceeds the maximum number of tokens",
        "exceed context window",
        "input is too long",
    ]
    .iter()
    .any(|p| m.contains(p))
}

/// `total_slots` of a llama.cpp `/props` reply: how many requests the
/// server answers at a time; None when the body is not one.
pub fn read_total_slots(body: &str) -> Option<usize> {
    let v: Value = serde_json::from_str(body).ok()?;
    v.get("total_slots")?.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// The model names a models listing holds (OpenAI-compatible and
/// Anthropic: `data[].id`; Gemini: `models[].name`), or None when the body
/// is not one.
pub fn read_models(body: &str) -> Option<Vec<String>> {
    let v: Value = serde_json::from_str(body).ok()?;
    let (list, field) = match (v.get("data"), v.get("models")) {
        (Some(Value::Array(a)), _) => (a, "id"),
        (_, Some(Value::Array(a))) => (a, "name"),
        _ => return None,
    };
    Some(list.iter().filter_map(|m| m.get(field)?.as_str().map(str::to_string)).collect())
}

/// What `reply` (to `settings.request(…)`) or the transport failure means.
pub fn read_reply(settings: &Endpoint, reply: Result<&HttpReply, &TransportError>) -> Outcome {
    let url = redact_url(&settings.endpoint());
    let reply = match reply {
        Ok(r) => r,
        Err(TransportError::Timeout) => {
            return Outcome::Retry {
                reason: format!("{url}: timed out"),
                retry_after_s: None,
                timed_out: true,
            }
        }
        Err(
            TransportError::Network(m)
            | TransportError::NoStatus(m)
            | TransportError::Unreachable(m),
        ) => {
            return Outcome::Retry {
                reason: format!("{url}: {m}"),
                retry_after_s: None,
                timed_out: false,
            }
        }
        Err(TransportError::Redirect { status, location }) => {
            return Outcome::Stop {
                reason: super::redirect_reason(&url, *status, location.as_deref()),
            }
        }
    };
    let status = reply.status;
    if !(200..300).contains(&status) {
        let raw = reply.body.as_str();
        let message = api_message(raw).unwrap_or_default();
        let says = if message.is_empty() { String::new() } else { format!(": {message}") };
        // Google answers a bad key with 400 API_KEY_INVALID.
        let bad_key = raw.contains("API_KEY_INVALID") || raw.contains("API key not valid");
        let retry_after_s = parse_retry_after(reply.retry_after.as_deref());
        return match status {
            401 | 403 => Outcome::Stop {
                reason: format!(
                    "{url}: HTTP {status}, the API key was refused{says}; check the key ({})",
                    settings.key_source()
                ),
            },
            400 if bad_key => Outcome::Stop {
                reason: format!(
                    "{url}: HTTP 400, the API key was refused{says}; check the key ({})",
                    settings.key_source()
                ),
            },
            404 => Outcome::Stop {
                reason: format!(
                    "{url}: HTTP 404{says}; check the base URL and the model name {:?}",
                    settings.model.trim()
                ),
            },
            408 | 409 | 425 | 429 | 500..=599 => Outcome::Retry {
                reason: format!("{url}: HTTP {status}{says}"),
                retry_after_s,
                timed_out: false,
            },
            400 if reasoning::is_refused_parameter(raw) => Outcome::Stop {
                reason: format!(
                    "{url}: HTTP 400{says}; {}",
                    reasoning::refused_parameter_advice(
                        settings.thinking().is_some(),
                        settings.front()
                    )
                ),
            },
            _ if is_context_length_error(raw) => Outcome::TaskFailed {
                reason: format!(
                    "the prompt is longer than the model's context (HTTP {status}{says})"
                ),
            },
            _ => Outcome::TaskFailed { reason: format!("{url}: HTTP {status}{says}") },
        };
    }
    let value: Value = match serde_json::from_str(&reply.body) {
        Ok(v) => v,
        Err(_) => {
            return Outcome::Retry {
                reason: format!(
                    "{url}: the reply (HTTP {status}) is not JSON: {:?}",
                    snippet(&reply.body)
                ),
                retry_after_s: None,
                timed_out: false,
            }
        }
    };
    match answer_of(settings, &value) {
        Some(a) => match no_answer(settings, &a) {
            Some(reason) => Outcome::TaskFailed { reason },
            None => Outcome::Answer(a),
        },
        None => Outcome::Retry {
            reason: format!(
                "{url}: the reply has no {} where the {} format puts it: {:?}",
                answer_place(settings.provider),
                settings.provider,
                snippet(&reply.body)
            ),
            retry_after_s: None,
            timed_out: false,
        },
    }
}

/// Where `provider`'s format puts the answer, for messages.
pub(crate) fn answer_place(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => openai::ANSWER_PLACE,
        Provider::Anthropic => anthropic::ANSWER_PLACE,
        Provider::Google => google::ANSWER_PLACE,
    }
}

/// The list in a reply that holds the answers (`choices`, `content`,
/// `candidates`).
pub(crate) fn answer_list(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => openai::ANSWER_LIST,
        Provider::Anthropic => anthropic::ANSWER_LIST,
        Provider::Google => google::ANSWER_LIST,
    }
}

/// An answer's text: a string as it is, missing or `null` as "" (upstream
/// stores an empty answer), anything else (a number, a list) `None`: a
/// malformed reply, asked again and never stored.
pub(super) fn text_or_empty(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => None,
    }
}

pub(super) fn count(v: &Value) -> Option<u64> {
    v.as_u64()
}

/// Why a reply without an answer is a failed task (cut at the token
/// limit, or all thinking), else None ([`reasoning::no_answer_reason`]).
pub(crate) fn no_answer(settings: &Endpoint, a: &Answer) -> Option<String> {
    if !a.text.trim().is_empty() {
        return None;
    }
    let empty = reasoning::Empty {
        finish_reason: a.finish_reason.as_deref(),
        thought: a.reasoning.as_deref().is_some_and(|r| !r.trim().is_empty())
            || a.usage.reasoning_tokens.is_some_and(|n| n > 0),
        reasoning_tokens: a.usage.reasoning_tokens,
        unfinished_think: a.unfinished_think,
    };
    let thinking = settings.thinking();
    reasoning::no_answer_reason(
        empty,
        thinking.as_ref(),
        settings.answer_budget(),
        settings.front(),
    )
}

/// Texts joined by a blank line, None when there are none.
pub(super) fn joined(texts: Vec<String>) -> Option<String> {
    let texts: Vec<String> = texts.into_iter().filter(|t| !t.trim().is_empty()).collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// The answer in a 2xx body, `None` when the body is not of the format.
/// A reply without text (content `null`, a blocked Gemini candidate) is an
/// empty answer, as upstream stores it. The thinking is read apart:
/// OpenAI-compatible `reasoning_content` / `reasoning`, Anthropic
/// `thinking` and `redacted_thinking` blocks (the answer is the first
/// `text` block: upstream's `content[0].text` when there is no thinking),
/// Gemini parts with `"thought": true` (the answer is the first other
/// part: upstream's `parts[0].text`), and an inline `<think>` block at the
/// start of the text unless `--keep-reasoning`.
pub(crate) fn answer_of(settings: &Endpoint, v: &Value) -> Option<Answer> {
    let mut answer = match settings.provider {
        Provider::OpenAi => openai::answer(v)?,
        Provider::Anthropic => anthropic::answer(v)?,
        Provider::Google => google::answer(v)?,
    };
    if !settings.reasoning.keep_reasoning {
        let thinking = settings.thinking();
        let opened = thinking.is_some_and(|t| t.family.is_none_or(|f| f.opens_think_in_prompt));
        let split = reasoning::split_inline(&answer.text, opened);
        if let Some(inline) = split.reasoning {
            answer.reasoning = joined(answer.reasoning.into_iter().chain([inline]).collect());
            answer.reasoning_inline = true;
            answer.unfinished_think = split.unfinished;
            answer.text = split.answer;
        }
    }
    Some(answer)
}
