//! A dataset's identity: the SHA-256 (hex) of its JSON text, whatever the
//! file it came in. The same dataset loaded as `.json` and as `.json.gz` is
//! the same dataset, so tasks built for one are kept for the other. For a
//! plain `.json` file this is the digest of the file's bytes, as the app
//! computed it before (its cached tasks stay valid).
//!
//! Hashed in slices (`ContentId` is a [`Stepper`] whose budget counts
//! bytes), so the page can take a turn between them; native callers use
//! `content_id` at once.

use sha2::{Digest, Sha256};

use crate::step::{Step, Stepper};

/// Bytes hashed per slice (a few ms in the page).
pub const SLICE: usize = 4 << 20;

/// A SHA-256 being computed a slice at a time.
pub struct ContentId<'a> {
    data: &'a [u8],
    pos: usize,
    hasher: Sha256,
}

impl<'a> ContentId<'a> {
    /// `json`: the dataset's JSON text (`DatasetLoader::json`, or
    /// [`json_text`] of the file's bytes).
    pub fn new(json: &'a [u8]) -> ContentId<'a> {
        ContentId { data: json, pos: 0, hasher: Sha256::new() }
    }
}

impl Stepper for ContentId<'_> {
    /// The digest, lowercase hex.
    type Output = String;
    type Error = std::convert::Infallible;

    /// Hash up to `budget` more bytes; `Done` when everything is hashed.
    fn step(&mut self, budget: usize) -> Result<Step, Self::Error> {
        let end = self.pos.saturating_add(budget.max(1)).min(self.data.len());
        self.hasher.update(&self.data[self.pos..end]);
        self.pos = end;
        Ok(if self.pos == self.data.len() { Step::Done } else { Step::More })
    }

    /// Hashed so far, and in all (for a progress bar).
    fn progress(&self) -> (usize, usize) {
        (self.pos, self.data.len())
    }

    /// The digest (hashing what is left first).
    fn finish(mut self) -> Result<String, Self::Error> {
        while self.step(SLICE)? == Step::More {}
        Ok(hex(&self.hasher.finalize()))
    }
}

/// The digest of `json` at once (the native shorthand of [`ContentId`]).
fn digest_of(json: &[u8]) -> String {
    match ContentId::new(json).finish() {
        Ok(d) => d,
        Err(never) => match never {},
    }
}

/// SHA-256 of `bytes` as lowercase hex (the tokenizer's identity).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The JSON text of a dataset file: inflated if it is gzip (by its magic
/// bytes), else the bytes themselves. A broken gzip stream is an error.
pub fn json_text(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, std::io::Error> {
    use std::io::Read;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out)?;
        Ok(out.into())
    } else {
        Ok(bytes.into())
    }
}

/// The identity of a dataset file's content (plain or gzip).
pub fn content_id(bytes: &[u8]) -> Result<String, std::io::Error> {
    Ok(digest_of(&json_text(bytes)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_gzip_have_one_identity() {
        use std::io::Write;
        let demo = include_bytes!("../../../../public/demo/repoqa-demo.json");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(demo).unwrap();
        let gz = e.finish().unwrap();
        let id = content_id(demo).unwrap();
        assert_eq!(content_id(&gz).unwrap(), id);
        // A plain file's identity is its bytes' SHA-256 (the app's older key).
        assert_eq!(id, sha256_hex(demo));
        assert_eq!(id.len(), 64);
        // Slicing does not change it.
        let mut c = ContentId::new(demo);
        while c.step(1000) == Ok(Step::More) {}
        assert_eq!(c.progress(), (demo.len(), demo.len()));
        assert_eq!(c.finish(), Ok(id.clone()));
        assert_eq!(crate::step::drive(ContentId::new(demo), 4096, |_| {}), Ok(id.clone()));
        // Through the loader's own inflated text.
        let mut loader = crate::input::dataset::DatasetLoader::new(&gz, "demo.json.gz");
        while loader.step(1 << 20).unwrap() == Step::More {}
        assert_eq!(ContentId::new(loader.json()).finish(), Ok(id));
        assert!(content_id(&gz[..gz.len() / 2]).is_err());
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
