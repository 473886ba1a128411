//! A repository's files as one record, to keep them where only a blob fits
//! (the page keeps the folder a visitor read in IndexedDB, so that a
//! reload does not lose the curation): a header naming the format, the
//! number of files, then per file its path and its bytes, each after its
//! length (numbers as u32, little-endian). Reading refuses anything else,
//! a record cut short included (even at a file's end).

use super::SourceFile;

/// The first bytes of a record (and the format's version).
const MAGIC: &[u8] = b"repoqa-curate-files 1\n";

/// The files as one record.
pub fn pack_files(files: &[SourceFile]) -> Vec<u8> {
    let total: usize = files.iter().map(|f| 8 + f.path.len() + f.bytes.len()).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    for f in files {
        for part in [f.path.as_bytes(), &f.bytes] {
            out.extend_from_slice(&(part.len() as u32).to_le_bytes());
            out.extend_from_slice(part);
        }
    }
    out
}

/// The files of a record made by [`pack_files`]; `None` for anything else.
pub fn unpack_files(bytes: &[u8]) -> Option<Vec<SourceFile>> {
    let (count, mut rest) = bytes.strip_prefix(MAGIC)?.split_first_chunk::<4>()?;
    let count = u32::from_le_bytes(*count) as usize;
    let mut take = || -> Option<&[u8]> {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let part = tail.get(..len)?;
        rest = tail.get(len..)?;
        Some(part)
    };
    let mut files = Vec::new();
    while let Some(path) = take() {
        let path = String::from_utf8(path.to_vec()).ok()?;
        files.push(SourceFile::new(path, take()?.to_vec()));
    }
    (rest.is_empty() && files.len() == count).then_some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_round_trip_and_a_cut_record_is_refused() {
        let files = vec![
            SourceFile::new("src/lib.rs", b"fn a() {}\n".to_vec()),
            SourceFile::new("", Vec::new()),
            SourceFile::new("ünï/çødé.py", vec![0, 255, 10]),
        ];
        let packed = pack_files(&files);
        assert_eq!(unpack_files(&packed), Some(files));
        assert_eq!(unpack_files(&pack_files(&[])), Some(Vec::new()));
        // Every cut, those at a file's end included.
        for cut in 1..packed.len() {
            assert_eq!(unpack_files(&packed[..packed.len() - cut]), None, "cut by {cut}");
        }
        assert_eq!(unpack_files(b"something else"), None);
    }
}
