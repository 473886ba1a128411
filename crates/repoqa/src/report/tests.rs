//! The official files read and written: outputs, SCORES, names and dates, CSV.

use indexmap::IndexMap;
use serde_json::{json, Number};

use super::*;

#[test]
fn outputs_keep_good_lines_and_report_bad_ones() {
    let text = concat!(
        r#"{"repo": "a/b", "name": "f", "language": "python", "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2, "output": ["x"], "extra": 1}"#,
        "\n\n",
        "{not json\n",
        r#"{"repo": "a/b", "name": "f", "language": "python", "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2}"#,
        "\r\n",
        r#"{"repo": "a/b", "name": "g", "language": "python", "needle_token_start": 1, "needle_token_end": 2, "output": ["y"]}"#,
        "\n",
        r#"{"repo": "a/b", "name": "h", "language": "python", "position_ratio": 1, "needle_token_start": 1, "needle_token_end": 2, "output": "z"}"#,
        "\r",
        r#"{"repo": "a/b", "name": "i", "language": "rust", "position_ratio": 0.25, "needle_token_start": 3, "needle_token_end": 4, "output": ["w", "v"]}"#,
    );
    let f = read_model_outputs(text);
    assert_eq!(f.outputs.len(), 2);
    assert_eq!((f.outputs[0].line, f.outputs[0].reply.as_str()), (1, "x"));
    assert_eq!((f.outputs[1].line, f.outputs[1].reply.as_str()), (7, "w"));
    let lines: Vec<usize> = f.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [3, 4, 5, 6]);
    assert!(f.errors[1].message.contains("\"output\" is missing"), "{}", f.errors[1]);
    assert!(f.errors[2].message.contains("\"position_ratio\" is missing"), "{}", f.errors[2]);
    assert!(f.errors[3].message.contains("must be a list"), "{}", f.errors[3]);
}

#[test]
fn a_repeated_task_is_a_broken_line_and_the_first_is_kept() {
    let line = |name: &str, reply: &str| {
        format!(
            "{}\n",
            json!({"repo": "a/b", "name": name, "language": "python", "position_ratio": 0.5,
                "needle_token_start": 1, "needle_token_end": 2, "output": [reply]})
        )
    };
    let text = [line("f", "1"), line("g", "2"), "{bad\n".into(), line("f", "3"), line("f", "4")];
    let mut f = read_model_outputs(&text.concat());
    f.drop_repeated_tasks();
    let kept: Vec<(usize, &str)> = f.outputs.iter().map(|o| (o.line, o.reply.as_str())).collect();
    assert_eq!(kept, [(1, "1"), (2, "2")]);
    let errors: Vec<String> = f.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        errors,
        [
            "line 3: not valid JSON: key must be a string at column 2",
            "line 4: task python::a/b::f was already answered on line 1; this line is ignored",
            "line 5: task python::a/b::f was already answered on line 1; this line is ignored",
        ]
    );
}

#[test]
fn train_size_rules() {
    assert_eq!(train_size("gpt-4o-2024-05-13").value, "128k");
    assert_eq!(train_size("gpt-4-turbo-2024-04-09").value, "128k");
    assert_eq!(train_size("gpt-4o").value, "N/A");
    assert_eq!(train_size("gpt-3.5-turbo-0125").value, "16k");
    assert_eq!(train_size("gemini-1.5-flash-latest").value, "1000k");
    assert_eq!(train_size("gemini-1.0-pro").value, "32k");
    assert_eq!(train_size("claude-3-opus-20240229").value, "200k");
    assert_eq!(
        train_size("bigcode/starcoder2-15b"),
        TrainSize { value: "16k".into(), needs_hub_lookup: false }
    );
    assert_eq!(
        train_size("Qwen/Qwen1.5-7B-Chat"),
        TrainSize { value: "N/A".into(), needs_hub_lookup: true }
    );
    assert_eq!(train_size("mymodel").value, "N/A");
}

#[test]
fn eval_date_like_python_str_datetime() {
    // datetime.utcfromtimestamp(1716068231.078575) → 2024-05-18 21:37:11.078575
    assert_eq!(format_eval_date(1_716_068_231, 78_575), "2024-05-18 21:37:11.078575");
    assert_eq!(format_eval_date(0, 0), "1970-01-01 00:00:00");
    assert_eq!(format_eval_date(951_782_400, 5), "2000-02-29 00:00:00.000005");
    assert_eq!(format_eval_date(-1, 0), "1969-12-31 23:59:59");
    assert_eq!(format_eval_date(i64::MAX, 0), "1970-01-01 00:00:00", "out of range");
    let now = now_eval_date();
    assert!(now.len() >= 19 && now.as_bytes()[10] == b' ', "{now}");
}

#[test]
fn scores_file_round_trips_in_python_layout() {
    let text = r#"{"m/x": {"eval_date": "2024-05-13 01:38:17.550466", "train_size": "N/A", "scores": {"all": {"0.0": {"pass@1": 0.5}}}, "results": {"python": [{"repo": "a/b", "name": "f", "needle_position": 0.5, "is_best_similar": false, "best_similar_score": 0, "best_target": null, "position": {"token_start": 1, "token_end": 2}}, {"repo": "a/b", "name": "g\u00e9", "needle_position": 0.1, "is_best_similar": true, "best_similar_score": 1.0, "best_target": "g\u00e9", "position": {"token_start": 3, "token_end": 4}}]}}}"#;
    let f = ScoresFile::parse(text, "x.json").unwrap();
    assert_eq!(f.to_python_json(), text);
    let m = &f.models["m/x"];
    assert_eq!(m.task_count(), 2);
    assert_eq!(m.results["python"][0].best_similar_score, Number::from(0));
    let bad = text.replace(r#""best_target": null"#, r#""best_target": 3"#);
    let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
    assert_eq!(
        e,
        "x.json: m/x.results.python[0].best_target: expected a string or null, found a number"
    );
}

#[test]
fn reply_notes_round_trip_and_a_wrong_count_is_named() {
    let text = r#"{"m": {"eval_date": "d", "train_size": "N/A", "inline_reasoning_removed": 3, "cut_replies_count": 1, "cut_replies": ["python::a/b::g"], "scores": {}, "results": {"python": []}}}"#;
    let f = ScoresFile::parse(text, "x.json").unwrap();
    let r = &f.models["m"].replies;
    assert_eq!((r.cut.as_slice(), r.reasoning_removed), (&["python::a/b::g".to_string()][..], 3));
    assert_eq!(f.to_python_json(), text, "written back byte for byte");
    let bad = text.replace(r#""cut_replies_count": 1"#, r#""cut_replies_count": 2"#);
    let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
    assert_eq!(e, "x.json: m.cut_replies_count: expected the number of cut_replies (1)");
    let bad =
        text.replace(r#""inline_reasoning_removed": 3"#, r#""inline_reasoning_removed": "3""#);
    let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
    assert!(e.contains("m.inline_reasoning_removed"), "{e}");
    let plain = r#"{"m": {"eval_date": "d", "train_size": "N/A", "scores": {}, "results": {"python": []}}}"#;
    let f = ScoresFile::parse(plain, "x.json").unwrap();
    assert!(f.models["m"].replies.is_empty());
    assert_eq!(f.to_python_json(), plain, "no notes: nothing written");
}

#[test]
fn unanswered_tasks_round_trip_and_a_wrong_count_is_named() {
    let text = r#"{"m": {"eval_date": "d", "train_size": "N/A", "unanswered_count": 1, "unanswered_scored_as": "failures", "unanswered_tasks": ["python::a/b::g"], "scores": {}, "results": {"python": []}}}"#;
    let f = ScoresFile::parse(text, "x.json").unwrap();
    assert_eq!(f.to_python_json(), text);
    let u = f.models["m"].unanswered.as_ref().unwrap();
    assert_eq!(u.scoring, UnansweredScoring::Failures);
    assert_eq!(u.label(), "1 without an answer, scored as failures");
    let bad = text.replace(r#""unanswered_count": 1"#, r#""unanswered_count": 2"#);
    let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
    assert_eq!(e, "x.json: m.unanswered_count: expected the number of unanswered_tasks (1)");
    let bad = text.replace(r#""failures""#, r#""maybe""#);
    let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
    assert!(e.contains("m.unanswered_scored_as"), "{e}");
}

#[test]
fn lines_written_like_json_dumps() {
    let task = json!({"repo": "a/b", "position_ratio": 0.5, "code_context": "é\n"});
    assert_eq!(
        jsonl_line(&task).unwrap(),
        "{\"repo\": \"a/b\", \"position_ratio\": 0.5, \"code_context\": \"\\u00e9\\n\"}\n"
    );
    assert_eq!(
        output_line(&task, &["r".into()]).unwrap(),
        "{\"repo\": \"a/b\", \"position_ratio\": 0.5, \"code_context\": \"\\u00e9\\n\", \"output\": [\"r\"]}\n"
    );
}

#[test]
fn csv_quotes_when_needed() {
    let mut results = IndexMap::new();
    results.insert(
        "python".to_string(),
        vec![TaskResult {
            repo: "a/b".into(),
            name: "f,g".into(),
            needle_position: json!(0.5),
            is_best_similar: true,
            best_similar_score: Number::from_f64(0.25).unwrap(),
            best_target: Some("say \"hi\"".into()),
            token_start: json!(1),
            token_end: json!(2),
        }],
    );
    assert_eq!(
        results_csv(&results).lines().nth(1).unwrap(),
        "python,a/b,\"f,g\",0.5,true,0.25,\"say \"\"hi\"\"\",1,2"
    );
}

/// One reading of `"output"` for the official files and the app's import:
/// a bare string only where the simple form is allowed, and every refusal
/// naming what was found.
#[test]
fn output_reply_reads_the_field_one_way_for_both_forms() {
    let read = |v: serde_json::Value, form| output_reply(Some(&v), form);
    for form in [OutputForm::Official, OutputForm::OfficialOrText] {
        assert_eq!(read(json!(["a", "b"]), form), Ok("a".to_string()));
        assert!(read(json!([]), form).unwrap_err().contains("empty list"));
        assert!(read(json!([1]), form).unwrap_err().contains("[0] must be a string"));
        assert!(output_reply(None, form).unwrap_err().contains("is missing"));
    }
    assert_eq!(read(json!("fn f() {}"), OutputForm::OfficialOrText), Ok("fn f() {}".to_string()));
    let official = read(json!("fn f() {}"), OutputForm::Official).unwrap_err();
    assert!(official.contains("must be a list of replies, found a string"), "{official}");
    let either = read(json!(3), OutputForm::OfficialOrText).unwrap_err();
    assert!(either.contains("a string or a list of replies, found a number"), "{either}");
}
