//! Ceilings on the work an input file can ask for. Files come from people a
//! reviewer may not trust; whatever a file holds, reading it must end with
//! a result or a one-line error naming the file, the place and the limit,
//! never with the process (or the browser tab) out of memory.
//!
//! - Decompression is limited by what comes *out* ([`InflateLimits`]): a
//!   ceiling on inflated bytes, and on the inflate ratio once the output is
//!   past [`RATIO_FLOOR`], so a 3 MB gzip that would inflate to 3 GB is
//!   refused after about 64 MiB of output, long before the ceiling.
//! - The other multipliers a file controls ([`DatasetLimits`],
//!   [`OutputsLimits`]): counts of repos, files and needles, one text's
//!   length, the number of answers and a line's length. JSON nesting is
//!   bounded by serde_json's recursion limit (128), which refuses deeper
//!   documents with "recursion limit exceeded" at their line and column.
//!
//! Every default is far above the official dataset (37 MB of JSON, 50 repos,
//! 500 needles, its largest file well under 1 MB), the official outputs
//! files (500 lines of about 70 KB) and the realistic corpus of the tests:
//! the defaults only refuse files that no benchmark run produces.

use thiserror::Error;

const MIB: u64 = 1 << 20;

/// Below this much output the ratio is not checked: small files (a header,
/// a run of empty files in a tar) can legitimately compress very well.
pub const RATIO_FLOOR: u64 = 64 * MIB;

/// How much a compressed stream may inflate to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InflateLimits {
    /// Refuse once more than this many bytes have come out.
    pub max_bytes: u64,
    /// Refuse once the output is past [`RATIO_FLOOR`] and more than this
    /// many times the compressed bytes read so far.
    pub max_ratio: u64,
}

impl InflateLimits {
    /// Datasets (`.json.gz`): 512 MiB of JSON (14× the official dataset,
    /// which gzips about 5:1); a ratio of 100.
    pub const DATASET: InflateLimits = InflateLimits { max_bytes: 512 * MIB, max_ratio: 100 };
    /// Archives of source trees (`.tar.gz`, zip entries): a tar stream is
    /// read through (skipped files are not kept), so the ceiling is high;
    /// source code and tar headers compress 3–20:1, bombs 1000:1.
    pub const ARCHIVE: InflateLimits = InflateLimits { max_bytes: 4 << 30, max_ratio: 100 };

    /// Check `out` bytes inflated from `consumed` compressed bytes.
    pub fn check(&self, out: u64, consumed: u64) -> Result<(), InflateExceeded> {
        if out > self.max_bytes {
            return Err(InflateExceeded::Bytes { limit: self.max_bytes });
        }
        if out > RATIO_FLOOR && out / consumed.max(1) > self.max_ratio {
            return Err(InflateExceeded::Ratio { limit: self.max_ratio, out, consumed });
        }
        Ok(())
    }
}

/// Which ceiling a stream went through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum InflateExceeded {
    #[error("inflates to more than {limit} bytes ({}), the limit", size_label(*limit))]
    Bytes { limit: u64 },
    #[error(
        "inflates more than {limit}:1 ({} out of {} of compressed data so far), over the ratio \
         limit for a compression bomb",
        size_label(*out),
        size_label(*consumed)
    )]
    Ratio { limit: u64, out: u64, consumed: u64 },
}

impl InflateExceeded {
    /// The limit's name, for "raise it with …" hints.
    pub fn is_ratio(&self) -> bool {
        matches!(self, InflateExceeded::Ratio { .. })
    }
}

/// What a dataset file may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DatasetLimits {
    pub inflate: InflateLimits,
    /// Repos over all languages (official: 50).
    pub max_repos: usize,
    /// Files of one repo's `content` (official: at most a few thousand).
    pub max_files: usize,
    /// Needles of one repo (official: 10). Every answer is compared with
    /// each needle of its repo, so this multiplies scoring.
    pub max_needles: usize,
    /// Bytes of one file text (official: well under 1 MB).
    pub max_text_bytes: usize,
}

impl Default for DatasetLimits {
    fn default() -> DatasetLimits {
        DatasetLimits {
            inflate: InflateLimits::DATASET,
            max_repos: 10_000,
            max_files: 200_000,
            max_needles: 10_000,
            max_text_bytes: 64 << 20,
        }
    }
}

/// What a model-outputs JSONL file may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputsLimits {
    /// Non-blank lines (official: 500 tasks).
    pub max_answers: usize,
    /// Bytes of one line (official: about 70 KB, the prompt included).
    pub max_line_bytes: usize,
}

impl Default for OutputsLimits {
    fn default() -> OutputsLimits {
        OutputsLimits { max_answers: 200_000, max_line_bytes: 64 << 20 }
    }
}

/// Why [`gunzip`] stopped.
#[derive(Debug, Error)]
pub enum GunzipError {
    #[error("not a gzip file: {0}")]
    Gzip(String),
    #[error(transparent)]
    Exceeded(#[from] InflateExceeded),
}

/// A whole gzip stream inflated, refused as soon as its output goes past
/// `limits` (checked every 64 KiB), so a bomb ends with an error rather
/// than with the memory.
pub fn gunzip(bytes: &[u8], limits: InflateLimits) -> Result<Vec<u8>, GunzipError> {
    use std::io::Read;
    struct Counting<'a> {
        rest: &'a [u8],
        read: &'a std::cell::Cell<u64>,
    }
    impl Read for Counting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.rest.read(buf)?;
            self.read.set(self.read.get() + n as u64);
            Ok(n)
        }
    }
    let consumed = std::cell::Cell::new(0);
    let mut decoder = flate2::read::GzDecoder::new(Counting { rest: bytes, read: &consumed });
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = decoder.read(&mut chunk).map_err(|e| GunzipError::Gzip(e.to_string()))?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&chunk[..n]);
        limits.check(out.len() as u64, consumed.get())?;
    }
}

/// "512 MiB", "3.0 GiB", "700 bytes": a size for messages.
pub fn size_label(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else if bytes >= MIB {
        format!("{:.0} MiB", bytes as f64 / MIB as f64)
    } else if bytes >= 1024 {
        format!("{:.0} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

/// The UTF-8 byte-order mark. A file saved by some Windows editors starts
/// with it; Python's `json.loads` refuses it ("Unexpected UTF-8 BOM"), so the
/// official harness cannot read such a file. We read past it: the content
/// is the same, and the score is the one the official harness gives for the
/// file without the mark.
pub const BOM: &str = "\u{feff}";

/// `text` without a leading byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gunzip_inflates_and_refuses_past_the_limits() {
        use std::io::Write;
        let gz = |data: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let small = gz(b"{\"a\": 1}");
        assert_eq!(gunzip(&small, InflateLimits::DATASET).unwrap(), b"{\"a\": 1}");
        let tight = InflateLimits { max_bytes: 100_000, max_ratio: 100 };
        let big = gz(&vec![b' '; 1_000_000]);
        let e = gunzip(&big, tight).unwrap_err();
        assert!(matches!(e, GunzipError::Exceeded(InflateExceeded::Bytes { .. })), "{e}");
        assert!(matches!(gunzip(b"\x1f\x8bnot gzip", tight), Err(GunzipError::Gzip(_))));
    }

    #[test]
    fn ratio_counts_only_past_the_floor() {
        let l = InflateLimits { max_bytes: 1 << 40, max_ratio: 100 };
        // 1 KB → 60 MiB: a ratio of 60,000, but under the floor.
        assert!(l.check(60 * MIB, 1024).is_ok());
        let e = l.check(65 * MIB, 1024).unwrap_err();
        assert!(e.is_ratio());
        assert!(e.to_string().starts_with("inflates more than 100:1 (65 MiB out of 1 KiB"), "{e}");
        // A ratio of 5 goes through at any size.
        assert!(l.check(5 << 30, 1 << 30).is_ok());
    }

    #[test]
    fn bytes_ceiling() {
        let l = InflateLimits::DATASET;
        assert!(l.check(512 * MIB, 200 * MIB).is_ok());
        let e = l.check(512 * MIB + 1, 200 * MIB).unwrap_err();
        assert_eq!(e.to_string(), "inflates to more than 536870912 bytes (512 MiB), the limit");
    }

    #[test]
    fn bom_is_stripped_once() {
        assert_eq!(strip_bom("\u{feff}{}"), "{}");
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("x"), "x");
    }
}
