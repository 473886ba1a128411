//! What a run's files say besides the scores: the model's name from a
//! file's path, the SCORES file beside an outputs file, `train_size`, and
//! the `eval_date` stamp, as upstream makes them.

/// `train_size` as `compute_score` decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainSize {
    pub value: String,
    /// The official code would ask the Hugging Face hub for the model's
    /// config (names with "/" other than bigcode/starcoder2). Without network
    /// that lookup fails and the official code itself writes "N/A" — which is
    /// what `value` holds then.
    pub needs_hub_lookup: bool,
}

pub fn train_size(model_name: &str) -> TrainSize {
    let fixed = |v: &str| TrainSize { value: v.to_string(), needs_hub_lookup: false };
    let m = model_name;
    if m.contains('/') {
        if m.starts_with("bigcode/starcoder2") {
            fixed("16k")
        } else {
            TrainSize { value: "N/A".into(), needs_hub_lookup: true }
        }
    } else if m.starts_with("gpt-4-turbo") || m.starts_with("gpt-4o-") {
        fixed("128k")
    } else if m.starts_with("gpt-3.5-") {
        fixed("16k")
    } else if m.starts_with("gemini-1.5-pro") || m.starts_with("gemini-1.5-flash") {
        fixed("1000k")
    } else if m.starts_with("gemini-1.0-pro") {
        fixed("32k")
    } else if m.starts_with("claude-3-") {
        fixed("200k")
    } else {
        fixed("N/A")
    }
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

/// The official result path: `os.path.splitext(path)[0] + "-SCORES.json"`.
pub fn scores_path_for(outputs_path: &str) -> String {
    let base_start = outputs_path.rfind('/').map_or(0, |i| i + 1);
    let base = &outputs_path[base_start..];
    // splitext ignores leading dots of the file name.
    let lead = base.len() - base.trim_start_matches('.').len();
    let stem_end = match base[lead..].rfind('.') {
        Some(i) => base_start + lead + i,
        None => outputs_path.len(),
    };
    format!("{}-SCORES.json", &outputs_path[..stem_end])
}

/// `str(datetime)` of a UTC instant (`YYYY-MM-DD HH:MM:SS[.ffffff]`, the
/// microseconds omitted when zero, as Python does). The official tool uses
/// local time; callers pass whatever instant they want recorded.
/// An instant out of `time`'s range (years -9999 to 9999) is written as
/// the epoch.
pub fn format_eval_date(unix_seconds: i64, micros: u32) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(unix_seconds)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let mut out = format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if micros != 0 {
        out.push_str(&format!(".{:06}", micros.min(999_999)));
    }
    out
}

/// [`format_eval_date`] of now, in UTC: the `eval_date` of a SCORES file
/// and the time of a run record, the same in the CLI and the page.
pub fn now_eval_date() -> String {
    let now = time::OffsetDateTime::now_utc();
    format_eval_date(now.unix_timestamp(), now.microsecond())
}
