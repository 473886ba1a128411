#ifndef REPOQA_WASM_WCHAR_H
#define REPOQA_WASM_WCHAR_H
#include <stddef.h>
#include <wctype.h>
#endif
