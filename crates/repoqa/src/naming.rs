//! The names of the files the tools write, in one place so the app's
//! downloads and the CLI's outputs agree with each other and with upstream.
//!
//! Upstream (`search_needle_function.evaluate_model`) writes a model's
//! outputs to `results/ntoken_<size>/<model with / as _slash_>.jsonl` and its
//! scores next to it as `<same stem>-SCORES.json`; `compute_score` takes the
//! model's name back from the outputs file name ([`model_name_from_path`]).
//! So an outputs or SCORES name is the model's name only: anything added to
//! it would change the model read back. The tasks file carries the dataset
//! and the settings instead (`repoqa-2024-04-20_ntoken_16384-tasks.jsonl`),
//! using upstream's `ntoken_<size>` spelling.

use crate::prompt::settings::BuildSettings;
use crate::report::Protocol;

/// A model's name as upstream puts it in a file name: `/` → `_slash_`.
pub fn model_file_stem(model: &str) -> String {
    let model = model.trim();
    let model = if model.is_empty() { "model" } else { model };
    safe(&model.replace('/', "_slash_"))
}

/// The outputs JSONL of a model, as upstream names it (`repoqa score`
/// reads the model's name back from it).
pub fn outputs_file_name(model: &str) -> String {
    format!("{}.jsonl", model_file_stem(model))
}

/// Where `repoqa run` keeps a model's outputs inside its result folder:
/// upstream's `evaluate_model` path, `ntoken_<size>/<model with / as
/// _slash_>.jsonl`, the model's name kept as it is otherwise (upstream
/// writes it so, and `compute_score` reads it back from the name). Prompts
/// built with a not-official `protocol` go to `ntoken_<size>-<protocol>/`,
/// so that resuming never takes their answers for official ones.
pub fn run_outputs_path(code_context_size: usize, protocol: Protocol, model: &str) -> String {
    format!("{}/{}.jsonl", run_dir(code_context_size, protocol), model.replace('/', "_slash_"))
}

/// [`run_outputs_path`] of a depth grid's row (NOT UPSTREAM, `repoqa run
/// --depths`): every needle at `depth`, in `ntoken_<size>/depth_<depth>/`
/// (`repoqa::review::ladder::depth_of_path` reads it back); `None` is upstream's
/// path.
pub fn run_outputs_path_at(
    code_context_size: usize,
    protocol: Protocol,
    depth: Option<f64>,
    model: &str,
) -> String {
    match depth {
        None => run_outputs_path(code_context_size, protocol, model),
        Some(d) => format!(
            "{}/{}/{}.jsonl",
            run_dir(code_context_size, protocol),
            depth_dir(d),
            model.replace('/', "_slash_")
        ),
    }
}

/// The folder of a depth grid's row: `depth_<r>`, the ratio as Rust and
/// Python print it shortest (`depth_0`, `depth_0.1`, `depth_1`).
pub fn depth_dir(depth: f64) -> String {
    format!("depth_{depth}")
}

/// The folder of a run's files under the result directory:
/// `ntoken_<size>`, or `ntoken_<size>-<protocol>` for a not-official
/// protocol (`repoqa::review::ladder::ntoken_of_dir` reads the length back).
pub fn run_dir(code_context_size: usize, protocol: Protocol) -> String {
    if protocol.is_official() {
        format!("ntoken_{code_context_size}")
    } else {
        format!("ntoken_{code_context_size}-{}", protocol.as_str())
    }
}

/// The batch file `repoqa batch export` would be given for `model` in
/// `provider`'s format (OpenAI: JSONL; Anthropic: one JSON request body).
pub fn batch_file_name(model: &str, provider: crate::llm::wire::Provider) -> String {
    let ext = match provider {
        crate::llm::wire::Provider::Anthropic => "json",
        _ => "jsonl",
    };
    let model = model.trim().replace('/', "_slash_");
    format!("{}-batch-{provider}.{ext}", if model.is_empty() { "model" } else { &model })
}

/// The HTML report of one run or of two compared (`A-vs-B`).
pub fn report_file_name(models: &[&str]) -> String {
    let stems: Vec<String> = models.iter().map(|m| model_file_stem(m)).collect();
    format!("{}-report.html", stems.join("-vs-"))
}

/// The SCORES file of a model. `official`: scored with the official
/// candidates (the needles); otherwise the paper's stricter "context"
/// candidates. Neither those nor prompts built with a not-official
/// `protocol` may take the official name.
pub fn scores_file_name(model: &str, protocol: Protocol, official: bool) -> String {
    format!("{}{}", model_file_stem(model), scores_suffix(protocol, official))
}

/// The SCORES file name suffix: `-SCORES.json` for official scores, with
/// `CORRECTED-` (NOT OFFICIAL prompts) and `CONTEXT-` (NOT OFFICIAL
/// candidates) inserted so no such file takes the official name.
pub fn scores_suffix(protocol: Protocol, official_candidates: bool) -> String {
    let mut s = String::from("-");
    if !protocol.is_official() {
        s.push_str(&protocol.as_str().to_uppercase());
        s.push('-');
    }
    if !official_candidates {
        s.push_str("CONTEXT-");
    }
    s.push_str("SCORES.json");
    s
}

/// The SCORES path beside an outputs path: upstream's
/// `os.path.splitext(path)[0] + "-SCORES.json"`, with the not-official
/// suffixes of [`scores_suffix`].
pub fn scores_path_for(outputs_path: &str, protocol: Protocol, official: bool) -> String {
    let suffix = scores_suffix(protocol, official);
    let base_start = outputs_path.rfind('/').map_or(0, |i| i + 1);
    let base = &outputs_path[base_start..];
    // splitext ignores leading dots of the file name.
    let lead = base.len() - base.trim_start_matches('.').len();
    let stem_end = match base[lead..].rfind('.') {
        Some(i) => base_start + lead + i,
        None => outputs_path.len(),
    };
    format!("{}{suffix}", &outputs_path[..stem_end])
}

/// The last component of a path (either separator).
fn file_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// `compute_score.get_model_name(path)`: `Path(path).stem` split on `_`,
/// each `slash` segment becomes `/`, the others are concatenated — so other
/// underscores disappear (`my_model.jsonl` → `mymodel`), as in the official
/// tool.
pub fn model_name_from_path(path: &str) -> String {
    let name = file_name(path);
    // pathlib's stem: strip the last suffix unless the dot is the first or
    // last character of the name.
    let stem = match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[..i],
        _ => name,
    };
    stem.split('_').map(|seg| if seg == "slash" { "/" } else { seg }).collect()
}

/// The per-task results CSV of a model.
pub fn results_csv_name(model: &str) -> String {
    format!("{}-results.csv", model_file_stem(model))
}

/// A dataset's name for file names, from where it came from: the file
/// name without `.json`/`.json.gz` (`repoqa-2024-04-20`), the last part
/// of a URL path, or what the app calls it ("demo (repoqa-demo.json)").
pub fn dataset_stem(origin: &str) -> String {
    // "demo (repoqa-demo.json)": the name in parentheses.
    let origin = match (origin.rfind('('), origin.strip_suffix(')')) {
        (Some(i), Some(inner)) => &inner[i + 1..],
        _ => origin,
    };
    let no_query = origin.split(['?', '#']).next().unwrap_or(origin);
    let last = no_query.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next().unwrap_or("");
    let mut stem = last;
    for ext in [".gz", ".json", ".jsonl"] {
        if let Some(s) = stem.strip_suffix(ext) {
            stem = s;
        }
    }
    let stem = safe(stem);
    if stem.is_empty() {
        "dataset".to_string()
    } else {
        stem
    }
}

/// The settings in a file name: `ntoken_16384`, then the comment mode
/// unless it is the official `none`, the protocol unless official
/// (`corrected`: NOT OFFICIAL), then the languages and repo choices
/// when they keep less than everything.
pub fn settings_stem(s: &BuildSettings) -> String {
    let mut out = format!("ntoken_{}", s.code_context_size);
    if s.comment_mode != crate::prompt::context::CommentMode::None {
        out.push('_');
        out.push_str(s.comment_mode.as_str());
    }
    if !s.protocol.is_official() {
        out.push('_');
        out.push_str(s.protocol.as_str());
    }
    if !s.filter.languages.is_empty() {
        out.push('_');
        out.push_str(&s.filter.languages.join("+"));
    }
    let repos = s.filter.repos.len();
    if repos > 0 {
        out.push_str(&format!("_{repos}-repos"));
    }
    let skipped = s.filter.excluded_repos.len();
    if skipped > 0 {
        out.push_str(&format!("_without-{skipped}-repos"));
    }
    safe(&out)
}

/// The tasks JSONL of a dataset built with `settings`:
/// `<dataset>_<settings>-tasks.jsonl`.
pub fn tasks_file_name(dataset_origin: &str, settings: &BuildSettings) -> String {
    format!("{}_{}-tasks.jsonl", dataset_stem(dataset_origin), settings_stem(settings))
}

/// The file of call-path tasks (NOT UPSTREAM) at `code_context_size`:
/// `<dataset>_ntoken_<n>-call-path-tasks.jsonl`
/// (`-call-path-closed-book-tasks.jsonl` for closed-book tasks).
pub fn call_path_tasks_file_name(
    dataset_origin: &str,
    code_context_size: usize,
    closed_book: bool,
) -> String {
    format!(
        "{}_ntoken_{code_context_size}-{}-tasks.jsonl",
        dataset_stem(dataset_origin),
        call_path_kind(closed_book)
    )
}

/// Where `repoqa run --task call-path` (NOT UPSTREAM) keeps a model's
/// outputs inside its result folder: `ntoken_<size>-call-path/<model with /
/// as _slash_>.jsonl`, beside SNF's `ntoken_<size>/`; a closed-book run's
/// in `ntoken_<size>-call-path-closed-book/`, so neither resumes the other.
pub fn call_path_run_outputs_path(
    code_context_size: usize,
    model: &str,
    closed_book: bool,
) -> String {
    format!(
        "ntoken_{code_context_size}-{}/{}.jsonl",
        call_path_kind(closed_book),
        model.replace('/', "_slash_")
    )
}

fn call_path_kind(closed_book: bool) -> &'static str {
    if closed_book {
        "call-path-closed-book"
    } else {
        "call-path"
    }
}

/// The file of tasks built with every needle at one depth (NOT UPSTREAM,
/// `repoqa prompts --position-ratio`; the app's download of a rebuilt task):
/// `tasks_file_name` with `_ratio_<r>` before `-tasks.jsonl`.
pub fn tasks_at_ratio_file_name(
    dataset_origin: &str,
    settings: &BuildSettings,
    ratio: f64,
) -> String {
    format!(
        "{}_{}_ratio_{ratio}-tasks.jsonl",
        dataset_stem(dataset_origin),
        settings_stem(settings)
    )
}

/// Characters file systems refuse (Windows' set, control characters)
/// become `-`.
fn safe(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() || "<>:\"\\|?*/".contains(c) { '-' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_name_and_scores_path_follow_the_official_rules() {
        assert_eq!(
            model_name_from_path(
                "results/ntoken_16384/meta-llama_slash_Meta-Llama-3-8B-Instruct.jsonl"
            ),
            "meta-llama/Meta-Llama-3-8B-Instruct"
        );
        assert_eq!(model_name_from_path("gpt-4o-2024-05-13.jsonl"), "gpt-4o-2024-05-13");
        assert_eq!(model_name_from_path("my_model.v2.jsonl"), "mymodel.v2");
        assert_eq!(model_name_from_path(".jsonl"), ".jsonl");
        assert_eq!(
            scores_path_for("out/a_slash_b.jsonl", Protocol::default(), true),
            "out/a_slash_b-SCORES.json"
        );
        assert_eq!(
            scores_path_for("out.d/model", Protocol::default(), true),
            "out.d/model-SCORES.json"
        );
        assert_eq!(
            scores_path_for("x/.hidden", Protocol::default(), true),
            "x/.hidden-SCORES.json"
        );
        assert_eq!(scores_path_for("a.b.jsonl", Protocol::default(), true), "a.b-SCORES.json");
    }
    use crate::naming::model_name_from_path;
    use crate::prompt::context::CommentMode;

    #[test]
    fn run_outputs_are_where_upstream_puts_them() {
        let o = Protocol::Official;
        assert_eq!(run_outputs_path(16384, o, "a/b:c"), "ntoken_16384/a_slash_b:c.jsonl");
        assert_eq!(
            run_outputs_path(2048, Protocol::Corrected, "gpt-4o"),
            "ntoken_2048-corrected/gpt-4o.jsonl"
        );
        let path = run_outputs_path(16384, o, "meta-llama/Meta-Llama-3-8B-Instruct");
        assert_eq!(model_name_from_path(&path), "meta-llama/Meta-Llama-3-8B-Instruct");
        assert_eq!(run_outputs_path_at(4096, o, None, "m"), "ntoken_4096/m.jsonl");
        assert_eq!(run_outputs_path_at(4096, o, Some(0.0), "m"), "ntoken_4096/depth_0/m.jsonl");
        assert_eq!(
            run_outputs_path_at(4096, o, Some(0.1), "a/b"),
            "ntoken_4096/depth_0.1/a_slash_b.jsonl"
        );
        assert_eq!(depth_dir(1.0), "depth_1");
    }

    #[test]
    fn model_names_round_trip_through_file_names() {
        for model in ["gpt-4o", "meta-llama/Meta-Llama-3-8B-Instruct", "deepseek-ai/x"] {
            let name = outputs_file_name(model);
            assert_eq!(model_name_from_path(&name), model);
        }
        assert_eq!(outputs_file_name("a/b"), "a_slash_b.jsonl");
        let (o, c) = (Protocol::Official, Protocol::Corrected);
        assert_eq!(scores_file_name("a/b", o, true), "a_slash_b-SCORES.json");
        assert_eq!(scores_file_name("a/b", o, false), "a_slash_b-CONTEXT-SCORES.json");
        assert_eq!(scores_file_name("a/b", c, true), "a_slash_b-CORRECTED-SCORES.json");
        assert_eq!(scores_file_name("a/b", c, false), "a_slash_b-CORRECTED-CONTEXT-SCORES.json");
        assert_eq!(scores_file_name("  ", o, true), "model-SCORES.json");
        assert_eq!(results_csv_name("m"), "m-results.csv");
    }

    #[test]
    fn scores_paths_beside_outputs() {
        let (o, c) = (Protocol::Official, Protocol::Corrected);
        assert_eq!(
            scores_path_for("r/ntoken_16384/m.jsonl", o, true),
            "r/ntoken_16384/m-SCORES.json"
        );
        assert_eq!(scores_path_for("m.jsonl", o, false), "m-CONTEXT-SCORES.json");
        assert_eq!(scores_path_for("m.jsonl", c, false), "m-CORRECTED-CONTEXT-SCORES.json");
    }

    #[test]
    fn dataset_stems() {
        assert_eq!(dataset_stem("repoqa-2024-04-20.json"), "repoqa-2024-04-20");
        assert_eq!(dataset_stem("/x/y/repoqa-2024-04-20.json.gz"), "repoqa-2024-04-20");
        assert_eq!(dataset_stem("https://h/p/ds.json?x=1"), "ds");
        assert_eq!(dataset_stem("demo (repoqa-demo.json)"), "repoqa-demo");
        assert_eq!(dataset_stem(""), "dataset");
    }

    #[test]
    fn tasks_names_say_dataset_and_settings() {
        let mut s = BuildSettings::default();
        assert_eq!(
            tasks_file_name("repoqa-2024-04-20.json", &s),
            "repoqa-2024-04-20_ntoken_16384-tasks.jsonl"
        );
        s.comment_mode = CommentMode::PositionalPadding;
        assert_eq!(
            tasks_file_name("repoqa-2024-04-20.json.gz", &s),
            "repoqa-2024-04-20_ntoken_16384_positional_padding-tasks.jsonl"
        );
        s.filter.languages = vec!["python".into(), "go".into()];
        s.filter.excluded_repos = vec!["go::a/b".into()];
        assert_eq!(
            tasks_file_name("d.json", &s),
            "d_ntoken_16384_positional_padding_python+go_without-1-repos-tasks.jsonl"
        );
        let s = BuildSettings { protocol: Protocol::Corrected, ..BuildSettings::default() };
        assert_eq!(tasks_file_name("d.json", &s), "d_ntoken_16384_corrected-tasks.jsonl");
    }
}
