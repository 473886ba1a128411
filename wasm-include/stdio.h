#ifndef REPOQA_WASM_STDIO_H
#define REPOQA_WASM_STDIO_H
#include <stddef.h>
#include <stdarg.h>
/* Grammars only print from debug paths; output is discarded. */
typedef struct FILE FILE;
#define stdout ((FILE *)0)
#define stderr ((FILE *)1)
#define stdin ((FILE *)2)
static inline int fprintf(FILE *f, const char *fmt, ...) { (void)f; (void)fmt; return 0; }
static inline int printf(const char *fmt, ...) { (void)fmt; return 0; }
static inline int snprintf(char *b, size_t n, const char *fmt, ...) { (void)fmt; if (n) b[0] = 0; return 0; }
static inline int vsnprintf(char *b, size_t n, const char *fmt, va_list ap) { (void)fmt; (void)ap; if (n) b[0] = 0; return 0; }
static inline int fputc(int c, FILE *f) { (void)f; return c; }
static inline int fputs(const char *s, FILE *f) { (void)s; (void)f; return 0; }
static inline size_t fwrite(const void *p, size_t s, size_t n, FILE *f) { (void)p; (void)s; (void)f; return n; }
static inline int fclose(FILE *f) { (void)f; return 0; }
static inline FILE *fdopen(int fd, const char *mode) { (void)fd; (void)mode; return NULL; }
#endif
