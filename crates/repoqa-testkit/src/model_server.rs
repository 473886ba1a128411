//! Starting the project's test model server (tests/oracle/model_server.py)
//! on 127.0.0.1 and reading what it saw.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

pub struct ModelServer {
    child: Child,
    pub port: u16,
}

impl ModelServer {
    /// `python3 tests/oracle/model_server.py <args>`.
    pub fn start(root: &Path, args: &[&str]) -> ModelServer {
        let mut child = Command::new("python3")
            .arg(root.join("tests/oracle/model_server.py"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start tests/oracle/model_server.py with python3");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("model server said {line:?}"));
        ModelServer { child, port }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn http(&self, method: &str, path: &str, body: &str) -> Value {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}: {body:.200}"))
    }

    pub fn stats(&self) -> Value {
        self.http("GET", "/stats", "")
    }

    /// Every POST so far: format, path, header names, body, task, fault.
    pub fn requests(&self) -> Vec<Value> {
        match self.http("GET", "/requests", "") {
            Value::Array(a) => a,
            v => panic!("/requests: {v}"),
        }
    }

    pub fn control(&self, body: &Value) {
        self.http("POST", "/control", &body.to_string());
    }

    /// A batch file answered as the provider's batch API would
    /// (`format`: openai or anthropic): `{"results": TEXT, "errors": TEXT}`.
    pub fn batch(&self, format: &str, file: &str) -> Value {
        self.http("POST", &format!("/batch?format={format}"), file)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
