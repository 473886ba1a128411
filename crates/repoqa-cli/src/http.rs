//! The CLI's one way to POST to a model API, for benchmark runs and needle
//! descriptions alike: any HTTP status is a reply; a redirect is not
//! followed (see `repoqa::llm::redirect_reason`); a reply is read up to
//! `repoqa::llm::MAX_REPLY_BYTES` after decompression, so a compressed
//! bomb fails its request instead of filling memory.

use std::io::Read;
use std::time::Duration;

use repoqa::llm::wire::TransportError;
use repoqa::llm::{HttpReply, HttpRequest, MAX_REPLY_BYTES};

/// The API key in the first of the environment variables `names` that is
/// set and not blank (never a flag: others can see a command line).
pub fn key_from_env<S: AsRef<str>>(names: &[S]) -> Option<String> {
    names
        .iter()
        .filter_map(|v| std::env::var(v.as_ref()).ok())
        .map(|k| k.trim().to_string())
        .find(|k| !k.is_empty())
}

/// An agent for `connections` requests at once, each given `timeout`.
pub fn agent(timeout: Duration, connections: usize) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .max_idle_connections_per_host(connections.max(1))
        .build()
        .into()
}

/// Send one request.
pub fn post(agent: &ureq::Agent, req: &HttpRequest) -> Result<HttpReply, TransportError> {
    let mut call = agent.post(&req.url);
    for (k, v) in &req.headers {
        call = call.header(k, v);
    }
    reply(call.send(req.body.as_str()))
}

/// GET `req.url` with its headers (the body is not sent).
pub fn get(agent: &ureq::Agent, req: &HttpRequest) -> Result<HttpReply, TransportError> {
    Ok(get_with_headers(agent, req, &[])?.0)
}

/// [`get`], with the reply's headers `names` too (each `None` when absent).
pub fn get_with_headers(
    agent: &ureq::Agent,
    req: &HttpRequest,
    names: &[&str],
) -> Result<(HttpReply, Vec<Option<String>>), TransportError> {
    let mut call = agent.get(&req.url);
    for (k, v) in &req.headers {
        call = call.header(k, v);
    }
    reply_with(call.call(), names)
}

/// A sent request's reply, read within the limits.
fn reply(
    sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<HttpReply, TransportError> {
    Ok(reply_with(sent, &[])?.0)
}

/// [`reply`], with the headers `names`.
fn reply_with(
    sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    names: &[&str],
) -> Result<(HttpReply, Vec<Option<String>>), TransportError> {
    let mut resp = sent.map_err(failed)?;
    let status = resp.status().as_u16();
    let header =
        |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    if (300..400).contains(&status) {
        return Err(TransportError::Redirect { status, location: header("location") });
    }
    let retry_after = header("retry-after");
    let wanted: Vec<Option<String>> = names.iter().map(|n| header(n)).collect();
    let bytes = read_body(&mut resp, MAX_REPLY_BYTES)?;
    let body = String::from_utf8_lossy(&bytes).into_owned();
    Ok((HttpReply { status, retry_after, body }, wanted))
}

/// GET `url` as bytes, read up to `limit` (after decompression): the
/// status and the body. Redirects are followed as `agent` allows (a
/// registry's download link redirects to its file host).
pub fn get_bytes(
    agent: &ureq::Agent,
    url: &str,
    limit: u64,
) -> Result<(u16, Vec<u8>), TransportError> {
    let mut resp = agent.get(url).call().map_err(failed)?;
    let status = resp.status().as_u16();
    Ok((status, read_body(&mut resp, limit)?))
}

/// A reply's body, read up to `limit` bytes after decompression (a
/// compressed bomb fails its request instead of filling memory).
fn read_body(
    resp: &mut ureq::http::Response<ureq::Body>,
    limit: u64,
) -> Result<Vec<u8>, TransportError> {
    let mut bytes = Vec::new();
    resp.body_mut()
        .as_reader()
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| TransportError::Network(format!("reading the reply: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(TransportError::Network(format!(
            "the reply is longer than {} MiB (after decompression); not read",
            limit >> 20
        )));
    }
    Ok(bytes)
}

/// A request that got no reply, as the transport error it is.
fn failed(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        ureq::Error::HostNotFound => {
            TransportError::Unreachable("the host name does not resolve".into())
        }
        ureq::Error::ConnectionFailed => TransportError::Unreachable("connection failed".into()),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            TransportError::Unreachable(io.to_string())
        }
        e => TransportError::Network(e.to_string()),
    }
}
