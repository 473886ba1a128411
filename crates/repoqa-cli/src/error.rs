//! The CLI's one error type: every failure a subcommand returns, typed,
//! with `From` conversions from the core's errors so `?` works, and the
//! exit code it maps to. `main` prints it once (`repoqa: <message>`).
//!
//! Exit codes: 2 bad input or configuration (most variants), 1 `verify`
//! found mismatches or a grammar failed its self-check, 3 `run` left tasks
//! failed.

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

use repoqa::curate::ArchiveError;
use repoqa::input::dataset::DatasetError;
use repoqa::input::limits::InflateExceeded;

/// What was being done to a file when the system refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOp {
    Write,
    Open,
    Repair,
    Create,
    BackUp,
}

impl fmt::Display for FileOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileOp::Write => "write",
            FileOp::Open => "open",
            FileOp::Repair => "repair",
            FileOp::Create => "create",
            FileOp::BackUp => "back up",
        })
    }
}

#[derive(Debug, Error)]
pub enum CliError {
    /// A bad flag value, a missing input, a configuration the command
    /// cannot run with: the message says what to change.
    #[error("{0}")]
    Usage(String),
    /// An error with the flag or file it concerns in front
    /// (`--languages: …`, `dataset.json: …`).
    #[error("{at}: {source}")]
    At { at: String, source: Box<CliError> },
    /// An input file could not be read (`what` names its role).
    #[error("{what} {}: {source}", path.display())]
    Read { what: &'static str, path: PathBuf, source: std::io::Error },
    #[error("{what} {}: not UTF-8 text (first bad byte at offset {offset})", path.display())]
    NotUtf8 { what: &'static str, path: PathBuf, offset: usize },
    /// A file could not be written, opened, repaired, created or backed up.
    #[error("cannot {op} {}: {source}", path.display())]
    Io { op: FileOp, path: PathBuf, source: std::io::Error },
    /// Another of the project's files was given (`hint` says which).
    #[error("{}: {hint}", path.display())]
    WrongFile { path: PathBuf, hint: String },
    /// Any error of the core (with a hint where a flag of this tool helps).
    #[error("{0}{hint}", hint = core_hint(.0))]
    Core(#[from] repoqa::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// `verify`: the file disagrees with its recomputation (exit 1).
    #[error("{file}: {count} mismatch(es)")]
    Mismatches { file: String, count: usize },
    /// `self-check` (exit 1).
    #[error("a grammar failed its self-check")]
    SelfCheckFailed,
    /// `run`: tasks left unanswered, each `id (why)` (exit 3).
    #[error("{}", unanswered(.tasks))]
    TasksFailed { tasks: Vec<String> },
}

/// The most tasks a message names one per line; the run log has them all.
const MAX_LISTED: usize = 20;

/// "N task(s) left without an answer:", one per line (at most
/// [`MAX_LISTED`]), then what to do.
fn unanswered(tasks: &[String]) -> String {
    let mut s = format!("{} task(s) left without an answer:", tasks.len());
    for t in tasks.iter().take(MAX_LISTED) {
        s.push_str("\n  ");
        s.push_str(t);
    }
    if tasks.len() > MAX_LISTED {
        s.push_str(&format!("\n  … and {} more: see the run log", tasks.len() - MAX_LISTED));
    }
    s.push_str("\nrerun the same command to ask them (it asks every task without an answer)");
    s
}

/// Every core error type converts through `repoqa::Error`.
macro_rules! via_core {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> CliError {
                CliError::Core(e.into())
            }
        }
    )*};
}

repoqa::for_each_error_type!(via_core);

impl CliError {
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::Usage(message.into())
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Mismatches { .. } | CliError::SelfCheckFailed => 1,
            CliError::TasksFailed { .. } => 3,
            CliError::At { source, .. } => source.exit_code(),
            _ => 2,
        }
    }
}

/// Put the flag or file an error concerns in front of it.
pub trait At<T> {
    fn at(self, place: impl fmt::Display) -> Result<T, CliError>;
}

impl<T, E: Into<CliError>> At<T> for Result<T, E> {
    fn at(self, place: impl fmt::Display) -> Result<T, CliError> {
        self.map_err(|e| CliError::At { at: place.to_string(), source: Box::new(e.into()) })
    }
}

/// How to raise the limit a stream went through.
pub fn raise_hint(exceeded: &InflateExceeded) -> &'static str {
    if exceeded.is_ratio() {
        " (if you trust the file, raise the limit with --max-inflate-ratio N)"
    } else {
        " (if you trust the file, raise the limit with --max-inflated-bytes N)"
    }
}

/// Which of this tool's flags raises the limit a core error hit.
fn core_hint(e: &repoqa::Error) -> &'static str {
    match e {
        repoqa::Error::Dataset(DatasetError::Inflate { exceeded, .. })
        | repoqa::Error::Archive(ArchiveError::Inflate { exceeded, .. }) => raise_hint(exceeded),
        repoqa::Error::Archive(ArchiveError::TooMuchData { .. }) => {
            " (if you trust the file, raise the limit with --max-inflated-bytes N)"
        }
        _ => "",
    }
}

/// Read a file the command was given (a device is refused, a pipe read up
/// to a limit: `repoqa::input::input_file`); `what` names its role in the error.
pub fn fs_read(path: &Path, what: &'static str) -> Result<Vec<u8>, CliError> {
    repoqa::input::input_file::read(path).map_err(|source| CliError::Read {
        what,
        path: path.into(),
        source,
    })
}

/// Read a text file the command was given.
pub fn fs_read_text(path: &Path, what: &'static str) -> Result<String, CliError> {
    let bytes = fs_read(path, what)?;
    String::from_utf8(bytes).map_err(|e| CliError::NotUtf8 {
        what,
        path: path.into(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Write `contents` to `path`, replacing it only once the whole text is on
/// disk: it goes to a temporary file in the same folder that is then
/// renamed over `path`, so a failed write (disk full, a size limit, an
/// interrupt) leaves the file that was there intact.
/// A pipe or device is written directly.
pub fn fs_write(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), CliError> {
    use std::io::Write;
    let fail = |e| io(FileOp::Write, path, e);
    // A pipe or a device (`--out /dev/stdout`) is written to as it is:
    // there is no old file to keep, and it cannot be renamed over.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::write(path, contents).map_err(fail);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".repoqa-").suffix(".part");
    if let Some(permissions) = new_file_permissions(path) {
        builder.permissions(permissions);
    }
    let mut tmp = builder.tempfile_in(dir).map_err(fail)?;
    tmp.write_all(contents.as_ref()).and_then(|()| tmp.as_file().sync_data()).map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// The permissions of the file being replaced, or on Unix the usual ones
/// of a new file (0644; the temporary file's own are owner-only).
fn new_file_permissions(path: &Path) -> Option<std::fs::Permissions> {
    if let Ok(meta) = std::fs::metadata(path) {
        return Some(meta.permissions());
    }
    #[cfg(unix)]
    return Some(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    #[cfg(not(unix))]
    None
}

/// Refuse to write `out` (given by `out_flag`) over one of the command's
/// own inputs (`(flag, path)`): the same file by another name or link
/// counts too. Checked before anything is written.
pub fn refuse_overwriting_inputs(
    out_flag: &str,
    out: &Path,
    inputs: &[(&str, &Path)],
) -> Result<(), CliError> {
    for (flag, input) in inputs {
        if same_file::is_same_file(out, input).unwrap_or(false) {
            return Err(CliError::usage(format!(
                "{out_flag} {}: that is the file given as {flag}, which this command reads; write to another file",
                out.display()
            )));
        }
    }
    Ok(())
}

/// The error of `op` on `path`.
pub fn io(op: FileOp, path: &Path, source: std::io::Error) -> CliError {
    CliError::Io { op, path: path.into(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file_and_the_operation() {
        let e = fs_read(Path::new("/no/such/file.json"), "dataset").unwrap_err();
        assert!(e.to_string().starts_with("dataset /no/such/file.json: "), "{e}");
        assert_eq!(e.exit_code(), 2);
        let e = fs_write(Path::new("/no/such/dir/out.jsonl"), "x").unwrap_err();
        assert!(e.to_string().starts_with("cannot write /no/such/dir/out.jsonl: "), "{e}");
        let e = io(FileOp::BackUp, Path::new("a"), std::io::Error::other("busy"));
        assert_eq!(e.to_string(), "cannot back up a: busy");
        let e = fs_read(Path::new("/dev/zero"), "dataset").unwrap_err();
        assert!(
            e.to_string().starts_with("dataset /dev/zero: a device or socket, not a regular file"),
            "{e}"
        );
    }

    #[test]
    fn at_prefixes_the_flag_and_keeps_the_exit_code() {
        let r = repoqa::code::lang::Language::from_name("cobol").at("--languages");
        let e = r.unwrap_err();
        assert!(e.to_string().starts_with("--languages: "), "{e}");
        assert_eq!(e.exit_code(), 2);
        let e: Result<(), CliError> = Err(CliError::SelfCheckFailed).at("x");
        assert_eq!(e.unwrap_err().exit_code(), 1);
    }

    #[test]
    fn exit_codes() {
        assert_eq!(CliError::usage("no").exit_code(), 2);
        assert_eq!(CliError::Mismatches { file: "f".into(), count: 2 }.exit_code(), 1);
        let e = CliError::TasksFailed { tasks: vec!["a (x)".into(), "b (y)".into()] };
        assert_eq!(e.exit_code(), 3);
        assert_eq!(
            e.to_string(),
            "2 task(s) left without an answer:\n  a (x)\n  b (y)\nrerun the same command to ask them (it asks every task without an answer)"
        );
        let many = CliError::TasksFailed { tasks: (0..25).map(|i| format!("t{i} (x)")).collect() };
        let text = many.to_string();
        assert_eq!(text.lines().count(), 1 + 20 + 2, "{text}");
        assert!(text.contains("\n  … and 5 more: see the run log\n"), "{text}");
    }
}
