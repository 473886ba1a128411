//! The three wire formats a benchmark run speaks: OpenAI-compatible Chat
//! Completions, Anthropic Messages and Google Gemini `generateContent`.
//! [`Endpoint::request`] builds the request for one prompt (the official
//! one under the default [`Sampling`]);
//! [`read_reply`] turns what came back into an answer or an [`Outcome`]
//! the scheduler acts on (retry, fail the task, stop the run).
//!
//! The official request (upstream `search_needle_function`): the prompt is
//! the only user message, no system message unless one is set, temperature
//! 0, `max_tokens` 1024, one sample, optional stop sequences.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::reasoning::{self, Front, ReasoningSettings, Style, Thinking, ThinkingParams};
use super::{api_message, snippet, HttpReply, HttpRequest};

/// Which API the server speaks (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Provider {
    /// OpenAI Chat Completions, and every server that copies it (vLLM,
    /// SGLang, TGI, Ollama, llama.cpp, LM Studio, OpenRouter…).
    #[default]
    #[cfg_attr(feature = "cli", value(name = "openai"))]
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Google,
}

impl Provider {
    pub const ALL: &[Provider] = <Provider as strum::VariantArray>::VARIANTS;

    /// The `--backend` value (also `Display` and `FromStr`).
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn from_name(name: &str) -> Option<Provider> {
        name.trim().parse().ok()
    }

    /// The public API's base URL.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
            Provider::Google => "https://generativelanguage.googleapis.com/v1beta",
        }
    }

    /// The environment variables the CLI reads the key from, in order
    /// (upstream reads `ANTHROPIC_KEY`; the SDK's own name is accepted too).
    pub fn key_env(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_API_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY", "ANTHROPIC_KEY"],
            Provider::Google => &["GOOGLE_API_KEY"],
        }
    }

    /// The API's name for people, in messages.
    pub fn label(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI-compatible",
            Provider::Anthropic => "Anthropic",
            Provider::Google => "Google Gemini",
        }
    }
}

/// Official default of `--max-new-tokens`.
pub const DEFAULT_MAX_NEW_TOKENS: u32 = 1024;

/// What a request asks besides the prompt. `None` leaves the server's
/// default (Anthropic needs a `max_tokens`: [`DEFAULT_MAX_NEW_TOKENS`] is
/// sent). The default is the official benchmark request: 1024 new
/// tokens, temperature 0, one sample, no system message, no stop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sampling {
    /// `max_tokens` (OpenAI, Anthropic), `maxOutputTokens` (Google);
    /// stored by earlier versions as `max_new_tokens`.
    #[serde(alias = "max_new_tokens")]
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    /// Samples per request (`n`, Google's `candidateCount`).
    pub n: Option<u32>,
    /// `None` (or empty): no system message, as upstream by default.
    pub system_message: Option<String>,
    pub stop: Vec<String>,
}

impl Default for Sampling {
    fn default() -> Sampling {
        Sampling {
            max_tokens: Some(DEFAULT_MAX_NEW_TOKENS),
            temperature: Some(0.0),
            n: Some(1),
            system_message: None,
            stop: Vec::new(),
        }
    }
}

impl Sampling {
    fn system(&self) -> Option<&str> {
        self.system_message.as_deref().filter(|s| !s.is_empty())
    }

    fn stops(&self) -> Vec<&str> {
        self.stop.iter().map(String::as_str).filter(|s| !s.is_empty()).collect()
    }
}

/// A model behind an API, and how to ask it: the one description of a
/// model endpoint for benchmark runs, needle descriptions and whatever
/// else asks a model. `Debug` hides the key; the key is never serialized
/// (the fronts keep it apart: in memory unless the user asks to remember
/// it).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Endpoint {
    pub provider: Provider,
    /// Empty: the provider's public API.
    pub base_url: String,
    #[serde(skip)]
    pub api_key: Option<String>,
    pub model: String,
    #[serde(flatten)]
    pub sampling: Sampling,
    /// Sent from a web page: Anthropic then needs
    /// `anthropic-dangerous-direct-browser-access: true`, and messages name
    /// the page's key field instead of environment variables.
    pub from_browser: bool,
    /// Whether and how the model is asked to reason ([`reasoning`]).
    pub reasoning: ReasoningSettings,
}

impl Default for Endpoint {
    fn default() -> Endpoint {
        Endpoint {
            provider: Provider::OpenAi,
            base_url: String::new(),
            api_key: None,
            model: String::new(),
            sampling: Sampling::default(),
            from_browser: false,
            reasoning: ReasoningSettings::default(),
        }
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url_shown())
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("model", &self.model)
            .field("sampling", &self.sampling)
            .field("from_browser", &self.from_browser)
            .field("reasoning", &self.reasoning)
            .finish()
    }
}

/// The parameters recorded with each answer (what produced it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// The answer's budget (`--max-new-tokens`); a reasoning request adds
    /// the thinking budget to it.
    pub max_tokens: u32,
    /// As asked (a reasoning request on a format that refuses one sends
    /// none: see `reasoning`).
    pub temperature: f64,
    pub n: u32,
    pub system_message: Option<String>,
    pub stop: Vec<String>,
    /// How the model was asked to reason (absent: the official request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ThinkingParams>,
    /// NOT UPSTREAM when false: an inline `<think>` block is taken out of
    /// the answer; true (`--keep-reasoning`) stores the content whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_reasoning: bool,
}

impl Endpoint {
    /// `model` at `provider`'s public API, asked the official way.
    pub fn new(provider: Provider, model: impl Into<String>) -> Endpoint {
        Endpoint { provider, model: model.into(), ..Endpoint::default() }
    }

    /// The base URL used: the given one without a trailing `/`, else the
    /// provider's.
    pub fn base_url(&self) -> String {
        let b = self.base_url.trim().trim_end_matches('/');
        if b.is_empty() {
            self.provider.default_base_url().to_string()
        } else {
            b.to_string()
        }
    }

    /// The base URL as recorded and shown: without user:password and
    /// without a query (where a key could hide).
    pub fn base_url_shown(&self) -> String {
        redact_url(&self.base_url())
    }

    fn key(&self) -> Option<&str> {
        self.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty())
    }

    /// The key (in the provider's header) and the headers every request
    /// of the provider carries.
    fn key_headers(&self) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        match self.provider {
            Provider::OpenAi => {
                if let Some(key) = self.key() {
                    headers.push(("Authorization".into(), format!("Bearer {key}")));
                }
            }
            Provider::Anthropic => {
                if let Some(key) = self.key() {
                    headers.push(("x-api-key".into(), key.to_string()));
                }
                headers.push(("anthropic-version".into(), "2023-06-01".into()));
                if self.from_browser {
                    headers
                        .push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
                }
            }
            Provider::Google => {
                if let Some(key) = self.key() {
                    headers.push(("x-goog-api-key".into(), key.to_string()));
                }
            }
        }
        headers
    }

    /// The GET request listing the server's models (`{base}/models` in
    /// each format; the body is empty).
    pub fn models_request(&self) -> HttpRequest {
        let base = self.base_url();
        let base = match self.provider {
            Provider::OpenAi => base.strip_suffix("/chat/completions").unwrap_or(&base),
            Provider::Anthropic => base.strip_suffix("/messages").unwrap_or(&base),
            Provider::Google => &base,
        };
        HttpRequest {
            url: format!("{base}/models"),
            headers: self.key_headers(),
            body: String::new(),
        }
    }

    /// The GET request for a llama.cpp server's properties (`/props` at
    /// the server's root; its `total_slots` is how many requests it
    /// answers at a time). None for the Anthropic and Google formats.
    pub fn props_request(&self) -> Option<HttpRequest> {
        if self.provider != Provider::OpenAi {
            return None;
        }
        let base = self.base_url();
        let base = base.strip_suffix("/chat/completions").unwrap_or(&base);
        let root = base.strip_suffix("/v1").unwrap_or(base);
        Some(HttpRequest {
            url: format!("{root}/props"),
            headers: self.key_headers(),
            body: String::new(),
        })
    }

    /// The concurrency to run at when the server answers `slots` requests
    /// at a time (from [`read_total_slots`]) and `concurrency` were asked
    /// for, with what to say; None when no fewer are needed.
    pub fn slots_limit(&self, slots: usize, concurrency: usize) -> Option<(usize, String)> {
        (slots >= 1 && slots < concurrency).then(|| {
            (
                slots,
                format!(
                    "the server at {} answers {slots} request(s) at a time (its /props total_slots): concurrency lowered from {concurrency} to {slots}, so no request waits in its queue while its timeout runs",
                    self.base_url_shown()
                ),
            )
        })
    }

    /// A warning when the server's model list (`listed`, from
    /// [`read_models`]) does not hold the model asked for: a server that
    /// answers to any name (llama-cpp-python) would file the answers under
    /// a name that is not the model's.
    pub fn model_warning(&self, listed: &[String]) -> Option<String> {
        let asked = self.model.trim();
        let bare = |m: &str| m.strip_prefix("models/").unwrap_or(m).to_string();
        if listed.is_empty() || listed.iter().any(|m| bare(m) == bare(asked)) {
            return None;
        }
        let mut shown: Vec<&str> = listed.iter().map(String::as_str).take(5).collect();
        if listed.len() > 5 {
            shown.push("…");
        }
        Some(format!(
            "the server at {} lists {} model(s) ({}), not {asked:?}: check the model name (a server that answers to any name files the answers under the name asked, whatever model it runs)",
            self.base_url_shown(),
            listed.len(),
            shown.join(", ")
        ))
    }

    /// What a run records as the request's parameters (the server's
    /// defaults, when a value is left to it, recorded as the official ones).
    pub fn params(&self) -> RequestParams {
        let s = &self.sampling;
        RequestParams {
            max_tokens: s.max_tokens.unwrap_or(DEFAULT_MAX_NEW_TOKENS),
            temperature: s.temperature.unwrap_or(0.0),
            n: s.n.unwrap_or(1),
            system_message: s.system().map(str::to_string),
            stop: s.stops().into_iter().map(str::to_string).collect(),
            reasoning: self.thinking().map(|t| t.params()),
            keep_reasoning: self.reasoning.keep_reasoning,
        }
    }

    /// How the model is asked to reason, None for the official request
    /// ([`Thinking::resolve`] over the family table and the settings).
    pub fn thinking(&self) -> Option<Thinking> {
        Thinking::resolve(self.provider, &self.model, &self.reasoning)
    }

    /// How the model will be asked, in a sentence for a front to show
    /// before a run: as a reasoning model (why, its budget or level, the
    /// answer's budget; NOT UPSTREAM) or the official way.
    pub fn reasoning_summary(&self) -> String {
        let (on, off) = (self.front().turn_on(), self.front().turn_off());
        let family = reasoning::family_of(&self.model);
        let Some(t) = self.thinking() else {
            return match (family, self.reasoning.mode) {
                (_, reasoning::ReasoningMode::Off) => {
                    "asked the official way (upstream's request), as a model that does not reason".to_string()
                }
                (Some(f), _) => format!(
                    "asked the official way: {} thinks only when asked ({on} asks it to)",
                    f.label
                ),
                (None, _) => format!(
                    "asked the official way: not a reasoning model in the table of {} ({on} asks any model as one)",
                    reasoning::TABLE_CHECKED
                ),
            };
        };
        let why = match (t.family, self.reasoning.mode) {
            (_, reasoning::ReasoningMode::On) => on.to_string(),
            (Some(f), _) if f.by_default => {
                format!("{} reasons by default, table of {}", f.label, reasoning::TABLE_CHECKED)
            }
            _ => "a thinking budget or effort is set".to_string(),
        };
        let how = match t.level {
            Some(level) => format!("thinking level {level}"),
            None => format!(
                "a thinking budget of {} tokens",
                super::plan::thousands(u64::from(t.budget))
            ),
        };
        let effort = t.effort.map(|e| format!(", effort {e}")).unwrap_or_default();
        format!(
            "NOT UPSTREAM: asked as a reasoning model ({why}): {how} + {} for the answer{effort}; {off} sends upstream's request",
            super::plan::thousands(u64::from(self.answer_budget()))
        )
    }

    /// The answer's token budget (`--max-new-tokens`).
    pub fn answer_budget(&self) -> u32 {
        self.sampling.max_tokens.unwrap_or(DEFAULT_MAX_NEW_TOKENS)
    }

    /// Where messages point a user to change a setting.
    pub fn front(&self) -> Front {
        if self.from_browser {
            Front::Page
        } else {
            Front::Cli
        }
    }

    /// The request's URL.
    pub fn endpoint(&self) -> String {
        let base = self.base_url();
        match self.provider {
            Provider::OpenAi if base.ends_with("/chat/completions") => base,
            Provider::OpenAi => format!("{base}/chat/completions"),
            Provider::Anthropic if base.ends_with("/messages") => base,
            Provider::Anthropic => format!("{base}/messages"),
            Provider::Google => {
                let model = self.model.trim();
                let model = model.strip_prefix("models/").unwrap_or(model);
                format!("{base}/models/{model}:generateContent")
            }
        }
    }

    /// What must be set before a request is worth sending.
    pub fn validate(&self) -> Result<(), String> {
        let base = self.base_url();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("the base URL {base:?} must start with http:// or https://"));
        }
        if self.model.trim().is_empty() {
            return Err("the model name is empty".into());
        }
        if self.sampling.max_tokens == Some(0) {
            return Err("max new tokens must be at least 1".into());
        }
        if self.sampling.temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
            return Err("the temperature must be between 0 and 2".into());
        }
        if self.sampling.n == Some(0) {
            return Err("the number of samples must be at least 1".into());
        }
        if let Some(t) = self.thinking() {
            if self.provider == Provider::Anthropic && t.budget < reasoning::ANTHROPIC_MIN_BUDGET {
                return Err(format!(
                    "Anthropic's thinking budget is at least {} tokens, not {} (or ask without thinking: {})",
                    reasoning::ANTHROPIC_MIN_BUDGET,
                    t.budget,
                    self.front().turn_off()
                ));
            }
        }
        if self.provider != Provider::OpenAi && self.key().is_none() {
            let fix = if self.from_browser { "fill in" } else { "set" };
            return Err(format!("no API key for {} ({fix} {})", self.provider, self.key_source()));
        }
        Ok(())
    }

    /// Where the key comes from, for messages saying what to fix: the
    /// CLI's environment variables, or the page's "API key" field (the
    /// page has no environment; `from_browser`).
    pub fn key_source(&self) -> String {
        if self.from_browser {
            format!("the API key field, with your {} API key", self.provider.label())
        } else {
            self.provider.key_env().join(" or ")
        }
    }

    /// The request for `prompt` (the official one under the default
    /// [`Sampling`]).
    pub fn request(&self, prompt: &str) -> HttpRequest {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        headers.extend(self.key_headers());
        let s = &self.sampling;
        let stops = s.stops();
        let thinking = self.thinking();
        // Thinking and answer share the output limit.
        let total = |t: &Thinking| u64::from(t.budget) + u64::from(self.answer_budget());
        let body = match self.provider {
            Provider::OpenAi => {
                let mut messages = Vec::new();
                if let Some(sys) = s.system() {
                    messages.push(json!({"role": "system", "content": sys}));
                }
                messages.push(json!({"role": "user", "content": prompt}));
                let mut b = Map::new();
                b.insert("model".into(), json!(self.model.trim()));
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
                        b.insert("max_completion_tokens".into(), json!(total(t)));
                    }
                    Some(t) => {
                        b.insert("max_tokens".into(), json!(total(t)));
                        if let Some(temp) = s.temperature {
                            b.insert("temperature".into(), json!(temp));
                        }
                    }
                }
                if let Some(e) = thinking.and_then(|t| t.effort) {
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
            Provider::Anthropic => {
                let mut b = Map::new();
                b.insert("model".into(), json!(self.model.trim()));
                match &thinking {
                    None => b.insert("max_tokens".into(), json!(self.answer_budget())),
                    Some(t) => b.insert("max_tokens".into(), json!(total(t))),
                };
                b.insert("messages".into(), json!([{"role": "user", "content": prompt}]));
                match &thinking {
                    // With thinking on, no temperature may be set.
                    Some(t) => {
                        b.insert(
                            "thinking".into(),
                            json!({"type": "enabled", "budget_tokens": t.budget}),
                        );
                    }
                    None => {
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
            Provider::Google => {
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
                        config.insert("maxOutputTokens".into(), json!(total(t)));
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
                    // The thought summaries go to the run log.
                    tc.insert("includeThoughts".into(), json!(true));
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
        };
        HttpRequest { url: self.endpoint(), headers, body: body.to_string() }
    }
}

/// `url` without `user:password@` and without `?query` / `#fragment`.
pub fn redact_url(url: &str) -> String {
    let cut = url.find(['?', '#']).map_or(url, |i| &url[..i]);
    match cut.split_once("://") {
        Some((scheme, rest)) => {
            let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            if path.is_empty() && !rest.contains('/') {
                format!("{scheme}://{host}")
            } else {
                format!("{scheme}://{host}/{path}")
            }
        }
        None => cut.to_string(),
    }
}

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
        Provider::OpenAi => "choices[0].message with a text content",
        Provider::Anthropic => "content list with a text",
        Provider::Google => "candidates list with a text",
    }
}

/// The list in a reply that holds the answers (`choices`, `content`,
/// `candidates`).
pub(crate) fn answer_list(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => "choices",
        Provider::Anthropic => "content",
        Provider::Google => "candidates",
    }
}

/// An answer's text: a string as it is, missing or `null` as "" (upstream
/// stores an empty answer), anything else (a number, a list) `None`: a
/// malformed reply, asked again and never stored.
fn text_or_empty(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => None,
    }
}

fn count(v: &Value) -> Option<u64> {
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
fn joined(texts: Vec<String>) -> Option<String> {
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
        Provider::OpenAi => {
            let choice = v.get("choices")?.as_array()?.first()?;
            let message = choice.get("message")?;
            let text = text_or_empty(message.get("content"))?;
            let field = ["reasoning_content", "reasoning"]
                .iter()
                .find_map(|k| message.get(*k).and_then(Value::as_str))
                .map(str::to_string);
            Answer {
                text,
                usage: Usage {
                    prompt_tokens: count(&v["usage"]["prompt_tokens"]),
                    completion_tokens: count(&v["usage"]["completion_tokens"]),
                    reasoning_tokens: count(
                        &v["usage"]["completion_tokens_details"]["reasoning_tokens"],
                    ),
                },
                finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(Into::into),
                model: v.get("model").and_then(Value::as_str).map(Into::into),
                reasoning: joined(field.into_iter().collect()),
                ..Answer::default()
            }
        }
        Provider::Anthropic => {
            let content = v.get("content")?.as_array()?;
            let kind = |c: &Value| c.get("type").and_then(Value::as_str).map(str::to_string);
            let mut thoughts = Vec::new();
            for block in content {
                match kind(block).as_deref() {
                    Some("thinking") => thoughts
                        .extend(block.get("thinking").and_then(Value::as_str).map(str::to_string)),
                    Some("redacted_thinking") => thoughts.push("[redacted thinking]".into()),
                    _ => {}
                }
            }
            let first_text = content
                .iter()
                .find(|c| !matches!(kind(c).as_deref(), Some("thinking" | "redacted_thinking")));
            let text = text_or_empty(first_text.and_then(|c| c.get("text")))?;
            Answer {
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
            }
        }
        Provider::Google => {
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
            let text =
                parts.and_then(|p| p.iter().find(|p| !is_thought(p))).and_then(|p| p.get("text"));
            let text = text_or_empty(text)?;
            Answer {
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
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_list_is_read_in_each_format_and_an_unlisted_model_warned_about() {
        let openai = r#"{"object": "list", "data": [{"id": "org/a"}, {"id": "b"}]}"#;
        assert_eq!(read_models(openai), Some(vec!["org/a".to_string(), "b".to_string()]));
        let gemini = r#"{"models": [{"name": "models/gemini-1.5-flash"}]}"#;
        assert_eq!(read_models(gemini), Some(vec!["models/gemini-1.5-flash".to_string()]));
        assert_eq!(read_models("not json"), None);
        let mut e = Endpoint::new(Provider::OpenAi, "org/a");
        e.base_url = "http://h:1/v1/chat/completions".into();
        e.api_key = Some("sk-x".into());
        let r = e.models_request();
        assert_eq!(r.url, "http://h:1/v1/models");
        assert_eq!(r.headers, vec![("Authorization".to_string(), "Bearer sk-x".to_string())]);
        let listed = read_models(openai).unwrap();
        assert_eq!(e.model_warning(&listed), None);
        e.model = "gpt-4o".into();
        let w = e.model_warning(&listed).unwrap();
        assert!(w.starts_with("the server at http://h:1/v1/chat/completions lists 2 model(s) (org/a, b), not \"gpt-4o\""), "{w}");
        let g = Endpoint::new(Provider::Google, "gemini-1.5-flash");
        assert_eq!(g.model_warning(&read_models(gemini).unwrap()), None);
        assert_eq!(e.model_warning(&[]), None, "an empty list says nothing");
    }

    #[test]
    fn a_llama_cpp_server_says_how_many_requests_it_answers_at_a_time() {
        let mut e = Endpoint::new(Provider::OpenAi, "m");
        e.base_url = "http://h:8080/v1".into();
        assert_eq!(e.props_request().unwrap().url, "http://h:8080/props");
        e.base_url = "http://h:8080/v1/chat/completions".into();
        assert_eq!(e.props_request().unwrap().url, "http://h:8080/props");
        assert!(Endpoint::new(Provider::Anthropic, "m").props_request().is_none());
        let props = r#"{"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}"#;
        assert_eq!(read_total_slots(props), Some(1));
        assert_eq!(read_total_slots(r#"{"total_slots": "x"}"#), None);
        assert_eq!(read_total_slots("<html>"), None);
        let (c, why) = e.slots_limit(1, 4).unwrap();
        assert_eq!(c, 1);
        assert!(why.contains("concurrency lowered from 4 to 1"), "{why}");
        assert_eq!(e.slots_limit(4, 4), None);
        assert_eq!(e.slots_limit(0, 4), None, "0 slots is not a reading");
    }

    fn settings(p: Provider) -> Endpoint {
        let mut s = Endpoint::new(p, "m-1");
        s.api_key = Some("sk-secret".into());
        s
    }

    fn reply(status: u16, body: Value) -> HttpReply {
        HttpReply { status, retry_after: None, body: body.to_string() }
    }

    fn body(r: &HttpRequest) -> Value {
        serde_json::from_str(&r.body).unwrap()
    }

    fn header<'a>(r: &'a HttpRequest, name: &str) -> Option<&'a str> {
        r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    #[test]
    fn official_openai_request() {
        let mut s = settings(Provider::OpenAi);
        s.base_url = "http://127.0.0.1:9/v1/".into();
        let r = s.request("PROMPT");
        assert_eq!(r.url, "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(header(&r, "authorization"), Some("Bearer sk-secret"));
        assert_eq!(
            body(&r),
            json!({"model": "m-1", "messages": [{"role": "user", "content": "PROMPT"}],
                   "max_tokens": 1024, "temperature": 0.0, "n": 1})
        );
        s.sampling.system_message = Some("SYS".into());
        s.sampling.stop = vec!["<|im_end|>".into()];
        let b = body(&s.request("P"));
        assert_eq!(b["messages"][0], json!({"role": "system", "content": "SYS"}));
        assert_eq!(b["messages"][1], json!({"role": "user", "content": "P"}));
        assert_eq!(b["stop"], json!(["<|im_end|>"]));
        s.api_key = None;
        assert_eq!(header(&s.request("P"), "authorization"), None);
        assert!(s.validate().is_ok(), "local servers need no key");
    }

    #[test]
    fn official_anthropic_request() {
        let mut s = settings(Provider::Anthropic);
        let r = s.request("PROMPT");
        assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(header(&r, "x-api-key"), Some("sk-secret"));
        assert_eq!(header(&r, "anthropic-version"), Some("2023-06-01"));
        assert_eq!(header(&r, "anthropic-dangerous-direct-browser-access"), None);
        assert_eq!(
            body(&r),
            json!({"model": "m-1", "max_tokens": 1024,
                   "messages": [{"role": "user", "content": "PROMPT"}], "temperature": 0.0})
        );
        s.from_browser = true;
        s.sampling.system_message = Some("SYS".into());
        let r = s.request("P");
        assert_eq!(header(&r, "anthropic-dangerous-direct-browser-access"), Some("true"));
        assert_eq!(body(&r)["system"], "SYS");
        s.api_key = None;
        assert_eq!(
            s.validate().unwrap_err(),
            "no API key for anthropic (fill in the API key field, with your Anthropic API key)"
        );
        s.from_browser = false;
        assert_eq!(
            s.validate().unwrap_err(),
            "no API key for anthropic (set ANTHROPIC_API_KEY or ANTHROPIC_KEY)"
        );
    }

    #[test]
    fn official_google_request() {
        let mut s = settings(Provider::Google);
        s.model = "models/gemini-x".into();
        let r = s.request("PROMPT");
        assert_eq!(
            r.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-x:generateContent"
        );
        assert_eq!(header(&r, "x-goog-api-key"), Some("sk-secret"));
        assert_eq!(
            body(&r),
            json!({"contents": [{"role": "user", "parts": [{"text": "PROMPT"}]}],
                   "generationConfig": {"candidateCount": 1, "maxOutputTokens": 1024, "temperature": 0.0}})
        );
        assert!(!r.url.contains("key="), "the key goes in a header, never the URL");
    }

    #[test]
    fn the_key_never_shows() {
        for p in Provider::ALL.iter().copied() {
            let s = settings(p);
            assert!(!format!("{s:?}").contains("sk-secret"));
            assert!(!format!("{:?}", s.request("p")).contains("sk-secret"));
            assert!(!serde_json::to_string(&s).unwrap().contains("sk-secret"));
        }
        assert_eq!(redact_url("https://u:pw@h.example/v1?key=abc#x"), "https://h.example/v1");
        assert_eq!(redact_url("http://127.0.0.1:8/v1"), "http://127.0.0.1:8/v1");
        assert_eq!(redact_url("http://h"), "http://h");
    }

    #[test]
    fn reads_answers_in_each_format() {
        let o = read_reply(
            &settings(Provider::OpenAi),
            Ok(&reply(
                200,
                json!({"choices": [{"message": {"content": "A"}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 2}}),
            )),
        );
        let want = |text: &str, fr: &str| {
            Outcome::Answer(Answer {
                text: text.into(),
                usage: Usage {
                    prompt_tokens: Some(10),
                    completion_tokens: Some(2),
                    ..Usage::default()
                },
                finish_reason: Some(fr.into()),
                ..Answer::default()
            })
        };
        assert_eq!(o, want("A", "stop"));
        let o = read_reply(
            &settings(Provider::Anthropic),
            Ok(&reply(
                200,
                json!({"content": [{"type": "text", "text": "B"}], "stop_reason": "end_turn",
                       "usage": {"input_tokens": 10, "output_tokens": 2}}),
            )),
        );
        assert_eq!(o, want("B", "end_turn"));
        let o = read_reply(
            &settings(Provider::Google),
            Ok(&reply(
                200,
                json!({"candidates": [{"content": {"parts": [{"text": "C"}]}, "finishReason": "STOP"}],
                       "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2}}),
            )),
        );
        assert_eq!(o, want("C", "STOP"));
        // A blocked Gemini candidate is an empty answer, as upstream.
        let o = read_reply(
            &settings(Provider::Google),
            Ok(&reply(200, json!({"candidates": [{"finishReason": "SAFETY"}]}))),
        );
        assert!(matches!(o, Outcome::Answer(Answer { ref text, .. }) if text.is_empty()));
    }

    #[test]
    fn classifies_failures() {
        let s = settings(Provider::OpenAi);
        let st = |status: u16, b: Value| read_reply(&s, Ok(&reply(status, b)));
        assert!(
            matches!(st(401, json!({})), Outcome::Stop { ref reason } if reason.contains("check the key (OPENAI_API_KEY)"))
        );
        // The page has no environment: it names its key field and the API.
        let mut page = settings(Provider::OpenAi);
        page.from_browser = true;
        let o = read_reply(&page, Ok(&reply(403, json!({}))));
        assert!(
            matches!(&o, Outcome::Stop { reason } if reason.ends_with("check the key (the API key field, with your OpenAI-compatible API key)")),
            "{o:?}"
        );
        assert!(!format!("{o:?}").contains("OPENAI_API_KEY"));
        page.provider = Provider::Google;
        let o =
            read_reply(&page, Ok(&reply(400, json!({"error": {"message": "API key not valid."}}))));
        assert!(
            matches!(&o, Outcome::Stop { reason } if reason.contains("the API key field, with your Google Gemini API key")),
            "{o:?}"
        );
        assert!(matches!(st(404, json!({"error": {"message": "no such model"}})),
            Outcome::Stop { ref reason } if reason.contains("no such model; check the base URL and the model name \"m-1\"")));
        let mut limited = reply(429, json!({}));
        limited.retry_after = Some("3".into());
        assert_eq!(
            read_reply(&s, Ok(&limited)),
            Outcome::Retry {
                reason: "https://api.openai.com/v1/chat/completions: HTTP 429".into(),
                retry_after_s: Some(3.0),
                timed_out: false,
            }
        );
        assert!(matches!(st(503, json!({})), Outcome::Retry { .. }));
        let ctx = json!({"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}});
        assert!(
            matches!(st(400, ctx), Outcome::TaskFailed { ref reason } if reason.starts_with("the prompt is longer than the model's context"))
        );
        let bad = HttpReply { status: 200, retry_after: None, body: "{\"choices\": [".into() };
        assert!(
            matches!(read_reply(&s, Ok(&bad)), Outcome::Retry { ref reason, .. } if reason.contains("not JSON"))
        );
        assert!(matches!(st(200, json!({"object": "x"})), Outcome::Retry { .. }));
        // A text that is not a string is malformed (asked again), never an
        // empty answer; null is the empty answer upstream stores.
        for content in [json!(42), json!(["a"]), json!({"text": "a"})] {
            let o = st(200, json!({"choices": [{"message": {"content": content}}]}));
            assert!(
                matches!(&o, Outcome::Retry { reason, .. } if reason.contains("with a text content")),
                "{o:?}"
            );
        }
        let o = st(200, json!({"model": "other-9", "choices": [{"message": {"content": null}}]}));
        let Outcome::Answer(a) = o else { panic!("{o:?}") };
        assert_eq!((a.text.as_str(), a.model.as_deref()), ("", Some("other-9")));
        let an = settings(Provider::Anthropic);
        let o = read_reply(&an, Ok(&reply(200, json!({"content": [{"type": "text", "text": 7}]}))));
        assert!(matches!(o, Outcome::Retry { .. }), "{o:?}");
        assert!(matches!(read_reply(&s, Err(&TransportError::Timeout)), Outcome::Retry { .. }));
        let moved = TransportError::Redirect { status: 302, location: Some("http://x/y".into()) };
        assert_eq!(
            read_reply(&s, Err(&moved)),
            Outcome::Stop { reason: "https://api.openai.com/v1/chat/completions: the server redirected the request (HTTP 302 to http://x/y); redirects are not followed (a 301, 302 or 303 would turn the POST into a GET): give the address a model API answers at as the base URL".into() }
        );
        let g = settings(Provider::Google);
        let o = read_reply(
            &g,
            Ok(&reply(
                400,
                json!({"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}),
            )),
        );
        assert!(matches!(o, Outcome::Stop { .. }), "{o:?}");
        let o = read_reply(
            &g,
            Ok(&reply(
                400,
                json!({"error": {"message": "The input token count (20000) exceeds the maximum number of tokens allowed (8192)."}}),
            )),
        );
        assert!(matches!(o, Outcome::TaskFailed { .. }), "{o:?}");
    }

    fn reasoning(mode: reasoning::ReasoningMode) -> ReasoningSettings {
        ReasoningSettings { mode, ..ReasoningSettings::default() }
    }

    #[test]
    fn a_reasoning_model_is_asked_as_each_provider_documents() {
        use reasoning::{Effort, ReasoningMode};
        // OpenAI o-series and GPT-5: max_completion_tokens, no temperature.
        let mut o3 = settings(Provider::OpenAi);
        o3.model = "o3".into();
        assert_eq!(
            body(&o3.request("P")),
            json!({"model": "o3", "messages": [{"role": "user", "content": "P"}],
                   "max_completion_tokens": 17408, "n": 1})
        );
        o3.reasoning.effort = Some(Effort::High);
        let b = body(&o3.request("P"));
        assert_eq!(
            (b["max_completion_tokens"].clone(), b["reasoning_effort"].clone()),
            (json!(33792), json!("high"))
        );
        assert_eq!(o3.params().reasoning.map(|r| r.budget), Some(32_768));
        // --reasoning off: upstream's request, byte for byte.
        o3.reasoning = reasoning(ReasoningMode::Off);
        assert_eq!(
            body(&o3.request("P")),
            json!({"model": "o3", "messages": [{"role": "user", "content": "P"}],
                   "max_tokens": 1024, "temperature": 0.0, "n": 1})
        );
        assert_eq!(o3.params().reasoning, None);
        // An open-weight thinker keeps max_tokens (raised) and the temperature.
        let mut qwen = settings(Provider::OpenAi);
        qwen.model = "Qwen/Qwen3-8B".into();
        qwen.reasoning.budget = Some(4000);
        assert_eq!(
            body(&qwen.request("P")),
            json!({"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "P"}],
                   "max_tokens": 5024, "temperature": 0.0, "n": 1})
        );
        // Anthropic: a thinking block, max_tokens = budget + answer, no temperature.
        let mut claude = settings(Provider::Anthropic);
        claude.model = "claude-sonnet-4-5".into();
        assert_eq!(
            body(&claude.request("P"))["temperature"],
            json!(0.0),
            "auto: Claude does not think unasked"
        );
        claude.reasoning = reasoning(ReasoningMode::On);
        claude.reasoning.budget = Some(2048);
        assert_eq!(
            body(&claude.request("P")),
            json!({"model": "claude-sonnet-4-5", "max_tokens": 3072,
                   "messages": [{"role": "user", "content": "P"}],
                   "thinking": {"type": "enabled", "budget_tokens": 2048}})
        );
        claude.reasoning.budget = Some(500);
        assert!(claude
            .validate()
            .unwrap_err()
            .starts_with("Anthropic's thinking budget is at least 1024 tokens, not 500"));
        // Gemini 2.5: a thinking budget inside maxOutputTokens.
        let mut gemini = settings(Provider::Google);
        gemini.model = "gemini-2.5-flash".into();
        assert_eq!(
            body(&gemini.request("P"))["generationConfig"],
            json!({"candidateCount": 1, "maxOutputTokens": 17408, "temperature": 0.0,
                   "thinkingConfig": {"thinkingBudget": 16384, "includeThoughts": true}})
        );
        gemini.model = "gemini-3-pro-preview".into();
        assert_eq!(
            body(&gemini.request("P"))["generationConfig"]["thinkingConfig"],
            json!({"thinkingLevel": "high", "includeThoughts": true})
        );
        // A plain model: the official request, whatever the settings' defaults.
        let plain = settings(Provider::Google);
        assert!(body(&plain.request("P"))["generationConfig"].get("thinkingConfig").is_none());
    }

    #[test]
    fn the_answer_is_what_follows_the_thinking() {
        let answer = |s: &Endpoint, b: Value| match read_reply(s, Ok(&reply(200, b))) {
            Outcome::Answer(a) => a,
            o => panic!("{o:?}"),
        };
        let openai = settings(Provider::OpenAi);
        // DeepSeek's API: reasoning_content beside the content.
        let a = answer(
            &openai,
            json!({"choices": [{"message": {"content": "A", "reasoning_content": "R"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 7}}}),
        );
        assert_eq!(
            (a.text.as_str(), a.reasoning.as_deref(), a.usage.reasoning_tokens),
            ("A", Some("R"), Some(7))
        );
        assert!(!a.reasoning_inline);
        // vLLM's newer field name.
        let a =
            answer(&openai, json!({"choices": [{"message": {"content": "A", "reasoning": "R2"}}]}));
        assert_eq!(a.reasoning.as_deref(), Some("R2"));
        // Inline <think>, whatever the model: taken out, unless --keep-reasoning.
        let inline = json!({"choices": [{"message": {"content": "<think>\n```py\nx\n```\n</think>\n\n```py\nf\n```"}, "finish_reason": "stop"}]});
        let a = answer(&openai, inline.clone());
        assert_eq!(
            (a.text.as_str(), a.reasoning.as_deref(), a.reasoning_inline),
            ("```py\nf\n```", Some("```py\nx\n```"), true)
        );
        let mut keep = settings(Provider::OpenAi);
        keep.reasoning.keep_reasoning = true;
        let a = answer(&keep, inline);
        assert!(a.text.starts_with("<think>") && !a.reasoning_inline);
        assert!(keep.params().keep_reasoning);
        // A distill whose template opened the block: only </think> in the reply.
        let mut r1 = settings(Provider::OpenAi);
        r1.model = "deepseek-r1:7b".into();
        let a = answer(&r1, json!({"choices": [{"message": {"content": "hmm\n</think>\n\nF"}}]}));
        assert_eq!((a.text.as_str(), a.reasoning.as_deref()), ("F", Some("hmm")));
        // Anthropic: thinking blocks, then the text.
        let mut claude = settings(Provider::Anthropic);
        claude.reasoning = reasoning(reasoning::ReasoningMode::On);
        let a = answer(
            &claude,
            json!({"content": [
            {"type": "thinking", "thinking": "T", "signature": "s"},
            {"type": "redacted_thinking", "data": "xx"},
            {"type": "text", "text": "B"}], "stop_reason": "end_turn"}),
        );
        assert_eq!(
            (a.text.as_str(), a.reasoning.as_deref()),
            ("B", Some("T\n\n[redacted thinking]"))
        );
        // Gemini: thought parts, then the answer's.
        let g = settings(Provider::Google);
        let a = answer(
            &g,
            json!({"candidates": [{"content": {"parts": [{"text": "T", "thought": true}, {"text": "C"}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "thoughtsTokenCount": 40}}),
        );
        assert_eq!(
            (a.text.as_str(), a.reasoning.as_deref(), a.usage.reasoning_tokens),
            ("C", Some("T"), Some(40))
        );
        // A cut answer with text is an answer (the run names it).
        let a = answer(
            &openai,
            json!({"choices": [{"message": {"content": "```py\nde"}, "finish_reason": "length"}]}),
        );
        assert!(a.cut());
    }

    #[test]
    fn a_reply_with_no_answer_is_a_failed_task_saying_what_to_raise() {
        let failed = |s: &Endpoint, b: Value| match read_reply(s, Ok(&reply(200, b))) {
            Outcome::TaskFailed { reason } => reason,
            o => panic!("{o:?}"),
        };
        // Gemini 2.5 asked the official way: the thinking spent the 1,024 tokens.
        let mut g = settings(Provider::Google);
        g.model = "gemini-2.5-pro".into();
        g.reasoning = reasoning(reasoning::ReasoningMode::Off);
        let spent = json!({"candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS"}],
            "usageMetadata": {"promptTokenCount": 3, "thoughtsTokenCount": 1021}});
        let r = failed(&g, spent.clone());
        assert!(r.contains("the model reasons, and 1,021 thinking tokens filled the 1,024 tokens meant for the answer; ask it as a reasoning model (--reasoning on"), "{r}");
        g.reasoning = reasoning(reasoning::ReasoningMode::Auto);
        let r = failed(&g, spent);
        assert!(
            r.contains(
                "a thinking budget of 16,384 + 1,024 for the answer); raise --reasoning-budget"
            ),
            "{r}"
        );
        // An o-series reply with empty content, finish reason length.
        let mut o = settings(Provider::OpenAi);
        o.model = "o4-mini".into();
        let r = failed(
            &o,
            json!({"choices": [{"message": {"content": ""}, "finish_reason": "length"}],
            "usage": {"completion_tokens": 17408, "completion_tokens_details": {"reasoning_tokens": 17408}}}),
        );
        assert!(r.starts_with("cut at the token limit before any answer (finish reason \"length\"): 17,408 thinking tokens"), "{r}");
        // An unclosed <think>.
        let r = failed(
            &settings(Provider::OpenAi),
            json!({"choices": [{"message": {"content": "<think>and so on"}, "finish_reason": "length"}]}),
        );
        assert!(
            r.contains("raise --max-new-tokens") || r.contains("ask it as a reasoning model"),
            "{r}"
        );
        // Anthropic cut while thinking; the page names its own field.
        let mut claude = settings(Provider::Anthropic);
        claude.reasoning = reasoning(reasoning::ReasoningMode::On);
        claude.from_browser = true;
        let r = failed(
            &claude,
            json!({"content": [{"type": "thinking", "thinking": "T"}], "stop_reason": "max_tokens"}),
        );
        assert!(r.ends_with("raise the thinking budget and ask it again"), "{r}");
        // An empty answer that is not cut stays an empty answer (upstream).
        let o = read_reply(
            &settings(Provider::OpenAi),
            Ok(&reply(
                200,
                json!({"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}),
            )),
        );
        assert!(matches!(o, Outcome::Answer(ref a) if a.text.is_empty()), "{o:?}");
    }

    #[test]
    fn truncation_check() {
        let u = Usage { prompt_tokens: Some(4096), ..Usage::default() };
        assert!(u.looks_truncated(16000));
        assert!(!u.looks_truncated(5000));
        assert!(!Usage::default().looks_truncated(16000), "no usage reported: no verdict");
    }

    #[test]
    fn retry_after_values() {
        assert_eq!(parse_retry_after(Some(" 7 ")), Some(7.0));
        assert_eq!(parse_retry_after(Some("0.5")), Some(0.5));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(Some("-1")), None);
        assert_eq!(parse_retry_after(None), None);
    }
}
