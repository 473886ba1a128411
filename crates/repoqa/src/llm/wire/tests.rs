//! The wire formats' requests and replies, format by format.

use serde_json::{json, Value};

use super::*;
use crate::llm::HttpReply;

#[test]
fn the_model_list_is_read_in_each_format_and_an_unlisted_model_warned_about() {
    let openai = r#"{"object": "list", "data": [{"id": "org/a"}, {"id": "b"}]}"#;
    assert_eq!(read_models(openai), Some(vec!["org/a".to_string(), "b".to_string()]));
    let gemini = r#"{"models": [{"name": "models/gemini-1.5-flash"}]}"#;
    assert_eq!(read_models(gemini), Some(vec!["models/gemini-1.5-flash".to_string()]));
    assert_eq!(read_models("not json"), None);
    let mut e = Endpoint::new(Provider::OpenAi, "org/a");
    e.base_url = "http://h:1/v1/chat/completions".into();
    e.api_key = Some("sk-x".into());
    let r = e.models_request();
    assert_eq!(r.url, "http://h:1/v1/models");
    assert_eq!(r.headers, vec![("Authorization".to_string(), "Bearer sk-x".to_string())]);
    let listed = read_models(openai).unwrap();
    assert_eq!(e.model_warning(&listed), None);
    e.model = "gpt-4o".into();
    let w = e.model_warning(&listed).unwrap();
    assert!(w.starts_with("the server at http://h:1/v1/chat/completions lists 2 model(s) (org/a, b), not \"gpt-4o\""), "{w}");
    let g = Endpoint::new(Provider::Google, "gemini-1.5-flash");
    assert_eq!(g.model_warning(&read_models(gemini).unwrap()), None);
    assert_eq!(e.model_warning(&[]), None, "an empty list says nothing");
}

#[test]
fn a_llama_cpp_server_says_how_many_requests_it_answers_at_a_time() {
    let mut e = Endpoint::new(Provider::OpenAi, "m");
    e.base_url = "http://h:8080/v1".into();
    assert_eq!(e.props_request().unwrap().url, "http://h:8080/props");
    e.base_url = "http://h:8080/v1/chat/completions".into();
    assert_eq!(e.props_request().unwrap().url, "http://h:8080/props");
    assert!(Endpoint::new(Provider::Anthropic, "m").props_request().is_none());
    e.base_url = crate::llm::in_tab::BASE_URL.into();
    assert!(e.props_request().is_none(), "the model in this tab is no server to ask");
    let props = r#"{"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}"#;
    assert_eq!(read_total_slots(props), Some(1));
    assert_eq!(read_total_slots(r#"{"total_slots": "x"}"#), None);
    assert_eq!(read_total_slots("<html>"), None);
    let (c, why) = e.slots_limit(1, 4).unwrap();
    assert_eq!(c, 1);
    assert!(why.contains("concurrency lowered from 4 to 1"), "{why}");
    assert_eq!(e.slots_limit(4, 4), None);
    assert_eq!(e.slots_limit(0, 4), None, "0 slots is not a reading");
}

fn settings(p: Provider) -> Endpoint {
    let mut s = Endpoint::new(p, "m-1");
    s.api_key = Some("sk-secret".into());
    s
}

fn reply(status: u16, body: Value) -> HttpReply {
    HttpReply { status, retry_after: None, body: body.to_string() }
}

fn body(r: &HttpRequest) -> Value {
    serde_json::from_str(&r.body).unwrap()
}

fn header<'a>(r: &'a HttpRequest, name: &str) -> Option<&'a str> {
    r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn official_openai_request() {
    let mut s = settings(Provider::OpenAi);
    s.base_url = "http://127.0.0.1:9/v1/".into();
    let r = s.request("PROMPT");
    assert_eq!(r.url, "http://127.0.0.1:9/v1/chat/completions");
    assert_eq!(header(&r, "authorization"), Some("Bearer sk-secret"));
    assert_eq!(
        body(&r),
        json!({"model": "m-1", "messages": [{"role": "user", "content": "PROMPT"}],
               "max_tokens": 1024, "temperature": 0.0, "n": 1})
    );
    s.sampling.system_message = Some("SYS".into());
    s.sampling.stop = vec!["<|im_end|>".into()];
    let b = body(&s.request("P"));
    assert_eq!(b["messages"][0], json!({"role": "system", "content": "SYS"}));
    assert_eq!(b["messages"][1], json!({"role": "user", "content": "P"}));
    assert_eq!(b["stop"], json!(["<|im_end|>"]));
    s.api_key = None;
    assert_eq!(header(&s.request("P"), "authorization"), None);
    assert!(s.validate().is_ok(), "local servers need no key");
}

#[test]
fn the_in_tab_model_is_an_openai_server_for_the_page_only() {
    let mut s = settings(Provider::OpenAi);
    s.api_key = None;
    s.base_url = crate::llm::in_tab::BASE_URL.into();
    assert_eq!(s.request("P").url, "tab://this-tab/v1/chat/completions");
    assert!(s.validate().unwrap_err().contains("is the page's model in the tab"));
    s.from_browser = true;
    assert_eq!(s.validate(), Ok(()));
    s.provider = Provider::Anthropic;
    s.api_key = Some("k".into());
    assert!(s.validate().unwrap_err().contains("speaks the OpenAI Chat Completions format"));
    s.provider = Provider::OpenAi;
    s.base_url = "ftp://x".into();
    assert!(s.validate().unwrap_err().contains("must start with http:// or https://"));
}

#[test]
fn official_anthropic_request() {
    let mut s = settings(Provider::Anthropic);
    let r = s.request("PROMPT");
    assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(header(&r, "x-api-key"), Some("sk-secret"));
    assert_eq!(header(&r, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(header(&r, "anthropic-dangerous-direct-browser-access"), None);
    assert_eq!(
        body(&r),
        json!({"model": "m-1", "max_tokens": 1024,
               "messages": [{"role": "user", "content": "PROMPT"}], "temperature": 0.0})
    );
    s.from_browser = true;
    s.sampling.system_message = Some("SYS".into());
    let r = s.request("P");
    assert_eq!(header(&r, "anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_eq!(body(&r)["system"], "SYS");
    s.api_key = None;
    assert_eq!(
        s.validate().unwrap_err(),
        "no API key for anthropic (fill in the API key field, with your Anthropic API key)"
    );
    s.from_browser = false;
    assert_eq!(
        s.validate().unwrap_err(),
        "no API key for anthropic (set ANTHROPIC_API_KEY or ANTHROPIC_KEY)"
    );
}

#[test]
fn official_google_request() {
    let mut s = settings(Provider::Google);
    s.model = "models/gemini-x".into();
    let r = s.request("PROMPT");
    assert_eq!(
        r.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-x:generateContent"
    );
    assert_eq!(header(&r, "x-goog-api-key"), Some("sk-secret"));
    assert_eq!(
        body(&r),
        json!({"contents": [{"role": "user", "parts": [{"text": "PROMPT"}]}],
               "generationConfig": {"candidateCount": 1, "maxOutputTokens": 1024, "temperature": 0.0}})
    );
    assert!(!r.url.contains("key="), "the key goes in a header, never the URL");
}

#[test]
fn the_key_never_shows() {
    for p in Provider::ALL.iter().copied() {
        let s = settings(p);
        assert!(!format!("{s:?}").contains("sk-secret"));
        assert!(!format!("{:?}", s.request("p")).contains("sk-secret"));
        assert!(!serde_json::to_string(&s).unwrap().contains("sk-secret"));
    }
    assert_eq!(redact_url("https://u:pw@h.example/v1?key=abc#x"), "https://h.example/v1");
    assert_eq!(redact_url("http://127.0.0.1:8/v1"), "http://127.0.0.1:8/v1");
    assert_eq!(redact_url("http://h"), "http://h");
}

#[test]
fn reads_answers_in_each_format() {
    let o = read_reply(
        &settings(Provider::OpenAi),
        Ok(&reply(
            200,
            json!({"choices": [{"message": {"content": "A"}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 10, "completion_tokens": 2}}),
        )),
    );
    let want = |text: &str, fr: &str| {
        Outcome::Answer(Answer {
            text: text.into(),
            usage: Usage {
                prompt_tokens: Some(10),
                completion_tokens: Some(2),
                ..Usage::default()
            },
            finish_reason: Some(fr.into()),
            ..Answer::default()
        })
    };
    assert_eq!(o, want("A", "stop"));
    let o = read_reply(
        &settings(Provider::Anthropic),
        Ok(&reply(
            200,
            json!({"content": [{"type": "text", "text": "B"}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 10, "output_tokens": 2}}),
        )),
    );
    assert_eq!(o, want("B", "end_turn"));
    let o = read_reply(
        &settings(Provider::Google),
        Ok(&reply(
            200,
            json!({"candidates": [{"content": {"parts": [{"text": "C"}]}, "finishReason": "STOP"}],
                   "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2}}),
        )),
    );
    assert_eq!(o, want("C", "STOP"));
    // A blocked Gemini candidate is an empty answer, as upstream.
    let o = read_reply(
        &settings(Provider::Google),
        Ok(&reply(200, json!({"candidates": [{"finishReason": "SAFETY"}]}))),
    );
    assert!(matches!(o, Outcome::Answer(Answer { ref text, .. }) if text.is_empty()));
}

#[test]
fn classifies_failures() {
    let s = settings(Provider::OpenAi);
    let st = |status: u16, b: Value| read_reply(&s, Ok(&reply(status, b)));
    assert!(
        matches!(st(401, json!({})), Outcome::Stop { ref reason } if reason.contains("check the key (OPENAI_API_KEY)"))
    );
    // The page has no environment: it names its key field and the API.
    let mut page = settings(Provider::OpenAi);
    page.from_browser = true;
    let o = read_reply(&page, Ok(&reply(403, json!({}))));
    assert!(
        matches!(&o, Outcome::Stop { reason } if reason.ends_with("check the key (the API key field, with your OpenAI-compatible API key)")),
        "{o:?}"
    );
    assert!(!format!("{o:?}").contains("OPENAI_API_KEY"));
    page.provider = Provider::Google;
    let o = read_reply(&page, Ok(&reply(400, json!({"error": {"message": "API key not valid."}}))));
    assert!(
        matches!(&o, Outcome::Stop { reason } if reason.contains("the API key field, with your Google Gemini API key")),
        "{o:?}"
    );
    assert!(matches!(st(404, json!({"error": {"message": "no such model"}})),
        Outcome::Stop { ref reason } if reason.contains("no such model; check the base URL and the model name \"m-1\"")));
    let mut limited = reply(429, json!({}));
    limited.retry_after = Some("3".into());
    assert_eq!(
        read_reply(&s, Ok(&limited)),
        Outcome::Retry {
            reason: "https://api.openai.com/v1/chat/completions: HTTP 429".into(),
            retry_after_s: Some(3.0),
            timed_out: false,
        }
    );
    assert!(matches!(st(503, json!({})), Outcome::Retry { .. }));
    let ctx = json!({"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}});
    assert!(
        matches!(st(400, ctx), Outcome::TaskFailed { ref reason } if reason.starts_with("the prompt is longer than the model's context"))
    );
    let bad = HttpReply { status: 200, retry_after: None, body: "{\"choices\": [".into() };
    assert!(
        matches!(read_reply(&s, Ok(&bad)), Outcome::Retry { ref reason, .. } if reason.contains("not JSON"))
    );
    assert!(matches!(st(200, json!({"object": "x"})), Outcome::Retry { .. }));
    // A text that is not a string is malformed (asked again), never an
    // empty answer; null is the empty answer upstream stores.
    for content in [json!(42), json!(["a"]), json!({"text": "a"})] {
        let o = st(200, json!({"choices": [{"message": {"content": content}}]}));
        assert!(
            matches!(&o, Outcome::Retry { reason, .. } if reason.contains("with a text content")),
            "{o:?}"
        );
    }
    let o = st(200, json!({"model": "other-9", "choices": [{"message": {"content": null}}]}));
    let Outcome::Answer(a) = o else { panic!("{o:?}") };
    assert_eq!((a.text.as_str(), a.model.as_deref()), ("", Some("other-9")));
    let an = settings(Provider::Anthropic);
    let o = read_reply(&an, Ok(&reply(200, json!({"content": [{"type": "text", "text": 7}]}))));
    assert!(matches!(o, Outcome::Retry { .. }), "{o:?}");
    assert!(matches!(read_reply(&s, Err(&TransportError::Timeout)), Outcome::Retry { .. }));
    let moved = TransportError::Redirect { status: 302, location: Some("http://x/y".into()) };
    assert_eq!(
        read_reply(&s, Err(&moved)),
        Outcome::Stop { reason: "https://api.openai.com/v1/chat/completions: the server redirected the request (HTTP 302 to http://x/y); redirects are not followed (a 301, 302 or 303 would turn the POST into a GET): give the address a model API answers at as the base URL".into() }
    );
    let g = settings(Provider::Google);
    let o = read_reply(
        &g,
        Ok(&reply(
            400,
            json!({"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}),
        )),
    );
    assert!(matches!(o, Outcome::Stop { .. }), "{o:?}");
    let o = read_reply(
        &g,
        Ok(&reply(
            400,
            json!({"error": {"message": "The input token count (20000) exceeds the maximum number of tokens allowed (8192)."}}),
        )),
    );
    assert!(matches!(o, Outcome::TaskFailed { .. }), "{o:?}");
}

fn reasoning(mode: reasoning::ReasoningMode) -> ReasoningSettings {
    ReasoningSettings { mode, ..ReasoningSettings::default() }
}

#[test]
fn every_effort_is_sent_as_each_api_takes_it() {
    use reasoning::Effort;
    // OpenAI: the name, with room for it in max_completion_tokens.
    let mut gpt = settings(Provider::OpenAi);
    gpt.model = "gpt-5.2".into();
    for (e, room) in [(Effort::None, 1024), (Effort::Low, 5120), (Effort::Xhigh, 66_560)] {
        gpt.reasoning.effort = Some(e);
        let b = body(&gpt.request("P"));
        assert_eq!(
            (b["reasoning_effort"].clone(), b["max_completion_tokens"].clone()),
            (json!(e.name()), json!(room))
        );
        assert!(b.get("temperature").is_none() && b.get("max_tokens").is_none(), "{b}");
    }
    gpt.model = "gpt-5".into();
    assert!(gpt
        .validate()
        .unwrap_err()
        .contains("does not take it; it takes minimal, low, medium, high"));
    // Anthropic: none says thinking is off and keeps the official temperature.
    let mut claude = settings(Provider::Anthropic);
    claude.model = "claude-sonnet-4-5".into();
    claude.reasoning.effort = Some(Effort::None);
    assert_eq!(claude.validate(), Ok(()));
    assert_eq!(
        body(&claude.request("P")),
        json!({"model": "claude-sonnet-4-5", "max_tokens": 1024,
               "messages": [{"role": "user", "content": "P"}],
               "thinking": {"type": "disabled"}, "temperature": 0.0})
    );
    claude.reasoning.effort = Some(Effort::Minimal);
    assert_eq!(
        body(&claude.request("P"))["thinking"],
        json!({"type": "enabled", "budget_tokens": 1024})
    );
    // Gemini 2.5 Flash: a budget of 0; Gemini 3: the level by name.
    let mut gemini = settings(Provider::Google);
    gemini.model = "gemini-2.5-flash".into();
    gemini.reasoning.effort = Some(Effort::None);
    assert_eq!(
        body(&gemini.request("P"))["generationConfig"],
        json!({"candidateCount": 1, "maxOutputTokens": 1024, "temperature": 0.0,
               "thinkingConfig": {"thinkingBudget": 0}})
    );
    gemini.model = "gemini-3-flash-preview".into();
    gemini.reasoning.effort = Some(Effort::Minimal);
    assert_eq!(
        body(&gemini.request("P"))["generationConfig"]["thinkingConfig"],
        json!({"thinkingLevel": "minimal", "includeThoughts": true})
    );
    gemini.model = "gemini-3-pro-preview".into();
    assert!(gemini.validate().unwrap_err().contains("it takes low, high"));
    // The record says what was asked.
    gemini.reasoning.effort = Some(Effort::Low);
    let r = gemini.params().reasoning.unwrap();
    assert_eq!(
        (r.effort, r.level.as_deref(), r.control.as_deref()),
        (Some(Effort::Low), Some("low"), Some("thinkingLevel=low"))
    );
}

#[test]
fn a_reasoning_model_is_asked_as_each_provider_documents() {
    use reasoning::{Effort, ReasoningMode};
    // OpenAI o-series and GPT-5: max_completion_tokens, no temperature.
    let mut o3 = settings(Provider::OpenAi);
    o3.model = "o3".into();
    assert_eq!(
        body(&o3.request("P")),
        json!({"model": "o3", "messages": [{"role": "user", "content": "P"}],
               "max_completion_tokens": 17408, "n": 1})
    );
    o3.reasoning.effort = Some(Effort::High);
    let b = body(&o3.request("P"));
    assert_eq!(
        (b["max_completion_tokens"].clone(), b["reasoning_effort"].clone()),
        (json!(33792), json!("high"))
    );
    assert_eq!(o3.params().reasoning.map(|r| r.budget), Some(32_768));
    // --reasoning off: upstream's request, byte for byte.
    o3.reasoning = reasoning(ReasoningMode::Off);
    assert_eq!(
        body(&o3.request("P")),
        json!({"model": "o3", "messages": [{"role": "user", "content": "P"}],
               "max_tokens": 1024, "temperature": 0.0, "n": 1})
    );
    assert_eq!(o3.params().reasoning, None);
    // …said before a run: OpenAI refuses it for a reasoning model.
    assert!(o3.reasoning_summary().contains("OpenAI o-series (o3) reasons, and OpenAI's API refuses both for it (HTTP 400): --reasoning on asks it as one"), "{}", o3.reasoning_summary());
    // An open-weight thinker keeps max_tokens (raised) and the temperature.
    let mut qwen = settings(Provider::OpenAi);
    qwen.model = "Qwen/Qwen3-8B".into();
    qwen.reasoning.budget = Some(4000);
    assert_eq!(
        body(&qwen.request("P")),
        json!({"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "P"}],
               "max_tokens": 5024, "temperature": 0.0, "n": 1})
    );
    // Anthropic: a thinking block, max_tokens = budget + answer, no temperature.
    let mut claude = settings(Provider::Anthropic);
    claude.model = "claude-sonnet-4-5".into();
    assert_eq!(
        body(&claude.request("P"))["temperature"],
        json!(0.0),
        "auto: Claude does not think unasked"
    );
    claude.reasoning = reasoning(ReasoningMode::On);
    claude.reasoning.budget = Some(2048);
    assert_eq!(
        body(&claude.request("P")),
        json!({"model": "claude-sonnet-4-5", "max_tokens": 3072,
               "messages": [{"role": "user", "content": "P"}],
               "thinking": {"type": "enabled", "budget_tokens": 2048}})
    );
    claude.reasoning.budget = Some(500);
    assert!(claude
        .validate()
        .unwrap_err()
        .starts_with("Anthropic's thinking budget is at least 1024 tokens, not 500"));
    // Gemini 2.5: a thinking budget inside maxOutputTokens.
    let mut gemini = settings(Provider::Google);
    gemini.model = "gemini-2.5-flash".into();
    assert_eq!(
        body(&gemini.request("P"))["generationConfig"],
        json!({"candidateCount": 1, "maxOutputTokens": 17408, "temperature": 0.0,
               "thinkingConfig": {"thinkingBudget": 16384, "includeThoughts": true}})
    );
    gemini.model = "gemini-3-pro-preview".into();
    assert_eq!(
        body(&gemini.request("P"))["generationConfig"]["thinkingConfig"],
        json!({"thinkingLevel": "high", "includeThoughts": true})
    );
    // A plain model: the official request, whatever the settings' defaults.
    let plain = settings(Provider::Google);
    assert!(body(&plain.request("P"))["generationConfig"].get("thinkingConfig").is_none());
}

#[test]
fn the_answer_is_what_follows_the_thinking() {
    let answer = |s: &Endpoint, b: Value| match read_reply(s, Ok(&reply(200, b))) {
        Outcome::Answer(a) => a,
        o => panic!("{o:?}"),
    };
    let openai = settings(Provider::OpenAi);
    // DeepSeek's API: reasoning_content beside the content.
    let a = answer(
        &openai,
        json!({"choices": [{"message": {"content": "A", "reasoning_content": "R"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 7}}}),
    );
    assert_eq!(
        (a.text.as_str(), a.reasoning.as_deref(), a.usage.reasoning_tokens),
        ("A", Some("R"), Some(7))
    );
    assert!(!a.reasoning_inline);
    // vLLM's newer field name.
    let a = answer(&openai, json!({"choices": [{"message": {"content": "A", "reasoning": "R2"}}]}));
    assert_eq!(a.reasoning.as_deref(), Some("R2"));
    // Inline <think>, whatever the model: taken out, unless --keep-reasoning.
    let inline = json!({"choices": [{"message": {"content": "<think>\n```py\nx\n```\n</think>\n\n```py\nf\n```"}, "finish_reason": "stop"}]});
    let a = answer(&openai, inline.clone());
    assert_eq!(
        (a.text.as_str(), a.reasoning.as_deref(), a.reasoning_inline),
        ("```py\nf\n```", Some("```py\nx\n```"), true)
    );
    let mut keep = settings(Provider::OpenAi);
    keep.reasoning.keep_reasoning = true;
    let a = answer(&keep, inline);
    assert!(a.text.starts_with("<think>") && !a.reasoning_inline);
    assert!(keep.params().keep_reasoning);
    // A distill whose template opened the block: only </think> in the reply.
    let mut r1 = settings(Provider::OpenAi);
    r1.model = "deepseek-r1:7b".into();
    let a = answer(&r1, json!({"choices": [{"message": {"content": "hmm\n</think>\n\nF"}}]}));
    assert_eq!((a.text.as_str(), a.reasoning.as_deref()), ("F", Some("hmm")));
    // Anthropic: thinking blocks, then the text.
    let mut claude = settings(Provider::Anthropic);
    claude.reasoning = reasoning(reasoning::ReasoningMode::On);
    let a = answer(
        &claude,
        json!({"content": [
        {"type": "thinking", "thinking": "T", "signature": "s"},
        {"type": "redacted_thinking", "data": "xx"},
        {"type": "text", "text": "B"}], "stop_reason": "end_turn"}),
    );
    assert_eq!((a.text.as_str(), a.reasoning.as_deref()), ("B", Some("T\n\n[redacted thinking]")));
    // Gemini: thought parts, then the answer's.
    let g = settings(Provider::Google);
    let a = answer(
        &g,
        json!({"candidates": [{"content": {"parts": [{"text": "T", "thought": true}, {"text": "C"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "thoughtsTokenCount": 40}}),
    );
    assert_eq!(
        (a.text.as_str(), a.reasoning.as_deref(), a.usage.reasoning_tokens),
        ("C", Some("T"), Some(40))
    );
    // A cut answer with text is an answer (the run names it).
    let a = answer(
        &openai,
        json!({"choices": [{"message": {"content": "```py\nde"}, "finish_reason": "length"}]}),
    );
    assert!(a.cut());
}

#[test]
fn a_reply_with_no_answer_is_a_failed_task_saying_what_to_raise() {
    let failed = |s: &Endpoint, b: Value| match read_reply(s, Ok(&reply(200, b))) {
        Outcome::TaskFailed { reason } => reason,
        o => panic!("{o:?}"),
    };
    // Gemini 2.5 asked the official way: the thinking spent the 1,024 tokens.
    let mut g = settings(Provider::Google);
    g.model = "gemini-2.5-pro".into();
    g.reasoning = reasoning(reasoning::ReasoningMode::Off);
    let spent = json!({"candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS"}],
        "usageMetadata": {"promptTokenCount": 3, "thoughtsTokenCount": 1021}});
    let r = failed(&g, spent.clone());
    assert!(r.contains("the model reasons, and 1,021 thinking tokens filled the 1,024 tokens meant for the answer; ask it as a reasoning model (--reasoning on"), "{r}");
    g.reasoning = reasoning(reasoning::ReasoningMode::Auto);
    let r = failed(&g, spent);
    assert!(
        r.contains("a thinking budget of 16,384 + 1,024 for the answer); raise --reasoning-budget"),
        "{r}"
    );
    // An o-series reply with empty content, finish reason length.
    let mut o = settings(Provider::OpenAi);
    o.model = "o4-mini".into();
    let r = failed(
        &o,
        json!({"choices": [{"message": {"content": ""}, "finish_reason": "length"}],
        "usage": {"completion_tokens": 17408, "completion_tokens_details": {"reasoning_tokens": 17408}}}),
    );
    assert!(r.starts_with("cut at the token limit before any answer (finish reason \"length\"): 17,408 thinking tokens"), "{r}");
    // An unclosed <think>.
    let r = failed(
        &settings(Provider::OpenAi),
        json!({"choices": [{"message": {"content": "<think>and so on"}, "finish_reason": "length"}]}),
    );
    assert!(
        r.contains("raise --max-new-tokens") || r.contains("ask it as a reasoning model"),
        "{r}"
    );
    // Anthropic cut while thinking; the page names its own field.
    let mut claude = settings(Provider::Anthropic);
    claude.reasoning = reasoning(reasoning::ReasoningMode::On);
    claude.from_browser = true;
    let r = failed(
        &claude,
        json!({"content": [{"type": "thinking", "thinking": "T"}], "stop_reason": "max_tokens"}),
    );
    assert!(r.ends_with("raise the thinking budget and ask it again"), "{r}");
    // An empty answer that is not cut stays an empty answer (upstream).
    let o = read_reply(
        &settings(Provider::OpenAi),
        Ok(&reply(
            200,
            json!({"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}),
        )),
    );
    assert!(matches!(o, Outcome::Answer(ref a) if a.text.is_empty()), "{o:?}");
}

#[test]
fn truncation_check() {
    let u = Usage { prompt_tokens: Some(4096), ..Usage::default() };
    assert!(u.looks_truncated(16000));
    assert!(!u.looks_truncated(5000));
    assert!(!Usage::default().looks_truncated(16000), "no usage reported: no verdict");
}

#[test]
fn retry_after_values() {
    assert_eq!(parse_retry_after(Some(" 7 ")), Some(7.0));
    assert_eq!(parse_retry_after(Some("0.5")), Some(0.5));
    assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
    assert_eq!(parse_retry_after(Some("-1")), None);
    assert_eq!(parse_retry_after(None), None);
}
