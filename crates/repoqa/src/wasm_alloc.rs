//! The C allocator for the tree-sitter grammars compiled to wasm32.
//!
//! The grammars' scanners call `malloc`/`calloc`/`realloc`/`free`, which
//! `wasm32-unknown-unknown` has no libc for; without these exports the module
//! would import them from "env" and fail to instantiate in the browser.
//! Each block stores its size in a 16-byte header so `free`/`realloc` can
//! rebuild the `Layout` that `std::alloc` requires.

// The symbols below are for the grammars' C code, found by the linker by
// name (`#[no_mangle]`), not by Rust paths.
#![allow(unreachable_pub)]

use std::alloc::{alloc, alloc_zeroed, dealloc, realloc as std_realloc, Layout};

const HEADER: usize = 16;
const ALIGN: usize = 16;

unsafe fn layout_for(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(HEADER)?, ALIGN).ok()
}

unsafe fn finish(base: *mut u8, size: usize) -> *mut u8 {
    if base.is_null() {
        return base;
    }
    (base as *mut usize).write(size);
    base.add(HEADER)
}

#[no_mangle]
pub unsafe extern "C" fn malloc(size: usize) -> *mut u8 {
    match layout_for(size) {
        Some(l) => finish(alloc(l), size),
        None => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut u8 {
    let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
    match layout_for(total) {
        Some(l) => finish(alloc_zeroed(l), total),
        None => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn free(ptr: *mut u8) {
    if ptr.is_null() {
        return;
    }
    let base = ptr.sub(HEADER);
    let size = (base as *const usize).read();
    if let Some(l) = layout_for(size) {
        dealloc(base, l);
    }
}

#[no_mangle]
pub unsafe extern "C" fn realloc(ptr: *mut u8, new_size: usize) -> *mut u8 {
    if ptr.is_null() {
        return malloc(new_size);
    }
    let base = ptr.sub(HEADER);
    let old = (base as *const usize).read();
    let (Some(old_l), Some(_)) = (layout_for(old), layout_for(new_size)) else {
        return std::ptr::null_mut();
    };
    finish(std_realloc(base, old_l, new_size + HEADER), new_size)
}
