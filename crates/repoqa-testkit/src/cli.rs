//! Running the `repoqa` binary as the CLI tests do, written once: a test
//! names the binary (`env!("CARGO_BIN_EXE_repoqa")`, which only the CLI's
//! own tests can expand) and gets a command that can reach no real model
//! API (the keys a user may have exported are removed; a test that needs
//! one sets it to a stand-in's), plus the two ways tests read a result.

use std::process::{Command, Output};

/// The environment variables the runner reads API keys from.
pub const API_KEYS: &[&str] =
    &["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_KEY", "GOOGLE_API_KEY"];

/// `bin` as a command, without the API keys of the test's environment.
pub fn command(bin: &str) -> Command {
    let mut c = Command::new(bin);
    for key in API_KEYS {
        c.env_remove(key);
    }
    c
}

/// `bin ARGS`, run to the end.
pub fn run(bin: &str, args: &[&str]) -> Output {
    command(bin).args(args).output().unwrap_or_else(|e| panic!("{bin}: {e}"))
}

/// What the command wrote to stderr (its messages and progress).
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Its stdout, then its stderr: everything a person at the terminal saw.
pub fn text(o: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}
