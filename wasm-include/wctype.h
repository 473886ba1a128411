#ifndef REPOQA_WASM_WCTYPE_H
#define REPOQA_WASM_WCTYPE_H
#include <stddef.h>
typedef unsigned int wint_t;
/* ASCII exact; beyond ASCII, letters are approximated as "any non-space
   code point", which is what the grammar scanners need for identifiers. */
static inline int iswspace(wint_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}
static inline int iswdigit(wint_t c) { return c >= '0' && c <= '9'; }
static inline int iswxdigit(wint_t c) { return iswdigit(c) || ((c | 32) >= 'a' && (c | 32) <= 'f'); }
static inline int iswupper(wint_t c) { return c >= 'A' && c <= 'Z'; }
static inline int iswlower(wint_t c) { return c >= 'a' && c <= 'z'; }
static inline int iswalpha(wint_t c) {
  return iswupper(c) || iswlower(c) || (c > 0x7F && !iswspace(c));
}
static inline int iswalnum(wint_t c) { return iswalpha(c) || iswdigit(c); }
static inline int iswblank(wint_t c) { return c == ' ' || c == '\t'; }
static inline int iswpunct(wint_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}
static inline wint_t towlower(wint_t c) { return iswupper(c) ? c + 32 : c; }
static inline wint_t towupper(wint_t c) { return iswlower(c) ? c - 32 : c; }
#endif
