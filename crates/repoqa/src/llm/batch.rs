//! Batch files: a run without a key in the browser, at the providers' batch
//! price. [`export`] writes the selected tasks' official requests as an
//! OpenAI Batch API input file (JSONL) or an Anthropic Message Batches
//! request body (JSON); [`read_results`] reads the provider's results (and
//! OpenAI's error file) back; [`import`] hands each reply to the same
//! runner a live run uses (`llm::run`), so the outputs lines and run-log
//! records are the ones a live run writes for the same replies, and
//! resume, scoring and charts work alike. The formats, as documented by
//! the providers, are written down in docs/batch-files.md.
//!
//! A `custom_id` is `t<index>-<hash>`: the task's index in the run's task
//! list and the first 12 hex digits of the SHA-256 of its id, so it fits
//! Anthropic's `^[a-zA-Z0-9_-]{1,64}$` and a results file from another task
//! list is refused rather than filed under the wrong tasks.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::run::{BenchmarkRun, RunEvent, RunItem, RunStep};
use super::schedule::ScheduleConfig;
use super::wire::HttpReply;
use super::wire::{Endpoint, Provider, TransportError};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum BatchError {
    #[error("batch files exist for the OpenAI and Anthropic formats, not {0}")]
    Provider(Provider),
    #[error("{origin}: line {line}: {message}")]
    Line { origin: String, line: usize, message: String },
    #[error("{origin}: {message}")]
    File { origin: String, message: String },
}

/// The `custom_id` of task `index` (of id `task_id`).
pub fn custom_id(index: usize, task_id: &str) -> String {
    let hash = Sha256::digest(task_id.as_bytes());
    let hex: String = hash.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("t{index}-{hex}")
}

/// The task a `custom_id` names among `ids`, if it is one of theirs.
pub fn task_of(custom: &str, ids: &[String]) -> Option<usize> {
    let (index, _) = custom.strip_prefix('t')?.split_once('-')?;
    let i: usize = index.parse().ok()?;
    (i < ids.len() && custom_id(i, &ids[i]) == custom).then_some(i)
}

/// Where a batch request goes, as the OpenAI input file names it.
const OPENAI_URL: &str = "/v1/chat/completions";

/// The batch file of `items[i]` for each `i` of `todo`: the request body
/// of each is the one a live run sends (`Endpoint::request`).
pub fn export<T: RunItem>(
    endpoint: &Endpoint,
    items: &[T],
    todo: &[usize],
) -> Result<String, BatchError> {
    let bodies = todo.iter().map(|&i| {
        let t = &items[i];
        let body: Value =
            serde_json::from_str(&endpoint.request(&t.prompt()).body).unwrap_or(Value::Null);
        (custom_id(i, &t.task_id()), body)
    });
    match endpoint.provider {
        Provider::OpenAi => Ok(bodies
            .map(|(id, body)| {
                format!(
                    "{}\n",
                    json!({"custom_id": id, "method": "POST", "url": OPENAI_URL, "body": body})
                )
            })
            .collect()),
        Provider::Anthropic => {
            let requests: Vec<Value> =
                bodies.map(|(id, body)| json!({"custom_id": id, "params": body})).collect();
            Ok(format!("{}\n", json!({ "requests": requests })))
        }
        p => Err(BatchError::Provider(p)),
    }
}

/// One request's result: its `custom_id` and the reply, as the live API
/// would have sent it (status and body), or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchResult {
    pub custom_id: String,
    pub reply: Result<HttpReply, String>,
}

fn reply(status: u16, body: &Value) -> Result<HttpReply, String> {
    Ok(HttpReply { status, retry_after: None, body: body.to_string() })
}

/// The results in an OpenAI output or error file line, or an Anthropic
/// results line.
fn read_line(provider: Provider, v: &Value) -> Result<BatchResult, String> {
    let custom =
        v.get("custom_id").and_then(Value::as_str).ok_or("no \"custom_id\" string")?.to_string();
    let result = match provider {
        Provider::OpenAi => match (v.get("response").filter(|r| !r.is_null()), v.get("error")) {
            (Some(r), _) => {
                let status = r
                    .get("status_code")
                    .and_then(Value::as_u64)
                    .and_then(|s| u16::try_from(s).ok())
                    .ok_or("\"response\" without a \"status_code\" number")?;
                let body = r.get("body").ok_or("\"response\" without a \"body\"")?;
                reply(status, body)
            }
            (None, Some(e)) if !e.is_null() => Err(format!(
                "the batch did not answer it: {}",
                e.get("message").and_then(Value::as_str).unwrap_or("no message")
            )),
            _ => return Err("neither a \"response\" nor an \"error\"".into()),
        },
        Provider::Anthropic => {
            let r = v.get("result").ok_or("no \"result\"")?;
            match r.get("type").and_then(Value::as_str) {
                Some("succeeded") => reply(200, r.get("message").ok_or("no \"message\"")?),
                Some("errored") => {
                    let e = r.get("error").unwrap_or(&Value::Null);
                    // The error response as the Messages API sends it.
                    let inner = e.get("error").unwrap_or(e);
                    let status = match inner.get("type").and_then(Value::as_str) {
                        Some("invalid_request_error") => 400,
                        Some("authentication_error") => 401,
                        Some("permission_error") => 403,
                        Some("not_found_error") => 404,
                        Some("rate_limit_error") => 429,
                        Some("overloaded_error") => 529,
                        _ => 500,
                    };
                    let body = if e.get("type").and_then(Value::as_str) == Some("error") {
                        e.clone()
                    } else {
                        json!({"type": "error", "error": inner})
                    };
                    reply(status, &body)
                }
                Some(t @ ("canceled" | "expired")) => {
                    Err(format!("the batch did not answer it: the request was {t}"))
                }
                _ => return Err("\"result\" without a known \"type\"".into()),
            }
        }
        p => return Err(format!("no batch results for {p}")),
    };
    Ok(BatchResult { custom_id: custom, reply: result })
}

/// The results of `text` (a results file, or OpenAI's error file) named
/// `origin` in messages; a bad line is an error naming it.
pub fn read_results(
    provider: Provider,
    text: &str,
    origin: &str,
) -> Result<Vec<BatchResult>, BatchError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |message: String| BatchError::Line { origin: origin.into(), line: n + 1, message };
        let v: Value = serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?;
        out.push(read_line(provider, &v).map_err(at)?);
    }
    Ok(out)
}

/// What an import did: the events of each result in turn (answers to
/// write, failures to log), and the results that name no task of this run.
#[derive(Debug, Default)]
pub struct Imported {
    pub events: Vec<RunEvent>,
    pub unknown: Vec<String>,
}

/// Hand `results` to the runner as the replies to the requests of the
/// tasks they name (`ids`: the run's task ids), in the run's task order. A reply
/// that a live run would retry (a 5xx, a malformed body, none at all)
/// fails its task: a batch is asked once. Results for tasks outside
/// `todo` (answered already) are left out.
pub fn import<T: RunItem>(
    endpoint: Endpoint,
    items: &[T],
    ids: &[String],
    todo: &[usize],
    results: &[BatchResult],
    time: impl Fn() -> String,
) -> Imported {
    // Where each task to ask stands in `todo`.
    let rank: std::collections::HashMap<usize, usize> =
        todo.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut unknown = Vec::new();
    let mut order = Vec::new();
    let mut replies = std::collections::HashMap::new();
    for r in results {
        match task_of(&r.custom_id, ids) {
            Some(i) if rank.contains_key(&i) && !replies.contains_key(&i) => {
                order.push(i);
                replies.insert(i, &r.reply);
            }
            Some(_) => {}
            None => unknown.push(r.custom_id.clone()),
        }
    }
    // In the run's task order, whatever the files' order (a provider may
    // give results out of request order): the outputs and the run log
    // are then the ones a live run at concurrency 1 writes.
    order.sort_by_key(|i| rank.get(i).copied());
    let config = ScheduleConfig { concurrency: 1, max_retries: 0, ..ScheduleConfig::default() };
    let mut run = BenchmarkRun::new(endpoint, items, &order, config, 0);
    let mut events = Vec::new();
    // With one request at a time and no retries, every step is a send of
    // the next task, until the last or a stop.
    while let RunStep::Send { task, .. } = run.next(0.0) {
        let Some(got) = replies.get(&task) else { break };
        let event = match got {
            Ok(reply) => run.complete(task, Ok(reply), 0.0, time()),
            Err(why) => {
                let e = TransportError::Network(why.clone());
                run.complete(task, Err(&e), 0.0, time())
            }
        };
        events.push(event);
    }
    Imported { events, unknown }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fit_anthropic_and_name_only_their_task_list() {
        let ids = vec!["python::a/b::f".to_string(), "go::c/d::G".to_string()];
        let id = custom_id(1, &ids[1]);
        assert!(id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
        assert_eq!(task_of(&id, &ids), Some(1));
        assert_eq!(task_of(&custom_id(1, "go::c/d::H"), &ids), None, "another task list");
        assert_eq!(task_of("t9-000000000000", &ids), None);
        assert_eq!(task_of("request-1", &ids), None);
    }

    #[test]
    fn results_lines_read_in_each_format_and_bad_ones_are_named() {
        let openai = concat!(
            r#"{"id": "b1", "custom_id": "t0-x", "response": {"status_code": 200, "request_id": "r", "body": {"choices": []}}, "error": null}"#,
            "\n",
            r#"{"id": "b2", "custom_id": "t1-x", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}"#,
            "\n"
        );
        let r = read_results(Provider::OpenAi, openai, "out.jsonl").unwrap();
        assert_eq!(r[0].reply.as_ref().unwrap().status, 200);
        assert!(r[1].reply.as_ref().unwrap_err().contains("completion window expired"));
        let anthropic = concat!(
            r#"{"custom_id": "t0-x", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}}}"#,
            "\n",
            r#"{"custom_id": "t1-x", "result": {"type": "expired"}}"#,
            "\n"
        );
        let r = read_results(Provider::Anthropic, anthropic, "res.jsonl").unwrap();
        let e = r[0].reply.as_ref().unwrap();
        assert_eq!(e.status, 400);
        assert!(e.body.contains("prompt is too long"));
        assert!(r[1].reply.as_ref().unwrap_err().contains("was expired"));
        let bad = read_results(Provider::Anthropic, "{\"custom_id\": \"t0-x\"}\n", "res.jsonl");
        assert_eq!(bad.unwrap_err().to_string(), "res.jsonl: line 1: no \"result\"");
        let bad = read_results(Provider::OpenAi, "\n{oops\n", "out.jsonl").unwrap_err();
        assert!(bad.to_string().starts_with("out.jsonl: line 2: not JSON"), "{bad}");
    }
}
