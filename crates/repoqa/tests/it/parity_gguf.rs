//! The GGUF header reader (`repoqa::llm::gguf`) against llama.cpp's own
//! (llama-cpp-python's `Llama(..., vocab_only=True).metadata`, the venv
//! scripts/setup.sh builds) on the real model file the page's in-tab tests
//! load: the same architecture, name, window, file type and chat template,
//! from the file's first bytes only.

use repoqa::llm::gguf::{read_header, GgufError};
use repoqa_testkit as common;
use serde_json::Value;

/// llama.cpp's metadata of `path` (every value as a string).
fn llama_metadata(path: &std::path::Path) -> Value {
    let script = "import json, sys\nfrom llama_cpp import Llama\n\
        m = Llama(model_path=sys.argv[1], vocab_only=True, verbose=False)\n\
        print(json.dumps(m.metadata))";
    let out = std::process::Command::new(common::llama_python())
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("run llama-cpp-python");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("metadata JSON")
}

#[test]
fn the_header_read_from_the_start_of_the_file_equals_llama_cpp() {
    let path = common::smollm2_gguf();
    let bytes = std::fs::read(&path).unwrap();
    // As the page reads it: a first slice, more while the header goes on.
    let mut have = 1 << 16;
    let info = loop {
        match read_header(&bytes[..have.min(bytes.len())]) {
            Ok(info) => break info,
            Err(GgufError::Truncated { need, .. }) => {
                assert!(need > have && need <= bytes.len(), "asked for {need} of {}", bytes.len());
                have = need.max(have * 2);
            }
            Err(e) => panic!("{e}"),
        }
    };
    let meta = llama_metadata(&path);
    let s = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
    assert_eq!(Some(info.architecture.clone()), s("general.architecture"));
    assert_eq!(info.name, s("general.name"));
    assert_eq!(info.size_label, s("general.size_label"));
    assert_eq!(
        info.context_length.map(|n| n.to_string()),
        s(&format!("{}.context_length", info.architecture))
    );
    assert_eq!(info.file_type_id.map(|n| n.to_string()), s("general.file_type"));
    assert_eq!(info.chat_template, meta.get("tokenizer.chat_template").is_some());
    println!(
        "{}: {} {:?} {:?}, window {:?}, {:?}, chat template {}, header read from the first {} of {} bytes",
        path.display(),
        info.architecture,
        info.name,
        info.size_label,
        info.context_length,
        info.file_type,
        info.chat_template,
        have.min(bytes.len()),
        bytes.len()
    );
    assert_eq!(info.file_type.as_deref(), Some("Q4_1"), "the file's own name says Q4_1");
}
