//! What a GGUF model file (llama.cpp's format) says of itself, read from
//! the start of the file before the model is loaded: its name, its
//! architecture, the window it was trained with, its quantisation and
//! whether it carries a chat template. The page shows these before a
//! visitor loads a model into the tab (`in_tab`).
//!
//! The format (version 2 and 3, little-endian): the magic `GGUF`, a u32
//! version, a u64 tensor count, a u64 count of metadata entries, then each
//! entry: a key (u64 length + UTF-8), a u32 value type, the value. Only the
//! start is read; a prefix that ends inside the metadata asks for more
//! ([`GgufError::Truncated`]), and nothing a file claims (a string's
//! length, an array's count) is allocated before the bytes are there.

use thiserror::Error;

/// The metadata the page shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GgufInfo {
    pub version: u32,
    /// `general.architecture` (`llama`, `qwen2`, …).
    pub architecture: String,
    /// `general.name`, when the file has one.
    pub name: Option<String>,
    /// `general.size_label` (`135M`, `7B`), when the file has one.
    pub size_label: Option<String>,
    /// `<architecture>.context_length`: the window it was trained with.
    pub context_length: Option<u64>,
    /// `general.file_type`, as llama.cpp names it (`Q4_1`, `Q4_K_M`, …).
    pub file_type: Option<String>,
    /// `general.file_type` as the number the file holds.
    pub file_type_id: Option<u64>,
    /// `tokenizer.chat_template` is there.
    pub chat_template: bool,
    pub tensor_count: u64,
    pub metadata_count: u64,
}

/// Why the start of a file is not a GGUF header we can read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GgufError {
    #[error("not a GGUF file (it does not start with \"GGUF\")")]
    NotGguf,
    #[error("GGUF version {0} is not read here (versions 2 and 3 are)")]
    Version(u32),
    /// The bytes given end inside the header: at least `need` are needed.
    #[error("the GGUF header goes on past the first {have} bytes")]
    Truncated { have: usize, need: usize },
    #[error("the GGUF header is malformed at byte {at}: {what}")]
    Malformed { at: usize, what: String },
}

/// llama.cpp's `llama_ftype` names (`general.file_type`).
fn file_type_name(t: u64) -> Option<&'static str> {
    Some(match t {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        38 => "MXFP4_MOE",
        _ => return None,
    })
}

/// A value as far as the page needs it.
enum Value {
    Uint(u64),
    Text(String),
    Other,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8], GgufError> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.at.checked_add(n))
            .ok_or_else(|| self.malformed(format!("a length of {n} bytes")))?;
        if end > self.bytes.len() {
            return Err(GgufError::Truncated { have: self.bytes.len(), need: end });
        }
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn malformed(&self, what: String) -> GgufError {
        GgufError::Malformed { at: self.at, what }
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn string(&mut self) -> Result<String, GgufError> {
        let n = self.u64()?;
        let at = self.at;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec())
            .map_err(|_| GgufError::Malformed { at, what: "a string that is not UTF-8".into() })
    }

    /// The byte size of a fixed-size value type, or None for a string or array.
    fn fixed_size(t: u32) -> Option<u64> {
        match t {
            0 | 1 | 7 => Some(1),
            2 | 3 => Some(2),
            4..=6 => Some(4),
            10..=12 => Some(8),
            _ => None,
        }
    }

    fn value(&mut self, t: u32, depth: u32) -> Result<Value, GgufError> {
        Ok(match t {
            0 => Value::Uint(u64::from(self.take(1)?[0])),
            2 => {
                let b = self.take(2)?;
                Value::Uint(u64::from(u16::from_le_bytes([b[0], b[1]])))
            }
            4 => Value::Uint(u64::from(self.u32()?)),
            10 => Value::Uint(self.u64()?),
            // Signed integers: the page needs them only when not negative.
            5 => {
                let v = self.u32()? as i32;
                u64::try_from(v).map_or(Value::Other, Value::Uint)
            }
            11 => {
                let v = self.u64()? as i64;
                u64::try_from(v).map_or(Value::Other, Value::Uint)
            }
            8 => Value::Text(self.string()?),
            9 => {
                if depth > 4 {
                    return Err(self.malformed("arrays nested more than four deep".into()));
                }
                let inner = self.u32()?;
                let count = self.u64()?;
                match Self::fixed_size(inner) {
                    Some(size) => {
                        let total = count
                            .checked_mul(size)
                            .ok_or_else(|| self.malformed(format!("an array of {count} values")))?;
                        self.take(total)?;
                    }
                    None => {
                        // Each element is at least 8 bytes (a length or a
                        // type): a count the bytes cannot hold asks for them.
                        let floor = count.saturating_mul(8);
                        let need = (self.at as u64).saturating_add(floor);
                        if need > self.bytes.len() as u64 {
                            return Err(GgufError::Truncated {
                                have: self.bytes.len(),
                                need: usize::try_from(need).unwrap_or(usize::MAX),
                            });
                        }
                        for _ in 0..count {
                            self.value(inner, depth + 1)?;
                        }
                    }
                }
                Value::Other
            }
            t => match Self::fixed_size(t) {
                Some(n) => {
                    self.take(n)?;
                    Value::Other
                }
                None => return Err(self.malformed(format!("an unknown value type {t}"))),
            },
        })
    }
}

/// Read the header from the first bytes of a file. `Truncated` says how
/// many bytes are needed at least: read more and call again.
pub fn read_header(bytes: &[u8]) -> Result<GgufInfo, GgufError> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4).map_err(|_| GgufError::NotGguf)? != b"GGUF" {
        return Err(GgufError::NotGguf);
    }
    let version = r.u32()?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::Version(version));
    }
    let mut info = GgufInfo { version, ..GgufInfo::default() };
    info.tensor_count = r.u64()?;
    info.metadata_count = r.u64()?;
    let mut context_lengths: Vec<(String, u64)> = Vec::new();
    for _ in 0..info.metadata_count {
        let key = r.string()?;
        let t = r.u32()?;
        let value = r.value(t, 0)?;
        match (key.as_str(), value) {
            ("general.architecture", Value::Text(s)) => info.architecture = s,
            ("general.name", Value::Text(s)) => info.name = Some(s),
            ("general.size_label", Value::Text(s)) => info.size_label = Some(s),
            ("general.file_type", Value::Uint(n)) => {
                info.file_type_id = Some(n);
                info.file_type =
                    Some(file_type_name(n).map_or_else(|| format!("type {n}"), str::to_string));
            }
            ("tokenizer.chat_template", _) => info.chat_template = true,
            (k, Value::Uint(n)) if k.ends_with(".context_length") => {
                context_lengths.push((k.trim_end_matches(".context_length").to_string(), n));
            }
            _ => {}
        }
    }
    info.context_length =
        context_lengths.iter().find(|(arch, _)| *arch == info.architecture).map(|(_, n)| *n);
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF header with `entries` (key, type, value bytes).
    fn header(entries: &[(&str, u32, Vec<u8>)]) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(7u64.to_le_bytes());
        b.extend((entries.len() as u64).to_le_bytes());
        for (k, t, v) in entries {
            b.extend((k.len() as u64).to_le_bytes());
            b.extend(k.as_bytes());
            b.extend(t.to_le_bytes());
            b.extend(v);
        }
        b
    }
    fn text(s: &str) -> Vec<u8> {
        let mut b = (s.len() as u64).to_le_bytes().to_vec();
        b.extend(s.as_bytes());
        b
    }
    fn strings(items: &[&str]) -> Vec<u8> {
        let mut b = 8u32.to_le_bytes().to_vec();
        b.extend((items.len() as u64).to_le_bytes());
        for s in items {
            b.extend(text(s));
        }
        b
    }

    fn sample() -> Vec<u8> {
        header(&[
            ("general.architecture", 8, text("llama")),
            ("general.name", 8, text("Tiny Chat")),
            ("general.file_type", 4, 3u32.to_le_bytes().to_vec()),
            ("other.context_length", 4, 99u32.to_le_bytes().to_vec()),
            ("llama.context_length", 4, 8192u32.to_le_bytes().to_vec()),
            ("llama.rope.freq_base", 6, 1e4f32.to_le_bytes().to_vec()),
            ("tokenizer.ggml.tokens", 9, strings(&["a", "bc", "<|im_end|>"])),
            ("tokenizer.chat_template", 8, text("{{ messages }}")),
        ])
    }

    #[test]
    fn the_header_says_name_window_quantisation_and_template() {
        let info = read_header(&sample()).unwrap();
        assert_eq!(info.architecture, "llama");
        assert_eq!(info.name.as_deref(), Some("Tiny Chat"));
        assert_eq!(info.context_length, Some(8192), "the architecture's own, not another's");
        assert_eq!(info.file_type.as_deref(), Some("Q4_1"));
        assert!(info.chat_template);
        assert_eq!((info.version, info.tensor_count, info.metadata_count), (3, 7, 8));
    }

    #[test]
    fn every_cut_prefix_asks_for_more_and_never_panics() {
        let full = sample();
        for n in 4..full.len() {
            match read_header(&full[..n]) {
                Err(GgufError::Truncated { have, need }) => assert!(have == n && need > n, "{n}"),
                other => panic!("{n}: {other:?}"),
            }
        }
        assert_eq!(read_header(b"GGU"), Err(GgufError::NotGguf));
        assert_eq!(read_header(b"PK\x03\x04rest"), Err(GgufError::NotGguf));
    }

    #[test]
    fn claims_larger_than_the_bytes_are_not_allocated() {
        // A string and an array that claim more than any file holds.
        let mut huge_string = header(&[]);
        huge_string.truncate(16);
        huge_string.extend(1u64.to_le_bytes());
        huge_string.extend(u64::MAX.to_le_bytes());
        assert!(matches!(
            read_header(&huge_string),
            Err(GgufError::Malformed { .. } | GgufError::Truncated { .. })
        ));
        let mut arr = 8u32.to_le_bytes().to_vec();
        arr.extend(u64::MAX.to_le_bytes());
        let b = header(&[("tokenizer.ggml.tokens", 9, arr)]);
        assert!(matches!(read_header(&b), Err(GgufError::Truncated { .. })));
        let mut fixed = 4u32.to_le_bytes().to_vec();
        fixed.extend(u64::MAX.to_le_bytes());
        let b = header(&[("x", 9, fixed)]);
        assert!(matches!(read_header(&b), Err(GgufError::Malformed { .. })));
    }

    #[test]
    fn versions_and_unknown_types_are_named() {
        let mut b = sample();
        b[4..8].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(read_header(&b), Err(GgufError::Version(1)));
        let b = header(&[("x", 99, vec![0; 8])]);
        assert!(read_header(&b).unwrap_err().to_string().contains("unknown value type 99"));
    }
}
