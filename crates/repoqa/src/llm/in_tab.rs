//! The page's model "in this tab": a GGUF file the visitor picks, run by
//! llama.cpp compiled to WebAssembly inside the page (no key, no server).
//! The page speaks to it as to an OpenAI-compatible server whose base URL
//! is [`BASE_URL`]: the same official request, reply reading, retries, run
//! log and resume as any API. This module holds what both the page and the
//! core's checks need to know of it; the engine itself is the page's
//! (`public/boot/tab-model.js`). A way to watch a small real model do the
//! task, not a leaderboard entry ([`NOT_A_LEADERBOARD_ENTRY`]).

/// The base URL of the in-tab model (`wire` routes by it).
pub use super::wire::{is_tab, TAB_BASE_URL as BASE_URL};

/// The largest GGUF file the tab takes: the engine reads the file into one
/// ArrayBuffer, whose size browsers cap at 2 GiB (a larger model would
/// fail after a long read, or take the tab's memory with it).
pub const MAX_MODEL_BYTES: u64 = 2 << 30;

/// The window the model is loaded with unless the visitor sets another:
/// a mini-SNF prompt (2,048 code tokens, about 2,000 in the model's own
/// tokens with the instructions) and its answer fit, in little memory.
pub const DEFAULT_WINDOW: u32 = 4096;

/// How the model in the tab is asked outside a Run (Teach's rounds): the
/// official request in the OpenAI format to [`BASE_URL`], greedy
/// (temperature 0, one sample, no system message: upstream's sampling),
/// at most `max_tokens` new tokens, as `model` (the loaded file's name).
pub fn endpoint(model: &str, max_tokens: u32) -> super::wire::Endpoint {
    super::wire::Endpoint {
        provider: super::wire::Provider::OpenAi,
        base_url: BASE_URL.to_string(),
        model: model.to_string(),
        sampling: super::wire::Sampling {
            max_tokens: Some(max_tokens),
            ..super::wire::Sampling::default()
        },
        from_browser: true,
        ..super::wire::Endpoint::default()
    }
}

/// The answer limit ("Max new tokens") a run in this tab starts with, in
/// place of upstream's 1,024 ([`ANSWER_LIMIT_NOTE`] says why; NOT
/// UPSTREAM, and each run record keeps the `max_tokens` it was asked with).
pub const DEFAULT_MAX_NEW_TOKENS: u32 = 512;

/// Why a run in this tab starts with [`DEFAULT_MAX_NEW_TOKENS`].
pub const ANSWER_LIMIT_NOTE: &str =
    "In this tab the answer limit starts at 512 tokens, not upstream's 1,024 (not upstream): \
     a small model that misses the function often writes until the limit, and at the few \
     tokens a second a tab writes on one thread, 1,024 tokens take five minutes or more per \
     task. 512 holds the demo's longest needle (1,443 characters, about 400 tokens); raise \
     it for longer functions. Each run record keeps the limit it was asked with.";

/// How a run asks the model in this tab, whatever the Scheduling fields
/// say ([`PACE_NOTE`]): one answer at a time (the engine writes one), no
/// retries; and, by the page, no timeout.
pub fn schedule() -> super::schedule::ScheduleConfig {
    super::schedule::ScheduleConfig {
        concurrency: 1,
        max_retries: 0,
        ..super::schedule::ScheduleConfig::default()
    }
}

/// What the Run page says in place of its Scheduling fields for the tab.
pub const PACE_NOTE: &str =
    "One answer at a time, no timeout and no retries: a model in this tab is not a server \
     that can be busy or drop a request. A slow answer is still being written (its progress \
     shows below, as it goes), a greedy answer asked again is the same answer, and a failure \
     is the model's. Cancel stops the answer being written.";

/// How far the answer being written in this tab is, from the engine's
/// stream: what the page shows while a task is answered.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TabProgress {
    /// Prompt tokens read so far, and of how many (llama.cpp's
    /// `prompt_progress`), until the first token is written.
    pub read: Option<(u32, u32)>,
    /// Tokens written so far (the stream's pieces).
    pub written: u32,
    /// Milliseconds since the request was handed to the engine.
    pub elapsed_ms: f64,
    /// Milliseconds from then to the first token written, once written.
    pub first_token_ms: Option<f64>,
}

impl TabProgress {
    /// In words: "Reading the prompt: 512 of 2,011 tokens (41.0 tokens/s),
    /// 12 s so far." / "Writing the answer: 37 tokens at 4.1 tokens/s;
    /// the prompt took 49.2 s."
    pub fn words(&self) -> String {
        let rate = |n: f64, ms: f64| {
            if ms >= 500.0 {
                format!("{:.1} tokens/s", n * 1000.0 / ms)
            } else {
                "… tokens/s".to_string()
            }
        };
        match self.first_token_ms {
            Some(first) if self.written > 0 => format!(
                "Writing the answer: {} at {}; the prompt took {:.1} s.",
                if self.written == 1 {
                    "1 token".to_string()
                } else {
                    format!("{} tokens", super::progress::thousands(u64::from(self.written)))
                },
                rate(f64::from(self.written), self.elapsed_ms - first),
                first / 1000.0
            ),
            _ => match self.read {
                Some((done, total)) if total > 0 => format!(
                    "Reading the prompt: {} of {} tokens ({}), {:.0} s so far.",
                    super::progress::thousands(u64::from(done)),
                    super::progress::thousands(u64::from(total)),
                    rate(f64::from(done), self.elapsed_ms),
                    self.elapsed_ms / 1000.0
                ),
                _ => format!("Reading the prompt, {:.0} s so far.", self.elapsed_ms / 1000.0),
            },
        }
    }
}

/// The threads the engine runs on in a cross-origin-isolated page with
/// `cores` logical cores (the browser's `hardwareConcurrency`): all of
/// them, up to 8 (public/boot/tab-model.js; one in a page that is not
/// isolated).
pub fn threads(cores: u32) -> u32 {
    cores.clamp(1, 8)
}

/// What the page says when it runs on one thread for want of the host's
/// headers and a reload would give it `threads` (the app's offline worker
/// adds the headers to the pages it serves).
pub fn reload_for_threads(threads: u32) -> String {
    format!(
        "This visit runs the model on one thread: the host sends no cross-origin isolation \
         headers, so the engine cannot share memory between threads. The app's offline copy \
         adds them to the pages it serves: reload to run on {threads} threads. Answers, runs and models kept in this browser \
         stay; a file picked without keeping it is picked again."
    )
}

/// The smallest and largest window the page offers (tokens).
pub const MIN_WINDOW: u32 = 512;
pub const MAX_WINDOW: u32 = 32_768;

/// What the page says of a score from the tab.
pub const NOT_A_LEADERBOARD_ENTRY: &str =
    "A small model in this tab is a way to watch a real model \
     do the task, at a size that fits: not a leaderboard entry.";

/// Why a picked file cannot be loaded, if it cannot: `name` and `bytes`
/// as the browser reports them.
pub fn refuse_file(name: &str, bytes: u64) -> Option<String> {
    if !name.to_ascii_lowercase().ends_with(".gguf") {
        return Some(format!(
            "{name} is not a GGUF file (llama.cpp's model format, name ending in .gguf)"
        ));
    }
    if bytes == 0 {
        return Some(format!("{name} is empty"));
    }
    if bytes > MAX_MODEL_BYTES {
        return Some(format!(
            "{name} is {:.1} GB; a model in this tab can be at most {:.1} GB (a browser reads the \
             file into one buffer of at most 2 GiB): pick a smaller model or a smaller quantisation",
            bytes as f64 / 1e9,
            MAX_MODEL_BYTES as f64 / 1e9
        ));
    }
    None
}

/// The file name a model fetched from `url` is kept under: the address's
/// last path segment, decoded (`…/resolve/main/SmolLM2-135M.Q4_1.gguf?download=true`
/// → `SmolLM2-135M.Q4_1.gguf`); or why the address cannot be fetched (not
/// http or https, no file name, not a `.gguf`).
pub fn url_file_name(url: &str) -> Result<String, String> {
    let u = url.trim();
    let rest = ["https://", "http://"]
        .iter()
        .find_map(|s| u.get(..s.len()).filter(|p| p.eq_ignore_ascii_case(s)).map(|_| &u[s.len()..]))
        .ok_or_else(|| {
            format!("{u}: an address starting with https:// (or http:// on this machine)")
        })?;
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let (_host, path) = path.split_once('/').unwrap_or((path, ""));
    let last = path.rsplit('/').next().unwrap_or("");
    let name = percent_encoding::percent_decode_str(last).decode_utf8_lossy().trim().to_string();
    if name.is_empty() || name.contains(['/', '\\']) {
        return Err(format!("{u}: the address names no file (it should end in a .gguf file name)"));
    }
    if !name.to_ascii_lowercase().ends_with(".gguf") {
        return Err(format!(
            "{u}: {name} is not a GGUF file (llama.cpp's model format, name ending in .gguf)"
        ));
    }
    Ok(name)
}

/// The model name the run records carry for a file: its name without
/// `.gguf` (`SmolLM2-135M-Instruct.Q4_1.gguf` → `SmolLM2-135M-Instruct.Q4_1`).
pub fn model_name(file_name: &str) -> String {
    let n = file_name.trim();
    match n.len().checked_sub(5) {
        Some(cut) if n.is_char_boundary(cut) && n[cut..].eq_ignore_ascii_case(".gguf") => {
            n[..cut].to_string()
        }
        _ => n.to_string(),
    }
}

/// Why a window of `window` tokens is not offered, if it is not: out of
/// the page's range, or past the `trained` window the file says the model
/// was trained with (llama.cpp would run it, with answers past that point
/// of no value).
pub fn refuse_window(window: u32, trained: Option<u64>) -> Option<String> {
    if !(MIN_WINDOW..=MAX_WINDOW).contains(&window) {
        return Some(format!(
            "Window: a whole number of tokens from {MIN_WINDOW} to {MAX_WINDOW}, not {window}"
        ));
    }
    match trained {
        Some(t) if u64::from(window) > t => Some(format!(
            "Window: at most the {t} tokens this model was trained with, not {window}"
        )),
        _ => None,
    }
}

/// The most of a file's start read to find its GGUF header (the header
/// holds the vocabulary: a few MB for the largest vocabularies).
pub const MAX_HEADER_BYTES: usize = 64 << 20;

/// The first slice of a file read for its header.
pub const FIRST_HEADER_READ: usize = 1 << 20;

/// A model file's size as the page says it ("98.4 MB", "10,849.6 MB"):
/// the unit model hubs list files in, its whole part grouped by thousands
/// as the page's other counts are.
pub fn megabytes(bytes: u64) -> String {
    // Tenths of a megabyte, rounded half up, in integers: `{:.1}` of
    // bytes / 1e6 as a float may round a size ending in 50,000 bytes either
    // way (the tie is not exact in binary).
    let tenths = bytes / 100_000 + u64::from(bytes % 100_000 >= 50_000);
    format!("{}.{} MB", super::progress::thousands(tenths / 10), tenths % 10)
}

/// What the page says of a GGUF file before loading it: `file`'s name and
/// size as the browser reports them, and its header.
pub fn describe(file: &str, bytes: u64, info: &super::gguf::GgufInfo) -> String {
    let mut what = vec![info.architecture.clone()];
    what.extend(info.size_label.clone());
    what.extend(info.file_type.clone());
    let window = info.context_length.map_or_else(
        || "the file does not say its window".to_string(),
        |n| format!("trained window {} tokens", super::progress::thousands(n)),
    );
    let template = if info.chat_template {
        "a chat template"
    } else {
        "no chat template (llama.cpp's default is used)"
    };
    format!(
        "{file}: {} ({}), {}; {window}; {template}.",
        info.name.as_deref().unwrap_or("a model"),
        what.join(", "),
        megabytes(bytes)
    )
}

/// llama.cpp's timings of one answer (its server's `timings`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    pub prompt_tokens: f64,
    pub prompt_per_second: f64,
    pub generated_tokens: f64,
    pub generated_per_second: f64,
}

impl Timing {
    /// One answer's work in words: "631 prompt tokens read at 35.5
    /// tokens/s, 48 written at 12.0 tokens/s".
    pub fn words(&self) -> String {
        format!(
            "{} prompt tokens read at {:.1} tokens/s, {} written at {:.1} tokens/s",
            super::progress::thousands(self.prompt_tokens as u64),
            self.prompt_per_second,
            super::progress::thousands(self.generated_tokens as u64),
            self.generated_per_second
        )
    }
}

/// The `timings` llama.cpp's server puts in a reply `body` (the tab's
/// engine does too), if it has them.
pub fn timing_of(body: &str) -> Option<Timing> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let t = v.get("timings")?;
    let n = |k: &str| t.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    Some(Timing {
        prompt_tokens: n("prompt_n"),
        prompt_per_second: n("prompt_per_second"),
        generated_tokens: n("predicted_n"),
        generated_per_second: n("predicted_per_second"),
    })
}

/// The seconds `n` tokens took at `per_s` tokens a second (0 when unknown).
fn secs(n: f64, per_s: f64) -> f64 {
    if per_s > 0.0 {
        n / per_s
    } else {
        0.0
    }
}

/// One line on the answers' speed: how many, prompt and generated tokens
/// per second over all of them, seconds per answer; None before any.
pub fn speed_line(timings: &[Timing]) -> Option<String> {
    if timings.is_empty() {
        return None;
    }
    let sum = |f: &dyn Fn(&Timing) -> f64| timings.iter().map(f).sum::<f64>();
    let (pn, gn) = (sum(&|t| t.prompt_tokens), sum(&|t| t.generated_tokens));
    let ps = sum(&|t| secs(t.prompt_tokens, t.prompt_per_second));
    let gs = sum(&|t| secs(t.generated_tokens, t.generated_per_second));
    let rate = |n: f64, s: f64| if s > 0.0 { format!("{:.1}", n / s) } else { "unknown".into() };
    let n = timings.len();
    Some(format!(
        "{n} answer{} in this tab: prompt {} tokens/s, generated {} tokens/s, {:.1} s per answer.",
        if n == 1 { "" } else { "s" },
        rate(pn, ps),
        rate(gn, gs),
        (ps + gs) / n as f64
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_megabytes_with_their_thousands_grouped() {
        assert_eq!(megabytes(98_362_432), "98.4 MB");
        assert_eq!(megabytes(10_849_600_000), "10,849.6 MB");
        assert_eq!(megabytes(2 << 30), "2,147.5 MB");
        assert_eq!(megabytes(0), "0.0 MB");
        assert_eq!(megabytes(49_999), "0.0 MB");
        assert_eq!(megabytes(50_000), "0.1 MB");
        assert_eq!(megabytes(999_950_000), "1,000.0 MB");
        assert_eq!(megabytes(u64::MAX), "18,446,744,073,709.6 MB");
    }

    #[test]
    fn the_tab_scheme_is_recognised_only_at_the_start() {
        assert!(is_tab(BASE_URL));
        assert!(is_tab("TAB://this-tab/v1/chat/completions"));
        assert!(!is_tab("http://tab://x"));
        assert!(!is_tab("tab:"));
        assert!(!is_tab(""));
    }

    #[test]
    fn outside_a_run_the_tab_is_asked_greedily_with_the_official_request() {
        let e = endpoint("SmolLM2-135M", 256);
        assert_eq!(e.validate(), Ok(()));
        let req = e.request("the prompt");
        assert!(is_tab(&req.url), "{}", req.url);
        let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body["model"], "SmolLM2-135M");
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["max_tokens"], 256);
        assert_eq!(
            body["messages"],
            serde_json::json!([{"role": "user", "content": "the prompt"}])
        );
    }

    #[test]
    fn a_reply_s_timings_are_read_when_it_has_them() {
        let body = r#"{"choices":[],"timings":{"prompt_n":631,"prompt_per_second":35.5,"predicted_n":48,"predicted_per_second":12.0}}"#;
        let t = timing_of(body).unwrap();
        assert_eq!((t.prompt_tokens, t.generated_tokens), (631.0, 48.0));
        assert_eq!(speed_line(&[t]).unwrap(), "1 answer in this tab: prompt 35.5 tokens/s, generated 12.0 tokens/s, 21.8 s per answer.");
        assert_eq!(
            t.words(),
            "631 prompt tokens read at 35.5 tokens/s, 48 written at 12.0 tokens/s"
        );
        assert_eq!(timing_of(r#"{"choices":[]}"#), None);
        assert_eq!(timing_of("not json"), None);
    }

    #[test]
    fn a_fetched_model_is_kept_under_the_address_s_file_name() {
        let hf = "https://huggingface.co/org/m/resolve/main/SmolLM2-135M.Q4_1.gguf?download=true";
        assert_eq!(url_file_name(hf), Ok("SmolLM2-135M.Q4_1.gguf".to_string()));
        assert_eq!(
            url_file_name(" http://127.0.0.1:8080/a/b%20c.GGUF#x "),
            Ok("b c.GGUF".to_string())
        );
        assert!(url_file_name("ftp://x/m.gguf").unwrap_err().contains("https://"));
        assert!(url_file_name("https://example.com/").unwrap_err().contains("names no file"));
        assert!(url_file_name("https://example.com").unwrap_err().contains("names no file"));
        assert!(url_file_name("https://example.com/m.bin").unwrap_err().contains("not a GGUF"));
        assert!(url_file_name("https://example.com/a%2Fb.gguf")
            .unwrap_err()
            .contains("names no file"));
    }

    #[test]
    fn files_are_refused_by_name_size_and_emptiness() {
        assert_eq!(refuse_file("m.gguf", 98_000_000), None);
        assert_eq!(refuse_file("M.GGUF", 1), None);
        assert!(refuse_file("m.bin", 10).is_some_and(|m| m.contains("not a GGUF")));
        assert!(refuse_file("m.gguf", 0).is_some_and(|m| m.contains("empty")));
        let big = refuse_file("big.gguf", MAX_MODEL_BYTES + 1);
        assert!(
            big.is_some_and(|m| m.contains("at most 2.1 GB") && m.contains("big.gguf is 2.1 GB"))
        );
        assert_eq!(refuse_file("edge.gguf", MAX_MODEL_BYTES), None);
    }

    #[test]
    fn the_model_name_is_the_file_name_without_gguf() {
        assert_eq!(model_name("SmolLM2-135M-Instruct.Q4_1.gguf"), "SmolLM2-135M-Instruct.Q4_1");
        assert_eq!(model_name("x.GGUF"), "x");
        assert_eq!(model_name("noext"), "noext");
        assert_eq!(model_name("é.gguf"), "é");
        assert_eq!(model_name("ab"), "ab");
    }

    #[test]
    fn windows_outside_the_range_or_the_training_are_refused() {
        assert_eq!(refuse_window(DEFAULT_WINDOW, None), None);
        assert_eq!(refuse_window(DEFAULT_WINDOW, Some(8192)), None);
        assert_eq!(refuse_window(8192, Some(8192)), None);
        assert!(refuse_window(100, None).is_some());
        assert!(refuse_window(MAX_WINDOW + 1, None).is_some());
        assert_eq!(
            refuse_window(16384, Some(8192)).as_deref(),
            Some("Window: at most the 8192 tokens this model was trained with, not 16384")
        );
    }

    #[test]
    fn a_file_is_described_by_its_header() {
        let info = super::super::gguf::GgufInfo {
            architecture: "llama".into(),
            name: Some("SmolLM2 135M Instruct".into()),
            size_label: Some("135M".into()),
            context_length: Some(8192),
            file_type: Some("Q4_1".into()),
            chat_template: true,
            ..Default::default()
        };
        assert_eq!(
            describe("m.gguf", 98_362_432, &info),
            "m.gguf: SmolLM2 135M Instruct (llama, 135M, Q4_1), 98.4 MB; trained window 8,192 tokens; a chat template."
        );
        let bare =
            super::super::gguf::GgufInfo { architecture: "qwen2".into(), ..Default::default() };
        assert_eq!(
            describe("q.gguf", 1_000_000, &bare),
            "q.gguf: a model (qwen2), 1.0 MB; the file does not say its window; no chat template (llama.cpp's default is used)."
        );
    }

    #[test]
    fn a_run_in_the_tab_has_one_request_no_retries_and_a_smaller_limit() {
        let c = schedule();
        assert_eq!((c.concurrency, c.max_retries), (1, 0));
        const { assert!(DEFAULT_MAX_NEW_TOKENS < super::super::wire::DEFAULT_MAX_NEW_TOKENS) };
        assert!(ANSWER_LIMIT_NOTE.contains(&DEFAULT_MAX_NEW_TOKENS.to_string()));
    }

    /// The demo's longest needle, which the note names, fits the limit,
    /// counted by the project's tokenizer (CodeLlama's, as the contexts
    /// are; a small model's own vocabulary counts code alike within a
    /// few tens of tokens).
    #[test]
    fn the_tab_s_answer_limit_holds_the_demo_s_longest_needle() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/demo/repoqa-demo.json");
        let text = std::fs::read_to_string(path).unwrap();
        let d: serde_json::Value = serde_json::from_str(&text).unwrap();
        let bytes = std::fs::read(crate::code::tokenize::test_tokenizer_path()).unwrap();
        let tok = crate::code::tokenize::Tokenizer::from_json_bytes(&bytes, "default").unwrap();
        let (mut longest, mut most) = (0, 0);
        for repos in d.as_object().unwrap().values() {
            for r in repos.as_array().unwrap() {
                for n in r["needles"].as_array().unwrap() {
                    let code = r["content"][n["path"].as_str().unwrap()].as_str().unwrap();
                    let (a, b) =
                        (n["start_byte"].as_u64().unwrap(), n["end_byte"].as_u64().unwrap());
                    let needle = &code.as_bytes()[a as usize..b as usize];
                    longest = longest.max(b - a);
                    most = most.max(tok.count(std::str::from_utf8(needle).unwrap()).unwrap());
                }
            }
        }
        assert_eq!(longest, 1443, "the note names the demo's longest needle");
        assert!((350..=450).contains(&most), "about 400 tokens, as the note says: {most}");
        assert!(most + 64 < DEFAULT_MAX_NEW_TOKENS as usize);
    }

    #[test]
    fn threads_are_the_cores_up_to_eight_and_a_reload_says_how_many() {
        assert_eq!((threads(0), threads(2), threads(64)), (1, 2, 8));
        assert!(reload_for_threads(2).contains("reload to run on 2 threads"));
    }

    #[test]
    fn progress_says_what_the_engine_is_doing() {
        let p = TabProgress::default();
        assert_eq!(p.words(), "Reading the prompt, 0 s so far.");
        let reading = TabProgress { read: Some((512, 2011)), elapsed_ms: 12_500.0, ..p };
        assert_eq!(
            reading.words(),
            "Reading the prompt: 512 of 2,011 tokens (41.0 tokens/s), 12 s so far."
        );
        let writing = TabProgress {
            read: None,
            written: 37,
            elapsed_ms: 58_200.0,
            first_token_ms: Some(49_200.0),
        };
        assert_eq!(
            writing.words(),
            "Writing the answer: 37 tokens at 4.1 tokens/s; the prompt took 49.2 s."
        );
        let one = TabProgress { written: 1, elapsed_ms: 49_300.0, ..writing };
        assert_eq!(
            one.words(),
            "Writing the answer: 1 token at … tokens/s; the prompt took 49.2 s."
        );
    }

    #[test]
    fn the_speed_is_over_all_answers() {
        assert_eq!(speed_line(&[]), None);
        let a = Timing {
            prompt_tokens: 100.0,
            prompt_per_second: 50.0,
            generated_tokens: 10.0,
            generated_per_second: 5.0,
        };
        let b = Timing {
            prompt_tokens: 300.0,
            prompt_per_second: 50.0,
            generated_tokens: 30.0,
            generated_per_second: 10.0,
        };
        // 400 prompt tokens in 8 s, 40 generated in 5 s, 13 s over 2 answers.
        assert_eq!(
            speed_line(&[a, b]).as_deref(),
            Some("2 answers in this tab: prompt 50.0 tokens/s, generated 8.0 tokens/s, 6.5 s per answer.")
        );
        let z = Timing { prompt_tokens: 1.0, ..Timing::default() };
        assert!(speed_line(&[z])
            .is_some_and(|l| l.starts_with("1 answer in") && l.contains("prompt unknown")));
    }
}
