//! Printing to stdout with `out!` / `outln!` instead of `print!` /
//! `println!`, which panic when stdout is closed. A closed stdout — the
//! reader went away, as in `repoqa leaderboard … | head -1` — is the end of
//! the output: nothing more is printed and no message either, and the
//! command ends as it would have (its exit code still says whether
//! `verify` found mismatches). Another write error is reported and exits
//! with 2.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Write `args` to stdout (see the module's rules).
pub fn write(args: std::fmt::Arguments) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let result = std::io::stdout().lock().write_fmt(args);
    if let Err(e) = result {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        eprintln!("repoqa: cannot write to stdout: {e}");
        std::process::exit(2);
    }
}

/// `print!` to stdout, ending quietly if stdout is closed.
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}

/// `println!` to stdout, ending quietly if stdout is closed.
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {out, outln};
