//! Reading a file a user names (a dataset, a tokenizer, model outputs, a
//! SCORES file): a regular file is read whole; a pipe (`<(zcat x.gz)`,
//! `/dev/stdin` fed by a pipe, a named FIFO) is read up to [`PIPE_MAX_BYTES`];
//! anything else — a device such as `/dev/zero`, a socket, a folder — is
//! refused before a byte is read, so a never-ending input cannot fill memory.

use std::io::{self, Read};
use std::path::Path;

use crate::code::tokenize::{Tokenizer, TokenizerError};

/// The most read from a pipe or FIFO (256 MiB; the official dataset is
/// about 40 MiB). Past it the read stops with an error.
pub const PIPE_MAX_BYTES: u64 = 256 << 20;

impl Tokenizer {
    /// The tokenizer in the `tokenizer.json` at `path`, read by this
    /// module's rules (here, so the tokenizer's own module stays below the
    /// input stage that reads files).
    pub fn from_file(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let bytes = read(path)
            .map_err(|source| TokenizerError::Io { path: path.display().to_string(), source })?;
        Tokenizer::from_json_bytes(&bytes, &path.display().to_string())
    }
}

/// The bytes of the file at `path` (see the module's rules).
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_with_pipe_limit(path, PIPE_MAX_BYTES)
}

/// [`read`] with another limit for pipes.
pub fn read_with_pipe_limit(path: &Path, pipe_max: u64) -> io::Result<Vec<u8>> {
    // stat first: opening a FIFO or a device could block or have effects.
    let kind = std::fs::metadata(path)?.file_type();
    let pipe = is_pipe(&kind);
    if !kind.is_file() && !pipe {
        return Err(not_a_file(&kind));
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() {
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        (&file).read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    if !is_pipe(&meta.file_type()) {
        return Err(not_a_file(&meta.file_type()));
    }
    let mut bytes = Vec::new();
    file.take(pipe_max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > pipe_max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a pipe that gave more than {} MiB; stopped reading (save it to a file first)",
                pipe_max >> 20
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(unix)]
fn is_pipe(kind: &std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(kind)
}

#[cfg(not(unix))]
fn is_pipe(_kind: &std::fs::FileType) -> bool {
    false
}

fn not_a_file(kind: &std::fs::FileType) -> io::Error {
    let what = if kind.is_dir() { "a folder" } else { "a device or socket" };
    io::Error::new(io::ErrorKind::InvalidInput, format!("{what}, not a regular file; refused"))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn devices_and_folders_are_refused_before_reading() {
        let started = std::time::Instant::now();
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.to_string(), "a device or socket, not a regular file; refused");
        let e = read(Path::new("/")).unwrap_err();
        assert_eq!(e.to_string(), "a folder, not a regular file; refused");
        assert!(started.elapsed().as_secs_f64() < 1.0);
    }

    #[test]
    fn regular_files_are_read_whole() {
        let path = std::env::temp_dir().join(format!("repoqa-input-file-{}", std::process::id()));
        std::fs::write(&path, b"{\"a\": 1}").unwrap();
        assert_eq!(read(&path).unwrap(), b"{\"a\": 1}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_pipe_is_read_up_to_its_limit() {
        let (reader, mut writer) = io::pipe().unwrap();
        let path = format!("/proc/self/fd/{}", reader.as_raw_fd());
        // A never-ending writer: it stops when the reader is gone.
        let feed = std::thread::spawn(move || while writer.write_all(&[0; 4096]).is_ok() {});
        let e = read_with_pipe_limit(Path::new(&path), 1 << 20).unwrap_err();
        assert!(e.to_string().starts_with("a pipe that gave more than 1 MiB"), "{e}");
        drop(reader);
        feed.join().unwrap();

        let (reader, mut writer) = io::pipe().unwrap();
        let path = format!("/proc/self/fd/{}", reader.as_raw_fd());
        writer.write_all(b"short").unwrap();
        drop(writer);
        assert_eq!(read_with_pipe_limit(Path::new(&path), 1 << 20).unwrap(), b"short");
    }
}
