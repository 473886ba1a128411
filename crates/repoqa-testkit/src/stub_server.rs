//! A stub HTTP server on 127.0.0.1 that answers GETs from a table of
//! routes the test fills (a package registry's documents and archives), and
//! records every path asked. Unknown paths get 404.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

type Routes = Arc<Mutex<HashMap<String, (u16, Vec<u8>)>>>;

pub struct StubServer {
    pub port: u16,
    routes: Routes,
    asked: Arc<Mutex<Vec<String>>>,
}

impl StubServer {
    pub fn start() -> StubServer {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local address").port();
        let routes: Routes = Arc::default();
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, a) = (routes.clone(), asked.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (r, a) = (r.clone(), a.clone());
                std::thread::spawn(move || answer(stream, &r, &a));
            }
        });
        StubServer { port, routes, asked }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Answer GET `path` (with its query, if any) with `status` and `body`.
    pub fn route(&self, path: &str, status: u16, body: impl Into<Vec<u8>>) {
        self.routes.lock().unwrap().insert(path.to_string(), (status, body.into()));
    }

    /// Every path asked so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

fn answer(stream: TcpStream, routes: &Routes, asked: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(&stream);
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    // The headers, up to the blank line (a GET has no body).
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line.trim() != "" {
        line.clear();
    }
    let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    asked.lock().unwrap().push(path.clone());
    let (status, body) =
        routes.lock().unwrap().get(&path).cloned().unwrap_or((404, b"not found".to_vec()));
    let mut out = &stream;
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes()).and_then(|_| out.write_all(&body));
}
