#ifndef REPOQA_WASM_INTTYPES_H
#define REPOQA_WASM_INTTYPES_H
#include <stdint.h>
#endif
