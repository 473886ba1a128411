//! A run's pre-flight plan: before a single request, what the run will send
//! and what that is likely to cost. The prompt tokens of every task (counted
//! with the benchmark's tokenizer on the exact prompt sent), the tasks that
//! do not fit the model's context window (from the server, or given), the
//! tokens in and at most out, the cost from a price table (estimates, dated,
//! editable) and the time from the observed latency or a rate limit. The CLI
//! (`repoqa run --plan`) and the Run page show the same text ([`RunPlan::lines`]).

use super::progress::duration_label;
pub use super::progress::thousands;
use super::run::RunItem;
use super::runlog::{RecordStatus, RunRecord};
use super::wire::{read_total_slots, Endpoint};
use crate::code::tokenize::{Tokenizer, TokenizerError};

/// One task to ask, with the tokens of its prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanTask {
    pub id: String,
    pub prompt_tokens: usize,
}

/// The prompt tokens of `items[i]` for each `i` of `todo`, in that order.
pub fn plan_tasks<T: RunItem>(
    items: &[T],
    todo: &[usize],
    tok: &Tokenizer,
) -> Result<Vec<PlanTask>, TokenizerError> {
    todo.iter()
        .map(|&i| {
            let t = &items[i];
            Ok(PlanTask { id: t.task_id(), prompt_tokens: tok.count(&t.prompt())? })
        })
        .collect()
}

/// US dollars per million tokens, with where the figures come from.
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    pub input_per_m: f64,
    pub output_per_m: f64,
    /// "list price of gpt-4o as published in December 2024", "given".
    pub source: String,
}

/// A list price: model names starting with `prefix` (the longest match
/// wins), standard (not batch) rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PricePreset {
    pub prefix: &'static str,
    pub input_per_m: f64,
    pub output_per_m: f64,
    /// When the price was read from the provider's pricing page.
    pub as_of: &'static str,
}

/// The span of dates the preset prices were read in (each preset carries
/// its own, [`PricePreset::as_of`]).
pub const PRICES_AS_OF: &str = "December 2024 to March 2026";

const DEC_2024: &str = "December 2024";
/// Anthropic's and Google's pages for their 2025 models.
const Y_2025: &str = "2025";
const MAR_2026: &str = "March 2026";

/// List prices (USD per million input / output tokens) as published by
/// OpenAI, Anthropic and Google, each dated: estimates, to be checked
/// against the provider's page before relying on them. A reasoning
/// model's thinking is billed as output.
pub const PRICE_PRESETS: &[PricePreset] = &[
    PricePreset { prefix: "gpt-4o-mini", input_per_m: 0.15, output_per_m: 0.60, as_of: DEC_2024 },
    PricePreset { prefix: "gpt-4o", input_per_m: 2.50, output_per_m: 10.00, as_of: DEC_2024 },
    PricePreset { prefix: "gpt-4-turbo", input_per_m: 10.00, output_per_m: 30.00, as_of: DEC_2024 },
    PricePreset { prefix: "gpt-4.1-nano", input_per_m: 0.10, output_per_m: 0.40, as_of: MAR_2026 },
    PricePreset { prefix: "gpt-4.1-mini", input_per_m: 0.40, output_per_m: 1.60, as_of: MAR_2026 },
    PricePreset { prefix: "gpt-4.1", input_per_m: 2.00, output_per_m: 8.00, as_of: MAR_2026 },
    PricePreset { prefix: "gpt-5-nano", input_per_m: 0.05, output_per_m: 0.40, as_of: MAR_2026 },
    PricePreset { prefix: "gpt-5-mini", input_per_m: 0.25, output_per_m: 2.00, as_of: MAR_2026 },
    PricePreset { prefix: "gpt-5", input_per_m: 1.25, output_per_m: 10.00, as_of: MAR_2026 },
    PricePreset { prefix: "o1-mini", input_per_m: 3.00, output_per_m: 12.00, as_of: DEC_2024 },
    PricePreset { prefix: "o1", input_per_m: 15.00, output_per_m: 60.00, as_of: DEC_2024 },
    PricePreset { prefix: "o3-mini", input_per_m: 1.10, output_per_m: 4.40, as_of: MAR_2026 },
    PricePreset { prefix: "o3", input_per_m: 2.00, output_per_m: 8.00, as_of: MAR_2026 },
    PricePreset { prefix: "o4-mini", input_per_m: 1.10, output_per_m: 4.40, as_of: MAR_2026 },
    PricePreset {
        prefix: "claude-3-5-sonnet",
        input_per_m: 3.00,
        output_per_m: 15.00,
        as_of: DEC_2024,
    },
    PricePreset {
        prefix: "claude-3-5-haiku",
        input_per_m: 0.80,
        output_per_m: 4.00,
        as_of: DEC_2024,
    },
    PricePreset {
        prefix: "claude-3-opus",
        input_per_m: 15.00,
        output_per_m: 75.00,
        as_of: DEC_2024,
    },
    PricePreset {
        prefix: "claude-3-haiku",
        input_per_m: 0.25,
        output_per_m: 1.25,
        as_of: DEC_2024,
    },
    PricePreset {
        prefix: "claude-3-7-sonnet",
        input_per_m: 3.00,
        output_per_m: 15.00,
        as_of: Y_2025,
    },
    PricePreset {
        prefix: "claude-sonnet-4",
        input_per_m: 3.00,
        output_per_m: 15.00,
        as_of: Y_2025,
    },
    PricePreset { prefix: "claude-opus-4", input_per_m: 15.00, output_per_m: 75.00, as_of: Y_2025 },
    PricePreset {
        prefix: "claude-opus-4-5",
        input_per_m: 5.00,
        output_per_m: 25.00,
        as_of: Y_2025,
    },
    PricePreset {
        prefix: "claude-haiku-4-5",
        input_per_m: 1.00,
        output_per_m: 5.00,
        as_of: Y_2025,
    },
    PricePreset {
        prefix: "gemini-1.5-pro",
        input_per_m: 1.25,
        output_per_m: 5.00,
        as_of: DEC_2024,
    },
    PricePreset {
        prefix: "gemini-1.5-flash",
        input_per_m: 0.075,
        output_per_m: 0.30,
        as_of: DEC_2024,
    },
    // Gemini 2.5 Pro: prompts up to 200k tokens (every RepoQA prompt).
    PricePreset { prefix: "gemini-2.5-pro", input_per_m: 1.25, output_per_m: 10.00, as_of: Y_2025 },
    PricePreset {
        prefix: "gemini-2.5-flash-lite",
        input_per_m: 0.10,
        output_per_m: 0.40,
        as_of: Y_2025,
    },
    PricePreset {
        prefix: "gemini-2.5-flash",
        input_per_m: 0.30,
        output_per_m: 2.50,
        as_of: Y_2025,
    },
];

/// The preset price of `model` (a `models/` prefix is read past), if any.
pub fn preset_price(model: &str) -> Option<Price> {
    let m = model.trim();
    let m = m.strip_prefix("models/").unwrap_or(m);
    PRICE_PRESETS.iter().filter(|p| m.starts_with(p.prefix)).max_by_key(|p| p.prefix.len()).map(
        |p| Price {
            input_per_m: p.input_per_m,
            output_per_m: p.output_per_m,
            source: format!(
                "list price of {} as published in {}; an estimate: check the provider's page",
                p.prefix, p.as_of
            ),
        },
    )
}

/// The model's context window, in tokens, and where it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub tokens: usize,
    pub source: String,
}

/// `default_generation_settings.n_ctx` of a llama.cpp `/props` reply: the
/// context window of each of its slots.
pub fn read_n_ctx(body: &str) -> Option<usize> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let n = v.get("default_generation_settings")?.get("n_ctx")?.as_u64()?;
    usize::try_from(n).ok().filter(|&n| n > 0)
}

/// The mean latency of the answered requests of `log` for `model`, in
/// milliseconds: the observed pace of this server.
pub fn observed_latency_ms(log: &[RunRecord], model: &str) -> Option<f64> {
    let lat: Vec<f64> = log
        .iter()
        .filter(|r| r.status == RecordStatus::Answered && r.model == model)
        .map(|r| r.latency_ms)
        .filter(|l| l.is_finite() && *l >= 0.0)
        .collect();
    (!lat.is_empty()).then(|| lat.iter().sum::<f64>() / lat.len() as f64)
}

/// What the plan is made with besides the tasks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanSettings {
    /// The answer's budget per task.
    pub max_new_tokens: u32,
    /// A reasoning model's thinking budget per task (0: not asked to
    /// think), counted apart in the tokens and the cost.
    pub thinking_budget: u32,
    /// Where the thinking budget comes from ("effort xhigh", "the budget
    /// given", …), None when the model is not asked to think.
    pub thinking_basis: Option<String>,
    /// The thinking tokens per answer the run log saw for this model
    /// (mean, answers counted), the real figure after a run.
    pub observed_thinking: Option<(f64, usize)>,
    pub window: Option<Window>,
    pub price: Option<Price>,
    pub concurrency: usize,
    /// Requests per minute the API allows.
    pub rate_limit_rpm: Option<f64>,
    /// Mean time per request, with where it comes from.
    pub latency: Option<(f64, String)>,
}

/// What the user gives (flags, the page's fields); the rest is read from
/// the server and the run log.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct PlanGiven {
    pub context_window: Option<usize>,
    /// USD per million input and output tokens.
    pub price_in: Option<f64>,
    pub price_out: Option<f64>,
    /// Requests per minute the API allows.
    pub rate_limit_rpm: Option<f64>,
}

impl PlanSettings {
    /// The settings of a plan for `endpoint` at `concurrency`: what is
    /// given wins; else the window and slots of a llama.cpp server's
    /// `/props` body (`props`), the dated list price of a known model, and
    /// the mean latency of the run log's answers for this model. A price
    /// needs both figures, each a dollar amount of 0 or more.
    pub fn new(
        endpoint: &Endpoint,
        concurrency: usize,
        given: &PlanGiven,
        props: Option<&str>,
        log: &[RunRecord],
    ) -> Result<PlanSettings, String> {
        let window = match given.context_window {
            Some(0) => return Err("the context window must be above 0 tokens".into()),
            Some(tokens) => Some(Window { tokens, source: "given".into() }),
            None => props
                .and_then(read_n_ctx)
                .map(|tokens| Window { tokens, source: "the server's /props n_ctx".into() }),
        };
        let concurrency = props
            .and_then(read_total_slots)
            .and_then(|s| endpoint.slots_limit(s, concurrency))
            .map_or(concurrency, |(c, _)| c);
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        let price = match (given.price_in, given.price_out) {
            (Some(i), Some(o)) if ok(i) && ok(o) => {
                Some(Price { input_per_m: i, output_per_m: o, source: "given".into() })
            }
            (None, None) => preset_price(&endpoint.model),
            _ => {
                return Err("give both prices (per million input and output tokens), each a dollar amount of 0 or more".into())
            }
        };
        let model = endpoint.model.trim();
        let latency = observed_latency_ms(log, model).map(|ms| {
            let n = log
                .iter()
                .filter(|r| r.status == RecordStatus::Answered && r.model == model)
                .count();
            (ms, format!("mean of the run log's {n} answer(s) from this model"))
        });
        let thinking: Vec<u64> = log
            .iter()
            .filter(|r| r.status == RecordStatus::Answered && r.model == model)
            .filter_map(|r| r.usage.reasoning_tokens)
            .collect();
        let observed_thinking = (!thinking.is_empty())
            .then(|| (thinking.iter().sum::<u64>() as f64 / thinking.len() as f64, thinking.len()));
        let asked = endpoint.thinking();
        Ok(PlanSettings {
            max_new_tokens: endpoint.sampling.max_tokens.unwrap_or(0),
            thinking_budget: asked.map_or(0, |t| t.budget),
            thinking_basis: asked.map(|t| t.basis(endpoint.reasoning.budget)),
            observed_thinking,
            window,
            price,
            concurrency,
            rate_limit_rpm: given.rate_limit_rpm.filter(|r| r.is_finite() && *r > 0.0),
            latency,
        })
    }
}

/// The plan of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPlan {
    pub tasks: usize,
    pub prompt_tokens: u64,
    /// Completion tokens at most: tasks × (max new tokens + the thinking
    /// budget).
    pub max_output_tokens: u64,
    /// The thinking's share of `max_output_tokens`.
    pub max_thinking_tokens: u64,
    /// The longest prompt: (task id, tokens).
    pub longest: Option<(String, usize)>,
    /// Tasks whose prompt plus the answer's room exceeds the window.
    pub too_long: Vec<PlanTask>,
    pub settings: PlanSettings,
    /// (input, output at most) in USD; the output includes the thinking,
    /// whose share is `thinking_cost`.
    pub cost: Option<(f64, f64)>,
    pub thinking_cost: Option<f64>,
    /// Estimated wall time in milliseconds.
    pub time_ms: Option<f64>,
}

/// The plan for `tasks` under `settings`.
pub fn make_plan(tasks: &[PlanTask], settings: &PlanSettings) -> RunPlan {
    let prompt_tokens: u64 = tasks.iter().map(|t| t.prompt_tokens as u64).sum();
    let per_task = u64::from(settings.max_new_tokens) + u64::from(settings.thinking_budget);
    let max_output_tokens = tasks.len() as u64 * per_task;
    let max_thinking_tokens = tasks.len() as u64 * u64::from(settings.thinking_budget);
    let longest =
        tasks.iter().max_by_key(|t| t.prompt_tokens).map(|t| (t.id.clone(), t.prompt_tokens));
    let too_long = match &settings.window {
        Some(w) => tasks
            .iter()
            .filter(|t| t.prompt_tokens as u64 + per_task > w.tokens as u64)
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    let cost = settings.price.as_ref().map(|p| {
        (
            prompt_tokens as f64 * p.input_per_m / 1e6,
            max_output_tokens as f64 * p.output_per_m / 1e6,
        )
    });
    let thinking_cost =
        settings.price.as_ref().map(|p| max_thinking_tokens as f64 * p.output_per_m / 1e6);
    let n = tasks.len() as f64;
    let by_latency = settings
        .latency
        .as_ref()
        .map(|(ms, _)| (n / settings.concurrency.max(1) as f64).ceil() * ms);
    let by_rate = settings.rate_limit_rpm.filter(|r| *r > 0.0).map(|rpm| n / rpm * 60_000.0);
    let time_ms = match (by_latency, by_rate) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    RunPlan {
        tasks: tasks.len(),
        prompt_tokens,
        max_output_tokens,
        max_thinking_tokens,
        longest,
        too_long,
        settings: settings.clone(),
        cost,
        thinking_cost,
        time_ms,
    }
}

/// Dollars with cents, or more digits under a cent.
fn dollars(x: f64) -> String {
    if x > 0.0 && x < 0.01 {
        format!("${x:.4}")
    } else {
        format!("${x:.2}")
    }
}

impl RunPlan {
    /// The cost at most (input plus the most output), if priced.
    pub fn max_cost(&self) -> Option<f64> {
        self.cost.map(|(i, o)| i + o)
    }

    /// The plan as lines of text (the CLI prints them; the page lists them).
    pub fn lines(&self) -> Vec<String> {
        let s = &self.settings;
        let basis = s.thinking_basis.as_deref().map(|b| format!(" ({b})")).unwrap_or_default();
        let per_task = if s.thinking_budget > 0 {
            format!(
                "{} per task: {} for the thinking{basis} + {} for the answer",
                thousands(u64::from(s.thinking_budget) + u64::from(s.max_new_tokens)),
                thousands(u64::from(s.thinking_budget)),
                thousands(u64::from(s.max_new_tokens))
            )
        } else if s.thinking_basis.is_some() {
            format!("{} per task{basis}", s.max_new_tokens)
        } else {
            format!("{} per task", s.max_new_tokens)
        };
        let mut out = vec![format!(
            "{} task(s) to ask: {} prompt tokens (counted on the exact prompts with the benchmark's tokenizer; the model's own tokenizer and chat template may count a few percent more), at most {} completion tokens ({per_task})",
            self.tasks,
            thousands(self.prompt_tokens),
            thousands(self.max_output_tokens),
        )];
        if let Some((mean, n)) = s.observed_thinking {
            out.push(format!(
                "thinking so far: {} tokens per answer on average (the run log's {n} answer(s) from this model), {} for these tasks at that rate",
                thousands(mean.round() as u64),
                thousands((mean * self.tasks as f64).round() as u64)
            ));
        }
        if let Some((id, n)) = &self.longest {
            out.push(format!("longest prompt: {} tokens ({id})", thousands(*n as u64)));
        }
        match &s.window {
            Some(w) if self.too_long.is_empty() => out.push(format!(
                "context window {} tokens ({}): every prompt fits with room for the answer",
                thousands(w.tokens as u64),
                w.source
            )),
            Some(w) => {
                out.push(format!(
                    "context window {} tokens ({}): {} task(s) do not fit with room for a {}-token answer and would fail:",
                    thousands(w.tokens as u64),
                    w.source,
                    self.too_long.len(),
                    s.max_new_tokens
                ));
                for t in self.too_long.iter().take(20) {
                    out.push(format!("  {} ({} prompt tokens)", t.id, thousands(t.prompt_tokens as u64)));
                }
                if self.too_long.len() > 20 {
                    out.push(format!("  … and {} more", self.too_long.len() - 20));
                }
            }
            None => out.push(
                "context window: unknown (the server does not say; give it to check which prompts fit)"
                    .to_string(),
            ),
        }
        match (&s.price, self.cost, self.thinking_cost) {
            (Some(p), Some((i, o)), Some(t)) if t > 0.0 => out.push(format!(
                "cost: {} for the prompts + at most {} for the answers + at most {} for the thinking = at most {} (${}/${} per million tokens, thinking billed as output: {})",
                dollars(i),
                dollars(o - t),
                dollars(t),
                dollars(i + o),
                p.input_per_m,
                p.output_per_m,
                p.source
            )),
            (Some(p), Some((i, o)), _) => out.push(format!(
                "cost: {} for the prompts + at most {} for the answers = at most {} (${}/${} per million tokens: {})",
                dollars(i),
                dollars(o),
                dollars(i + o),
                p.input_per_m,
                p.output_per_m,
                p.source
            )),
            _ => out.push("cost: no price for this model (give one per million input and output tokens)".to_string()),
        }
        match self.time_ms {
            Some(ms) => {
                let mut why = Vec::new();
                if let Some((lat, src)) = &s.latency {
                    why.push(format!(
                        "{} per request ({src}) at concurrency {}",
                        duration_label(*lat),
                        s.concurrency
                    ));
                }
                if let Some(rpm) = s.rate_limit_rpm {
                    why.push(format!("a limit of {rpm} requests per minute"));
                }
                out.push(format!("time: about {} ({})", duration_label(ms), why.join(", ")));
            }
            None => out.push(
                "time: unknown until some requests are answered (their latencies are in the run log) or a rate limit is given"
                    .to_string(),
            ),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: &str, n: usize) -> PlanTask {
        PlanTask { id: id.into(), prompt_tokens: n }
    }

    #[test]
    fn sums_fit_cost_and_time() {
        let tasks = [t("a", 1000), t("b", 7900), t("c", 3000)];
        let settings = PlanSettings {
            max_new_tokens: 1024,
            thinking_budget: 0,
            thinking_basis: None,
            observed_thinking: None,
            window: Some(Window { tokens: 8192, source: "the server's /props".into() }),
            price: preset_price("gpt-4o-2024-08-06"),
            concurrency: 2,
            rate_limit_rpm: None,
            latency: Some((2000.0, "observed".into())),
        };
        let p = make_plan(&tasks, &settings);
        assert_eq!((p.prompt_tokens, p.max_output_tokens), (11_900, 3072));
        assert_eq!(p.thinking_cost, Some(0.0));
        assert_eq!(p.too_long, vec![t("b", 7900)]);
        let (i, o) = p.cost.unwrap();
        assert!(
            (i - 11_900.0 * 2.5 / 1e6).abs() < 1e-12 && (o - 3072.0 * 10.0 / 1e6).abs() < 1e-12
        );
        assert_eq!(p.time_ms, Some(4000.0), "2 waves of 2 s");
        let text = p.lines().join("\n");
        assert!(text.contains("3 task(s) to ask: 11,900 prompt tokens"), "{text}");
        assert!(text.contains("1 task(s) do not fit"), "{text}");
        assert!(text.contains("  b (7,900 prompt tokens)"), "{text}");
        assert!(text.contains("list price of gpt-4o as published in December 2024"), "{text}");
        assert!(text.contains("time: about 4 s"), "{text}");
        // The longest prefix wins; unknown models have no price.
        assert_eq!(preset_price("gpt-4o-mini").unwrap().input_per_m, 0.15);
        assert_eq!(preset_price("models/gemini-1.5-flash-002").unwrap().output_per_m, 0.30);
        assert!(preset_price("qwen2.5-coder").is_none());
        // A rate limit slower than the latency wins.
        let slow = PlanSettings { rate_limit_rpm: Some(30.0), ..settings };
        assert_eq!(make_plan(&tasks, &slow).time_ms, Some(6000.0));
        assert_eq!(read_n_ctx(r#"{"default_generation_settings": {"n_ctx": 4096}}"#), Some(4096));
        assert_eq!(read_n_ctx(r#"{"total_slots": 1}"#), None);
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn a_reasoning_model_s_thinking_is_counted_apart() {
        let mut o3 = Endpoint::new(super::super::wire::Provider::OpenAi, "o3");
        o3.reasoning.budget = Some(8_000);
        let given = PlanGiven { price_in: Some(2.0), price_out: Some(8.0), ..PlanGiven::default() };
        let mut rec = super::super::runlog::RunRecord::new(
            &super::super::runlog::RecordContext { settings: &o3, time: "T".into() },
            "x".into(),
            RecordStatus::Answered,
            1.0,
            1,
            super::super::wire::Usage { reasoning_tokens: Some(3_000), ..Default::default() },
            1,
            None,
            None,
        );
        rec.latency_ms = 1000.0;
        let s = PlanSettings::new(&o3, 4, &given, None, &[rec]).unwrap();
        assert_eq!((s.thinking_budget, s.observed_thinking), (8_000, Some((3_000.0, 1))));
        let p = make_plan(&[t("a", 1000), t("b", 1000)], &s);
        assert_eq!((p.max_output_tokens, p.max_thinking_tokens), (2 * 9_024, 16_000));
        let text = p.lines().join("\n");
        assert!(text.contains("at most 18,048 completion tokens (9,024 per task: 8,000 for the thinking (the thinking budget given) + 1,024 for the answer)"), "{text}");
        assert!(text.contains("thinking so far: 3,000 tokens per answer on average"), "{text}");
        assert!(
            text.contains(
                "+ at most $0.02 for the answers + at most $0.13 for the thinking = at most $0.15"
            ),
            "{text}"
        );
        // Each effort's thinking counted, in tokens and in dollars.
        let mut gpt = Endpoint::new(super::super::wire::Provider::OpenAi, "gpt-5.2");
        gpt.sampling.max_tokens = Some(1_024);
        let mut seen = Vec::new();
        for e in super::super::reasoning::EFFORTS {
            gpt.reasoning.effort = Some(*e);
            let s = PlanSettings::new(&gpt, 4, &given, None, &[]).unwrap();
            let p = make_plan(&[t("a", 1000), t("b", 1000)], &s);
            assert_eq!(p.max_thinking_tokens, 2 * u64::from(e.budget()), "{e}");
            seen.push((p.max_thinking_tokens, p.lines()[0].clone()));
        }
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
        assert!(seen[0].1.ends_with("(1024 per task (effort none: no thinking))"), "{}", seen[0].1);
        assert!(seen[5].1.contains("66,560 per task: 65,536 for the thinking (effort xhigh, sent as reasoning_effort=xhigh) + 1,024 for the answer"), "{}", seen[5].1);
        gpt.model = "gemini-3-pro-preview".into();
        gpt.provider = super::super::wire::Provider::Google;
        gpt.reasoning.effort = None;
        let s = PlanSettings::new(&gpt, 4, &given, None, &[]).unwrap();
        assert_eq!(
            s.thinking_basis.as_deref(),
            Some("thinking level high's room, the model's default")
        );
        // A window that holds the prompt and the answer but not the thinking.
        let tight =
            PlanSettings { window: Some(Window { tokens: 4_096, source: "given".into() }), ..s };
        assert_eq!(make_plan(&[t("a", 1000)], &tight).too_long.len(), 1);
    }
}
