#ifndef REPOQA_WASM_ASSERT_H
#define REPOQA_WASM_ASSERT_H
#define assert(e) ((e) ? (void)0 : __builtin_trap())
#ifndef __cplusplus
#define static_assert _Static_assert
#endif
#endif
