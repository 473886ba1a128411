//! A repository's text files, as CoReQA's retrieval reads them: every
//! regular file below the root, not under a `.git` folder, whose bytes are
//! UTF-8 without a NUL byte; paths `/`-separated, sorted as UTF-8 bytes. A
//! file over the size limit is left out and named in `skipped`. The fronts
//! read the files (the CLI walks a folder, `repoqa-cli/src/text_dir.rs`; the
//! page takes a picked folder or archive); these rules are the one place
//! they are decided.

use super::{CoreqaError, TextFile};

/// What a repository folder may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextDirLimits {
    /// Bytes of one file; larger files are skipped (and named).
    pub max_file_bytes: u64,
    /// Bytes of all text files together.
    pub max_total_bytes: u64,
    /// Entries walked (files and folders).
    pub max_entries: usize,
}

impl Default for TextDirLimits {
    fn default() -> TextDirLimits {
        TextDirLimits { max_file_bytes: 16 << 20, max_total_bytes: 1 << 30, max_entries: 200_000 }
    }
}

/// The text files and what was left out (path and why).
#[derive(Debug, Default)]
pub struct TextDir {
    pub files: Vec<TextFile>,
    pub skipped: Vec<(String, String)>,
}

/// The size rules, a file at a time, for a reader that knows a file's size
/// before it reads it: a file over the limit is left out (and named), and
/// a repository whose files together pass the total is refused.
#[derive(Debug)]
pub struct SizeBudget {
    name: String,
    limits: TextDirLimits,
    total: u64,
}

impl SizeBudget {
    /// The budget of the repository `name` (in messages).
    pub fn new(name: &str, limits: TextDirLimits) -> SizeBudget {
        SizeBudget { name: name.to_string(), limits, total: 0 }
    }

    /// A file of `size` bytes: `None` to read it, `Some(why)` to leave it
    /// out, or the repository is too large.
    pub fn admit(&mut self, size: u64) -> Result<Option<String>, CoreqaError> {
        if size > self.limits.max_file_bytes {
            let limit = crate::input::limits::size_label(self.limits.max_file_bytes);
            return Ok(Some(format!("larger than {limit}")));
        }
        self.total += size;
        if self.total > self.limits.max_total_bytes {
            let limit = crate::input::limits::size_label(self.limits.max_total_bytes);
            return Err(CoreqaError::TooLarge {
                path: self.name.clone(),
                what: format!("its files hold more than {limit}"),
            });
        }
        Ok(None)
    }
}

/// A file's bytes as text: UTF-8 without a NUL byte.
pub fn text_of(bytes: Vec<u8>) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The text files among a repository's files read elsewhere (a folder or
/// an archive picked in the page: `(path relative to the root, bytes)`),
/// by the module's rules: nothing under a `.git` folder, a file
/// over the size limit left out and named, UTF-8 without a NUL byte, sorted
/// by path as UTF-8 bytes; `name` names the repository in messages.
pub fn text_files(
    name: &str,
    files: impl IntoIterator<Item = (String, Vec<u8>)>,
    limits: TextDirLimits,
) -> Result<TextDir, CoreqaError> {
    let mut out = TextDir::default();
    let mut budget = SizeBudget::new(name, limits);
    for (path, bytes) in files {
        if path.split('/').any(|c| c == ".git") {
            continue;
        }
        if let Some(why) = budget.admit(bytes.len() as u64)? {
            out.skipped.push((path, why));
            continue;
        }
        if let Some(text) = text_of(bytes) {
            out.files.push(TextFile { path, text });
        }
    }
    out.files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(out)
}

/// A folder of several repositories, one folder per `owner/name` (as
/// `coreqa answer --repos` reads them), split into each repository's
/// files, their paths relative to it: one entry per name of `names`, in
/// that order. The folder may sit one level down (an archive's top folder).
/// A repository with no file is refused, naming it.
pub fn split_repositories(
    files: &[TextFile],
    names: &[&str],
) -> Result<Vec<(String, Vec<TextFile>)>, CoreqaError> {
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let prefix = format!("{name}/");
        let inside = |path: &str| -> Option<String> {
            if let Some(rest) = path.strip_prefix(&prefix) {
                return Some(rest.to_string());
            }
            let (_, below) = path.split_once('/')?;
            below.strip_prefix(&prefix).map(str::to_string)
        };
        let mine: Vec<TextFile> = files
            .iter()
            .filter_map(|f| Some(TextFile { path: inside(&f.path)?, text: f.text.clone() }))
            .collect();
        if mine.is_empty() {
            return Err(CoreqaError::MissingRepository { repo: name.to_string() });
        }
        out.push((name.to_string(), mine));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_folder_of_repositories_is_split_by_owner_and_name() {
        let f = |path: &str| TextFile { path: path.into(), text: path.into() };
        let files = [f("acme/widget/a.py"), f("top/dtolnay/semver/src/lib.rs"), f("README.md")];
        let split = split_repositories(&files, &["dtolnay/semver", "acme/widget"]).unwrap();
        assert_eq!(split[0].0, "dtolnay/semver");
        assert_eq!(
            split[0].1,
            [TextFile { path: "src/lib.rs".into(), text: "top/dtolnay/semver/src/lib.rs".into() }]
        );
        assert_eq!(split[1].1[0].path, "a.py");
        let e = split_repositories(&files, &["acme/gone"]).unwrap_err();
        assert!(e.to_string().contains("acme/gone"), "{e}");
    }
    use super::*;

    #[test]
    fn files_read_elsewhere_follow_the_folder_rules() {
        let limits = TextDirLimits { max_file_bytes: 8, max_total_bytes: 20, max_entries: 10 };
        let files = [
            ("src/b.rs", &b"fn b(){}"[..]),
            (".git/config", b"[core]"),
            ("a.md", b"# A"),
            ("big.txt", b"123456789"),
            ("bin", b"a\0b"),
            ("latin1", b"caf\xe9"),
        ];
        let dir = text_files("r", files.map(|(p, b)| (p.to_string(), b.to_vec())), limits).unwrap();
        let paths: Vec<&str> = dir.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a.md", "src/b.rs"]);
        assert_eq!(dir.skipped, [("big.txt".to_string(), "larger than 8 bytes".to_string())]);
        let many = (0..3).map(|i| (format!("f{i}"), b"12345678".to_vec()));
        let e = text_files("r", many, limits).unwrap_err().to_string();
        assert!(e.starts_with("r: its files hold more than"), "{e}");
    }
}
