#ifndef REPOQA_WASM_STDLIB_H
#define REPOQA_WASM_STDLIB_H
#include <stddef.h>
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void *realloc(void *ptr, size_t size);
void free(void *ptr);
static inline __attribute__((noreturn)) void abort(void) { __builtin_trap(); }
static inline __attribute__((noreturn)) void exit(int code) { (void)code; __builtin_trap(); }
static inline int abs(int x) { return x < 0 ? -x : x; }
#endif
