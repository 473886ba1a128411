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
//!
//! Each format's own parts (headers, URL, body, where a reply holds the
//! answer) are in a file of its own: `openai.rs`, `anthropic.rs`,
//! `google.rs`; what a reply means, in every format, is `reply.rs`.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use super::provider::Provider;
use super::reasoning::{self, Front, ReasoningSettings, Thinking, ThinkingParams};

mod anthropic;
mod google;
mod http;
mod openai;
mod reply;
#[cfg(test)]
mod tests;

pub(crate) use self::http::api_message;
pub use self::http::{
    redirect_reason, snippet, snippet_line, HttpReply, HttpRequest, MAX_REPLY_BYTES,
};
pub(crate) use self::reply::{answer_list, answer_of, answer_place, no_answer};
use self::reply::{count, joined, text_or_empty};
pub use self::reply::{
    parse_retry_after, read_models, read_reply, read_total_slots, Answer, Outcome, TransportError,
    Usage, TRUNCATION_RATIO,
};

/// What a request body is made of, in every format.
struct Parts<'a> {
    /// Trimmed.
    model: &'a str,
    prompt: &'a str,
    sampling: &'a Sampling,
    /// The stop sequences that are not empty.
    stops: Vec<&'a str>,
    thinking: Option<Thinking>,
    answer_budget: u32,
}

/// `base` ending in `path`: as it is when it does, else with `path` added.
fn ending_in(base: String, path: &str) -> String {
    if base.ends_with(path) {
        base
    } else {
        format!("{base}{path}")
    }
}

impl Parts<'_> {
    /// The output limit with thinking on: thinking and answer share it.
    fn total(&self, t: &Thinking) -> u64 {
        u64::from(t.budget) + u64::from(self.answer_budget)
    }
}

/// The base URL of the model in the page's tab ([`super::in_tab`]): not a
/// network address, so a request to it never leaves the page (the page
/// routes it to the engine).
pub const TAB_BASE_URL: &str = "tab://this-tab/v1";

/// Whether `url` (a base URL or a request URL) is the in-tab model's.
pub fn is_tab(url: &str) -> bool {
    url.trim_start().get(..6).is_some_and(|s| s.eq_ignore_ascii_case("tab://"))
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
        let key = self.key();
        match self.provider {
            Provider::OpenAi => openai::headers(key),
            Provider::Anthropic => anthropic::headers(key, self.from_browser),
            Provider::Google => google::headers(key),
        }
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
    /// answers at a time). None for the Anthropic and Google formats and
    /// the model in this tab.
    pub fn props_request(&self) -> Option<HttpRequest> {
        // The model in this tab is no server: nothing to ask (a request to
        // `tab://` would only break the page's Content-Security-Policy).
        if self.provider != Provider::OpenAi || is_tab(&self.base_url()) {
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
                // OpenAI's reasoning models refuse the official request's
                // max_tokens and temperature 0: said before a run, not after
                // the first 400.
                (Some(f), reasoning::ReasoningMode::Off)
                    if f.refuses_official_request() && self.provider == Provider::OpenAi =>
                {
                    format!(
                        "asked the official way (RepoQA's own request: max_tokens and temperature 0), as a model that does not reason; {} ({}) reasons, and OpenAI's API refuses both for it (HTTP 400): {on} asks it as one",
                        f.label,
                        self.model.trim()
                    )
                }
                (_, reasoning::ReasoningMode::Off) => {
                    "asked the official way (RepoQA's own request, unchanged), as a model that does not reason".to_string()
                }
                (Some(f), _) => format!(
                    "asked the official way: {} thinks only when asked ({on} asks it to)",
                    f.label
                ),
                (None, _) => format!(
                    "asked the official way: not among the reasoning models this app knows (its list checked {}; {on} asks any model as one)",
                    reasoning::TABLE_CHECKED
                ),
            };
        };
        let why = match (t.family, self.reasoning.mode) {
            (_, reasoning::ReasoningMode::On) => on.to_string(),
            (Some(f), _) if f.by_default => {
                format!(
                    "{} reasons by default, says this app's list of models checked {}",
                    f.label,
                    reasoning::TABLE_CHECKED
                )
            }
            _ => "a thinking budget or effort is set".to_string(),
        };
        let how = match t.level {
            _ if t.off() => "no thinking".to_string(),
            Some(level) => format!("thinking level {level}"),
            None => format!(
                "a thinking budget of {} tokens",
                super::progress::thousands(u64::from(t.budget))
            ),
        };
        let effort =
            t.effort.map(|e| format!(", effort {e} ({})", t.control())).unwrap_or_default();
        format!(
            "NOT UPSTREAM: asked as a reasoning model ({why}): {how} + {} for the answer{effort}; {off} sends RepoQA's own request",
            super::progress::thousands(u64::from(self.answer_budget()))
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
            Provider::OpenAi => openai::url(base),
            Provider::Anthropic => anthropic::url(base),
            Provider::Google => google::url(base, self.model.trim()),
        }
    }

    /// What must be set before a request is worth sending.
    pub fn validate(&self) -> Result<(), String> {
        let base = self.base_url();
        if is_tab(&base) {
            if !self.from_browser {
                return Err(format!(
                    "the base URL {base:?} is the page's model in the tab; here, give a server's \
                     address (http:// or https://)"
                ));
            }
            if self.provider != Provider::OpenAi {
                return Err(format!(
                    "the model in this tab speaks the OpenAI Chat Completions format, not {}",
                    self.provider.label()
                ));
            }
        } else if !(base.starts_with("http://") || base.starts_with("https://")) {
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
        reasoning::check_effort(&self.model, &self.reasoning, self.front())?;
        if let Some(t) = self.thinking() {
            if self.provider == Provider::Anthropic
                && !t.off()
                && t.budget < reasoning::ANTHROPIC_MIN_BUDGET
            {
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
        let parts = Parts {
            model: self.model.trim(),
            prompt,
            sampling: s,
            stops,
            thinking,
            answer_budget: self.answer_budget(),
        };
        let body = match self.provider {
            Provider::OpenAi => openai::body(&parts),
            Provider::Anthropic => anthropic::body(&parts),
            Provider::Google => google::body(&parts),
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
