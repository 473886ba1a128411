//! A repository packed as an archive (.zip, .tar, .tar.gz/.tgz), read in
//! memory into [`SourceFile`]s for curation: the CLI's `--source repo.zip`
//! and the browser's archive upload both come here.
//!
//! Only files with a suffix of the chosen languages are kept (the rest of a
//! repository can be large: images, data), and the limits are checked
//! before anything is inflated where the format allows it: a zip's central
//! directory declares every size, so the kept total is refused up front; a
//! tar stream is refused at the header of the first file that crosses it.
//! A declared size is never trusted for the read itself (a zip entry that
//! inflates to more than it declares is corrupt, not a bigger buffer).
//!
//! The format is told by magic bytes, not the file name, so a renamed
//! download still opens.

use std::cell::RefCell;
use std::io::{self, Cursor, Read};
use std::rc::Rc;

use thiserror::Error;

use super::files::{has_language_suffix, normalize_path};
use super::SourceFile;
use crate::code::lang::Language;
use crate::input::limits::{InflateExceeded, InflateLimits};
use crate::step::{Step, Stepper};

/// The archive formats read here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveFormat {
    Zip,
    Tar,
    TarGz,
}

impl ArchiveFormat {
    /// The format by magic bytes: zip local/empty headers, the gzip magic,
    /// or a tar header (ustar magic, or a valid header checksum for the
    /// old v7 format that has none).
    pub fn detect(bytes: &[u8]) -> Option<ArchiveFormat> {
        if bytes.starts_with(b"PK\x03\x04")
            || bytes.starts_with(b"PK\x05\x06")
            || bytes.starts_with(b"PK\x07\x08")
        {
            return Some(ArchiveFormat::Zip);
        }
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Some(ArchiveFormat::TarGz);
        }
        let header = bytes.get(..512)?;
        // An empty tar is its two zero end blocks.
        let empty = bytes.len() >= 1024 && bytes[..1024].iter().all(|b| *b == 0);
        if &header[257..262] == b"ustar" || tar_checksum_ok(header) || empty {
            return Some(ArchiveFormat::Tar);
        }
        None
    }

    pub fn name(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::Tar => "tar",
            ArchiveFormat::TarGz => "tar.gz",
        }
    }
}

/// Whether a file name looks like an archive this module reads (for file
/// pickers and the CLI's choice between a folder and a file).
pub fn is_archive_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [".zip", ".tar", ".tar.gz", ".tgz"].iter().any(|s| n.ends_with(s))
}

/// The header checksum of a tar block: the byte sum with the checksum
/// field (148..156) counted as spaces. An all-zero block does not count.
fn tar_checksum_ok(header: &[u8]) -> bool {
    let field = &header[148..156];
    let digits: String =
        field.iter().take_while(|b| **b != 0 && **b != b' ').map(|b| *b as char).collect();
    let digits = digits.trim_start_matches(' ');
    let Ok(stored) = u32::from_str_radix(digits, 8) else { return false };
    let sum: u32 = header
        .iter()
        .enumerate()
        .map(|(i, b)| if (148..156).contains(&i) { 32 } else { u32::from(*b) })
        .sum();
    stored == sum && header.iter().any(|b| *b != 0)
}

/// Limits of one read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Refuse when the kept files' uncompressed sizes add up to more.
    pub max_input_bytes: u64,
    /// Refuse archives with more entries (files, directories, links).
    pub max_entries: usize,
    /// Refuse a gzip stream that inflates to more than this, kept files or
    /// not (a tar stream is read through to reach later entries).
    pub max_unpacked_bytes: u64,
    /// Refuse a gzip stream, a zip entry or a zip's kept files that
    /// inflate more than this many times their compressed size, once past
    /// `crate::input::limits::RATIO_FLOOR` of output (a compression bomb).
    pub max_inflate_ratio: u64,
}

impl Default for ArchiveLimits {
    /// The curation input limit; 500,000 entries (the Linux kernel has
    /// ~90,000 files); 4 GiB of tar stream.
    fn default() -> ArchiveLimits {
        ArchiveLimits {
            max_input_bytes: super::DEFAULT_MAX_INPUT_BYTES,
            max_entries: 500_000,
            max_unpacked_bytes: InflateLimits::ARCHIVE.max_bytes,
            max_inflate_ratio: InflateLimits::ARCHIVE.max_ratio,
        }
    }
}

/// What an archive held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveContents {
    pub format: ArchiveFormat,
    /// The kept files, in archive order, paths relative to the repository
    /// root (`root` removed).
    pub files: Vec<SourceFile>,
    /// The single top directory every entry was under (GitHub's
    /// "name-sha/", `zip -r x.zip x`), removed from the paths, as if the
    /// archive had been unpacked and that directory chosen.
    pub root: Option<String>,
    /// Entries of any kind.
    pub entries: usize,
    /// Regular files not kept (other suffixes).
    pub skipped_files: usize,
}

#[derive(Debug, Error)]
pub enum ArchiveError {
    #[error("{archive}: the file is empty")]
    EmptyFile { archive: String },
    #[error("{archive}: not a .zip, .tar or .tar.gz archive (its first bytes are none of theirs)")]
    UnknownFormat { archive: String },
    #[error("{archive}: the archive has no entries")]
    NoEntries { archive: String },
    #[error(
        "{archive}: the gzip data is truncated (the file is incomplete: download or copy it again)"
    )]
    TruncatedGzip { archive: String },
    #[error("{archive}: corrupt gzip data: {message}")]
    CorruptGzip { archive: String, message: String },
    #[error("{archive}: corrupt zip archive{}: {message}", at(entry))]
    CorruptZip { archive: String, entry: Option<String>, message: String },
    #[error("{archive}: corrupt tar archive{}: {message}", at(entry))]
    CorruptTar { archive: String, entry: Option<String>, message: String },
    #[error("{archive}: {entry}: truncated, {got} of its {expected} bytes are there")]
    TruncatedEntry { archive: String, entry: String, expected: u64, got: u64 },
    #[error("{archive}: {entry}: inflates to more than the {declared} bytes it declares")]
    SizeMismatch { archive: String, entry: String, declared: u64 },
    #[error("{archive}: {entry}: compression method {method} is not supported (stored and deflate are); pack the archive again with plain zip or as .tar.gz")]
    UnsupportedCompression { archive: String, entry: String, method: String },
    #[error("{archive}: {entry}: encrypted; encrypted entries cannot be read, pack the archive again without a password")]
    Encrypted { archive: String, entry: String },
    #[error("{archive}: entry {entry:?} leaves the archive's root (\"..\")")]
    PathEscapes { archive: String, entry: String },
    #[error("{archive}: entry {entry:?} has an absolute path; refused (pack the archive with paths relative to its folder)")]
    AbsolutePath { archive: String, entry: String },
    #[error("{archive}: two entries are both {entry:?}, so which one to curate is unclear; refused (pack the archive again without the repeat)")]
    DuplicateEntry { archive: String, entry: String },
    #[error(
        "{archive}: the {files} source files{so_far} hold {bytes} bytes uncompressed ({mib:.1} MiB), over the limit of {limit_mib:.0} MiB; pack only the directory to curate",
        so_far = if *partial { " read so far" } else { "" },
        mib = *bytes as f64 / 1048576.0,
        limit_mib = *limit as f64 / 1048576.0
    )]
    TooLarge { archive: String, files: usize, bytes: u64, limit: u64, partial: bool },
    #[error("{archive}: inflates to more than {limit} bytes ({gib:.1} GiB) in all; refused", gib = *limit as f64 / 1073741824.0)]
    TooMuchData { archive: String, limit: u64 },
    #[error("{archive}{}: {exceeded}; refused", at(entry))]
    Inflate { archive: String, entry: Option<String>, exceeded: InflateExceeded },
    #[error("{archive}: more than {limit} entries; refused")]
    TooManyEntries { archive: String, limit: usize },
}

fn corrupt_zip(archive: &str, entry: Option<&str>, e: &dyn std::fmt::Display) -> ArchiveError {
    ArchiveError::CorruptZip {
        archive: archive.to_string(),
        entry: entry.map(str::to_string),
        message: e.to_string(),
    }
}

fn at(entry: &Option<String>) -> String {
    entry.as_ref().map(|e| format!(" at {e}")).unwrap_or_default()
}

/// Read `bytes` (the archive named `archive`, for messages), keeping the
/// regular files with a suffix of one of `languages`.
pub fn read_archive(
    archive: &str,
    bytes: &[u8],
    languages: &[Language],
    limits: &ArchiveLimits,
) -> Result<ArchiveContents, ArchiveError> {
    ArchiveRead::new(archive, bytes, languages, limits)?.finish()
}

/// An archive read a step at a time, so that the page can give the browser
/// a turn between steps: a zip's central directory, then one kept entry
/// per step; a tar or tar.gz stream in one step ([`Stepper`]: its budget
/// counts kept entries). [`read_archive`] runs it to the end.
pub struct ArchiveRead<'a> {
    bytes: &'a [u8],
    format: ArchiveFormat,
    reader: Reader<'a>,
    zip: Option<ZipPass<'a>>,
    started: bool,
}

/// A zip whose central directory is read: the kept entries to inflate.
struct ZipPass<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    wanted: Vec<(usize, String, u64)>,
    next: usize,
}

impl<'a> ArchiveRead<'a> {
    /// Tell the format; an empty or unknown file is refused here.
    pub fn new(
        archive: &str,
        bytes: &'a [u8],
        languages: &'a [Language],
        limits: &'a ArchiveLimits,
    ) -> Result<ArchiveRead<'a>, ArchiveError> {
        let archive = archive.to_string();
        if bytes.is_empty() {
            return Err(ArchiveError::EmptyFile { archive });
        }
        let format = ArchiveFormat::detect(bytes)
            .ok_or_else(|| ArchiveError::UnknownFormat { archive: archive.clone() })?;
        let reader = Reader {
            archive,
            every_file: false,
            languages,
            limits,
            root: RootTracker::default(),
            contents: Vec::new(),
            entries: 0,
            skipped: 0,
            total: 0,
            kept_paths: Default::default(),
        };
        Ok(ArchiveRead { bytes, format, reader, zip: None, started: false })
    }

    pub fn format(&self) -> ArchiveFormat {
        self.format
    }

    /// Keep every regular file not under a `.git` folder, whatever its
    /// suffix (CoReQA's retrieval reads a repository's text files), not
    /// only the languages' source files.
    pub fn every_file(mut self) -> ArchiveRead<'a> {
        self.reader.every_file = true;
        self
    }

    /// Do the next step; false once everything is read.
    fn step_one(&mut self) -> Result<bool, ArchiveError> {
        if !self.started {
            self.started = true;
            match self.format {
                ArchiveFormat::Zip => {
                    self.zip = Some(self.reader.zip_directory(self.bytes)?);
                    return Ok(true);
                }
                ArchiveFormat::Tar => self.reader.tar(self.bytes, None)?,
                ArchiveFormat::TarGz => {
                    let limits = self.reader.limits;
                    let fault = Rc::new(RefCell::new(GzFault::default()));
                    let gz = Inflate {
                        inner: flate2::read::MultiGzDecoder::new(self.bytes),
                        fault: fault.clone(),
                        limits: InflateLimits {
                            max_bytes: limits.max_unpacked_bytes,
                            max_ratio: limits.max_inflate_ratio,
                        },
                        total: self.bytes.len() as u64,
                        out: 0,
                    };
                    self.reader.tar(gz, Some(fault))?
                }
            }
            return Ok(false);
        }
        match self.zip.as_mut() {
            Some(pass) => self.reader.zip_entry(pass),
            None => Ok(false),
        }
    }
}

impl Stepper for ArchiveRead<'_> {
    type Output = ArchiveContents;
    type Error = ArchiveError;

    /// Up to `budget` steps: a zip's central directory, then a kept entry
    /// each; a tar stream is one step.
    fn step(&mut self, budget: usize) -> Result<Step, ArchiveError> {
        for _ in 0..budget.max(1) {
            if !self.step_one()? {
                return Ok(Step::Done);
            }
        }
        Ok(Step::More)
    }

    /// Kept files read so far, and to read in all (known for a zip once
    /// its central directory is read; a tar's total is what was read).
    fn progress(&self) -> (usize, usize) {
        match &self.zip {
            Some(z) => (z.next, z.wanted.len()),
            None => (self.reader.contents.len(), self.reader.contents.len()),
        }
    }

    /// The files read (reading what is left first).
    fn finish(mut self) -> Result<ArchiveContents, ArchiveError> {
        while self.step_one()? {}
        let reader = self.reader;
        if reader.entries == 0 {
            return Err(ArchiveError::NoEntries { archive: reader.archive });
        }
        let root = reader.root.root();
        let mut files = reader.contents;
        if let Some(r) = &root {
            for f in &mut files {
                f.path = f.path[r.len() + 1..].to_string();
            }
        }
        Ok(ArchiveContents {
            format: self.format,
            files,
            root,
            entries: reader.entries,
            skipped_files: reader.skipped,
        })
    }
}

/// Whether every entry lies under one top directory, seen entry by entry.
#[derive(Default)]
struct RootTracker {
    /// `None` before the first entry; `Some(None)` once there is none.
    candidate: Option<Option<String>>,
}

impl RootTracker {
    /// `path` normalized; `is_dir` for directory entries (the top
    /// directory's own entry is under itself).
    fn see(&mut self, path: &str, is_dir: bool) {
        if path.is_empty() {
            return;
        }
        let (top, inside) = match path.split_once('/') {
            Some((top, _)) => (top, true),
            None => (path, is_dir),
        };
        let same = match &self.candidate {
            None => inside,
            Some(Some(root)) => inside && root == top,
            Some(None) => false,
        };
        self.candidate = Some(if same { Some(top.to_string()) } else { None });
    }

    fn root(&self) -> Option<String> {
        self.candidate.clone().flatten()
    }
}

struct Reader<'a> {
    archive: String,
    /// Keep every file (not under `.git/`), not only `languages`'.
    every_file: bool,
    languages: &'a [Language],
    limits: &'a ArchiveLimits,
    root: RootTracker,
    contents: Vec<SourceFile>,
    entries: usize,
    skipped: usize,
    /// Uncompressed bytes of the kept files.
    total: u64,
    /// Paths of the kept files, to refuse a second entry of the same path.
    kept_paths: std::collections::HashSet<String>,
}

impl Reader<'_> {
    fn kept(&self, path: &str) -> bool {
        if self.every_file {
            return !path.split('/').any(|c| c == ".git");
        }
        self.languages.iter().any(|l| has_language_suffix(path, *l))
    }

    /// Count an entry and normalize its path (an error if it has ".." or is
    /// absolute).
    fn entry(&mut self, raw: &str, is_dir: bool) -> Result<String, ArchiveError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(ArchiveError::TooManyEntries {
                archive: self.archive.clone(),
                limit: self.limits.max_entries,
            });
        }
        // "/etc/x.py", "\\x.py", "C:/x.py": not relative to the archive.
        let drive =
            raw.len() >= 2 && raw.as_bytes()[0].is_ascii_alphabetic() && raw.as_bytes()[1] == b':';
        if raw.starts_with(['/', '\\']) || drive {
            return Err(ArchiveError::AbsolutePath {
                archive: self.archive.clone(),
                entry: raw.to_string(),
            });
        }
        let path = normalize_path(raw).ok_or_else(|| ArchiveError::PathEscapes {
            archive: self.archive.clone(),
            entry: raw.to_string(),
        })?;
        self.root.see(&path, is_dir);
        Ok(path)
    }

    /// Keep a file read from the archive; a second entry of a path already
    /// kept is an error (zip and tar both allow repeats, and unpacking
    /// tools differ on which one wins).
    fn keep(&mut self, path: String, bytes: Vec<u8>) -> Result<(), ArchiveError> {
        if !self.kept_paths.insert(path.clone()) {
            return Err(ArchiveError::DuplicateEntry {
                archive: self.archive.clone(),
                entry: path,
            });
        }
        self.contents.push(SourceFile { path, bytes });
        Ok(())
    }

    fn add_size(&mut self, size: u64, files: usize, partial: bool) -> Result<(), ArchiveError> {
        self.total = self.total.saturating_add(size);
        if self.total > self.limits.max_input_bytes {
            return Err(ArchiveError::TooLarge {
                archive: self.archive.clone(),
                files,
                bytes: self.total,
                limit: self.limits.max_input_bytes,
                partial,
            });
        }
        Ok(())
    }

    /// A zip's central directory: paths, kinds, declared sizes; the kept
    /// entries are checked against the limits before any is inflated.
    fn zip_directory<'b>(&mut self, bytes: &'b [u8]) -> Result<ZipPass<'b>, ArchiveError> {
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| corrupt_zip(&self.archive, None, &e))?;
        if zip.len() > self.limits.max_entries {
            return Err(ArchiveError::TooManyEntries {
                archive: self.archive.clone(),
                limit: self.limits.max_entries,
            });
        }
        // The zip crate keeps one entry per name: a repeated name shows as
        // fewer entries than the central directory declares.
        if let Some(name) = repeated_zip_name(bytes, zip.len()) {
            return Err(ArchiveError::DuplicateEntry {
                archive: self.archive.clone(),
                entry: name,
            });
        }
        let mut wanted: Vec<(usize, String, u64)> = Vec::new();
        for i in 0..zip.len() {
            let file = zip.by_index_raw(i).map_err(|e| corrupt_zip(&self.archive, None, &e))?;
            let name = file.name().to_string();
            let is_dir = file.is_dir();
            let (symlink, encrypted, method, size, compressed) = (
                file.is_symlink(),
                file.encrypted(),
                file.compression(),
                file.size(),
                file.compressed_size(),
            );
            drop(file);
            let path = self.entry(&name, is_dir)?;
            if is_dir || symlink {
                continue;
            }
            if !self.kept(&path) {
                self.skipped += 1;
                continue;
            }
            if encrypted {
                return Err(ArchiveError::Encrypted { archive: self.archive.clone(), entry: name });
            }
            if !matches!(method, zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated)
            {
                return Err(ArchiveError::UnsupportedCompression {
                    archive: self.archive.clone(),
                    entry: name,
                    method: format!("{method:?}"),
                });
            }
            // A bomb is refused from its declared sizes, before inflating.
            let ratio =
                InflateLimits { max_bytes: u64::MAX, max_ratio: self.limits.max_inflate_ratio };
            if let Err(exceeded) = ratio.check(size, compressed) {
                return Err(ArchiveError::Inflate {
                    archive: self.archive.clone(),
                    entry: Some(name),
                    exceeded,
                });
            }
            wanted.push((i, path, size));
            self.add_size(size, wanted.len(), false)?;
            // Entries may share their compressed data (overlapping
            // entries): the kept total against the whole archive too.
            if let Err(exceeded) = ratio.check(self.total, bytes.len() as u64) {
                return Err(ArchiveError::Inflate {
                    archive: self.archive.clone(),
                    entry: None,
                    exceeded,
                });
            }
        }
        Ok(ZipPass { zip, wanted, next: 0 })
    }

    /// Inflate the next kept zip entry, at most its declared size; false
    /// once none is left.
    fn zip_entry(&mut self, pass: &mut ZipPass<'_>) -> Result<bool, ArchiveError> {
        let Some((i, path, size)) = pass.wanted.get(pass.next).cloned() else { return Ok(false) };
        pass.next += 1;
        let file = pass.zip.by_index(i).map_err(|e| corrupt_zip(&self.archive, Some(&path), &e))?;
        let mut data = Vec::with_capacity(size as usize);
        file.take(size + 1)
            .read_to_end(&mut data)
            .map_err(|e| corrupt_zip(&self.archive, Some(&path), &e))?;
        let got = data.len() as u64;
        if got > size {
            return Err(ArchiveError::SizeMismatch {
                archive: self.archive.clone(),
                entry: path,
                declared: size,
            });
        }
        if got < size {
            return Err(ArchiveError::TruncatedEntry {
                archive: self.archive.clone(),
                entry: path,
                expected: size,
                got,
            });
        }
        self.keep(path, data)?;
        Ok(pass.next < pass.wanted.len())
    }

    /// A tar stream; `gz` reports the faults of the gzip layer under it,
    /// which the tar reader would otherwise pass on as plain I/O errors.
    fn tar<R: Read>(
        &mut self,
        stream: R,
        gz: Option<Rc<RefCell<GzFault>>>,
    ) -> Result<(), ArchiveError> {
        let archive = self.archive.clone();
        let fail = |entry: Option<&str>, e: io::Error| -> ArchiveError {
            if let Some(fault) = gz.as_ref().and_then(|g| g.borrow().error(&archive)) {
                return fault;
            }
            ArchiveError::CorruptTar {
                archive: archive.clone(),
                entry: entry.map(str::to_string),
                message: e.to_string(),
            }
        };
        let mut tar = tar::Archive::new(stream);
        for entry in tar.entries().map_err(|e| fail(None, e))? {
            let mut entry = entry.map_err(|e| fail(None, e))?;
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let kind = entry.header().entry_type();
            let path = self.entry(&raw, kind.is_dir())?;
            if !(kind.is_file() || kind.is_contiguous()) {
                continue;
            }
            if !self.kept(&path) {
                self.skipped += 1;
                continue;
            }
            let size = entry.size();
            self.add_size(size, self.contents.len() + 1, true)?;
            let mut data = Vec::with_capacity(size.min(1 << 26) as usize);
            entry.by_ref().take(size).read_to_end(&mut data).map_err(|e| fail(Some(&raw), e))?;
            let got = data.len() as u64;
            if got < size {
                if let Some(fault) = gz.as_ref().and_then(|g| g.borrow().error(&archive)) {
                    return Err(fault);
                }
                return Err(ArchiveError::TruncatedEntry {
                    archive: archive.clone(),
                    entry: raw,
                    expected: size,
                    got,
                });
            }
            self.keep(path, data)?;
        }
        // The tar reader stops at the end-of-archive block: read the rest
        // of the gzip stream too, so that its checksum and length (the
        // trailer) are checked and a cut-off download is reported.
        if gz.is_some() {
            io::copy(&mut tar.into_inner(), &mut io::sink()).map_err(|e| fail(None, e))?;
        }
        Ok(())
    }
}

/// The first failure of the gzip layer.
#[derive(Default)]
struct GzFault {
    truncated: bool,
    too_much: Option<InflateExceeded>,
    message: Option<String>,
}

impl GzFault {
    fn error(&self, archive: &str) -> Option<ArchiveError> {
        let archive = archive.to_string();
        if self.truncated {
            Some(ArchiveError::TruncatedGzip { archive })
        } else if let Some(exceeded) = self.too_much {
            Some(match exceeded {
                InflateExceeded::Bytes { limit } => ArchiveError::TooMuchData { archive, limit },
                exceeded => ArchiveError::Inflate { archive, entry: None, exceeded },
            })
        } else {
            self.message.clone().map(|message| ArchiveError::CorruptGzip { archive, message })
        }
    }
}

/// The gzip layer: records its faults, and stops past the inflate limits.
struct Inflate<'a> {
    inner: flate2::read::MultiGzDecoder<&'a [u8]>,
    fault: Rc<RefCell<GzFault>>,
    limits: InflateLimits,
    /// Compressed bytes in all.
    total: u64,
    out: u64,
}

impl Read for Inflate<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.out += n as u64;
                let consumed = self.total - self.inner.get_ref().len() as u64;
                if let Err(exceeded) = self.limits.check(self.out, consumed) {
                    self.fault.borrow_mut().too_much = Some(exceeded);
                    return Err(io::Error::other("gzip data over the inflate limits"));
                }
                Ok(n)
            }
            Err(e) => {
                let mut f = self.fault.borrow_mut();
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    f.truncated = true;
                } else if f.message.is_none() {
                    f.message = Some(e.to_string());
                }
                Err(e)
            }
        }
    }
}

/// The first name that two entries of a zip's central directory share,
/// when the directory declares more entries than `distinct` (the names
/// the zip crate kept). Read from the end-of-central-directory record and
/// the central headers; a zip64 count (0xFFFF) is not checked here.
fn repeated_zip_name(bytes: &[u8], distinct: usize) -> Option<String> {
    let u16_at = |i: usize| bytes.get(i..i + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let u32_at = |i: usize| {
        bytes.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    // The EOCD record: 22 bytes plus a comment of up to 64 KiB, at the end.
    let from = bytes.len().saturating_sub(22 + 0xFFFF);
    let eocd = (from..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| bytes[i..].starts_with(&[0x50, 0x4b, 0x05, 0x06]))?;
    let declared = u16_at(eocd + 10)?;
    if declared == 0xFFFF || declared <= distinct {
        return None;
    }
    let mut at = u32_at(eocd + 16)?;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..declared {
        if !bytes.get(at..)?.starts_with(&[0x50, 0x4b, 0x01, 0x02]) {
            return None;
        }
        let (name_len, extra_len, comment_len) =
            (u16_at(at + 28)?, u16_at(at + 30)?, u16_at(at + 32)?);
        let name = bytes.get(at + 46..at + 46 + name_len)?;
        let name = String::from_utf8_lossy(name).into_owned();
        if !seen.insert(name.clone()) {
            return Some(name);
        }
        at += 46 + name_len + extra_len + comment_len;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const PY: &[Language] = &[Language::Python];

    fn zip_of(files: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        for (name, data) in files {
            if name.ends_with('/') {
                w.add_directory(*name, opts).unwrap();
            } else {
                w.start_file(*name, opts).unwrap();
                w.write_all(data).unwrap();
            }
        }
        w.finish().unwrap().into_inner()
    }

    fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, data) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(if name.ends_with('/') {
                tar::EntryType::Directory
            } else {
                tar::EntryType::Regular
            });
            b.append_data(&mut h, name, *data).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn read(bytes: &[u8]) -> Result<ArchiveContents, ArchiveError> {
        read_archive("t.archive", bytes, PY, &ArchiveLimits::default())
    }

    fn paths(c: &ArchiveContents) -> Vec<&str> {
        c.files.iter().map(|f| f.path.as_str()).collect()
    }

    const REPO: &[(&str, &[u8])] = &[
        ("repo/", b""),
        ("repo/src/", b""),
        ("repo/src/a.py", b"def a():\n    pass\n"),
        ("repo/src/pkg/b.py", b"def b(): ...\n"),
        ("repo/README.md", b"# readme\n"),
        ("repo/logo.png", b"\x89PNG\r\n"),
    ];

    #[test]
    fn a_zip_is_read_one_kept_entry_per_step() {
        let files: &[(&str, &[u8])] =
            &[("r/a.py", b"a = 1\n"), ("r/x.md", b"x"), ("r/b.py", b"b = 2\n"), ("r/c.py", b"")];
        let z = zip_of(files, zip::CompressionMethod::Deflated);
        let limits = ArchiveLimits::default();
        let mut read = ArchiveRead::new("r.zip", &z, PY, &limits).unwrap();
        let mut seen = vec![read.progress()];
        while read.step(1).unwrap() == Step::More {
            seen.push(read.progress());
        }
        seen.push(read.progress());
        // Nothing read; the directory (3 kept); one entry per step.
        assert_eq!(seen, [(0, 0), (0, 3), (1, 3), (2, 3), (3, 3)]);
        assert_eq!(read.finish().unwrap(), read_archive("r.zip", &z, PY, &limits).unwrap());
        // A tar is one step.
        let t = tar_of(files);
        let mut read = ArchiveRead::new("r.tar", &t, PY, &limits).unwrap();
        assert_eq!(read.step(1).unwrap(), Step::Done);
        assert_eq!(read.progress(), (3, 3));
    }

    #[test]
    fn all_three_formats_give_the_same_files() {
        let zips = [
            zip_of(REPO, zip::CompressionMethod::Stored),
            zip_of(REPO, zip::CompressionMethod::Deflated),
        ];
        let tar = tar_of(REPO);
        let tgz = gz(&tar);
        let mut seen = Vec::new();
        for (bytes, format) in [
            (&zips[0], ArchiveFormat::Zip),
            (&zips[1], ArchiveFormat::Zip),
            (&tar, ArchiveFormat::Tar),
            (&tgz, ArchiveFormat::TarGz),
        ] {
            let c = read(bytes).unwrap();
            assert_eq!(c.format, format);
            assert_eq!(c.root.as_deref(), Some("repo"));
            assert_eq!(paths(&c), ["src/a.py", "src/pkg/b.py"]);
            assert_eq!((c.entries, c.skipped_files), (6, 2));
            seen.push(c.files);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(seen[0][0].bytes, b"def a():\n    pass\n");
    }

    #[test]
    fn the_root_is_stripped_only_when_everything_is_under_it() {
        let c =
            read(&zip_of(&[("a.py", b"x"), ("pkg/b.py", b"y")], zip::CompressionMethod::Stored))
                .unwrap();
        assert_eq!((c.root.as_deref(), paths(&c)), (None, vec!["a.py", "pkg/b.py"]));
        // A lone top file is not a directory.
        let c = read(&tar_of(&[("top.py", b"x")])).unwrap();
        assert_eq!(c.root, None);
        // "./" prefixes (tar -C dir .) are not a root.
        let c = read(&tar_of(&[("./", b""), ("./x/a.py", b"x"), ("./x/b.txt", b"y")])).unwrap();
        assert_eq!((c.root.as_deref(), paths(&c)), (Some("x"), vec!["a.py"]));
        let c = read(&tar_of(&[("x/a.py", b"x"), ("y/b.py", b"y")])).unwrap();
        assert_eq!(c.root, None);
    }

    #[test]
    fn several_languages_can_be_kept() {
        let files: &[(&str, &[u8])] = &[("a.py", b""), ("b.rs", b""), ("c.go", b"")];
        let c = read_archive(
            "t",
            &tar_of(files),
            &[Language::Python, Language::Rust],
            &ArchiveLimits::default(),
        )
        .unwrap();
        assert_eq!(paths(&c), ["a.py", "b.rs"]);
    }

    #[test]
    fn every_file_keeps_any_suffix_but_not_git() {
        let files: &[(&str, &[u8])] = &[
            ("r/README.md", b"# r"),
            ("r/a.py", b""),
            ("r/.git/HEAD", b"ref"),
            ("r/Cargo.toml", b""),
        ];
        let limits = ArchiveLimits::default();
        let c = ArchiveRead::new("t", &tar_of(files), &[], &limits).unwrap().every_file().finish();
        assert_eq!(paths(&c.unwrap()), ["README.md", "a.py", "Cargo.toml"]);
    }

    #[test]
    fn detection_is_by_content() {
        assert_eq!(ArchiveFormat::detect(b"PK\x05\x06"), Some(ArchiveFormat::Zip));
        assert_eq!(ArchiveFormat::detect(&[0x1f, 0x8b, 8]), Some(ArchiveFormat::TarGz));
        assert_eq!(ArchiveFormat::detect(&tar_of(&[("a", b"")])), Some(ArchiveFormat::Tar));
        // A v7 header (no ustar magic) is told by its checksum.
        let mut v7 = tar_of(&[("a.py", b"")]);
        v7[257..265].fill(0);
        let sum: u32 = v7[..512]
            .iter()
            .enumerate()
            .map(|(i, b)| if (148..156).contains(&i) { 32 } else { u32::from(*b) })
            .sum();
        v7[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        assert_eq!(ArchiveFormat::detect(&v7), Some(ArchiveFormat::Tar));
        assert_eq!(ArchiveFormat::detect(&[0u8; 1024]), Some(ArchiveFormat::Tar));
        assert_eq!(ArchiveFormat::detect(&[0u8; 600]), None);
        assert_eq!(ArchiveFormat::detect(b"{\"python\": []}"), None);
        assert!(
            is_archive_name("x.TGZ")
                && is_archive_name("a.tar.gz")
                && !is_archive_name("a.json.gz")
        );
    }

    fn message(r: Result<ArchiveContents, ArchiveError>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn bad_files_are_named() {
        assert_eq!(message(read(b"")), "t.archive: the file is empty");
        assert!(
            message(read(b"hello, not an archive")).contains("not a .zip, .tar or .tar.gz archive")
        );
        assert_eq!(
            message(read(&zip_of(&[], zip::CompressionMethod::Stored))),
            "t.archive: the archive has no entries"
        );
        assert_eq!(message(read(&tar_of(&[]))), "t.archive: the archive has no entries");
        let z = zip_of(REPO, zip::CompressionMethod::Deflated);
        assert!(message(read(&z[..z.len() - 10])).starts_with("t.archive: corrupt zip archive: "));
        // The tar writer refuses "..": write the name field by hand.
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.as_old_mut().name[..10].copy_from_slice(b"../evil.py");
        h.set_size(1);
        h.set_cksum();
        b.append(&h, &b"x"[..]).unwrap();
        let e = message(read(&b.into_inner().unwrap()));
        assert_eq!(e, "t.archive: entry \"../evil.py\" leaves the archive's root (\"..\")");
        let e =
            message(read(&zip_of(&[("a/../../evil.py", b"x")], zip::CompressionMethod::Stored)));
        assert!(e.contains("leaves the archive's root"), "{e}");
    }

    #[test]
    fn absolute_and_repeated_entries_are_refused() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.as_old_mut().name[..13].copy_from_slice(b"/etc/evil.py\0");
        h.set_size(1);
        h.set_cksum();
        b.append(&h, &b"x"[..]).unwrap();
        let e = message(read(&b.into_inner().unwrap()));
        assert_eq!(
            e,
            "t.archive: entry \"/etc/evil.py\" has an absolute path; refused (pack the archive with paths relative to its folder)"
        );
        // The zip writer refuses a repeated name: rename the second entry
        // (in its local header and the central directory) to the first's.
        let mut z = zip_of(
            &[("repo/a.py", b"def a(): ...\n"), ("repo/b.py", b"def b(): ...\n")],
            zip::CompressionMethod::Stored,
        );
        let mut at = 0;
        while let Some(i) = z[at..].windows(9).position(|w| w == b"repo/b.py") {
            z[at + i + 5] = b'a';
            at += i + 9;
        }
        assert_eq!(
            message(read(&z)),
            "t.archive: two entries are both \"repo/a.py\", so which one to curate is unclear; refused (pack the archive again without the repeat)"
        );
        let t = tar_of(&[("repo/a.py", b"1\n"), ("repo/./a.py", b"2\n")]);
        assert!(message(read(&t)).contains("two entries are both \"repo/a.py\""));
    }

    #[test]
    fn truncated_and_corrupt_gzip() {
        let tgz = gz(&tar_of(REPO));
        for cut in [tgz.len() - 4, tgz.len() / 2, 12] {
            let e = read(&tgz[..cut]).unwrap_err();
            assert!(matches!(e, ArchiveError::TruncatedGzip { .. }), "cut {cut}: {e}");
        }
        let mut bad = tgz.clone();
        let n = bad.len();
        bad[n - 8] ^= 0xff; // the CRC-32 of the trailer
        let e = read(&bad).unwrap_err();
        assert!(
            matches!(e, ArchiveError::CorruptGzip { .. } | ArchiveError::TruncatedGzip { .. }),
            "{e}"
        );
    }

    #[test]
    fn truncated_tar_entry() {
        let tar = tar_of(&[("a.py", &[b'x'; 2000])]);
        let e = read(&tar[..1024]).unwrap_err();
        assert_eq!(e.to_string(), "t.archive: a.py: truncated, 512 of its 2000 bytes are there");
    }

    /// Patch the general-purpose flags or method of every local and central
    /// header of a zip made by `zip_of`.
    fn patch_zip(mut z: Vec<u8>, local_at: usize, central_at: usize, value: u16) -> Vec<u8> {
        for i in 0..z.len().saturating_sub(4) {
            let at = match &z[i..i + 4] {
                b"PK\x03\x04" => local_at,
                b"PK\x01\x02" => central_at,
                _ => continue,
            };
            z[i + at..i + at + 2].copy_from_slice(&value.to_le_bytes());
        }
        z
    }

    #[test]
    fn encrypted_and_unsupported_entries() {
        let z = zip_of(&[("a.py", b"x = 1\n")], zip::CompressionMethod::Stored);
        let e = message(read(&patch_zip(z.clone(), 6, 8, 1)));
        assert_eq!(e, "t.archive: a.py: encrypted; encrypted entries cannot be read, pack the archive again without a password");
        let e = message(read(&patch_zip(z, 8, 10, 12)));
        assert!(
            e.starts_with("t.archive: a.py: compression method ") && e.contains("not supported"),
            "{e}"
        );
        // Only kept entries matter: an encrypted image is skipped.
        let z = zip_of(&[("a.py", b"x = 1\n"), ("b.bin", b"\0")], zip::CompressionMethod::Stored);
        let z = patch_zip(z, 6, 8, 0); // no-op patch keeps it readable
        assert_eq!(paths(&read(&z).unwrap()), ["a.py"]);
    }

    #[test]
    fn sizes_are_checked_before_inflating() {
        let big = vec![b'#'; 5000];
        let limits = ArchiveLimits { max_input_bytes: 6000, ..ArchiveLimits::default() };
        let files: &[(&str, &[u8])] = &[("a.py", &big), ("b.py", &big), ("c.txt", &big)];
        let e = read_archive("t", &zip_of(files, zip::CompressionMethod::Deflated), PY, &limits)
            .unwrap_err();
        assert_eq!(e.to_string(), "t: the 2 source files hold 10000 bytes uncompressed (0.0 MiB), over the limit of 0 MiB; pack only the directory to curate");
        let e = read_archive("t", &gz(&tar_of(files)), PY, &limits).unwrap_err();
        assert!(
            matches!(e, ArchiveError::TooLarge { files: 2, bytes: 10000, partial: true, .. }),
            "{e}"
        );
        let limits = ArchiveLimits { max_entries: 2, ..ArchiveLimits::default() };
        let e = read_archive("t", &tar_of(files), PY, &limits).unwrap_err();
        assert_eq!(e.to_string(), "t: more than 2 entries; refused");
        let limits = ArchiveLimits { max_unpacked_bytes: 4096, ..ArchiveLimits::default() };
        let e = read_archive("t", &gz(&tar_of(files)), PY, &limits).unwrap_err();
        assert!(matches!(e, ArchiveError::TooMuchData { .. }), "{e}");
    }

    #[test]
    fn a_zip_entry_larger_than_declared_is_refused() {
        // Declare 3 bytes in both headers of a 6-byte stored entry.
        let mut z = zip_of(&[("a.py", b"x = 1\n")], zip::CompressionMethod::Stored);
        for i in 0..z.len() - 4 {
            let at = match &z[i..i + 4] {
                b"PK\x03\x04" => 22,
                b"PK\x01\x02" => 24,
                _ => continue,
            };
            z[i + at..i + at + 4].copy_from_slice(&3u32.to_le_bytes());
        }
        let e = read(&z).unwrap_err();
        assert!(
            matches!(e, ArchiveError::SizeMismatch { .. } | ArchiveError::CorruptZip { .. }),
            "{e}"
        );
    }
}
