//! Step 1 of curation: the repo's `content`. The files of the language
//! (upstream suffixes) under the entry directory, keyed by their path
//! relative to the repo root, sorted, decoded as UTF-8 without newline
//! translation; a file that is not UTF-8 is skipped with a warning.

use indexmap::IndexMap;

use super::{CurateError, CurateWarning, SourceFile};
use crate::code::lang::Language;

/// Upstream `lang2suffix` (scripts/curate/utility.py).
pub fn language_suffixes(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => &[".py"],
        Language::Go => &[".go"],
        Language::Cpp => &[".cpp", ".hpp", ".cc", ".hh", ".cxx", ".hxx", ".c", ".h"],
        Language::Java => &[".java"],
        Language::TypeScript => &[".ts", ".js"],
        Language::Rust => &[".rs"],
    }
}

/// Whether a file name has one of the language's suffixes.
pub fn has_language_suffix(path: &str, language: Language) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    language_suffixes(language).iter().any(|s| name.ends_with(s))
}

/// A path as the dataset spells it: "/" separators, no leading "./" or "/",
/// no empty or "." components. `None` for a path that leaves the root.
pub(crate) fn normalize_path(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The entry directory: `"."` for the whole root, else a normalized
/// relative path.
pub(crate) fn normalize_entry(entry: Option<&str>) -> Result<String, CurateError> {
    let raw = entry.unwrap_or(".");
    match normalize_path(raw) {
        Some(p) if p.is_empty() => Ok(".".to_string()),
        Some(p) => Ok(p),
        None => Err(CurateError::BadEntry { entry: raw.to_string() }),
    }
}

/// Whether `path` (normalized) lies under the entry directory.
pub(crate) fn under_entry(path: &str, entry: &str) -> bool {
    entry == "." || path.strip_prefix(entry).is_some_and(|rest| rest.starts_with('/'))
}

/// How the entry path selects files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EntryMatch {
    /// The files inside the entry directory (`src/black` takes
    /// `src/black/…` only). The default, and the corpus builder's rule.
    #[default]
    Directory,
    /// Upstream's rule, `path.startswith(entrypoint)` in
    /// `scripts/curate/dataset_ensemble_clone.py`, the script that made the
    /// official dataset: a plain string prefix, so `src/black` also takes
    /// `src/blackd/…` and `src/black_primer/…` (and `src/black.py`).
    Prefix,
}

impl EntryMatch {
    pub fn name(self) -> &'static str {
        match self {
            EntryMatch::Directory => "directory",
            EntryMatch::Prefix => "prefix",
        }
    }

    pub fn from_name(name: &str) -> Option<EntryMatch> {
        match name {
            "directory" => Some(EntryMatch::Directory),
            "prefix" => Some(EntryMatch::Prefix),
            _ => None,
        }
    }
}

/// The entry as a rule compares it: [`normalize_entry`], plus, under the
/// prefix rule, the trailing "/" the user wrote (upstream's
/// `startswith("src/black/")` does not take `src/blackd`).
pub(crate) fn entry_for_match(entry: Option<&str>, how: EntryMatch) -> Result<String, CurateError> {
    let normalized = normalize_entry(entry)?;
    let slash = entry.is_some_and(|e| e.ends_with('/') || e.ends_with('\\'));
    Ok(if how == EntryMatch::Prefix && slash && normalized != "." {
        format!("{normalized}/")
    } else {
        normalized
    })
}

/// Whether `path` (normalized) is selected by `entry` (from
/// [`entry_for_match`]) under the rule `how`.
pub(crate) fn matches_entry(path: &str, entry: &str, how: EntryMatch) -> bool {
    match how {
        EntryMatch::Directory => under_entry(path, entry),
        EntryMatch::Prefix => entry == "." || path.starts_with(entry),
    }
}

/// The directory to walk to find every file `entry` can select: the entry
/// itself, or under the prefix rule the directory that holds it.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native folder walk
pub(crate) fn walk_root_of(entry: &str, how: EntryMatch) -> &str {
    match how {
        EntryMatch::Directory => entry,
        EntryMatch::Prefix => match entry.trim_end_matches('/').rsplit_once('/') {
            _ if entry == "." => ".",
            Some((dir, _)) => dir,
            None => ".",
        },
    }
}

/// Files per language (by suffix; a ".h" counts for C++ only), the
/// languages with files first, most files first, then in `Language::ALL`
/// order: the browser's default language is the first.
pub fn count_by_language(files: &[SourceFile]) -> Vec<(Language, usize)> {
    let mut counts: Vec<(Language, usize)> = Language::ALL
        .iter()
        .map(|l| (*l, files.iter().filter(|f| has_language_suffix(&f.path, *l)).count()))
        .collect();
    // A stable sort keeps `ALL` order among equal counts.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
}

/// The directories (normalized, sorted, "." first) that hold files of the
/// language at any depth: the choices of an entry directory.
pub fn directories_of(files: &[SourceFile], language: Language) -> Vec<String> {
    let mut dirs = std::collections::BTreeSet::new();
    for f in files.iter().filter(|f| has_language_suffix(&f.path, language)) {
        let Some(path) = normalize_path(&f.path) else { continue };
        let mut parts: Vec<&str> = path.split('/').collect();
        parts.pop();
        for depth in 1..=parts.len() {
            dirs.insert(parts[..depth].join("/"));
        }
    }
    std::iter::once(".".to_string()).chain(dirs).collect()
}

pub(crate) fn collect(
    files: &[SourceFile],
    language: Language,
    entry: &str,
    how: EntryMatch,
    max_bytes: u64,
    warnings: &mut Vec<CurateWarning>,
) -> Result<IndexMap<String, String>, CurateError> {
    let mut picked: Vec<(String, &SourceFile)> = Vec::new();
    for f in files {
        let Some(path) = normalize_path(&f.path) else {
            return Err(CurateError::BadPath { path: f.path.clone() });
        };
        if matches_entry(&path, entry, how) && has_language_suffix(&path, language) {
            picked.push((path, f));
        }
    }
    if picked.is_empty() {
        return Err(CurateError::NoFiles {
            language,
            suffixes: language_suffixes(language).join(" "),
            entry: entry.to_string(),
            inputs: files.len(),
        });
    }
    let total: u64 = picked.iter().map(|(_, f)| f.bytes.len() as u64).sum();
    if total > max_bytes {
        return Err(CurateError::TooLarge {
            language,
            bytes: total,
            limit: max_bytes,
            files: picked.len(),
        });
    }
    // Python sorts str paths by code point; UTF-8 byte order is the same.
    picked.sort_by(|a, b| a.0.cmp(&b.0));
    let mut content = IndexMap::new();
    let mut undecodable = 0usize;
    for (i, (path, f)) in picked.iter().enumerate() {
        if i > 0 && picked[i - 1].0 == *path {
            return Err(CurateError::DuplicatePath { path: path.clone() });
        }
        match std::str::from_utf8(&f.bytes) {
            Ok(text) => {
                content.insert(path.clone(), text.to_string());
            }
            Err(e) => {
                undecodable += 1;
                warnings
                    .push(CurateWarning::NotUtf8 { path: path.clone(), at_byte: e.valid_up_to() });
            }
        }
    }
    if content.is_empty() {
        return Err(CurateError::AllUndecodable { language, files: undecodable });
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &[u8]) -> SourceFile {
        SourceFile { path: path.to_string(), bytes: text.to_vec() }
    }

    #[test]
    fn keeps_language_files_under_the_entry_sorted() {
        let files = [
            file("./src/pkg/b.py", b"b"),
            file("src\\pkg\\a.py", b"a"),
            file("src/pkg/notes.txt", b"n"),
            file("src/other/c.py", b"c"),
            file("src/pkgx/d.py", b"d"),
            file("src/pkg/sub/e.py", b"e"),
        ];
        let mut w = Vec::new();
        let c =
            collect(&files, Language::Python, "src/pkg", EntryMatch::Directory, 1 << 20, &mut w)
                .unwrap();
        assert_eq!(
            c.keys().collect::<Vec<_>>(),
            ["src/pkg/a.py", "src/pkg/b.py", "src/pkg/sub/e.py"]
        );
        let c =
            collect(&files, Language::Python, ".", EntryMatch::Directory, 1 << 20, &mut w).unwrap();
        assert_eq!(c.len(), 5);
        assert!(w.is_empty());
    }

    #[test]
    fn languages_and_directories_of_an_input() {
        let files = [
            file("src/a.go", b""),
            file("src/x/b.go", b""),
            file("tools/c.py", b""),
            file("d.h", b""),
        ];
        let counts = count_by_language(&files);
        assert_eq!(counts[0], (Language::Go, 2));
        assert_eq!(&counts[1..3], [(Language::Python, 1), (Language::Cpp, 1)]);
        assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), 4);
        assert_eq!(directories_of(&files, Language::Go), [".", "src", "src/x"]);
        assert_eq!(directories_of(&files, Language::Cpp), ["."]);
    }

    #[test]
    fn suffixes_and_entries() {
        assert!(has_language_suffix("a/b.hpp", Language::Cpp));
        assert!(has_language_suffix("x.js", Language::TypeScript));
        assert!(!has_language_suffix("x.py/readme", Language::Python));
        assert_eq!(normalize_entry(None).unwrap(), ".");
        assert_eq!(normalize_entry(Some("./src/")).unwrap(), "src");
        assert!(normalize_entry(Some("../x")).is_err());
        assert!(
            under_entry("src/a.py", "src")
                && !under_entry("srcx/a.py", "src")
                && !under_entry("src", "src")
        );
    }

    #[test]
    fn non_utf8_files_are_skipped_with_a_warning() {
        let files = [file("a.py", b"x = 1\n"), file("b.py", b"x = '\xff'\n")];
        let mut w = Vec::new();
        let c =
            collect(&files, Language::Python, ".", EntryMatch::Directory, 1 << 20, &mut w).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(w, [CurateWarning::NotUtf8 { path: "b.py".into(), at_byte: 5 }]);
    }

    #[test]
    fn errors_name_the_problem() {
        let mut w = Vec::new();
        let e = collect(&[], Language::Go, ".", EntryMatch::Directory, 10, &mut w)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "no go files (.go) under . among 0 input files");
        let e = collect(
            &[file("a.rs", b"\xfe\xff")],
            Language::Rust,
            ".",
            EntryMatch::Directory,
            10,
            &mut w,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "all 1 rust files are binary or not UTF-8; nothing to curate");
        let e = collect(
            &[file("a.rs", &[b'x'; 11])],
            Language::Rust,
            ".",
            EntryMatch::Directory,
            10,
            &mut w,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("the 1 rust files hold 11 bytes (0.0 MiB)"), "{e}");
        let e = collect(
            &[file("a.rs", b""), file("./a.rs", b"")],
            Language::Rust,
            ".",
            EntryMatch::Directory,
            10,
            &mut w,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "the input lists a.rs twice");
        let e = collect(
            &[file("../a.rs", b"")],
            Language::Rust,
            ".",
            EntryMatch::Directory,
            10,
            &mut w,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "input path \"../a.rs\" leaves the repository root");
    }
}
