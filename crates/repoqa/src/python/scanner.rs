//! tree-sitter-python 0.20.4's external scanner as the official grammar
//! runs it, where that makes a difference in time, not in trees.
//!
//! The official harness parses with tree-sitter-languages 1.10.2, whose
//! Python grammar is tree-sitter-python 0.20.4 plus two scanner fixes
//! (upstream a901729 and 82f5c99, in no registry release): at a `#` after a
//! line end, the scanner reads on through the comment lines to the next
//! code line only when an INDENT, DEDENT, NEWLINE or `except` token could
//! come next; otherwise it stops there. 0.20.4 always reads on, so a file
//! ending in 40,000 comment lines made every one of them read all the
//! others: minutes instead of a fraction of a second (issue 32, cases 18
//! and 19).
//!
//! This module gives the parser 0.20.4's tables with its scanner wrapped:
//! when none of INDENT, DEDENT or NEWLINE is valid, the scanner sees `#`
//! as a character it has no rule for (`@`), which takes it down the same
//! path as the official scanner's failed comment test (it stops), while
//! inside strings `#` and `@` are both ordinary text. The `except` part of
//! the official rule needs a token 0.20.4's tables do not have; it only
//! matters right after a `try` body, where 0.20.4 never calls the scanner
//! outside error recovery (no external token is valid there) and error
//! recovery makes INDENT valid. `crates/repoqa/tests/it/parity_grammar.rs`
//! holds the trees equal to the official grammar's.

use std::ffi::c_void;

/// `TSLexer` of tree-sitter's `parser.h` (ABI 14).
#[repr(C)]
struct TsLexer {
    lookahead: i32,
    result_symbol: u16,
    advance: unsafe extern "C" fn(*mut TsLexer, bool),
    mark_end: unsafe extern "C" fn(*mut TsLexer),
    get_column: unsafe extern "C" fn(*mut TsLexer) -> u32,
    is_at_included_range_start: unsafe extern "C" fn(*const TsLexer) -> bool,
    eof: unsafe extern "C" fn(*const TsLexer) -> bool,
}

type Scan = unsafe extern "C" fn(*mut c_void, *mut TsLexer, *const bool) -> bool;

/// `TSLanguage` of tree-sitter's `parser.h` (ABI 14).
#[repr(C)]
#[derive(Clone, Copy)]
struct TsLanguage {
    version: u32,
    symbol_count: u32,
    alias_count: u32,
    token_count: u32,
    external_token_count: u32,
    state_count: u32,
    large_state_count: u32,
    production_id_count: u32,
    field_count: u32,
    max_alias_sequence_length: u16,
    tables: [*const c_void; 13],
    lex_fn: *const c_void,
    keyword_lex_fn: *const c_void,
    keyword_capture_token: u16,
    scanner_states: *const bool,
    scanner_symbol_map: *const u16,
    scanner_create: *const c_void,
    scanner_destroy: *const c_void,
    scanner_scan: Option<Scan>,
    scanner_serialize: *const c_void,
    scanner_deserialize: *const c_void,
    primary_state_ids: *const u16,
}

// The grammar's scanner (tree-sitter-python 0.20.4's src/scanner.c).
extern "C" {
    fn tree_sitter_python_external_scanner_scan(
        payload: *mut c_void,
        lexer: *mut TsLexer,
        valid_symbols: *const bool,
    ) -> bool;
}

// Its external tokens (the order of `enum TokenType` in scanner.c).
const NEWLINE: usize = 0;
const INDENT: usize = 1;
const DEDENT: usize = 2;

/// What the wrapped scanner is shown for `#`: a character none of its
/// rules names.
const HIDDEN_HASH: i32 = '@' as i32;

/// The lexer the wrapped scanner sees: the parser's, with `#` shown as
/// [`HIDDEN_HASH`]. `lexer` comes first, so a `*mut TsLexer` to it is a
/// `*mut Proxy`.
#[repr(C)]
struct Proxy {
    lexer: TsLexer,
    real: *mut TsLexer,
}

fn shown(c: i32) -> i32 {
    if c == '#' as i32 {
        HIDDEN_HASH
    } else {
        c
    }
}

unsafe extern "C" fn proxy_advance(lexer: *mut TsLexer, skip: bool) {
    let proxy = lexer.cast::<Proxy>();
    let real = (*proxy).real;
    ((*real).advance)(real, skip);
    (*proxy).lexer.lookahead = shown((*real).lookahead);
}

unsafe extern "C" fn proxy_mark_end(lexer: *mut TsLexer) {
    let real = (*lexer.cast::<Proxy>()).real;
    ((*real).mark_end)(real)
}

unsafe extern "C" fn proxy_get_column(lexer: *mut TsLexer) -> u32 {
    let real = (*lexer.cast::<Proxy>()).real;
    ((*real).get_column)(real)
}

unsafe extern "C" fn proxy_at_range_start(lexer: *const TsLexer) -> bool {
    let real = (*lexer.cast::<Proxy>()).real;
    ((*real).is_at_included_range_start)(real)
}

unsafe extern "C" fn proxy_eof(lexer: *const TsLexer) -> bool {
    let real = (*lexer.cast::<Proxy>()).real;
    ((*real).eof)(real)
}

/// The scanner with the official comment rule.
unsafe extern "C" fn scan(payload: *mut c_void, lexer: *mut TsLexer, valid: *const bool) -> bool {
    let layout_valid = |i: usize| *valid.add(i);
    if layout_valid(NEWLINE) || layout_valid(INDENT) || layout_valid(DEDENT) {
        return tree_sitter_python_external_scanner_scan(payload, lexer, valid);
    }
    let mut proxy = Proxy {
        lexer: TsLexer {
            lookahead: shown((*lexer).lookahead),
            result_symbol: (*lexer).result_symbol,
            advance: proxy_advance,
            mark_end: proxy_mark_end,
            get_column: proxy_get_column,
            is_at_included_range_start: proxy_at_range_start,
            eof: proxy_eof,
        },
        real: lexer,
    };
    let found = tree_sitter_python_external_scanner_scan(payload, &mut proxy.lexer, valid);
    (*lexer).result_symbol = proxy.lexer.result_symbol;
    found
}

/// tree-sitter-python 0.20.4's tables with [`scan`] as the scanner, or
/// `None` if `raw` is not the ABI-14 language whose scanner is 0.20.4's
/// (then the caller keeps `raw`).
///
/// # Safety
/// `raw` must point to tree-sitter-python's static `TSLanguage`.
pub(crate) unsafe fn with_official_comment_rule(raw: *const c_void) -> Option<*const c_void> {
    let lang = *raw.cast::<TsLanguage>();
    let original: Scan = tree_sitter_python_external_scanner_scan;
    let is_ours = lang.scanner_scan.is_some_and(|s| s as usize == original as usize);
    if lang.version != 14 || lang.external_token_count != 11 || !is_ours {
        return None;
    }
    let wrapped = TsLanguage { scanner_scan: Some(scan), ..lang };
    // Lives as long as the program, like the static it copies.
    Some((Box::leak(Box::new(wrapped)) as *const TsLanguage).cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_parses_with_the_wrapped_scanner() {
        let raw = crate::code::lang::Language::Python.ts_language().into_raw();
        // SAFETY: the language's tables live for the whole program.
        let lang = unsafe { *raw.cast::<TsLanguage>() };
        let wrapped: Scan = scan;
        assert_eq!(lang.scanner_scan.map(|s| s as usize), Some(wrapped as usize));
        assert_eq!(shown('#' as i32), HIDDEN_HASH);
        assert_eq!(shown('x' as i32), 'x' as i32);
    }
}
