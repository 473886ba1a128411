//! A repository folder's text files, as CoReQA's retrieval reads them:
//! every regular file below the root (links are not followed, so nothing
//! outside the root is read and a FIFO or device is never opened), not
//! under a `.git` folder, whose bytes are UTF-8 without a NUL byte; paths
//! `/`-separated, sorted as UTF-8 bytes. A file over the size limit is
//! left out and named in `skipped`, as are unreadable ones.

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

/// The text files of the folder `root` (a native front's `--repo`).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_text_dir(
    root: &std::path::Path,
    limits: TextDirLimits,
) -> Result<TextDir, CoreqaError> {
    let io = |p: &std::path::Path, e: std::io::Error| CoreqaError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    let meta = std::fs::metadata(root).map_err(|e| io(root, e))?;
    if !meta.is_dir() {
        return Err(CoreqaError::Io {
            path: root.display().to_string(),
            message: "not a directory".into(),
        });
    }
    let mut out = TextDir::default();
    let mut total = 0u64;
    let mut entries = 0usize;
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let entry = entry.map_err(|e| io(&dir, e))?;
            entries += 1;
            if entries > limits.max_entries {
                return Err(CoreqaError::TooLarge {
                    path: root.display().to_string(),
                    what: format!("more than {} files and folders", limits.max_entries),
                });
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            // `file_type` does not follow links.
            let kind = entry.file_type().map_err(|e| io(&entry.path(), e))?;
            if kind.is_dir() {
                if name != ".git" {
                    stack.push((entry.path(), rel));
                }
                continue;
            }
            if !kind.is_file() {
                if kind.is_symlink() {
                    out.skipped.push((rel, "a link (not followed)".into()));
                }
                continue;
            }
            let size = entry.metadata().map_err(|e| io(&entry.path(), e))?.len();
            if size > limits.max_file_bytes {
                let limit = crate::input::limits::size_label(limits.max_file_bytes);
                out.skipped.push((rel, format!("larger than {limit}")));
                continue;
            }
            total += size;
            if total > limits.max_total_bytes {
                let limit = crate::input::limits::size_label(limits.max_total_bytes);
                return Err(CoreqaError::TooLarge {
                    path: root.display().to_string(),
                    what: format!("its files hold more than {limit}"),
                });
            }
            let bytes = match std::fs::read(entry.path()) {
                Ok(b) => b,
                Err(e) => {
                    out.skipped.push((rel, e.to_string()));
                    continue;
                }
            };
            if let Some(text) = text_of(bytes) {
                out.files.push(TextFile { path: rel, text });
            }
        }
    }
    out.files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(out)
}

/// A file's bytes as text: UTF-8 without a NUL byte.
fn text_of(bytes: Vec<u8>) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The text files among a repository's files read elsewhere (a folder or
/// an archive picked in the page: `(path relative to the root, bytes)`),
/// by [`read_text_dir`]'s rules: nothing under a `.git` folder, a file
/// over the size limit left out and named, UTF-8 without a NUL byte, sorted
/// by path as UTF-8 bytes; `name` names the repository in messages.
pub fn text_files(
    name: &str,
    files: impl IntoIterator<Item = (String, Vec<u8>)>,
    limits: TextDirLimits,
) -> Result<TextDir, CoreqaError> {
    let mut out = TextDir::default();
    let mut total = 0u64;
    for (path, bytes) in files {
        if path.split('/').any(|c| c == ".git") {
            continue;
        }
        let size = bytes.len() as u64;
        if size > limits.max_file_bytes {
            let limit = crate::input::limits::size_label(limits.max_file_bytes);
            out.skipped.push((path, format!("larger than {limit}")));
            continue;
        }
        total += size;
        if total > limits.max_total_bytes {
            let limit = crate::input::limits::size_label(limits.max_total_bytes);
            return Err(CoreqaError::TooLarge {
                path: name.to_string(),
                what: format!("its files hold more than {limit}"),
            });
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
