//! Describing several needles with a model, one request after the other,
//! over the caller's transport (`fetch` in the browser, a blocking client
//! in the CLI): one loop, so both stop, cancel and report alike.
//!
//! Every job ends up either described or in `failures` with the reason; a
//! failure that every request would repeat (key, URL, model, network)
//! stops the run and the rest are "not asked".

use std::future::Future;

use super::wire::{redact_url, TransportError};
use super::{description_of, Endpoint, HttpReply, HttpRequest, LlmError, Sampling, SYSTEM_PROMPT};
use crate::curate::{DescribeJob, Descriptions};

/// Progress of [`describe_needles`], for the caller to show (and save).
#[derive(Debug)]
pub enum Progress<'a> {
    /// The request for job `index` (0-based) is about to be sent.
    Asking { index: usize, job: &'a DescribeJob },
    /// Its description, or why there is none.
    Answered { index: usize, job: &'a DescribeJob, result: Result<&'a str, &'a LlmError> },
}

/// What came of describing needles.
#[derive(Debug, Default, PartialEq)]
pub struct Described {
    /// The descriptions obtained, in job order.
    pub obtained: Descriptions,
    /// Every other job: needle name and why (the error, "cancelled", or
    /// "not asked: …").
    pub failures: Vec<(String, String)>,
    /// The error that stopped the run, if one did.
    pub stopped: Option<LlmError>,
    pub cancelled: bool,
}

/// Ask for each job's description in turn. `send` posts a request and
/// returns the reply (any HTTP status) or why none came (the front's one
/// POST helper, the same as for benchmark runs); `progress`
/// hears of each request and its outcome; `cancel()` is checked before
/// each request.
pub async fn describe_needles<S, F>(
    endpoint: &Endpoint,
    jobs: &[DescribeJob],
    send: S,
    mut progress: impl FnMut(Progress<'_>),
    cancel: impl Fn() -> bool,
) -> Described
where
    S: Fn(HttpRequest) -> F,
    F: Future<Output = Result<HttpReply, TransportError>>,
{
    // Descriptions are asked with the annotation's system message.
    let settings = &Endpoint {
        sampling: Sampling {
            system_message: Some(SYSTEM_PROMPT.to_string()),
            ..endpoint.sampling.clone()
        },
        ..endpoint.clone()
    };
    let mut out = Described {
        stopped: settings.validate().err().map(LlmError::Settings),
        ..Described::default()
    };
    for (i, job) in jobs.iter().enumerate() {
        if let Some(e) = &out.stopped {
            out.failures.push((job.name.clone(), format!("not asked: {e}")));
            continue;
        }
        if out.cancelled || cancel() {
            out.cancelled = true;
            out.failures.push((job.name.clone(), "cancelled".into()));
            continue;
        }
        progress(Progress::Asking { index: i, job });
        let request = settings.request(&job.prompt);
        let url = redact_url(&request.url);
        let result = match send(request).await {
            Ok(reply) => description_of(settings, &reply),
            Err(error) => Err(LlmError::Transport { url, error }),
        };
        match result {
            Ok(d) => {
                progress(Progress::Answered { index: i, job, result: Ok(&d) });
                out.obtained.insert(job.name.clone(), d);
            }
            Err(e) => {
                progress(Progress::Answered { index: i, job, result: Err(&e) });
                out.failures.push((job.name.clone(), e.to_string()));
                if e.repeats_for_every_request() {
                    out.stopped = Some(e);
                }
            }
        }
    }
    out
}

/// [`describe_needles`] with a blocking `send` (the CLI's). Its futures are
/// ready at once, so one poll finishes the run; no executor is needed.
#[cfg(not(target_arch = "wasm32"))]
pub fn describe_needles_blocking(
    endpoint: &Endpoint,
    jobs: &[DescribeJob],
    send: impl Fn(HttpRequest) -> Result<HttpReply, TransportError>,
    progress: impl FnMut(Progress<'_>),
    cancel: impl Fn() -> bool,
) -> Described {
    use std::task::{Context, Poll, Waker};
    let run =
        describe_needles(endpoint, jobs, |req| std::future::ready(send(req)), progress, cancel);
    let mut run = std::pin::pin!(run);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = run.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;

    fn jobs(n: usize) -> Vec<DescribeJob> {
        (0..n)
            .map(|i| DescribeJob {
                name: format!("f{i}"),
                path: "a.py".into(),
                start_line: i,
                end_line: i + 1,
                prompt: format!("```python\ndef f{i}(): pass\n```"),
            })
            .collect()
    }

    fn settings() -> Endpoint {
        Endpoint {
            base_url: "http://stub/v1".into(),
            model: "m".into(),
            sampling: crate::llm::describe_sampling(),
            ..Endpoint::default()
        }
    }

    /// A server that answers by the function number in the prompt.
    fn server(
        answer: impl Fn(usize) -> HttpReply,
    ) -> impl Fn(HttpRequest) -> Result<HttpReply, TransportError> {
        move |req: HttpRequest| {
            let at = req.body.find("def f").expect("prompt in the body") + 5;
            let n: usize = req.body[at..].split('(').next().unwrap().parse().unwrap();
            Ok(answer(n))
        }
    }

    fn points(n: usize) -> HttpReply {
        let content = format!(
            "1. **Purpose**: p{n}.\n2. **Input**: i.\n3. **Output**: o.\n4. **Procedure**: s."
        );
        let body = serde_json::json!({"choices": [{"message": {"content": content}}]});
        HttpReply { status: 200, retry_after: None, body: body.to_string() }
    }

    fn status(code: u16) -> HttpReply {
        HttpReply {
            status: code,
            retry_after: None,
            body: r#"{"error": {"message": "no"}}"#.into(),
        }
    }

    #[test]
    fn describes_each_and_reports_the_failures() {
        let seen = RefCell::new(Vec::new());
        let out = describe_needles_blocking(
            &settings(),
            &jobs(4),
            server(|n| if n == 1 { status(500) } else { points(n) }),
            |p| match p {
                Progress::Asking { index, job } => {
                    seen.borrow_mut().push((index, job.name.clone(), "asking"))
                }
                Progress::Answered { index, job, result } => seen.borrow_mut().push((
                    index,
                    job.name.clone(),
                    if result.is_ok() { "ok" } else { "failed" },
                )),
            },
            || false,
        );
        assert_eq!(out.obtained.names().collect::<Vec<_>>(), ["f0", "f2", "f3"]);
        assert_eq!(out.obtained.get("f2"), Some("\n1. **Purpose**: p2.\n2. **Input**: i.\n3. **Output**: o.\n4. **Procedure**: s.\n"));
        assert_eq!(
            out.failures,
            [("f1".to_string(), "http://stub/v1/chat/completions: HTTP 500: no".to_string())]
        );
        assert_eq!((out.stopped, out.cancelled), (None, false));
        let seen: Vec<String> =
            seen.borrow().iter().map(|(i, n, what)| format!("{i} {n} {what}")).collect();
        assert_eq!(
            seen,
            [
                "0 f0 asking",
                "0 f0 ok",
                "1 f1 asking",
                "1 f1 failed",
                "2 f2 asking",
                "2 f2 ok",
                "3 f3 asking",
                "3 f3 ok"
            ]
        );
    }

    #[test]
    fn a_refused_key_stops_the_run() {
        let calls = Cell::new(0);
        let send = server(|n| if n == 1 { status(401) } else { points(n) });
        let out = describe_needles_blocking(
            &settings(),
            &jobs(4),
            |r| {
                calls.set(calls.get() + 1);
                send(r)
            },
            |_| {},
            || false,
        );
        assert_eq!(calls.get(), 2, "no request after the refusal");
        assert_eq!(out.obtained.len(), 1);
        assert!(matches!(out.stopped, Some(LlmError::BadKey { status: 401, .. })));
        let names: Vec<&str> = out.failures.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["f1", "f2", "f3"]);
        assert!(
            out.failures[2].1.starts_with("not asked: http://stub/v1/chat/completions: HTTP 401"),
            "{:?}",
            out.failures
        );
    }

    #[test]
    fn bad_settings_ask_nothing_and_cancel_stops_asking() {
        let never =
            |_: HttpRequest| -> Result<HttpReply, TransportError> { panic!("no request expected") };
        let out = describe_needles_blocking(
            &Endpoint { base_url: "stub/v1".into(), ..settings() },
            &jobs(2),
            never,
            |_| {},
            || false,
        );
        assert!(matches!(out.stopped, Some(LlmError::Settings(_))));
        assert_eq!(out.failures.len(), 2);
        assert!(out.failures[0]
            .1
            .starts_with("not asked: model API settings: the base URL \"stub/v1\" must start"));

        let asked = Cell::new(0);
        let out = describe_needles_blocking(
            &settings(),
            &jobs(3),
            server(points),
            |p| {
                if let Progress::Answered { .. } = p {
                    asked.set(asked.get() + 1)
                }
            },
            || asked.get() >= 1,
        );
        assert!(out.cancelled);
        assert_eq!(out.obtained.len(), 1);
        assert_eq!(
            out.failures,
            [
                ("f1".to_string(), "cancelled".to_string()),
                ("f2".to_string(), "cancelled".to_string())
            ]
        );
    }
}
