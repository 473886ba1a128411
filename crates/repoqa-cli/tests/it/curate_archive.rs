//! `repoqa curate --source` takes an archive as well as a folder: packing a
//! repository (.zip, .tar, .tar.gz, with a top directory as GitHub and
//! `zip -r` make, and files of other kinds beside the code) must give the
//! same dataset file, byte for byte, as curating the folder.
//!
//!     cargo test -p repoqa-cli --test it curate_archive::

use repoqa_testkit as common;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Every file under `dir`, as (path relative to `dir`, bytes), sorted.
fn walk(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for item in std::fs::read_dir(&d).unwrap() {
            let p = item.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The repository's files under `top/`, plus two that curation ignores.
fn packed_files(dir: &Path, top: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> =
        walk(dir).into_iter().map(|(p, b)| (format!("{top}/{p}"), b)).collect();
    files.push((format!("{top}/README.md"), b"# not code\n".to_vec()));
    files.push((format!("{top}/docs/logo.png"), vec![0x89, b'P', b'N', b'G', 0, 0xff]));
    files
}

fn zip_bytes(files: &[(String, Vec<u8>)], top: &str) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    w.add_directory(format!("{top}/"), opts).unwrap();
    for (p, b) in files {
        w.start_file(p.as_str(), opts).unwrap();
        w.write_all(b).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn tar_bytes(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (p, b) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(b.len() as u64);
        h.set_mode(0o644);
        t.append_data(&mut h, p, b.as_slice()).unwrap();
    }
    t.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Run `repoqa curate` and return the dataset file it wrote.
fn curate(source: &Path, args: &[&str], out: &Path) -> Vec<u8> {
    let res = crate::repoqa_command()
        .arg("curate")
        .arg("--source")
        .arg(source)
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "repoqa curate {}: {}",
        source.display(),
        String::from_utf8_lossy(&res.stderr)
    );
    std::fs::read(out).unwrap()
}

struct Case {
    name: &'static str,
    dir: PathBuf,
    args: Vec<String>,
}

fn cases() -> Vec<Case> {
    let demo = common::root().join("public/demo");
    let descriptions = demo.join("descriptions/python.json");
    let nom = common::tools().join("corpus/src/nom");
    assert!(nom.is_dir(), "{} missing: run scripts/setup.sh (it builds the corpus)", nom.display());
    vec![
        Case {
            name: "textkit",
            dir: demo.join("python"),
            args: [
                "--language",
                "python",
                "--repo",
                "repoqa-web/demo-textkit",
                "--entry",
                "textkit",
                "--descriptions",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([descriptions.display().to_string()])
            .collect(),
        },
        Case {
            name: "nom",
            dir: nom,
            args: ["--language", "rust", "--repo", "rust-bakery/nom", "--entry", "src"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        },
    ]
}

#[test]
fn archives_curate_like_their_folder() {
    let scratch = common::scratch("curate_archive");
    for case in cases() {
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let expected = curate(&case.dir, &args, &scratch.join(format!("{}-dir.json", case.name)));
        let top = format!("{}-1.0", case.name);
        let files = packed_files(&case.dir, &top);
        let tar = tar_bytes(&files);
        for (ext, bytes) in
            [("zip", zip_bytes(&files, &top)), ("tar", tar.clone()), ("tar.gz", gzip(&tar))]
        {
            let archive = scratch.join(format!("{}.{ext}", case.name));
            std::fs::write(&archive, &bytes).unwrap();
            let got = curate(&archive, &args, &scratch.join(format!("{}-{ext}.json", case.name)));
            assert!(
                got == expected,
                "{}: the dataset from the .{ext} differs from the folder's",
                case.name
            );
        }
        // A renamed archive is still recognized by its content.
        let renamed = scratch.join(format!("{}.bin", case.name));
        std::fs::write(&renamed, gzip(&tar)).unwrap();
        assert!(
            curate(&renamed, &args, &scratch.join(format!("{}-bin.json", case.name))) == expected
        );
    }
}

#[test]
fn a_bad_archive_fails_with_its_name() {
    let scratch = common::scratch("curate_archive");
    let archive = scratch.join("cut.tar.gz");
    let files = packed_files(&common::root().join("public/demo/python"), "x");
    let tgz = gzip(&tar_bytes(&files));
    std::fs::write(&archive, &tgz[..tgz.len() / 2]).unwrap();
    let res = crate::repoqa_command()
        .args(["curate", "--language", "python", "--repo", "a/b", "--source"])
        .arg(&archive)
        .arg("--out")
        .arg(scratch.join("cut.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(!res.status.success());
    assert!(stderr.contains("cut.tar.gz: the gzip data is truncated"), "{stderr}");
}
