//! `repoqa run --plan`: the core's pre-flight plan (`repoqa::llm::plan`)
//! from the flags, the server and the run log, printed before (instead of)
//! a single request.

use clap::Args;

use repoqa::llm::plan::{self, PlanSettings, Price, Window};
use repoqa::llm::run::RunItem;
use repoqa::llm::runlog::RunLog;
use repoqa::llm::wire::Endpoint;
use repoqa::tokenize::Tokenizer;

use crate::ask;
use crate::error::CliError;
use crate::stdout::outln;

#[derive(Args)]
pub struct PlanArgs {
    /// NOT UPSTREAM: print the pre-flight plan (prompt tokens, tasks that
    /// do not fit the context window, cost, time) and exit; nothing is asked.
    #[arg(long)]
    pub plan: bool,
    /// NOT UPSTREAM: the model's context window in tokens (default: the
    /// server's, when it says, as llama.cpp's /props does).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<usize>,
    /// NOT UPSTREAM: USD per million input tokens (default: the dated list
    /// price of a known model; give both --price-in and --price-out).
    #[arg(long, value_name = "USD", requires = "price_out")]
    pub price_in: Option<f64>,
    /// NOT UPSTREAM: USD per million output tokens.
    #[arg(long, value_name = "USD", requires = "price_in")]
    pub price_out: Option<f64>,
    /// NOT UPSTREAM: requests per minute the API allows (the time estimate).
    #[arg(long, value_name = "RPM")]
    pub rate_limit: Option<f64>,
}

/// Print the plan of asking `items[todo]` and return.
pub fn print_plan<T: RunItem>(
    a: &PlanArgs,
    endpoint: &Endpoint,
    items: &[T],
    todo: &[usize],
    tok: &Tokenizer,
    log: &RunLog,
    concurrency: usize,
) -> Result<(), CliError> {
    let props = ask::server_props(endpoint);
    let window = match a.context_window {
        Some(0) => return Err(CliError::usage("--context-window must be above 0")),
        Some(tokens) => Some(Window { tokens, source: "--context-window".into() }),
        None => props
            .as_deref()
            .and_then(plan::read_n_ctx)
            .map(|tokens| Window { tokens, source: "the server's /props n_ctx".into() }),
    };
    let concurrency = props
        .as_deref()
        .and_then(repoqa::llm::wire::read_total_slots)
        .and_then(|s| endpoint.slots_limit(s, concurrency))
        .map_or(concurrency, |(c, _)| c);
    let price = match (a.price_in, a.price_out) {
        (Some(i), Some(o)) if i >= 0.0 && o >= 0.0 && i.is_finite() && o.is_finite() => {
            Some(Price { input_per_m: i, output_per_m: o, source: "given".into() })
        }
        (Some(_), Some(_)) => {
            return Err(CliError::usage(
                "--price-in and --price-out must be dollar amounts, 0 or more",
            ))
        }
        _ => plan::preset_price(&endpoint.model),
    };
    let model = endpoint.model.trim();
    let latency = plan::observed_latency_ms(&log.records, model).map(|ms| {
        let n = log.records.iter().filter(|r| r.model == model).count();
        (ms, format!("mean of the run log's {n} record(s) for this model"))
    });
    let tasks = plan::plan_tasks(items, todo, tok)
        .map_err(|e| CliError::usage(format!("counting the prompts' tokens: {e}")))?;
    let settings = PlanSettings {
        max_new_tokens: endpoint.sampling.max_tokens.unwrap_or(0),
        window,
        price,
        concurrency,
        rate_limit_rpm: a.rate_limit.filter(|r| r.is_finite() && *r > 0.0),
        latency,
    };
    for line in plan::make_plan(&tasks, &settings).lines() {
        outln!("{line}");
    }
    Ok(())
}
