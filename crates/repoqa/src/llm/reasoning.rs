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

use super::progress::thousands as group;
use super::provider::Provider;

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

/// `--reasoning-effort`: how hard the model thinks, on one scale that
/// [`Thinking::resolve`] maps onto each provider's own control: OpenAI's
/// `reasoning_effort` (sent by name), Gemini 3's `thinkingLevel` (the same
/// name), and a token budget where the API takes one (Anthropic's
/// `budget_tokens`, Gemini 2.5's `thinkingBudget`, an open-weight
/// thinker's raised `max_tokens`; [`Effort::budget`]). Which values a
/// model takes is the family table's ([`Family::efforts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Effort {
    /// No thinking (GPT-5.1 and later, where it is the default; thinking
    /// turned off where a budget API allows it).
    None,
    /// GPT-5's and Gemini 3 Flash's lowest level.
    Minimal,
    Low,
    Medium,
    High,
    /// The newest OpenAI models' highest level.
    Xhigh,
}

/// Every effort, lowest first.
pub const EFFORTS: &[Effort] = <Effort as strum::VariantArray>::VARIANTS;

/// Every effort that thinks.
const THINKING: &[Effort] =
    &[Effort::Minimal, Effort::Low, Effort::Medium, Effort::High, Effort::Xhigh];

impl Effort {
    /// The thinking budget an effort stands for where the API takes a
    /// number of tokens (Anthropic, Gemini 2.5, open-weight thinkers) and
    /// where the request needs room for the thinking (OpenAI's
    /// `max_completion_tokens`, Gemini 3's `maxOutputTokens`): within each
    /// family's documented range ([`Family::budget`]); `none` is 0.
    pub fn budget(self) -> u32 {
        match self {
            Effort::None => 0,
            Effort::Minimal => 1_024,
            Effort::Low => 4_096,
            Effort::Medium => 16_384,
            Effort::High => 32_768,
            Effort::Xhigh => 65_536,
        }
    }

    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// `a, b, c` of the efforts' names.
pub fn names(efforts: &[Effort]) -> String {
    efforts.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")
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

/// How a family's effort reaches the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Control {
    /// By name: OpenAI's `reasoning_effort` (on the OpenAI format; on
    /// Google's own API a Gemini 3 `thinkingLevel`).
    Named,
    /// As a token budget only ([`Effort::budget`]): Anthropic's
    /// `budget_tokens`, Gemini 2.5's `thinkingBudget`, an open-weight
    /// thinker's `max_tokens` (whose servers refuse unknown efforts).
    Budget,
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
    /// The efforts it takes, lowest first: the provider's documented
    /// `reasoning_effort` or `thinkingLevel` values where it takes a name;
    /// where it takes a budget, every effort with one in its range (and
    /// `none` where thinking can be turned off). Any other is refused
    /// before a request is sent.
    pub efforts: &'static [Effort],
    /// How its effort is sent.
    pub control: Control,
    /// Gemini 3: its efforts are `thinkingLevel`s on Google's API.
    pub levels: bool,
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
    efforts: &[Effort::Low, Effort::Medium, Effort::High],
    control: Control::Named,
    levels: false,
    opens_think_in_prompt: false,
};

/// A family whose effort is a budget: every effort that thinks.
const BUDGETED: Family = Family { efforts: THINKING, control: Control::Budget, ..OPENAI };

/// A family whose effort is a budget and whose thinking can be turned off.
const BUDGETED_OR_OFF: Family = Family { efforts: EFFORTS, ..BUDGETED };

/// An open-weight thinker served on the OpenAI format: `max_tokens` holds
/// the thinking and the answer; it always thinks.
const OPEN_WEIGHT: Family =
    Family { style: Style::OpenWeight, opens_think_in_prompt: true, ..BUDGETED };

/// Known reasoning families, checked on [`TABLE_CHECKED`] against
/// platform.openai.com/docs/guides/reasoning and the API reference's
/// `reasoning_effort`, docs.anthropic.com (extended thinking),
/// ai.google.dev/gemini-api/docs/thinking, api-docs.deepseek.com and
/// docs.vllm.ai (reasoning outputs). The first match wins (so Flash-Lite
/// comes before Flash, GPT-5.1 before GPT-5).
pub const FAMILIES: &[Family] = &[
    OPENAI,
    Family {
        id: "gpt-5-pro",
        label: "OpenAI GPT-5 pro",
        starts: &["gpt-5-pro", "gpt-5.1-pro"],
        efforts: &[Effort::High],
        ..OPENAI
    },
    Family {
        id: "gpt-5.1-codex-max",
        label: "OpenAI GPT-5.1-Codex-Max",
        starts: &["gpt-5.1-codex-max"],
        efforts: &[Effort::Low, Effort::Medium, Effort::High, Effort::Xhigh],
        ..OPENAI
    },
    Family {
        id: "gpt-5.1",
        label: "OpenAI GPT-5.1",
        starts: &["gpt-5.1"],
        except: &["-chat"],
        efforts: &[Effort::None, Effort::Low, Effort::Medium, Effort::High],
        ..OPENAI
    },
    Family {
        id: "gpt-5.2",
        label: "OpenAI GPT-5.2 and later",
        starts: &["gpt-5."],
        except: &["-chat"],
        efforts: &[Effort::None, Effort::Low, Effort::Medium, Effort::High, Effort::Xhigh],
        ..OPENAI
    },
    Family {
        id: "gpt-5",
        label: "OpenAI GPT-5",
        starts: &["gpt-5"],
        except: &["-chat"],
        efforts: &[Effort::Minimal, Effort::Low, Effort::Medium, Effort::High],
        ..OPENAI
    },
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
        ..BUDGETED_OR_OFF
    },
    Family {
        id: "gemini-2.5-pro",
        label: "Gemini 2.5 Pro",
        starts: &["gemini-2.5-pro"],
        // Its thinking cannot be turned off.
        budget: (128, 32_768),
        ..BUDGETED
    },
    Family {
        id: "gemini-2.5-flash-lite",
        label: "Gemini 2.5 Flash-Lite",
        starts: &["gemini-2.5-flash-lite"],
        // Flash-Lite does not think unless given a budget.
        by_default: false,
        budget: (512, 24_576),
        ..BUDGETED_OR_OFF
    },
    Family {
        id: "gemini-2.5-flash",
        label: "Gemini 2.5 Flash",
        starts: &["gemini-2.5-flash"],
        budget: (0, 24_576),
        ..BUDGETED_OR_OFF
    },
    Family {
        id: "gemini-3-flash",
        label: "Gemini 3 Flash",
        starts: &["gemini-3-flash", "gemini-3.0-flash"],
        budget: (1, 32_768),
        efforts: &[Effort::Minimal, Effort::Low, Effort::Medium, Effort::High],
        levels: true,
        ..OPENAI
    },
    Family {
        id: "gemini-3",
        label: "Gemini 3",
        starts: &["gemini-3"],
        budget: (1, 32_768),
        efforts: &[Effort::Low, Effort::High],
        levels: true,
        ..OPENAI
    },
    Family {
        id: "deepseek-reasoner",
        label: "DeepSeek reasoner / R1 and its distills",
        starts: &["deepseek-reasoner", "deepseek-r1"],
        budget: (1, 65_536),
        ..OPEN_WEIGHT
    },
    Family {
        id: "qwen3",
        label: "Qwen3 (thinking models)",
        starts: &["qwen3"],
        // The 2507 Instruct and the Coder models do not think.
        except: &["instruct", "coder"],
        budget: (1, 38_912),
        ..OPEN_WEIGHT
    },
    Family { id: "qwq", label: "QwQ", starts: &["qwq"], budget: (1, 32_768), ..OPEN_WEIGHT },
];

impl Family {
    /// OpenAI's own reasoning models (o-series, GPT-5 and later), which
    /// refuse the official request's `max_tokens` and temperature 0.
    pub fn refuses_official_request(&self) -> bool {
        self.id == "openai-o" || self.id.starts_with("gpt-5")
    }
}

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
    /// The API asked.
    pub provider: Provider,
    pub family: Option<&'static Family>,
    /// The OpenAI format's form of the request.
    pub style: Style,
    /// Tokens for the thinking, beside the answer's budget (0: none).
    pub budget: u32,
    /// Set by the user only.
    pub effort: Option<Effort>,
    /// Gemini 3's `thinkingLevel` on Google's API (from the effort, when no
    /// budget is given).
    pub level: Option<&'static str>,
}

impl Thinking {
    /// Whether `model` at `provider` is asked as a reasoning model under
    /// `settings`, and how. An effort the family does not take is refused
    /// earlier, by [`check_effort`].
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
        let level = match (provider, family, settings.budget) {
            (Provider::Google, Some(f), None) if f.levels => {
                Some(settings.effort.unwrap_or_else(|| nearest(f.efforts, DEFAULT_EFFORT)))
            }
            _ => None,
        };
        // The effort whose budget gives the thinking room: the one asked,
        // else Gemini 3's default level, else the default effort.
        let effort = settings.effort.or(level).unwrap_or(DEFAULT_EFFORT);
        let budget = settings.budget.unwrap_or_else(|| match (effort, family) {
            (Effort::None, _) => 0,
            (_, Some(f)) => effort.budget().clamp(f.budget.0, f.budget.1),
            (_, None) => effort.budget(),
        });
        Some(Thinking {
            provider,
            family,
            style: family.map_or(Style::OpenAi, |f| f.style),
            budget,
            effort: settings.effort,
            level: level.map(Effort::name),
        })
    }

    /// Thinking asked to stay off (effort `none`): OpenAI's
    /// `reasoning_effort: "none"`, Anthropic's `thinking: disabled`,
    /// Gemini 2.5's `thinkingBudget: 0`.
    pub fn off(&self) -> bool {
        self.effort == Some(Effort::None)
    }

    /// The effort sent by name as OpenAI's `reasoning_effort` (on the
    /// OpenAI format, to a model that takes one by name or to OpenAI's
    /// own form; never to an open-weight thinker whose effort is a budget).
    pub fn sent_effort(&self) -> Option<Effort> {
        let named =
            self.family.is_none_or(|f| f.control == Control::Named || f.style == Style::OpenAi);
        (self.provider == Provider::OpenAi && named).then_some(self.effort).flatten()
    }

    /// The provider's own control as the request sets it, for the run's
    /// record and the fronts' summary.
    pub fn control(&self) -> String {
        match (self.provider, self.level, self.sent_effort()) {
            (Provider::Google, Some(level), _) => format!("thinkingLevel={level}"),
            (Provider::Google, None, _) => format!("thinkingBudget={}", self.budget),
            (Provider::Anthropic, _, _) if self.off() => "thinking disabled".to_string(),
            (Provider::Anthropic, _, _) => format!("thinking.budget_tokens={}", self.budget),
            (Provider::OpenAi, _, Some(e)) => format!("reasoning_effort={e}"),
            (Provider::OpenAi, _, None) if self.style == Style::OpenAi => {
                format!("max_completion_tokens raised by {}", self.budget)
            }
            (Provider::OpenAi, _, None) => format!("max_tokens raised by {}", self.budget),
        }
    }

    /// Where its budget comes from, for the plan's lines (`given`: the
    /// budget the user gave): that budget, the effort's (each effort
    /// stands for a budget, [`Effort::budget`], kept in the family's
    /// range), Gemini 3's level's, or the default effort's.
    pub fn basis(&self, given: Option<u32>) -> String {
        match (given, self.effort, self.level) {
            (Some(_), _, _) => "the thinking budget given".to_string(),
            (None, Some(Effort::None), _) => "effort none: no thinking".to_string(),
            (None, Some(e), _) => format!("effort {e}, sent as {}", self.control()),
            (None, None, Some(level)) => {
                format!("thinking level {level}'s room, the model's default")
            }
            (None, None, None) => format!("the default effort {DEFAULT_EFFORT}'s budget"),
        }
    }

    /// What a run records about it.
    pub fn params(&self) -> ThinkingParams {
        ThinkingParams {
            family: self.family.map(|f| f.id.to_string()),
            budget: self.budget,
            effort: self.effort,
            level: self.level.map(str::to_string),
            control: Some(self.control()),
        }
    }
}

/// `want` if `efforts` holds it, else the nearest above it, else the
/// highest.
fn nearest(efforts: &[Effort], want: Effort) -> Effort {
    efforts.iter().copied().find(|e| *e >= want).or(efforts.last().copied()).unwrap_or(want)
}

/// The efforts `model` takes: its family's, or every one for a model the
/// table does not know (sent as given).
pub fn efforts_of(model: &str) -> &'static [Effort] {
    family_of(model).map_or(EFFORTS, |f| f.efforts)
}

/// Which of the provider's own controls the effort and the thinking
/// budget set for `model` at `provider`, in a sentence for the fronts.
pub fn controls(provider: Provider, model: &str) -> String {
    let family = family_of(model);
    match (provider, family) {
        (Provider::Google, Some(f)) if f.levels => format!(
            "{}: the effort is sent as thinkingLevel; a thinking budget, if given, is sent as thinkingBudget instead",
            f.label
        ),
        (Provider::Google, _) => {
            "Gemini: the effort picks thinkingBudget (none: 0, where thinking can be turned off); a thinking budget is sent as thinkingBudget".to_string()
        }
        (Provider::Anthropic, _) => {
            "Anthropic: the effort picks thinking.budget_tokens (none: thinking disabled); a thinking budget is sent as budget_tokens".to_string()
        }
        (Provider::OpenAi, Some(f)) if f.style == Style::OpenWeight && f.control == Control::Budget => format!(
            "{}: its servers take no effort, so the effort and the thinking budget raise max_tokens",
            f.label
        ),
        (Provider::OpenAi, _) => {
            "OpenAI-compatible: the effort is sent as reasoning_effort; the thinking budget is the room for the thinking in the output limit".to_string()
        }
    }
}

/// Whether `settings` asks `model` for an effort it takes. A value the
/// table of models says it does not take is refused before any request,
/// naming the values it takes, rather than sent to fail with a 400 per
/// task.
pub fn check_effort(model: &str, settings: &ReasoningSettings, front: Front) -> Result<(), String> {
    let Some(effort) = settings.effort.filter(|_| settings.mode != ReasoningMode::Off) else {
        return Ok(());
    };
    if let (Effort::None, Some(b @ 1..)) = (effort, settings.budget) {
        return Err(format!(
            "{} none asks for no thinking and {} {} for some: give one of them",
            front.effort(),
            front.budget(),
            group(u64::from(b))
        ));
    }
    match family_of(model) {
        Some(f) if !f.efforts.contains(&effort) => Err(format!(
            "{} {effort}: {} ({}) does not take it; it takes {} (this app's list of models, checked {TABLE_CHECKED})",
            front.effort(),
            f.label,
            model.trim(),
            names(f.efforts)
        )),
        _ => Ok(()),
    }
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
    /// The provider's own control as the request set it
    /// ([`Thinking::control`]); absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
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
    /// The setting that picks the effort.
    pub fn effort(self) -> &'static str {
        match self {
            Front::Cli => "--reasoning-effort",
            Front::Page => "Effort",
        }
    }
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
            "the server refuses a parameter of the reasoning request; {} sends RepoQA's own request instead",
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
        assert_eq!(id("gpt-5.1"), Some("gpt-5.1"));
        assert_eq!(id("gpt-5.1-codex-max"), Some("gpt-5.1-codex-max"));
        assert_eq!(id("gpt-5.2"), Some("gpt-5.2"));
        assert_eq!(id("openai/gpt-5.2-2025-12-11"), Some("gpt-5.2"));
        assert_eq!(id("gpt-5-pro"), Some("gpt-5-pro"));
        assert_eq!(id("gpt-5-nano"), Some("gpt-5"));
        assert_eq!(id("gpt-5.1-chat-latest"), None);
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
    fn each_effort_maps_onto_the_provider_s_own_control() {
        let with = |effort| ReasoningSettings { effort: Some(effort), ..Default::default() };
        let t = |p, m: &str, e| Thinking::resolve(p, m, &with(e)).unwrap();
        // OpenAI: the name as reasoning_effort, the budget as room.
        let g = t(Provider::OpenAi, "gpt-5", Effort::Minimal);
        assert_eq!((g.sent_effort(), g.budget), (Some(Effort::Minimal), 1_024));
        assert_eq!(g.control(), "reasoning_effort=minimal");
        let g = t(Provider::OpenAi, "gpt-5.2", Effort::Xhigh);
        assert_eq!(
            (g.budget, g.params().control.as_deref()),
            (65_536, Some("reasoning_effort=xhigh"))
        );
        let g = t(Provider::OpenAi, "gpt-5.1", Effort::None);
        assert_eq!((g.off(), g.budget, g.control().as_str()), (true, 0, "reasoning_effort=none"));
        // Gemini 3 on Google's API: the name as thinkingLevel, its budget as room.
        let g = t(Provider::Google, "gemini-3-flash-preview", Effort::Minimal);
        assert_eq!(
            (g.level, g.budget, g.control().as_str()),
            (Some("minimal"), 1_024, "thinkingLevel=minimal")
        );
        let g = Thinking::resolve(Provider::Google, "gemini-3-pro-preview", &Default::default())
            .unwrap();
        assert_eq!((g.level, g.budget), (Some("high"), 32_768), "Gemini 3's default: high");
        // …and on the OpenAI format (OpenRouter, Google's compatible API), reasoning_effort.
        let g = t(Provider::OpenAi, "google/gemini-3-pro-preview", Effort::Low);
        assert_eq!((g.level, g.control().as_str()), (None, "reasoning_effort=low"));
        // Budgets: Anthropic and Gemini 2.5 in their ranges, off where it can be.
        let c = t(Provider::Anthropic, "claude-sonnet-4-5", Effort::Xhigh);
        assert_eq!((c.budget, c.control().as_str()), (64_000, "thinking.budget_tokens=64000"));
        let c = t(Provider::Anthropic, "claude-sonnet-4-5", Effort::None);
        assert_eq!((c.off(), c.control().as_str()), (true, "thinking disabled"));
        let g = t(Provider::Google, "gemini-2.5-flash", Effort::None);
        assert_eq!((g.budget, g.control().as_str()), (0, "thinkingBudget=0"));
        let g = t(Provider::Google, "gemini-2.5-pro", Effort::Minimal);
        assert_eq!(g.budget, 1_024);
        let g = t(Provider::Google, "gemini-2.5-flash-lite", Effort::Minimal);
        assert_eq!(g.budget, 1_024);
        // An open-weight thinker: a budget only, no reasoning_effort its server would refuse.
        let q = t(Provider::OpenAi, "Qwen/Qwen3-8B", Effort::Minimal);
        assert_eq!((q.sent_effort(), q.control().as_str()), (None, "max_tokens raised by 1024"));
        let o = t(Provider::OpenAi, "gpt-oss-120b", Effort::Low);
        assert_eq!(o.sent_effort(), Some(Effort::Low));
    }

    #[test]
    fn an_effort_a_model_does_not_take_is_refused_naming_those_it_takes() {
        let with = |effort| ReasoningSettings { effort: Some(effort), ..Default::default() };
        let check = |m: &str, e| check_effort(m, &with(e), Front::Cli);
        assert_eq!(
            check("gpt-5-mini", Effort::None).unwrap_err(),
            "--reasoning-effort none: OpenAI GPT-5 (gpt-5-mini) does not take it; it takes minimal, low, medium, high (this app's list of models, checked 2026-11-27)"
        );
        assert!(check("gpt-5-mini", Effort::Minimal).is_ok());
        assert!(check("gpt-5.1", Effort::Minimal)
            .unwrap_err()
            .contains("it takes none, low, medium, high"));
        assert!(check("gpt-5.1", Effort::Xhigh).is_err());
        assert!(check("gpt-5.2", Effort::Xhigh).is_ok() && check("gpt-5.2", Effort::None).is_ok());
        assert!(check("o3", Effort::Minimal).unwrap_err().contains("it takes low, medium, high"));
        assert!(check("gpt-5-pro", Effort::Medium).unwrap_err().contains("it takes high ("));
        assert!(check("gemini-3-pro-preview", Effort::Medium)
            .unwrap_err()
            .contains("Gemini 3 (gemini-3-pro-preview) does not take it; it takes low, high"));
        assert!(check("gemini-3-flash", Effort::Minimal).is_ok());
        assert!(check("gemini-2.5-pro", Effort::None)
            .unwrap_err()
            .contains("it takes minimal, low, medium, high, xhigh"));
        assert!(
            check("gemini-2.5-flash", Effort::None).is_ok()
                && check("claude-opus-4-1", Effort::None).is_ok()
        );
        assert!(check("deepseek-reasoner", Effort::None).is_err());
        // A model the table does not know takes any value, sent as given.
        assert!(EFFORTS.iter().all(|e| check("my-finetune", *e).is_ok()));
        assert_eq!(efforts_of("my-finetune"), EFFORTS);
        // --reasoning off sends none of it; none with a budget is a contradiction.
        let off = ReasoningSettings { mode: ReasoningMode::Off, ..with(Effort::Xhigh) };
        assert!(check_effort("gpt-5", &off, Front::Cli).is_ok());
        let both = ReasoningSettings { budget: Some(2_048), ..with(Effort::None) };
        assert_eq!(
            check_effort("gpt-5.1", &both, Front::Page).unwrap_err(),
            "Effort none asks for no thinking and the thinking budget 2,048 for some: give one of them"
        );
        // Every family's efforts are in order and each has a budget inside its range.
        for f in FAMILIES {
            assert!(f.efforts.windows(2).all(|w| w[0] < w[1]), "{}", f.id);
            assert!(!f.efforts.is_empty(), "{}", f.id);
        }
    }

    #[test]
    fn each_api_s_controls_are_named() {
        assert!(controls(Provider::OpenAi, "gpt-5").contains("reasoning_effort"));
        assert!(controls(Provider::OpenAi, "Qwen/Qwen3-8B").contains("raise max_tokens"));
        assert!(controls(Provider::Google, "gemini-3-pro-preview")
            .starts_with("Gemini 3: the effort is sent as thinkingLevel"));
        assert!(controls(Provider::Google, "gemini-2.5-flash").contains("picks thinkingBudget"));
        assert!(controls(Provider::Anthropic, "claude-sonnet-4-5").contains("budget_tokens"));
    }

    #[test]
    fn openai_s_own_reasoning_models_refuse_the_official_request() {
        let refuses = |m: &str| family_of(m).is_some_and(|f| f.refuses_official_request());
        assert!(refuses("o3") && refuses("gpt-5") && refuses("gpt-5.2") && refuses("gpt-5-pro"));
        assert!(!refuses("gemini-2.5-pro") && !refuses("Qwen/Qwen3-8B") && !refuses("gpt-oss-20b"));
        assert!(!refuses("gpt-4o"));
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
