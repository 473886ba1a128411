//! Step 5 of curation: needle descriptions. They come from a JSON file
//! `{"function name": "description"}` written by hand or by a model; the
//! annotation prompt below is the seam for the model path (the paper asks
//! for purpose, input, output and procedure, without names).

use indexmap::IndexMap;
use serde_json::Value;

use super::CurateError;
use crate::code::lang::Language;

/// Needle name → description. A blank description counts as missing.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Descriptions {
    map: IndexMap<String, String>,
}

impl Descriptions {
    pub fn new() -> Descriptions {
        Descriptions::default()
    }

    /// Read `{"name": "description", ...}`; `origin` names the file in errors.
    pub fn from_json(bytes: &[u8], origin: &str) -> Result<Descriptions, CurateError> {
        let bad =
            |message: String| CurateError::Descriptions { origin: origin.to_string(), message };
        let value: Value = serde_json::from_slice(bytes).map_err(|e| {
            bad(format!("invalid JSON at line {}, column {}", e.line(), e.column()))
        })?;
        let Value::Object(obj) = value else {
            return Err(bad("expected an object {\"function name\": \"description\"}".to_string()));
        };
        let mut map = IndexMap::new();
        for (name, v) in obj {
            let Value::String(text) = v else {
                return Err(bad(format!("the description of {name:?} is not a string")));
            };
            map.insert(name, text);
        }
        Ok(Descriptions { map })
    }

    /// The file `from_json` reads back: `{"name": "description"}` in
    /// insertion order, pretty-printed.
    pub fn to_json_pretty(&self) -> String {
        // A map of strings always serializes.
        serde_json::to_string_pretty(&self.map).unwrap_or_default()
    }

    pub fn insert(&mut self, name: impl Into<String>, description: impl Into<String>) {
        self.map.insert(name.into(), description.into());
    }

    /// The description of a needle, if it has a non-blank one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str).filter(|d| !d.trim().is_empty())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl FromIterator<(String, String)> for Descriptions {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Descriptions { map: iter.into_iter().collect() }
    }
}

/// The prompt that asks a model to describe one needle function the way
/// the benchmark's descriptions are written: purpose, input, output and
/// procedure, and no function or variable names (the model under test
/// must find the function from what it does, not from its name).
pub fn annotation_prompt(code: &str, language: Language) -> String {
    let human = match language {
        Language::Python => "Python",
        Language::Cpp => "C++",
        Language::Java => "Java",
        Language::TypeScript => "TypeScript",
        Language::Rust => "Rust",
        Language::Go => "Go",
    };
    format!(
        "Describe the {human} function below briefly, so that a reader could pick it out among all \
the functions of its repository without seeing its name.\n\n\
```{tag}\n{code}\n```\n\n\
Answer with exactly these four numbered points, one or two sentences each:\n\
1. **Purpose**: what the function is for.\n\
2. **Input**: what it takes.\n\
3. **Output**: what it returns or changes.\n\
4. **Procedure**: the main steps it takes, in order.\n\n\
Rules:\n\
- Do not mention the name of the function, nor the names of its parameters, variables or types.\n\
- Describe behaviour in plain words, specific enough to tell this function apart from similar ones.\n\
- Reply with the four points only.\n",
        tag = language.name(),
    )
}

/// The description in a model's reply to `annotation_prompt`: the text from
/// the line starting with "1." to the end, framed by newlines like the
/// official descriptions (`"\n1. **Purpose**: ...\n"`). `None` if the reply
/// has no numbered point 1 and 4.
pub fn description_from_reply(reply: &str) -> Option<String> {
    let lines: Vec<&str> = reply.lines().collect();
    let start = lines.iter().position(|l| l.trim_start().starts_with("1."))?;
    let end = lines.iter().rposition(|l| l.trim_start().starts_with("4."))?;
    if end < start {
        return None;
    }
    // Point 4 may go on over a few lines; keep them up to a blank line.
    let mut last = end;
    while last + 1 < lines.len()
        && !lines[last + 1].trim().is_empty()
        && !lines[last + 1].starts_with("```")
    {
        last += 1;
    }
    let body: Vec<&str> = lines[start..=last].iter().map(|l| l.trim_end()).collect();
    Some(format!("\n{}\n", body.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_name_to_description_map() {
        let d = Descriptions::from_json(br#"{"f": "\n1. does f\n", "g": "  "}"#, "d.json").unwrap();
        assert_eq!(d.get("f"), Some("\n1. does f\n"));
        assert_eq!(d.get("g"), None, "blank = missing");
        assert_eq!(d.get("h"), None);
        let back = Descriptions::from_json(d.to_json_pretty().as_bytes(), "again").unwrap();
        assert_eq!(back, d);
        let e = Descriptions::from_json(br#"{"f": 1}"#, "d.json").unwrap_err().to_string();
        assert_eq!(e, "descriptions d.json: the description of \"f\" is not a string");
        let e = Descriptions::from_json(b"[]", "d.json").unwrap_err().to_string();
        assert!(e.contains("expected an object"), "{e}");
        let e = Descriptions::from_json(b"{", "d.json").unwrap_err().to_string();
        assert!(e.starts_with("descriptions d.json: invalid JSON at line 1"), "{e}");
    }

    #[test]
    fn prompt_holds_the_code_and_the_four_points() {
        let p = annotation_prompt("fn add(a: i32) -> i32 { a + 1 }", Language::Rust);
        assert!(p.contains("```rust\nfn add(a: i32) -> i32 { a + 1 }\n```"));
        for point in
            ["**Purpose**", "**Input**", "**Output**", "**Procedure**", "Do not mention the name"]
        {
            assert!(p.contains(point), "{point}");
        }
    }

    #[test]
    fn description_is_cut_from_a_reply() {
        let reply = "Sure!\n\n1. **Purpose**: a.\n2. **Input**: b.\n3. **Output**: c.\n4. **Procedure**: d,\n   then e.\n\nHope it helps.";
        assert_eq!(
            description_from_reply(reply).unwrap(),
            "\n1. **Purpose**: a.\n2. **Input**: b.\n3. **Output**: c.\n4. **Procedure**: d,\n   then e.\n"
        );
        assert!(description_from_reply("no points").is_none());
    }
}
