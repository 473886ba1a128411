//! `repoqa run --plan`: the core's pre-flight plan (`repoqa::llm::plan`)
//! from the flags, the server and the run log, printed before (instead of)
//! a single request.

use clap::Args;

use repoqa::code::tokenize::Tokenizer;
use repoqa::llm::plan::{self, PlanGiven, PlanSettings};
use repoqa::llm::run::RunItem;
use repoqa::llm::runlog::RunLog;
use repoqa::llm::wire::Endpoint;

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
    let given = PlanGiven {
        context_window: a.context_window,
        price_in: a.price_in,
        price_out: a.price_out,
        rate_limit_rpm: a.rate_limit,
    };
    let props = ask::server_props(endpoint);
    let settings = PlanSettings::new(endpoint, concurrency, &given, props.as_deref(), &log.records)
        .map_err(CliError::usage)?;
    let tasks = plan::plan_tasks(items, todo, tok)
        .map_err(|e| CliError::usage(format!("counting the prompts' tokens: {e}")))?;
    for line in plan::make_plan(&tasks, &settings).lines() {
        outln!("{line}");
    }
    Ok(())
}
