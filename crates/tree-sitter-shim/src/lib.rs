//! The one item of `tree-sitter` 0.20 that the old grammar crates use:
//! `Language`, returned by their `extern "C" fn tree_sitter_<lang>()`.
//! It is only a pointer to the grammar's static `TSLanguage` tables; the
//! project hands it to `tree-sitter-c2rust` (`Language::from_raw`).
#![no_std]

use core::ffi::c_void;

/// A `const TSLanguage *`, layout-compatible with tree-sitter 0.20's
/// `Language` (a transparent wrapper of the same pointer).
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct Language(*const c_void);

impl Language {
    /// The grammar's `TSLanguage` tables (static data of the grammar's C code).
    pub fn into_raw(self) -> *const c_void {
        self.0
    }
}
