//! Reasoning models: which models think, how each API is asked to let them
//! think, and how the answer is told apart from the thinking in a reply.
//!
//! - **Which.** A dated table of known families ([`FAMILIES`], checked on
//!   [`TABLE_CHECKED`]); `--reasoning on|off` overrides it for any model.
//! - **Asking** ([`Thinking`], applied by `wire::Endpoint::request`): OpenAI
//!   reasoning models get `max_completion_tokens` and no `temperature`
//!   (they refuse both `max_tokens` and a temperature other than 1), plus
//!   `reasoning_effort` when one is set; open-weight thinkers on compatible
//!   servers keep `max_tokens`, raised by the thinking budget; Anthropic
//!   gets `thinking: {"type": "enabled", "budget_tokens": B}` with
//!   `max_tokens` = B + the answer's budget and no temperature; Gemini gets
//!   `thinkingConfig` (a `thinkingBudget`, or a `thinkingLevel` for Gemini 3)
//!   with `maxOutputTokens` = B + the answer's budget. The answer's budget
//!   stays `--max-new-tokens` (upstream's 1,024). A model that does not
//!   reason keeps the official request byte for byte.
//! - **Reading** ([`split_inline`]): the answer is what follows the
//!   thinking. Separate fields (`reasoning_content`, Anthropic thinking
//!   blocks, Gemini thought parts) are read by `wire::answer_of`; a
//!   `<think>…</think>` at the start of the content is taken out here
//!   (NOT UPSTREAM: upstream stores the content whole; `--keep-reasoning`
//!   does so too).
//! - **A cut reply** ([`no_answer_reason`]): a reply that ended at the token
//!   limit with no answer is a failed task naming what to raise, never an
//!   empty answer.

use serde::{Deserialize, Serialize};

use super::plan::thousands as group;
use super::wire::Provider;

/// The day the family table and the budgets below were checked against
/// each provider's documentation.
pub const TABLE_CHECKED: &str = "2026-11-27";

/// `--reasoning`: whether a model is asked as a reasoning model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ReasoningMode {
    /// As the family table says ([`FAMILIES`]): a model that reasons by
    /// default is asked as one; any other model the official way.
    #[default]
    Auto,
    /// Asked as a reasoning model, whatever the table says.
    On,
    /// Asked the official way (upstream's request), whatever the table says.
    Off,
}

/// `--reasoning-effort`: how hard the model thinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Effort {
    Low,
    Medium,
    High,
}

impl Effort {
    /// The thinking budget an effort stands for where the API takes a
    /// number of tokens (Anthropic, Gemini 2.5) and where the request needs
    /// room for the thinking (OpenAI's `max_completion_tokens`): within
    /// each family's documented range ([`Family::budget`]).
    pub fn budget(self) -> u32 {
        match self {
            Effort::Low => 4_096,
            Effort::Medium => 16_384,
            Effort::High => 32_768,
        }
    }

    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The effort whose budget a reasoning model gets when neither an effort
/// nor a budget is given.
pub const DEFAULT_EFFORT: Effort = Effort::Medium;

/// Anthropic's smallest thinking budget.
pub const ANTHROPIC_MIN_BUDGET: u32 = 1_024;

/// How a user asks for reasoning (flags, the Run page's fields).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReasoningSettings {
    pub mode: ReasoningMode,
    /// Sent as `reasoning_effort` (OpenAI format) or `thinkingLevel`
    /// (Gemini 3); elsewhere it picks the budget ([`Effort::budget`]).
    pub effort: Option<Effort>,
    /// Tokens for the thinking, beside the answer's `max_tokens`.
    pub budget: Option<u32>,
    /// Store the reply's content whole, an inline `<think>` block and all,
    /// as upstream does (`--keep-reasoning`).
    pub keep_reasoning: bool,
}

/// How a family is asked to reason on the OpenAI format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// OpenAI's reasoning models: `max_completion_tokens`, no temperature.
    OpenAi,
    /// Open-weight thinkers on compatible servers (vLLM, llama.cpp,
    /// Ollama) and DeepSeek's API: `max_tokens` covers the thinking and
    /// the answer; the temperature is accepted.
    OpenWeight,
}

/// A family of models known to reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    pub id: &'static str,
    pub label: &'static str,
    /// The model name (lower case, without an `org/` or `models/` prefix)
    /// starts with one of these…
    starts: &'static [&'static str],
    /// …and holds none of these.
    except: &'static [&'static str],
    /// How it is asked on the OpenAI format (Anthropic's and Google's own
    /// APIs have one form each).
    pub style: Style,
    /// It thinks unless told not to: `--reasoning auto` asks it as a
    /// reasoning model.
    pub by_default: bool,
    /// The documented thinking budget range (tokens); an effort's budget is
    /// kept inside it. A `--reasoning-budget` is sent as given.
    pub budget: (u32, u32),
    /// Gemini 3's `thinkingLevel` values, lowest first (empty: a budget).
    pub levels: &'static [&'static str],
    /// Its chat template opens the `<think>` block in the prompt, so the
    /// reply holds the thinking and its closing `</think>` only.
    pub opens_think_in_prompt: bool,
}

const OPENAI: Family = Family {
    id: "openai-o",
    label: "OpenAI o-series",
    starts: &["o1", "o3", "o4"],
    except: &[],
    style: Style::OpenAi,
    by_default: true,
    budget: (1, 100_000),
    levels: &[],
    opens_think_in_prompt: false,
};

/// Known reasoning families, checked on [`TABLE_CHECKED`] against
/// platform.openai.com/docs/guides/reasoning, docs.anthropic.com
/// (extended thinking), ai.google.dev/gemini-api/docs/thinking,
/// api-docs.deepseek.com and docs.vllm.ai (reasoning outputs). The first
/// match wins (so Flash-Lite comes before Flash).
pub const FAMILIES: &[Family] = &[
    OPENAI,
    Family { id: "gpt-5", label: "OpenAI GPT-5", starts: &["gpt-5"], except: &["-chat"], ..OPENAI },
    Family {
        id: "gpt-oss",
        label: "OpenAI gpt-oss (open weights)",
        starts: &["gpt-oss"],
        style: Style::OpenWeight,
        budget: (1, 65_536),
        ..OPENAI
    },
    Family {
        id: "claude",
        label: "Claude with extended thinking (3.7, 4.x)",
        starts: &[
            "claude-3-7",
            "claude-3.7",
            "claude-sonnet-4",
            "claude-opus-4",
            "claude-haiku-4",
            "claude-4",
        ],
        // Thinking is asked for, never on by default.
        by_default: false,
        budget: (ANTHROPIC_MIN_BUDGET, 64_000),
        ..OPENAI
    },
    Family {
        id: "gemini-2.5-pro",
        label: "Gemini 2.5 Pro",
        starts: &["gemini-2.5-pro"],
        budget: (128, 32_768),
        ..OPENAI
    },
    Family {
        id: "gemini-2.5-flash-lite",
        label: "Gemini 2.5 Flash-Lite",
        starts: &["gemini-2.5-flash-lite"],
        // Flash-Lite does not think unless given a budget.
        by_default: false,
        budget: (512, 24_576),
        ..OPENAI
    },
    Family {
        id: "gemini-2.5-flash",
        label: "Gemini 2.5 Flash",
        starts: &["gemini-2.5-flash"],
        budget: (0, 24_576),
        ..OPENAI
    },
    Family {
        id: "gemini-3-flash",
        label: "Gemini 3 Flash",
        starts: &["gemini-3-flash", "gemini-3.0-flash"],
        budget: (1, 32_768),
        levels: &["minimal", "low", "medium", "high"],
        ..OPENAI
    },
    Family {
        id: "gemini-3",
        label: "Gemini 3",
        starts: &["gemini-3"],
        budget: (1, 32_768),
        levels: &["low", "high"],
        ..OPENAI
    },
    Family {
        id: "deepseek-reasoner",
        label: "DeepSeek reasoner / R1 and its distills",
        starts: &["deepseek-reasoner", "deepseek-r1"],
        style: Style::OpenWeight,
        budget: (1, 65_536),
        opens_think_in_prompt: true,
        ..OPENAI
    },
    Family {
        id: "qwen3",
        label: "Qwen3 (thinking models)",
        starts: &["qwen3"],
        // The 2507 Instruct and the Coder models do not think.
        except: &["instruct", "coder"],
        style: Style::OpenWeight,
        budget: (1, 38_912),
        opens_think_in_prompt: true,
        ..OPENAI
    },
    Family {
        id: "qwq",
        label: "QwQ",
        starts: &["qwq"],
        style: Style::OpenWeight,
        budget: (1, 32_768),
        opens_think_in_prompt: true,
        ..OPENAI
    },
];

/// `model` as the table matches it: lower case, without `models/` or an
/// `org/` prefix (OpenRouter's `openai/o3`, Hugging Face's `Qwen/Qwen3-8B`).
fn bare_name(model: &str) -> String {
    let m = model.trim();
    let m = m.rsplit('/').next().unwrap_or(m);
    m.to_ascii_lowercase()
}

/// The family of `model`, if the table knows it.
pub fn family_of(model: &str) -> Option<&'static Family> {
    let name = bare_name(model);
    FAMILIES.iter().find(|f| {
        f.starts.iter().any(|s| name.starts_with(s)) && !f.except.iter().any(|x| name.contains(x))
    })
}

/// How a request asks a model to reason (None: the official request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thinking {
    pub family: Option<&'static Family>,
    /// The OpenAI format's form of the request.
    pub style: Style,
    /// Tokens for the thinking, beside the answer's budget.
    pub budget: u32,
    /// Sent where the API takes an effort (set by the user only).
    pub effort: Option<Effort>,
    /// Gemini 3's `thinkingLevel` (from the effort, when no budget is given).
    pub level: Option<&'static str>,
}

impl Thinking {
    /// Whether `model` at `provider` is asked as a reasoning model under
    /// `settings`, and how.
    pub fn resolve(
        provider: Provider,
        model: &str,
        settings: &ReasoningSettings,
    ) -> Option<Thinking> {
        let family = family_of(model);
        let on = match settings.mode {
            ReasoningMode::Off => false,
            ReasoningMode::On => true,
            // A budget or an effort given asks for reasoning too.
            ReasoningMode::Auto => {
                family.is_some_and(|f| f.by_default)
                    || settings.budget.is_some()
                    || settings.effort.is_some()
            }
        };
        if !on {
            return None;
        }
        let effort_budget = settings.effort.unwrap_or(DEFAULT_EFFORT).budget();
        let budget = settings.budget.unwrap_or_else(|| match family {
            Some(f) => effort_budget.clamp(f.budget.0, f.budget.1),
            None => effort_budget,
        });
        let level = match (provider, family, settings.budget, settings.effort) {
            (Provider::Google, Some(f), None, effort) if !f.levels.is_empty() => {
                Some(level_for(f.levels, effort.unwrap_or(DEFAULT_EFFORT)))
            }
            _ => None,
        };
        Some(Thinking {
            family,
            style: family.map_or(Style::OpenAi, |f| f.style),
            budget,
            effort: settings.effort,
            level,
        })
    }

    /// What a run records about it.
    pub fn params(&self) -> ThinkingParams {
        ThinkingParams {
            family: self.family.map(|f| f.id.to_string()),
            budget: self.budget,
            effort: self.effort,
            level: self.level.map(str::to_string),
        }
    }
}

/// The level of `levels` for `effort`: the same name, else the nearest
/// above it, else the highest.
fn level_for(levels: &'static [&'static str], effort: Effort) -> &'static str {
    let order = ["minimal", "low", "medium", "high"];
    let want = order.iter().position(|l| *l == effort.name()).unwrap_or(2);
    order[want..]
        .iter()
        .find_map(|l| levels.iter().find(|x| *x == l).copied())
        .or_else(|| levels.last().copied())
        .unwrap_or("high")
}

/// The reasoning part of a run's recorded parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThinkingParams {
    /// The table's family id, when the model is in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    pub budget: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
}

/// A reply's content with an inline thinking block taken out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// What follows the thinking (the content itself when there was none).
    pub answer: String,
    /// The thinking, when the content held one.
    pub reasoning: Option<String>,
    /// A `<think>` opened and never closed: no answer (the budget ran out,
    /// or the model stopped while thinking).
    pub unfinished: bool,
}

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// Take an inline `<think>…</think>` out of `content`: one that opens the
/// content (after white space), or, when `opened_in_prompt` (the chat
/// template opened it, as DeepSeek-R1's and Qwen3's do), thinking that runs
/// up to a first `</think>` with no `<think>` before it. The answer is what
/// follows, without the white space that parts it from the thinking.
pub fn split_inline(content: &str, opened_in_prompt: bool) -> Split {
    let lead = content.trim_start();
    let body = if let Some(rest) = lead.strip_prefix(OPEN) {
        rest
    } else if opened_in_prompt && content.find(CLOSE).is_some_and(|c| !content[..c].contains(OPEN))
    {
        content
    } else {
        return Split { answer: content.to_string(), ..Split::default() };
    };
    match body.find(CLOSE) {
        Some(c) => Split {
            answer: body[c + CLOSE.len()..].trim_start().to_string(),
            reasoning: Some(body[..c].trim().to_string()),
            unfinished: false,
        },
        None => Split {
            answer: String::new(),
            reasoning: Some(body.trim().to_string()),
            unfinished: true,
        },
    }
}

/// A finish reason saying the reply ended at the token limit (OpenAI
/// `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`).
pub fn is_cut(finish_reason: Option<&str>) -> bool {
    matches!(finish_reason, Some("length" | "max_tokens" | "MAX_TOKENS"))
}

/// What a reply without an answer says about why, for [`no_answer_reason`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Empty<'a> {
    pub finish_reason: Option<&'a str>,
    /// The reply showed thinking (text, a token count, an open `<think>`).
    pub thought: bool,
    pub reasoning_tokens: Option<u64>,
    pub unfinished_think: bool,
}

/// Where a front lets a user change a setting: the CLI's flag or the
/// page's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    Cli,
    Page,
}

impl Front {
    fn budget(self) -> &'static str {
        match self {
            Front::Cli => "--reasoning-budget",
            Front::Page => "the thinking budget",
        }
    }
    fn answer_budget(self) -> &'static str {
        match self {
            Front::Cli => "--max-new-tokens",
            Front::Page => "max new tokens",
        }
    }
    /// The setting that asks a model as a reasoning model.
    pub fn turn_on(self) -> &'static str {
        match self {
            Front::Cli => "--reasoning on",
            Front::Page => "Reasoning: on",
        }
    }
    /// The setting that sends upstream's request.
    pub fn turn_off(self) -> &'static str {
        match self {
            Front::Cli => "--reasoning off",
            Front::Page => "Reasoning: off",
        }
    }
    /// What to raise for a reply cut before it was whole: the answer's
    /// budget, and the thinking budget when the model thinks.
    pub fn raise_output(self, thinking: bool) -> String {
        if thinking {
            format!("{} or {}", self.answer_budget(), self.budget())
        } else {
            self.answer_budget().to_string()
        }
    }
}

/// Why a reply with no answer is a failed task, with what to raise, or
/// None when an empty answer is a real one (the model stopped of itself
/// without thinking, stored empty as upstream stores it).
/// `thinking`: how the request asked (None: the official request);
/// `answer_budget`: the answer's tokens (`--max-new-tokens`).
pub fn no_answer_reason(
    empty: Empty<'_>,
    thinking: Option<&Thinking>,
    answer_budget: u32,
    front: Front,
) -> Option<String> {
    let cut = is_cut(empty.finish_reason);
    if !cut && !empty.unfinished_think {
        return None;
    }
    let used = empty
        .reasoning_tokens
        .map(|n| format!("{} thinking tokens", group(n)))
        .unwrap_or_else(|| "its thinking".to_string());
    let fr = empty.finish_reason.unwrap_or("none");
    Some(match (cut, thinking) {
        (true, Some(t)) => format!(
            "cut at the token limit before any answer (finish reason {fr:?}): {used} filled the {} tokens allowed (a thinking budget of {} + {} for the answer); raise {} and ask it again",
            group(u64::from(t.budget) + u64::from(answer_budget)),
            group(u64::from(t.budget)),
            group(u64::from(answer_budget)),
            front.budget(),
        ),
        (true, None) if empty.thought => format!(
            "cut at the token limit before any answer (finish reason {fr:?}): the model reasons, and {used} filled the {} tokens meant for the answer; ask it as a reasoning model ({}, with a thinking budget of its own) and ask it again",
            group(u64::from(answer_budget)),
            front.turn_on(),
        ),
        (true, None) => format!(
            "cut at the token limit before any answer (finish reason {fr:?}, {} tokens allowed); raise {} and ask it again",
            group(u64::from(answer_budget)),
            front.answer_budget(),
        ),
        (false, _) => format!(
            "the reply is all thinking: its <think> block never closed (finish reason {fr:?}), so there is no answer; ask it again (raise {} if it keeps stopping there)",
            front.budget()
        ),
    })
}

/// A 400 refusing a parameter of the request (OpenAI's
/// `unsupported_parameter` / `unsupported_value`): every request would be
/// refused alike.
pub fn is_refused_parameter(body: &str) -> bool {
    ["unsupported_parameter", "unsupported_value", "Unsupported parameter", "Unsupported value"]
        .iter()
        .any(|p| body.contains(p))
}

/// What to do about a refused parameter: a model asked the official way
/// that refuses it is most likely a reasoning model.
pub fn refused_parameter_advice(thinking_on: bool, front: Front) -> String {
    if thinking_on {
        format!(
            "the server refuses a parameter of the reasoning request; {} sends upstream's request instead",
            front.turn_off()
        )
    } else {
        format!(
            "reasoning models refuse the official request's max_tokens and temperature: ask it as one ({})",
            front.turn_on()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_knows_todays_families_and_leaves_others_alone() {
        let id = |m: &str| family_of(m).map(|f| f.id);
        assert_eq!(id("o3"), Some("openai-o"));
        assert_eq!(id("o4-mini-2025-04-16"), Some("openai-o"));
        assert_eq!(id("openai/o3-mini"), Some("openai-o"));
        assert_eq!(id("gpt-5-mini"), Some("gpt-5"));
        assert_eq!(id("gpt-5.1"), Some("gpt-5"));
        assert_eq!(id("gpt-5-chat-latest"), None);
        assert_eq!(id("gpt-4o"), None);
        assert_eq!(id("models/gemini-2.5-pro"), Some("gemini-2.5-pro"));
        assert_eq!(id("gemini-2.5-flash"), Some("gemini-2.5-flash"));
        assert_eq!(id("gemini-2.5-flash-lite"), Some("gemini-2.5-flash-lite"));
        assert_eq!(id("gemini-3-pro-preview"), Some("gemini-3"));
        assert_eq!(id("gemini-1.5-flash"), None);
        assert_eq!(id("deepseek-reasoner"), Some("deepseek-reasoner"));
        assert_eq!(id("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"), Some("deepseek-reasoner"));
        assert_eq!(id("deepseek-chat"), None);
        assert_eq!(id("Qwen/Qwen3-8B"), Some("qwen3"));
        assert_eq!(id("qwen3:8b"), Some("qwen3"));
        assert_eq!(id("Qwen3-235B-A22B-Instruct-2507"), None);
        assert_eq!(id("Qwen3-Coder-30B-A3B-Instruct"), None);
        assert_eq!(id("claude-sonnet-4-5"), Some("claude"));
        assert_eq!(id("claude-3-5-sonnet-latest"), None);
        assert_eq!(id("Qwen/CodeQwen1.5-7B-Chat"), None);
    }

    fn settings(mode: ReasoningMode) -> ReasoningSettings {
        ReasoningSettings { mode, ..ReasoningSettings::default() }
    }

    #[test]
    fn auto_follows_the_table_and_the_flags_override_it() {
        let auto = settings(ReasoningMode::Auto);
        assert_eq!(Thinking::resolve(Provider::OpenAi, "gpt-4o", &auto), None);
        let t = Thinking::resolve(Provider::OpenAi, "o3", &auto).unwrap();
        assert_eq!((t.style, t.budget, t.effort), (Style::OpenAi, 16_384, None));
        // Claude thinks only when asked.
        assert_eq!(Thinking::resolve(Provider::Anthropic, "claude-sonnet-4-5", &auto), None);
        let on = settings(ReasoningMode::On);
        let t = Thinking::resolve(Provider::Anthropic, "claude-sonnet-4-5", &on).unwrap();
        assert_eq!(t.budget, 16_384);
        assert_eq!(Thinking::resolve(Provider::OpenAi, "o3", &settings(ReasoningMode::Off)), None);
        // An unknown model asked on: OpenAI's form.
        let t = Thinking::resolve(Provider::OpenAi, "my-finetune", &on).unwrap();
        assert_eq!((t.family, t.style), (None, Style::OpenAi));
        // An effort or a budget asks for reasoning; the effort's budget
        // stays in the family's range, a budget given is sent as given.
        let s = ReasoningSettings { effort: Some(Effort::High), ..auto.clone() };
        let t = Thinking::resolve(Provider::Google, "gemini-2.5-flash", &s).unwrap();
        assert_eq!(t.budget, 24_576);
        let s = ReasoningSettings { budget: Some(50_000), ..auto.clone() };
        assert_eq!(
            Thinking::resolve(Provider::Google, "gemini-2.5-flash", &s).unwrap().budget,
            50_000
        );
        let s = ReasoningSettings { effort: Some(Effort::Low), ..auto.clone() };
        let t = Thinking::resolve(Provider::Anthropic, "claude-opus-4-1", &s).unwrap();
        assert_eq!((t.budget, t.effort), (4_096, Some(Effort::Low)));
        // Gemini 3 takes a level unless a budget is given.
        let t = Thinking::resolve(Provider::Google, "gemini-3-pro-preview", &auto).unwrap();
        assert_eq!(t.level, Some("high"));
        let s = ReasoningSettings { effort: Some(Effort::Low), ..auto.clone() };
        assert_eq!(
            Thinking::resolve(Provider::Google, "gemini-3-pro", &s).unwrap().level,
            Some("low")
        );
        let s = ReasoningSettings { effort: Some(Effort::Medium), ..auto.clone() };
        assert_eq!(
            Thinking::resolve(Provider::Google, "gemini-3-flash", &s).unwrap().level,
            Some("medium")
        );
        let s = ReasoningSettings { budget: Some(2_000), ..auto };
        assert_eq!(Thinking::resolve(Provider::Google, "gemini-3-pro", &s).unwrap().level, None);
    }

    #[test]
    fn inline_thinking_is_taken_out() {
        let s = split_inline(
            "<think>\nweigh ```def g(): pass```\n</think>\n\n```python\ndef f(): pass\n```",
            false,
        );
        assert_eq!(s.answer, "```python\ndef f(): pass\n```");
        assert_eq!(s.reasoning.as_deref(), Some("weigh ```def g(): pass```"));
        assert!(!s.unfinished);
        let s = split_inline("  <think>still thinking about", false);
        assert_eq!((s.answer.as_str(), s.unfinished), ("", true));
        // Opened in the prompt (R1 distills): only the closing tag.
        let s = split_inline("so the answer is f\n</think>\n\nHere: f", true);
        assert_eq!(
            (s.answer.as_str(), s.reasoning.as_deref()),
            ("Here: f", Some("so the answer is f"))
        );
        // …which a model not known to do so is not read for.
        let plain = "code mentioning </think> in a string";
        assert_eq!(split_inline(plain, false).answer, plain);
        assert_eq!(
            split_inline("no thinking", true),
            Split { answer: "no thinking".into(), ..Split::default() }
        );
        // A <think> later in the answer is the answer's.
        let later = "```python\ns = '<think>'\n```";
        assert_eq!(split_inline(later, true).answer, later);
    }

    #[test]
    fn a_reply_without_an_answer_says_what_to_raise() {
        let o3 = Thinking::resolve(Provider::OpenAi, "o3", &settings(ReasoningMode::Auto));
        let cut = Empty {
            finish_reason: Some("length"),
            thought: true,
            reasoning_tokens: Some(17_408),
            unfinished_think: false,
        };
        let r = no_answer_reason(cut, o3.as_ref(), 1024, Front::Cli).unwrap();
        assert_eq!(r, "cut at the token limit before any answer (finish reason \"length\"): 17,408 thinking tokens filled the 17,408 tokens allowed (a thinking budget of 16,384 + 1,024 for the answer); raise --reasoning-budget and ask it again");
        let gemini = Empty {
            finish_reason: Some("MAX_TOKENS"),
            thought: true,
            reasoning_tokens: Some(1_000),
            unfinished_think: false,
        };
        let r = no_answer_reason(gemini, None, 1024, Front::Page).unwrap();
        assert!(r.contains("the model reasons, and 1,000 thinking tokens filled the 1,024 tokens meant for the answer; ask it as a reasoning model (Reasoning: on"), "{r}");
        let plain = Empty { finish_reason: Some("max_tokens"), ..Empty::default() };
        assert!(no_answer_reason(plain, None, 1024, Front::Cli)
            .unwrap()
            .contains("raise --max-new-tokens"));
        let open =
            Empty { finish_reason: Some("stop"), unfinished_think: true, ..Empty::default() };
        assert!(no_answer_reason(open, None, 1024, Front::Cli)
            .unwrap()
            .starts_with("the reply is all thinking"));
        assert_eq!(
            no_answer_reason(
                Empty { finish_reason: Some("stop"), ..Empty::default() },
                None,
                1024,
                Front::Cli
            ),
            None
        );
    }
}
