//! `repoqa curate --registry pypi|npm|crates --released-after DATE`: fresh
//! splits from a package registry, against a stub registry on 127.0.0.1
//! serving the documented JSON shapes (PyPI's JSON API, the npm registry's
//! package document, the crates.io API) and source archives made here.
//!
//!     cargo test -p repoqa-cli --test it curate_registry::

use repoqa_testkit as common;
use repoqa_testkit::stub_server::StubServer;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// `files` files of `per_file` functions each, in the registry's language;
/// every function's name is unique. Returns (path, text) and the names.
fn sources(lang: &str, files: usize, per_file: usize) -> (Vec<(String, String)>, Vec<String>) {
    let mut out = Vec::new();
    let mut names = Vec::new();
    for f in 0..files {
        let mut text = String::new();
        for i in 0..per_file {
            let name = format!("step_{f}_{i}");
            // Each Python function calls the one before it, the first of
            // a file the last of the file before: call paths across files.
            let call = match (f, i) {
                (0, 0) => "0".to_string(),
                (_, 0) => format!("step_{}_{}(values[1:])", f - 1, per_file - 1),
                _ => format!("step_{f}_{}(values[1:])", i - 1),
            };
            let body = match lang {
                "python" => format!(
                    "def {name}(values, limit={i}):\n    total = {call}\n    for v in values:\n        if v > limit:\n            total += v * {f}\n        else:\n            total -= {i}\n    return total\n\n\n"
                ),
                "typescript" => format!(
                    "function {name}(values: number[], limit: number = {i}): number {{\n  let total = 0;\n  for (const v of values) {{\n    if (v > limit) {{\n      total += v * {f};\n    }} else {{\n      total -= {i};\n    }}\n  }}\n  return total;\n}}\n\n"
                ),
                _ => format!(
                    "pub fn {name}(values: &[i64], limit: i64) -> i64 {{\n    let mut total = 0;\n    for v in values {{\n        if *v > limit + {i} {{\n            total += v * {f};\n        }} else {{\n            total -= {i};\n        }}\n    }}\n    total\n}}\n\n"
                ),
            };
            text.push_str(&body);
            names.push(name);
        }
        let path = match lang {
            "python" => format!("pkg/part_{f}.py"),
            "typescript" => format!("src/part_{f}.ts"),
            _ => format!("src/part_{f}.rs"),
        };
        out.push((path, text));
    }
    (out, names)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A .tar.gz of `files` under `top/`.
fn tgz(top: &str, files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (p, b) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(b.len() as u64);
        h.set_mode(0o644);
        t.append_data(&mut h, format!("{top}/{p}"), b.as_slice()).unwrap();
    }
    gzip(&t.into_inner().unwrap())
}

/// A package's archive: its language's sources plus a file curation skips.
fn package_archive(lang: &str, top: &str) -> (Vec<u8>, Vec<String>) {
    let (files, names) = sources(lang, 3, 30);
    let mut files: Vec<(String, Vec<u8>)> =
        files.into_iter().map(|(p, t)| (p, t.into_bytes())).collect();
    files.push(("README.md".into(), b"# a package\n".to_vec()));
    (tgz(top, &files), names)
}

fn sha256(bytes: &[u8]) -> String {
    repoqa::input::identity::sha256_hex(bytes)
}

/// PyPI's JSON API document: a first version uploaded at `first`, the
/// latest `version` with a wheel and (if given) an sdist.
fn pypi_doc(
    server: &StubServer,
    name: &str,
    version: &str,
    first: &str,
    sdist: Option<(&str, &str)>,
) -> String {
    let wheel = json!({"packagetype": "bdist_wheel", "url": server.url(&format!("/files/{name}.whl")),
        "digests": {"sha256": "00"}, "upload_time_iso_8601": "2026-11-01T00:00:00.000000Z"});
    let mut urls = vec![wheel];
    if let Some((path, digest)) = sdist {
        urls.push(json!({"packagetype": "sdist", "url": server.url(path), "digests": {"md5": "x", "sha256": digest},
            "upload_time_iso_8601": "2026-11-01T00:00:00.000000Z"}));
    }
    json!({
        "info": {"name": name, "version": version},
        "releases": {
            "0.1": [{"packagetype": "sdist", "upload_time_iso_8601": first, "upload_time": &first[..19]}],
            version: urls.clone()
        },
        "urls": urls
    })
    .to_string()
}

/// Serve a PyPI package: its document and its sdist; the sdist's bytes.
fn serve_pypi(
    server: &StubServer,
    name: &str,
    version: &str,
    first: &str,
) -> (Vec<u8>, Vec<String>) {
    let top = format!("{name}-{version}");
    let (archive, names) = package_archive("python", &top);
    let path = format!("/files/{top}.tar.gz");
    server.route(&path, 200, archive.clone());
    server.route(
        &format!("/pypi/{name}/json"),
        200,
        pypi_doc(server, name, version, first, Some((&path, &sha256(&archive)))),
    );
    (archive, names)
}

fn write_descriptions(dir: &Path, names: &[String]) -> PathBuf {
    let map: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| (n.clone(), json!(format!("Adds up the values above a limit ({n})"))))
        .collect();
    let p = dir.join("descriptions.json");
    std::fs::write(&p, serde_json::to_string(&map).unwrap()).unwrap();
    p
}

fn curate(server: &StubServer, registry: &str, args: &[&str]) -> std::process::Output {
    crate::repoqa_command()
        .args(["curate", "--registry", registry, "--index-url"])
        .arg(server.url(""))
        .args(args)
        .output()
        .unwrap()
}

/// `repoqa prompts` of `dataset` at 2,048 tokens with `flags`, into `out`.
fn prompts_2048(dataset: &str, flags: &[&str], out: &Path) -> std::process::Output {
    let tok = common::tokenizer_path();
    let mut args = vec!["prompts", "--dataset-path", dataset, "--tokenizer", tok.to_str().unwrap()];
    args.extend(["--code-context-size", "2048", "--out", out.to_str().unwrap()]);
    args.extend_from_slice(flags);
    crate::repoqa(&args)
}

/// `curate --registry pypi --released-after 2026-03-01 --packages P
/// --descriptions D --out OUT`.
fn curate_pypi(
    server: &StubServer,
    packages: &str,
    descriptions: &Path,
    out: &Path,
) -> std::process::Output {
    let (d, o) = (descriptions.to_str().unwrap(), out.to_str().unwrap());
    curate(
        server,
        "pypi",
        &[
            "--released-after",
            "2026-03-01",
            "--packages",
            packages,
            "--descriptions",
            d,
            "--out",
            o,
        ],
    )
}

/// Every task of the JSONL `tasks` with `"output": [reply(task)]`, written
/// to `out`; there must be some.
fn answer_all(tasks: &Path, out: &Path, reply: impl Fn(&Value) -> String) {
    let answered: String = std::fs::read_to_string(tasks)
        .unwrap()
        .lines()
        .map(|l| {
            let mut t: Value = serde_json::from_str(l).unwrap();
            t["output"] = json!([reply(&t)]);
            t.to_string() + "\n"
        })
        .collect();
    assert!(!answered.is_empty(), "{}: no tasks", tasks.display());
    std::fs::write(out, answered).unwrap();
}

fn repos(ds: &Value, language: &str) -> Vec<Value> {
    ds[language].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_fresh_split_takes_only_packages_first_released_after_the_date() {
    let dir = common::scratch("curate_registry_fresh");
    let server = StubServer::start();
    let (fresh, mut names) = serve_pypi(&server, "fresh-pkg", "1.3", "2026-05-01T09:00:00.000000Z");
    let (_, more) = serve_pypi(&server, "old-pkg", "4.0", "2024-01-10T09:00:00.000000Z");
    names.extend(more);
    let descriptions = write_descriptions(&dir, &names);
    let out = dir.join("dataset.json");
    let o = out.to_str().unwrap();
    let res = curate_pypi(&server, "fresh-pkg,old-pkg", &descriptions, &out);
    let err = common::cli::stderr(&res);
    assert!(res.status.success(), "{err}");
    assert!(
        err.contains("old-pkg 4.0: first released 2024-01-10, not after 2026-03-01; passed over"),
        "{err}"
    );
    assert!(err.contains("its freshness: sources first released on 2026-05-01 or later"), "{err}");
    // The old package's archive was never asked for.
    let asked = server.asked();
    assert!(asked.contains(&"/files/fresh-pkg-1.3.tar.gz".to_string()), "{asked:?}");
    assert!(!asked.contains(&"/files/old-pkg-4.0.tar.gz".to_string()), "{asked:?}");

    let ds: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let py = repos(&ds, "python");
    assert_eq!(py.len(), 1);
    let r = &py[0];
    assert_eq!(r["repo"], "pypi/fresh-pkg");
    assert_eq!(r["registry"], "pypi");
    assert_eq!(r["package"], "fresh-pkg");
    assert_eq!(r["version"], "1.3");
    assert_eq!(r["first_release"], "2026-05-01T09:00:00.000000Z");
    assert_eq!(r["archive_sha256"], sha256(&fresh).as_str());
    assert_eq!(r["needles"].as_array().unwrap().len(), 10);
    assert!(r["content"].as_object().unwrap().keys().all(|k| k.starts_with("pkg/part_")));

    // npm (sha512 integrity) and crates.io (checksum, dl_path) added to it.
    let (npm_archive, npm_names) = package_archive("typescript", "package");
    let integrity = {
        use base64::Engine as _;
        use sha2::Digest as _;
        format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(&npm_archive))
        )
    };
    server.route("/-/ts-fresh-1.0.0.tgz", 200, npm_archive);
    let npm_doc = json!({
        "name": "@scope/ts-fresh",
        "dist-tags": {"latest": "1.0.0"},
        "time": {"created": "2026-07-04T10:00:00.000Z", "modified": "2026-07-05T10:00:00.000Z", "1.0.0": "2026-07-04T10:00:00.000Z"},
        "versions": {"1.0.0": {"dist": {"tarball": server.url("/-/ts-fresh-1.0.0.tgz"), "shasum": "0", "integrity": integrity}}}
    });
    server.route("/@scope%2fts-fresh", 200, npm_doc.to_string());
    let (crate_archive, crate_names) = package_archive("rust", "rs-fresh-0.2.0");
    server.route("/api/v1/crates/rs-fresh/0.2.0/download", 200, crate_archive.clone());
    let crate_doc = json!({
        "crate": {"name": "rs-fresh", "created_at": "2026-08-01T00:00:00.000000+00:00", "newest_version": "0.2.0", "max_stable_version": "0.2.0"},
        "versions": [
            {"num": "0.2.0", "dl_path": "/api/v1/crates/rs-fresh/0.2.0/download", "checksum": sha256(&crate_archive), "yanked": false},
            {"num": "0.1.0", "dl_path": "/api/v1/crates/rs-fresh/0.1.0/download", "checksum": "00", "yanked": false}
        ]
    });
    server.route("/api/v1/crates/rs-fresh", 200, crate_doc.to_string());
    let descriptions = write_descriptions(&dir, &[npm_names, crate_names].concat());
    let d = descriptions.to_str().unwrap();
    for (registry, package) in [("npm", "@scope/ts-fresh"), ("crates", "rs-fresh")] {
        let res = curate(
            &server,
            registry,
            &[
                "--released-after",
                "2026-03-01",
                "--packages",
                package,
                "--descriptions",
                d,
                "--append",
                o,
            ],
        );
        assert!(res.status.success(), "{registry}: {}", common::cli::stderr(&res));
    }
    let ds: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let ts = repos(&ds, "typescript");
    assert_eq!(ts[0]["repo"], "npm/@scope/ts-fresh");
    assert_eq!(ts[0]["first_release"], "2026-07-04T10:00:00.000Z");
    let rs = repos(&ds, "rust");
    assert_eq!(rs[0]["repo"], "crates/rs-fresh");
    assert_eq!(rs[0]["archive_sha256"], sha256(&crate_archive).as_str());
    for r in [&ts[0], &rs[0]] {
        assert_eq!(r["needles"].as_array().unwrap().len(), 10, "{}", r["repo"]);
    }

    // The file stays loadable by upstream's code: the official harness
    // builds the same tasks from it as `repoqa prompts`.
    let tasks = dir.join("tasks.jsonl");
    let res = crate::repoqa_command()
        .args(["prompts", "--dataset-path", o, "--tokenizer"])
        .arg(common::tokenizer_path())
        .arg("--out")
        .arg(&tasks)
        .output()
        .unwrap();
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    let ours = std::fs::read_to_string(&tasks).unwrap();
    let official = String::from_utf8(common::run_oracle("prompts.py", &[o], None)).unwrap();
    let official: Vec<&str> =
        official.lines().filter(|l| !l.starts_with("{\"oracle_seconds\"")).collect();
    assert_eq!(ours.lines().count(), 30);
    assert_eq!(ours.lines().collect::<Vec<_>>(), official);
}

/// Each bad package stops the command with its message and leaves the
/// dataset already written byte for byte as it was.
#[test]
fn a_bad_package_or_registry_is_named_and_the_dataset_kept() {
    let dir = common::scratch("curate_registry_bad");
    let server = StubServer::start();
    let (_, names) = serve_pypi(&server, "good", "1.0", "2026-05-01T00:00:00Z");
    let d = write_descriptions(&dir, &names);
    let d = d.to_str().unwrap();
    let out = dir.join("dataset.json");
    let o = out.to_str().unwrap();
    let args = |p: &'static str| -> Vec<&str> {
        vec!["--released-after", "2026-03-01", "--packages", p, "--descriptions", d, "--append", o]
    };
    let res = curate(
        &server,
        "pypi",
        &["--released-after", "2026-03-01", "--packages", "good", "--descriptions", d, "--out", o],
    );
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    let before = std::fs::read(&out).unwrap();

    // A hash mismatch.
    let (archive, _) = package_archive("python", "tampered-1.0");
    server.route("/files/tampered.tar.gz", 200, archive);
    server.route(
        "/pypi/tampered/json",
        200,
        pypi_doc(
            &server,
            "tampered",
            "1.0",
            "2026-05-01T00:00:00Z",
            Some(("/files/tampered.tar.gz", &"ab".repeat(32))),
        ),
    );
    // Only wheels.
    server.route(
        "/pypi/wheels-only/json",
        200,
        pypi_doc(&server, "wheels-only", "2.0", "2026-05-01T00:00:00Z", None),
    );
    // A bomb: 100 MiB of zeros in a small gzip.
    let mut t = tar::Builder::new(Vec::new());
    let zeros = vec![0u8; 100 << 20];
    let mut h = tar::Header::new_ustar();
    h.set_size(zeros.len() as u64);
    h.set_mode(0o644);
    t.append_data(&mut h, "bomb-1.0/bomb.py", zeros.as_slice()).unwrap();
    let bomb = gzip(&t.into_inner().unwrap());
    assert!(bomb.len() < 1 << 20);
    server.route("/files/bomb.tar.gz", 200, bomb.clone());
    server.route(
        "/pypi/bomb/json",
        200,
        pypi_doc(
            &server,
            "bomb",
            "1.0",
            "2026-05-01T00:00:00Z",
            Some(("/files/bomb.tar.gz", &sha256(&bomb))),
        ),
    );
    // An entry that climbs out of the archive's root (written raw: the tar
    // crate's own path setter refuses "..").
    let mut t = tar::Builder::new(Vec::new());
    let body = b"def evil():\n    return 1\n";
    let mut h = tar::Header::new_old();
    let name = b"climb-1.0/../../evil.py";
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.set_size(body.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    t.append(&h, &body[..]).unwrap();
    let climb = gzip(&t.into_inner().unwrap());
    server.route("/files/climb.tar.gz", 200, climb.clone());
    server.route(
        "/pypi/climb/json",
        200,
        pypi_doc(
            &server,
            "climb",
            "1.0",
            "2026-05-01T00:00:00Z",
            Some(("/files/climb.tar.gz", &sha256(&climb))),
        ),
    );
    // A registry answering garbage, and a package it does not have.
    server.route("/pypi/garbage/json", 200, "<html><body>Service Unavailable</body></html>");

    let cases: [(&str, &str); 6] = [
        ("tampered", "the archive of tampered 1.0 does not match the registry's SHA-256"),
        ("wheels-only", "wheels-only 2.0 on PyPI has no source archive (sdist), only wheels"),
        ("bomb", "bomb.tar.gz"),
        ("climb", "leaves the archive's root"),
        ("garbage", "/pypi/garbage/json: not PyPI's documented JSON"),
        ("missing", "/pypi/missing/json: missing is not on PyPI (404)"),
    ];
    for (package, said) in cases {
        let res = curate(&server, "pypi", &args(package));
        let err = common::cli::stderr(&res);
        assert_eq!(res.status.code(), Some(2), "{package}: {err}");
        assert!(err.contains(said), "{package}: {err}");
        assert!(!err.contains("panicked"), "{package}: {err}");
        assert_eq!(std::fs::read(&out).unwrap(), before, "{package}: the dataset changed");
    }
    // The bomb's message says it is one.
    let err = common::cli::stderr(&curate(&server, "pypi", &args("bomb")));
    assert!(err.contains("--max-inflate-ratio"), "{err}");

    // Not a date; PyPI has no popularity list; nothing fresh.
    let err = common::cli::stderr(&curate(
        &server,
        "pypi",
        &["--released-after", "March", "--packages", "good", "--out", o],
    ));
    assert!(err.contains("--released-after \"March\": not a date (YYYY-MM-DD)"), "{err}");
    let err = common::cli::stderr(&curate(
        &server,
        "pypi",
        &["--released-after", "2026-03-01", "--top", "3", "--out", o],
    ));
    assert!(err.contains("PyPI publishes no popularity signal"), "{err}");
    let res = curate(
        &server,
        "pypi",
        &["--released-after", "2026-06-01", "--packages", "good", "--append", o],
    );
    let err = common::cli::stderr(&res);
    assert_eq!(res.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "none of the 1 package(s) considered on PyPI was first released after 2026-06-01"
        ),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), before);
}

/// `--top N` on crates.io: its most downloaded crates, the old ones passed
/// over by the list's own `created_at` without asking for them.
#[test]
fn top_takes_the_most_popular_fresh_crates() {
    let dir = common::scratch("curate_registry_top");
    let server = StubServer::start();
    let mut all_names = Vec::new();
    let mut listed = Vec::new();
    for (name, created) in [
        ("old-popular", "2019-02-01T00:00:00.000000+00:00"),
        ("fresh-popular", "2026-09-01T00:00:00.000000+00:00"),
        ("fresh-less", "2026-09-02T00:00:00.000000+00:00"),
    ] {
        let (archive, names) = package_archive("rust", &format!("{name}-1.0.0"));
        all_names.extend(names);
        let dl = format!("/api/v1/crates/{name}/1.0.0/download");
        server.route(&dl, 200, archive.clone());
        server.route(
            &format!("/api/v1/crates/{name}"),
            200,
            json!({"crate": {"name": name, "created_at": created, "newest_version": "1.0.0"},
                   "versions": [{"num": "1.0.0", "dl_path": dl, "checksum": sha256(&archive)}]})
            .to_string(),
        );
        listed.push(json!({"name": name, "created_at": created, "recent_downloads": 10}));
    }
    server.route(
        "/api/v1/crates?sort=recent-downloads&per_page=100&page=1",
        200,
        json!({"crates": listed}).to_string(),
    );
    server.route(
        "/api/v1/crates?sort=recent-downloads&per_page=100&page=2",
        200,
        json!({"crates": []}).to_string(),
    );
    let d = write_descriptions(&dir, &all_names);
    let out = dir.join("top.json");
    let res = curate(
        &server,
        "crates",
        &[
            "--released-after",
            "2026-01-01",
            "--top",
            "1",
            "--descriptions",
            d.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let err = common::cli::stderr(&res);
    assert!(res.status.success(), "{err}");
    assert!(
        err.contains("old-popular: first released 2019-02-01, not after 2026-01-01; passed over"),
        "{err}"
    );
    let ds: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let rs: Vec<&str> = repos(&ds, "rust")
        .iter()
        .map(|r| r["repo"].as_str().unwrap().to_string())
        .map(|s| &*s.leak())
        .collect();
    assert_eq!(rs, ["crates/fresh-popular"]);
    let asked = server.asked();
    assert!(!asked.iter().any(|p| p.starts_with("/api/v1/crates/old-popular")), "{asked:?}");
    assert!(!asked.iter().any(|p| p.starts_with("/api/v1/crates/fresh-less")), "{asked:?}");
}

/// A SCORES file alone says whether it was closed-book and how fresh its
/// dataset was; `verify` checks both against the dataset; `report` shows
/// them, and warns when the stated training cutoff is not before the date.
#[test]
fn every_score_carries_its_dataset_s_date_and_verify_checks_it() {
    let dir = common::scratch("curate_registry_dated");
    let server = StubServer::start();
    let (_, names) = serve_pypi(&server, "dated", "1.0", "2026-05-01T12:00:00.000000Z");
    let d = write_descriptions(&dir, &names);
    let ds = dir.join("fresh.json");
    let ds_s = ds.to_str().unwrap();
    let res = curate_pypi(&server, "dated", &d, &ds);
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    for (closed, stem) in [(false, "org_slash_m"), (true, "org_slash_m-closed")] {
        let tasks = dir.join(format!("{stem}.tasks.jsonl"));
        let flags: &[&str] = if closed { &["--closed-book"] } else { &[] };
        let res = prompts_2048(ds_s, flags, &tasks);
        assert!(res.status.success(), "{}", common::cli::stderr(&res));
        // Every task answered with its needle's name only: scored, failing.
        let out = dir.join(format!("{stem}.jsonl"));
        answer_all(&tasks, &out, |t| format!("def {}(): pass", t["name"].as_str().unwrap()));
    }
    let score = |stem: &str, extra: &[&str]| {
        let outputs = dir.join(format!("{stem}.jsonl"));
        let scores = dir.join(format!("{stem}-SCORES.json"));
        let mut args = vec![
            "score",
            "--model-output-path",
            outputs.to_str().unwrap(),
            "--dataset-path",
            ds_s,
            "--model",
            "org/m",
            "--out",
            scores.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let res = crate::repoqa(&args);
        assert!(res.status.success(), "{}", common::cli::stderr(&res));
        (scores, common::cli::stderr(&res))
    };
    let (open, err) = score("org_slash_m", &["--model-cutoff", "2026-06-30"]);
    assert!(
        err.contains("the dataset's sources were first released on 2026-05-01 or later"),
        "{err}"
    );
    assert!(err.contains("WARNING: org/m's stated training cutoff (2026-06-30) is on or after the dataset's freshness (2026-05-01)"), "{err}");
    let file: Value = serde_json::from_slice(&std::fs::read(&open).unwrap()).unwrap();
    assert_eq!(file["org/m"]["dataset_freshness"], "2026-05-01");
    assert_eq!(file["org/m"]["model_cutoff"], "2026-06-30");
    assert!(file["org/m"].get("closed_book").is_none());
    let (closed, _) = score("org_slash_m-closed", &[]);
    let file: Value = serde_json::from_slice(&std::fs::read(&closed).unwrap()).unwrap();
    assert_eq!(file["org/m"]["closed_book"], true);
    assert_eq!(file["org/m"]["protocol"], "no-context");

    // verify: the recorded date is the dataset's.
    let outputs = |stem: &str| dir.join(format!("{stem}.jsonl")).to_str().unwrap().to_string();
    let (open_out, closed_out) = (outputs("org_slash_m"), outputs("org_slash_m-closed"));
    let res = crate::repoqa(&[
        "verify",
        "--scores",
        open.to_str().unwrap(),
        "--model-output-path",
        &open_out,
        "--dataset-path",
        ds_s,
    ]);
    assert!(res.status.success(), "{}{}", common::cli::text(&res), common::cli::stderr(&res));
    let mut tampered = file.clone();
    tampered["org/m"]["dataset_freshness"] = json!("2026-09-01");
    let t = dir.join("tampered-SCORES.json");
    std::fs::write(&t, tampered.to_string()).unwrap();
    let res = crate::repoqa(&[
        "verify",
        "--scores",
        t.to_str().unwrap(),
        "--model-output-path",
        &closed_out,
        "--dataset-path",
        ds_s,
    ]);
    let said = common::cli::text(&res) + &common::cli::stderr(&res);
    assert_eq!(res.status.code(), Some(1), "{said}");
    assert!(
        said.contains("dataset_freshness: the file says 2026-09-01, the dataset has 2026-05-01"),
        "{said}"
    );
    // A closed_book flag that contradicts the protocol is named.
    let mut tampered = file.clone();
    tampered["org/m"]["closed_book"] = json!(false);
    std::fs::write(&t, tampered.to_string()).unwrap();
    let res = crate::repoqa(&["verify", "--scores", t.to_str().unwrap()]);
    let said = common::cli::stderr(&res);
    assert_eq!(res.status.code(), Some(2), "{said}");
    assert!(said.contains("org/m.closed_book: false, but the protocol is no-context"), "{said}");

    // report: the date beside each run, the warning, the remembering table.
    let html = dir.join("report.html");
    let res = crate::repoqa(&[
        "report",
        "--scores",
        open.to_str().unwrap(),
        closed.to_str().unwrap(),
        "--out",
        html.to_str().unwrap(),
    ]);
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.contains("dataset: sources first released on 2026-05-01 or later; stated training cutoff 2026-06-30"), "{html:.3000}");
    assert!(html.contains("closed-book: no code in the prompts (the no-context control); dataset: sources first released on 2026-05-01 or later"));
    assert!(html.contains("the model may have been trained on some of these sources"));
    assert!(html.contains("Is the model remembering?"));

    // leaderboard: the closed-book row named as such, the date, the pair.
    let (o, c) = (open.to_str().unwrap(), closed.to_str().unwrap());
    let res = crate::repoqa(&["leaderboard", "--scores", o, c]);
    let table = common::cli::text(&res);
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    assert!(table.contains("org/m [closed-book]"), "{table}");
    assert!(
        table
            .contains("org/m [closed-book]: dataset sources first released on 2026-05-01 or later"),
        "{table}"
    );
    assert!(table.contains("Is the model remembering? org/m: pass@1 0.0 with the code, 0.0 closed-book (the memorized share), McNemar p = 1.0000, 10 tasks"), "{table}");
    let res = crate::repoqa(&["leaderboard", "--scores", o, c, "--json"]);
    let board: Value = serde_json::from_str(&common::cli::text(&res)).unwrap();
    let closed_rows: Vec<bool> =
        board["models"].as_array().unwrap().iter().map(|m| m["closed_book"] == true).collect();
    assert_eq!(closed_rows.iter().filter(|c| **c).count(), 1);
    assert!(board["models"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["dataset_freshness"] == "2026-05-01"));
    assert_eq!(board["remembering"][0]["model"], "org/m");
    assert_eq!(board["remembering"][0]["tasks"], 10);

    // The call-path task's SCORES file and report carry the date too.
    let cp = dir.join("org_slash_m-call-path.jsonl");
    let res = prompts_2048(ds_s, &["--task", "call-path"], &cp);
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    answer_all(&cp, &cp, |_| "NO PATH".to_string());
    let cp_scores = dir.join("cp-SCORES.json");
    let res = crate::repoqa(&[
        "score",
        "--task",
        "call-path",
        "--model-output-path",
        cp.to_str().unwrap(),
        "--dataset-path",
        ds_s,
        "--out",
        cp_scores.to_str().unwrap(),
    ]);
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    let file: Value = serde_json::from_slice(&std::fs::read(&cp_scores).unwrap()).unwrap();
    assert_eq!(file["dataset_freshness"], "2026-05-01");
    let html = dir.join("cp.html");
    let res = crate::repoqa(&[
        "report",
        "--scores",
        cp_scores.to_str().unwrap(),
        "--out",
        html.to_str().unwrap(),
    ]);
    assert!(res.status.success(), "{}", common::cli::stderr(&res));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("dataset: sources first released on 2026-05-01 or later"));
}
