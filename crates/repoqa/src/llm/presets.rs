//! Where models are usually served, for the page's Run panel: each
//! preset's wire format and default base URL, and how each server lets a
//! web page (another origin) call it. A browser reads a reply only when
//! the server allows the page's origin (CORS); when it does not, `fetch`
//! fails before any HTTP status, exactly as when the server is down, so
//! the advice covers both.

use super::wire::Provider;

/// A server or API the Run panel offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub provider: Provider,
    /// Empty: the user types it.
    pub base_url: &'static str,
    /// The API refuses requests without a key.
    pub needs_key: bool,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        id: "openai",
        label: "OpenAI",
        provider: Provider::OpenAi,
        base_url: "https://api.openai.com/v1",
        needs_key: true,
    },
    Preset {
        id: "anthropic",
        label: "Anthropic",
        provider: Provider::Anthropic,
        base_url: "https://api.anthropic.com/v1",
        needs_key: true,
    },
    Preset {
        id: "google",
        label: "Google Gemini",
        provider: Provider::Google,
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        needs_key: true,
    },
    Preset {
        id: "openrouter",
        label: "OpenRouter",
        provider: Provider::OpenAi,
        base_url: "https://openrouter.ai/api/v1",
        needs_key: true,
    },
    Preset {
        id: "vllm",
        label: "vLLM / SGLang (local)",
        provider: Provider::OpenAi,
        base_url: "http://127.0.0.1:8000/v1",
        needs_key: false,
    },
    Preset {
        id: "ollama",
        label: "Ollama (local)",
        provider: Provider::OpenAi,
        base_url: "http://127.0.0.1:11434/v1",
        needs_key: false,
    },
    Preset {
        id: "llamacpp",
        label: "llama.cpp server (local)",
        provider: Provider::OpenAi,
        base_url: "http://127.0.0.1:8080/v1",
        needs_key: false,
    },
    Preset {
        id: "lmstudio",
        label: "LM Studio (local)",
        provider: Provider::OpenAi,
        base_url: "http://127.0.0.1:1234/v1",
        needs_key: false,
    },
    Preset {
        id: "tab",
        label: "In this tab (a small GGUF model, no server)",
        provider: Provider::OpenAi,
        base_url: super::in_tab::BASE_URL,
        needs_key: false,
    },
    Preset {
        id: "custom",
        label: "Other (any of the three formats)",
        provider: Provider::OpenAi,
        base_url: "",
        needs_key: false,
    },
];

/// Current models of each hosted API, offered as suggestions for the
/// model field (checked 2026-11-27; any name can be typed): reasoning
/// models are asked as such by `reasoning`'s table, and their list prices
/// are in `plan::PRICE_PRESETS`.
pub const MODELS: &[(Provider, &str)] = &[
    (Provider::OpenAi, "gpt-5"),
    (Provider::OpenAi, "gpt-5-mini"),
    (Provider::OpenAi, "gpt-5-nano"),
    (Provider::OpenAi, "o3"),
    (Provider::OpenAi, "o4-mini"),
    (Provider::OpenAi, "gpt-4.1"),
    (Provider::OpenAi, "gpt-4o"),
    (Provider::Anthropic, "claude-sonnet-4-5"),
    (Provider::Anthropic, "claude-opus-4-1"),
    (Provider::Anthropic, "claude-haiku-4-5"),
    (Provider::Google, "gemini-2.5-pro"),
    (Provider::Google, "gemini-2.5-flash"),
    (Provider::Google, "gemini-2.5-flash-lite"),
];

pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// What a failure before any HTTP status means in a browser, in one line.
pub const NO_STATUS: &str =
    "no HTTP status came back: the server is not reachable at this address, \
     or it does not allow this page's origin (CORS) so the browser hid its reply";

/// How to let a page call each common local server: (server, what to do).
pub const ALLOW_ORIGINS: &[(&str, &str)] = &[
    (
        "Ollama",
        "allows only localhost pages by default; start it with OLLAMA_ORIGINS set to this page's origin \
         (e.g. OLLAMA_ORIGINS=\"https://example.org\" ollama serve, or \"*\" for any page)",
    ),
    (
        "vLLM",
        "allows every origin unless restricted: vllm serve MODEL --allowed-origins '[\"*\"]' \
         (or a JSON list with this page's origin)",
    ),
    (
        "LM Studio",
        "turn on \"Enable CORS\" in the Developer tab's server settings (or lms server start --cors)",
    ),
    ("llama.cpp server", "allows every origin by default (llama-server sends Access-Control-Allow-Origin)"),
    (
        "Hosted APIs",
        "OpenAI, Google Gemini and OpenRouter allow browsers; Anthropic does with the \
         anthropic-dangerous-direct-browser-access header, which this page sends",
    ),
];

/// The origin of a page URL (`scheme://host[:port]`), to quote in the advice.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty())?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    Some(format!("{scheme}://{host}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_distinct() {
        for p in PRESETS {
            assert_eq!(preset(p.id), Some(p));
            if !p.base_url.is_empty() {
                assert!(
                    p.base_url.starts_with("http") || super::super::in_tab::is_tab(p.base_url),
                    "{}",
                    p.id
                );
            }
        }
        assert_eq!(preset("anthropic").map(|p| p.provider), Some(Provider::Anthropic));
        assert_eq!(preset("google").map(|p| p.base_url), Some(Provider::Google.default_base_url()));
        assert!(ALLOW_ORIGINS.iter().any(|(_, how)| how.contains("OLLAMA_ORIGINS")));
        assert!(ALLOW_ORIGINS.iter().any(|(_, how)| how.contains("--allowed-origins")));
        // Every suggested model has a list price.
        for (_, m) in MODELS {
            assert!(super::super::plan::preset_price(m).is_some(), "{m}");
        }
    }

    #[test]
    fn origins() {
        assert_eq!(
            origin_of("http://127.0.0.1:8080/#run").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(origin_of("https://u:p@x.org/a?b").as_deref(), Some("https://x.org"));
        assert_eq!(origin_of("nonsense"), None);
    }
}
