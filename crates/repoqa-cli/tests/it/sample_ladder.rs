//! The sample ladder the app ships (public/demo/sample-ladder/, the
//! Leaderboard's "Load the sample ladder"): SAMPLE answers written by this
//! project, not a model's. Rebuilt here by its script with this `repoqa`, it
//! must equal what is shipped byte for byte, be labelled as a sample in
//! every file, and make the ladder it is there to show (an effective length
//! between the shortest and the longest).
//!
//!     cargo test -p repoqa-cli --test it sample_ladder::

use repoqa_testkit as common;
use serde_json::Value;

const MODEL: &str = "SAMPLE-ladder-not-a-model";

#[test]
fn the_shipped_sample_ladder_is_the_script_s_and_says_it_is_a_sample() {
    let root = common::root();
    let shipped = root.join("public/demo/sample-ladder");
    let out = std::env::temp_dir().join(format!("repoqa-sample-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = std::process::Command::new("python3")
        .arg(root.join("scripts/sample_ladder.py"))
        .arg(crate::REPOQA)
        .arg(common::tokenizer_path())
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for n in [1024, 2048, 4096] {
        let name = format!("ntoken_{n}/{MODEL}-SCORES.json");
        let made = std::fs::read_to_string(out.join(&name)).unwrap();
        let kept = std::fs::read_to_string(shipped.join(&name)).unwrap();
        assert!(
            made == kept,
            "{name}: the shipped file is not the script's (run scripts/sample_ladder.py)"
        );
        let v: Value = serde_json::from_str(&kept).unwrap();
        let models: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(models, [MODEL], "{name}");
    }
    let o = crate::repoqa(&["ladder", "--result-dir", shipped.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", crate::stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["models"][0];
    assert_eq!(m["model"], MODEL);
    assert_eq!(m["effective_length"], 2048, "{m}");
    let _ = std::fs::remove_dir_all(&out);
}
