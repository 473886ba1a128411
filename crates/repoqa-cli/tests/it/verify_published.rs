//! The 30 published `-SCORES.json` files of the RepoQA paper (kept in
//! `tests/fixtures/published-scores/`): every `scores` table recomputed
//! from the file's own `results` must equal the published one exactly, and
//! our Python-format writer must reproduce what Python's `json.dumps` writes
//! for the same data, byte for byte.

use repoqa_testkit as common;

use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;

use repoqa::report::ScoresFile;
use repoqa::review::verify::check_table;

/// The published files, kept gzipped in `tests/fixtures/published-scores/`
/// (public result data of the RepoQA authors; see the README there),
/// unpacked once into the test's scratch folder so the CLI and the oracle
/// can read them as plain files.
fn published_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = repoqa_testkit::root().join("tests/fixtures/published-scores");
        let dst = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("published-scores");
        std::fs::create_dir_all(&dst).unwrap();
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let Some(plain) = name.strip_suffix(".gz") else { continue };
            let mut text = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
                .read_to_end(&mut text)
                .unwrap();
            std::fs::write(dst.join(plain), text).unwrap();
        }
        dst
    })
    .clone()
}

fn published_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(published_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with("-SCORES.json"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn recomputed_tables_equal_the_published_ones() {
    let files = published_files();
    assert_eq!(files.len(), 30, "expected the 30 published SCORES files");
    let mut tasks = 0;
    let mut cells = 0;
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file = ScoresFile::parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        for (model, scores) in &file.models {
            tasks += scores.task_count();
            cells += scores.scores.as_object().map_or(0, |rows| rows.len() * 11);
            for m in check_table(model, scores) {
                failures.push(format!("{name} ({model}): {m}"));
            }
        }
    }
    println!(
        "verify_published: {} files, {} tasks, {} table cells recomputed, {} mismatches",
        files.len(),
        tasks,
        cells,
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn python_format_rewrite_matches_python_json_dumps() {
    let files = published_files();
    let mut identical_to_published = 0;
    let mut identical_to_python = 0;
    let mut failures = Vec::new();
    // What Python writes for the same data, json.dumps(json.load(f)), for
    // every file in one run of the oracle: one line each.
    let mut args = vec!["redump"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let redumped = common::run_oracle("score.py", &args, None);
    let redumped: Vec<&[u8]> = redumped.split(|b| *b == b'\n').collect();
    assert_eq!(redumped.len(), files.len() + 1, "one line per file from the oracle");
    for (path, python) in files.iter().zip(redumped) {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file = ScoresFile::parse(&text, &name).unwrap();
        let ours = file.to_python_json();
        // Parses back to the same data.
        let a: serde_json::Value = serde_json::from_str(&ours).unwrap();
        let b: serde_json::Value = serde_json::from_str(&text).unwrap();
        if a != b {
            failures.push(format!("{name}: re-serialized file parses to different data"));
        }
        if ours == text {
            identical_to_published += 1;
        }
        if ours.as_bytes() == python {
            identical_to_python += 1;
        } else {
            let p = String::from_utf8_lossy(python);
            let at = ours
                .bytes()
                .zip(p.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(ours.len().min(p.len()));
            failures.push(format!(
                "{name}: differs from Python's json.dumps at byte {at}: ours {:?} python {:?}",
                &ours[at.saturating_sub(40)..(at + 40).min(ours.len())],
                &p[at.saturating_sub(40)..(at + 40).min(p.len())]
            ));
        }
    }
    println!(
        "verify_published: {} files re-serialized; {} byte-identical to Python's json.dumps of the same data; \
         {} byte-identical to the published file (the published files are pretty-printed, Python's json.dump is not)",
        files.len(),
        identical_to_python,
        identical_to_published
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(identical_to_python, files.len());
}

/// The same checks through the CLI: `repoqa verify --scores F` exits 0.
#[test]
fn cli_verify_accepts_every_published_file() {
    let bin = crate::REPOQA;
    let files = published_files();
    for path in &files {
        let out = std::process::Command::new(bin)
            .arg("verify")
            .arg("--scores")
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "repoqa verify --scores {} failed ({}):\n{}{}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A tampered file fails with exit 1 and names the cell.
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let model = v.as_object().unwrap().keys().next().unwrap().clone();
    v[&model]["scores"]["all"]["0.5"]["pass@1"] = serde_json::json!(0.123);
    let tampered = common::scratch("verify_published").join("tampered-SCORES.json");
    std::fs::write(&tampered, serde_json::to_string(&v).unwrap()).unwrap();
    let out = std::process::Command::new(bin)
        .arg("verify")
        .arg("--scores")
        .arg(&tampered)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("scores.all.0.5"), "{stdout}");
    println!(
        "verify_published: CLI verify passed {} files and rejected a tampered one",
        files.len()
    );
}

/// `repoqa verify` reads a gzipped SCORES file as the leaderboard and the
/// Verify page do, and refuses a gzip bomb with a message naming the file
/// and the limit instead of inflating it.
#[test]
fn verify_reads_gzip_and_refuses_a_bomb() {
    use std::io::Write;
    let gz = repoqa_testkit::root()
        .join("tests/fixtures/published-scores/claude-3-haiku-20240307-SCORES.json.gz");
    let verify = |path: &std::path::Path| {
        crate::repoqa_command().args(["verify", "--scores"]).arg(path).output().unwrap()
    };
    let out = verify(&gz);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("verified, no mismatch"), "{stdout}");

    // 80 MiB of spaces gzip to about 80 KB: past the 100:1 ratio once
    // 64 MiB are out.
    let bomb = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bomb-SCORES.json.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..80 {
        e.write_all(&spaces).unwrap();
    }
    std::fs::write(&bomb, e.finish().unwrap()).unwrap();
    let out = verify(&bomb);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bomb-SCORES.json.gz") && stderr.contains("compression bomb"),
        "{stderr}"
    );
}
