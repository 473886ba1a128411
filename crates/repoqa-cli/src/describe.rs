//! `repoqa curate --llm-*`: a model writes the missing needle descriptions.

use std::path::Path;

use crate::error::{fs_write, CliError};

/// The model that writes missing descriptions (all optional: no
/// --llm-base-url, no model).
#[derive(clap::Args)]
pub struct LlmArgs {
    /// Describe the sampled needles that --descriptions does not cover with
    /// a model behind this API (e.g. https://api.openai.com/v1).
    #[arg(long = "llm-base-url", requires = "model")]
    base_url: Option<String>,
    /// The API's format, as `repoqa run --backend`.
    #[arg(long = "llm-backend", value_enum, default_value = "openai")]
    backend: repoqa::llm::Provider,
    /// The model to ask (with --llm-base-url).
    #[arg(long = "llm-model", requires = "base_url")]
    model: Option<String>,
    /// Environment variable holding the API key (default: the backend's,
    /// as `repoqa run` reads it: OPENAI_API_KEY, ANTHROPIC_API_KEY or
    /// ANTHROPIC_KEY, GOOGLE_API_KEY; unset: no key is sent).
    #[arg(long = "llm-api-key-env")]
    key_env: Option<String>,
    #[arg(long = "llm-temperature", default_value_t = 0.0)]
    temperature: f64,
    #[arg(long = "llm-max-tokens")]
    max_tokens: Option<u32>,
    /// Seconds one request may take.
    #[arg(long = "llm-timeout", default_value_t = repoqa::llm::DEFAULT_TIMEOUT_SECS)]
    pub timeout: u64,
}

impl LlmArgs {
    /// The API settings, if a model was asked for; the key is read from
    /// the environment (never from the command line, which others can see).
    pub fn endpoint(&self) -> Option<repoqa::llm::Endpoint> {
        let (base_url, model) = self.base_url.clone().zip(self.model.clone())?;
        let sampling = repoqa::llm::Sampling {
            temperature: Some(self.temperature),
            max_tokens: self.max_tokens,
            ..repoqa::llm::describe_sampling()
        };
        let api_key = crate::http::key_from_env(&self.key_env_names());
        Some(repoqa::llm::Endpoint {
            provider: self.backend,
            base_url,
            model,
            api_key,
            sampling,
            ..repoqa::llm::Endpoint::default()
        })
    }

    /// The environment variables the key is read from, in order.
    pub fn key_env_names(&self) -> Vec<String> {
        match &self.key_env {
            Some(v) => vec![v.clone()],
            None => self.backend.key_env().iter().map(|v| v.to_string()).collect(),
        }
    }
}

pub fn write_descriptions(path: &Path, d: &repoqa::curate::Descriptions) -> Result<(), CliError> {
    fs_write(path, d.to_json_pretty() + "\n")
}

/// Ask the model for every needle `report` lacks a description of; returns
/// the descriptions obtained. After each one, `given` plus all obtained so
/// far are saved to `save_to`, so a failure later loses nothing. A needle
/// whose request fails is reported and stays without a description; a
/// failure every request would repeat (key, URL, model) stops the run.
pub fn describe_with_model(
    settings: &repoqa::llm::Endpoint,
    timeout_secs: u64,
    key_env: &[String],
    report: &repoqa::curate::CurateReport,
    given: &repoqa::curate::Descriptions,
    save_to: Option<&Path>,
) -> Result<repoqa::curate::Descriptions, CliError> {
    use repoqa::curate::Descriptions;
    use repoqa::llm;
    settings.validate().map_err(repoqa::llm::LlmError::Settings)?;
    let jobs = report.describe_jobs();
    if jobs.is_empty() {
        eprintln!("curate: every sampled needle has a description; the model is not called");
        return Ok(Descriptions::new());
    }
    if settings.api_key.is_none() {
        let names: Vec<String> = key_env.iter().map(|v| format!("${v}")).collect();
        eprintln!("curate: note: {} is not set; the requests carry no API key", names.join(" or "));
    }
    eprintln!(
        "curate: describing {} needles with {} at {}",
        jobs.len(),
        settings.model,
        settings.endpoint()
    );
    let agent = crate::http::agent(std::time::Duration::from_secs(timeout_secs), 1);
    let total = jobs.len();
    let mut saved = given.clone();
    let save_error = std::cell::RefCell::new(None::<CliError>);
    let run = llm::describe_needles_blocking(
        settings,
        &jobs,
        |req| crate::http::post(&agent, &req),
        |p| match p {
            llm::Progress::Asking { index, job } => {
                eprint!("[{}/{total}] describing {} ... ", index + 1, job.name)
            }
            llm::Progress::Answered { job, result: Ok(d), .. } => {
                eprintln!("ok");
                saved.insert(job.name.clone(), d);
                if let Some(path) = save_to {
                    if let Err(e) = write_descriptions(path, &saved) {
                        save_error.replace(Some(e));
                    }
                }
            }
            llm::Progress::Answered { job, result: Err(e), .. } => {
                eprintln!("failed\ncurate: {}: {e}", job.name)
            }
        },
        // A descriptions file that cannot be written stops the run: its
        // point is that no reply is lost.
        || save_error.borrow().is_some(),
    );
    if let Some(e) = save_error.into_inner() {
        return Err(e);
    }
    let kept = save_to.map(|p| {
        format!(" (the {} descriptions obtained are in {})", run.obtained.len(), p.display())
    });
    if let Some(e) = &run.stopped {
        return Err(CliError::usage(format!(
            "stopped describing needles: {e}{}",
            kept.unwrap_or_default()
        )));
    }
    if let Some(path) = save_to {
        write_descriptions(path, &saved)?;
        eprintln!(
            "curate: saved the descriptions to {} (pass it as --descriptions to reuse them)",
            path.display()
        );
    }
    if run.obtained.is_empty() && !run.failures.is_empty() {
        // Not one reply: a repository without needles is no result.
        let (name, why) = &run.failures[0];
        return Err(CliError::usage(format!(
            "none of the {total} needles could be described; the first error ({name}): {why}"
        )));
    }
    if !run.failures.is_empty() {
        let names: Vec<&str> = run.failures.iter().map(|(n, _)| n.as_str()).collect();
        let retry =
            save_to.map(|p| format!(" with --descriptions {}", p.display())).unwrap_or_default();
        eprintln!(
            "curate: {} of {total} needles could not be described and are left out: {} (run again{retry} to ask only for them)",
            names.len(),
            names.join(", ")
        );
    }
    Ok(run.obtained)
}
