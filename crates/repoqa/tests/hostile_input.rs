//! Bombs of each kind are refused in bounded memory, with a message that
//! names the file and the limit: a 3 MB `.json.gz` dataset that inflates to
//! 3 GB of whitespace inside one JSON string, a zip bomb, a tar.gz bomb,
//! deep nesting and long strings in a dataset, an outputs file and a
//! SCORES file.
//!
//! Each case runs in a child process (this test binary again, one case
//! each) that prints its peak resident memory (`VmHWM` of
//! /proc/self/status), so one case's allocations do not hide another's. The
//! bombs are written streaming into the target directory once (never held
//! in memory) and reused.
//!
//!     cargo test --release --test hostile_input -- --nocapture

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use repoqa::code::lang::Language;
use repoqa::curate::{read_archive, ArchiveLimits};
use repoqa::input::dataset::Dataset;
use repoqa::report::{read_model_outputs, ScoresFile};

const MIB: u64 = 1 << 20;

/// Peak resident memory of this process, in KiB.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Write `path` with `make` unless it is already there (built under a
/// temporary name, so an interrupted run leaves no half file).
fn cached(name: &str, make: impl FnOnce(&mut dyn Write)) -> PathBuf {
    let path = dir().join(name);
    if !path.exists() {
        let tmp = dir().join(format!("{name}.part"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
        make(&mut f);
        f.flush().unwrap();
        drop(f);
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

/// Write `n` bytes of `byte` to `w`, a MiB at a time.
fn fill(w: &mut dyn Write, byte: u8, n: u64) {
    let chunk = vec![byte; MIB as usize];
    let mut left = n;
    while left > 0 {
        let k = left.min(MIB) as usize;
        w.write_all(&chunk[..k]).unwrap();
        left -= k as u64;
    }
}

/// 3 GiB of spaces inside one JSON string, gzip-compressed: about 3 MB.
fn gzip_whitespace_bomb() -> PathBuf {
    cached("whitespace-3g.json.gz", |w| {
        let mut gz = flate2::write::GzEncoder::new(w, flate2::Compression::best());
        gz.write_all(br#"{"python": [{"repo": "a/b", "content": {"x.py": ""#).unwrap();
        fill(&mut gz, b' ', 3 << 30);
        gz.write_all(br#""}, "dependency": {}}]}"#).unwrap();
        gz.finish().unwrap();
    })
}

/// A zip whose one Python entry is 1 GiB of zeros (deflated: about 1 MB).
fn zip_bomb() -> PathBuf {
    cached("zeros-1g.zip", |w| {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(true);
            z.start_file("pkg/bomb.py", opts).unwrap();
            fill(&mut z, 0, 1 << 30);
            z.start_file("pkg/a.py", opts).unwrap();
            z.write_all(b"def a():\n    return 1\n").unwrap();
            z.finish().unwrap();
        }
        // The compressed archive is small: written out whole.
        w.write_all(buf.get_ref()).unwrap();
    })
}

/// A tar.gz holding a 1 GiB file of zeros that curation skips (not a
/// source suffix), then a Python file: the tar stream must be read through.
fn tar_gz_bomb() -> PathBuf {
    cached("zeros-1g.tar.gz", |w| {
        let gz = flate2::write::GzEncoder::new(w, flate2::Compression::best());
        let mut tar = tar::Builder::new(gz);
        let mut h = tar::Header::new_gnu();
        h.set_size(1 << 30);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, "pkg/zeros.bin", std::io::repeat(0).take(1 << 30)).unwrap();
        let py = b"def a():\n    return 1\n";
        let mut h = tar::Header::new_gnu();
        h.set_size(py.len() as u64);
        h.set_mode(0o644);
        tar.append_data(&mut h, "pkg/a.py", &py[..]).unwrap();
        tar.into_inner().unwrap().finish().unwrap();
    })
}

/// A dataset whose first repo is nested a million lists deep.
fn deep_dataset() -> PathBuf {
    cached("deep.json", |w| {
        w.write_all(b"{\"python\": [{\"repo\": \"a/b\", \"extra\": ").unwrap();
        fill(w, b'[', 1_000_000);
        fill(w, b']', 1_000_000);
        w.write_all(b"}]}").unwrap();
    })
}

/// A dataset with one 100 MiB file text (the limit is 64 MiB).
fn long_string_dataset() -> PathBuf {
    cached("long-string.json", |w| {
        w.write_all(br#"{"python": [{"repo": "a/b", "content": {"x.py": ""#).unwrap();
        fill(w, b'x', 100 * MIB);
        w.write_all(br#""}, "dependency": {}}]}"#).unwrap();
    })
}

/// An outputs file whose second line is 80 MiB long (the limit is 64 MiB).
fn long_line_outputs() -> PathBuf {
    cached("long-line.jsonl", |w| {
        let head = r#"{"repo": "a/b", "name": "f", "language": "python", "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2, "output": [""#;
        writeln!(w, "{head}x\"]}}").unwrap();
        w.write_all(head.as_bytes()).unwrap();
        fill(w, b'x', 80 * MIB);
        w.write_all(b"\"]}\n").unwrap();
    })
}

/// A SCORES file nested a million objects deep.
fn deep_scores() -> PathBuf {
    cached("deep-SCORES.json", |w| {
        for _ in 0..1_000_000 {
            w.write_all(b"{\"m\":").unwrap();
        }
        w.write_all(b"1").unwrap();
        fill(w, b'}', 1_000_000);
    })
}

/// The file of a case, written if missing.
fn file_of(case: &str) -> PathBuf {
    match case {
        "gzip-whitespace" => gzip_whitespace_bomb(),
        "zip" => zip_bomb(),
        "tar-gz" => tar_gz_bomb(),
        "deep-dataset" => deep_dataset(),
        "long-string" => long_string_dataset(),
        "long-line" => long_line_outputs(),
        "deep-scores" => deep_scores(),
        other => panic!("unknown case {other}"),
    }
}

/// One case, run in this process: the error message (or "accepted").
fn run_case(case: &str) -> String {
    let path = file_of(case);
    let dataset = |p: &Path| Dataset::from_file(p).map(|_| ()).map_err(|e| e.to_string());
    match case {
        "gzip-whitespace" | "deep-dataset" | "long-string" => dataset(&path),
        "zip" | "tar-gz" => read(&path),
        "long-line" => {
            let text = std::fs::read_to_string(&path).unwrap();
            let file = read_model_outputs(&text);
            match file.errors.first() {
                Some(e) => Err(e.to_string()),
                None => Ok(()),
            }
        }
        "deep-scores" => {
            let text = std::fs::read_to_string(&path).unwrap();
            ScoresFile::parse(&text, &path.display().to_string())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        other => panic!("unknown case {other}"),
    }
    .err()
    .unwrap_or_else(|| "accepted".into())
}

fn read(path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).unwrap();
    read_archive(
        &path.display().to_string(),
        &bytes,
        &[Language::Python],
        &ArchiveLimits::default(),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The child's side: run the case named in the environment and print its
/// result and peak memory.
#[test]
fn child() {
    let Ok(case) = std::env::var("REPOQA_HOSTILE_CASE") else { return };
    let message = run_case(&case);
    println!("\nHOSTILE\t{}\t{}", peak_kib(), message);
}

/// (case, what the message must say)
const CASES: &[(&str, &[&str])] = &[
    ("gzip-whitespace", &["whitespace-3g.json.gz", "inflates more than 100:1", "refused"]),
    ("zip", &["zeros-1g.zip", "pkg/bomb.py", "inflates more than 100:1", "refused"]),
    ("tar-gz", &["zeros-1g.tar.gz", "inflates more than 100:1", "refused"]),
    ("deep-dataset", &["deep.json", "recursion limit exceeded", "line 1"]),
    (
        "long-string",
        &["long-string.json", "python[0] (a/b).content[\"x.py\"]", "64 MiB", "refused"],
    ),
    ("long-line", &["line 2", "over the limit of 64 MiB"]),
    ("deep-scores", &["deep-SCORES.json", "recursion limit exceeded"]),
];

#[test]
fn bombs_are_refused_in_bounded_memory() {
    // Build the files first (not counted in any child's peak).
    for (case, _) in CASES {
        file_of(case);
    }
    let exe = std::env::current_exe().unwrap();
    let mut failures = Vec::new();
    println!("{:<16} {:>10} {:>12}  message", "case", "file", "peak RSS");
    for (case, wants) in CASES {
        let out = Command::new(&exe)
            .args(["child", "--exact", "--nocapture", "--test-threads=1"])
            .env("REPOQA_HOSTILE_CASE", case)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("HOSTILE\t")) else {
            failures.push(format!(
                "{case}: the child failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        };
        let (peak, message) = line.split_once('\t').unwrap();
        let peak: u64 = peak.parse().unwrap();
        let size = std::fs::metadata(file_of(case)).map_or(0, |m| m.len());
        println!(
            "{case:<16} {:>8.1}MB {:>9.1} MiB  {message}",
            size as f64 / 1e6,
            peak as f64 / 1024.0
        );
        for w in *wants {
            if !message.contains(w) {
                failures.push(format!("{case}: the message lacks {w:?}: {message}"));
            }
        }
        // Bounded: the file itself plus a few hundred MiB, never the bomb.
        if peak > 600 * 1024 {
            failures.push(format!("{case}: peak {} MiB", peak / 1024));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
