// Running an evaluation on a thread with a large stack.
//
// Demand-driven evaluation recurses once per producer in a dependency chain, and a valid
// pipeline may chain thousands of funcs. Rather than rewriting every evaluator without
// recursion, evaluations run on a thread whose stack is reserved large (untouched pages
// cost nothing), and evaluators bound their nesting depth (kMaxNesting) so that even the
// largest input ends in a ResourceLimit message instead of a crash.
#pragma once

#include <cstddef>
#include <functional>

namespace halo {

inline constexpr size_t kBigStackBytes = size_t{1} << 30;
#if defined(HALO_BROWSER)
// The playground's WebAssembly (docs/playground.md) runs on the browser's own call stack,
// which no thread can enlarge: about a thousand nested funcs fit in Chromium's.
inline constexpr int kMaxEvalNesting = 600;
#elif defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's handling of a throw (__asan_handle_no_return) misreports a
// stack-buffer-overflow when tens of thousands of frames are unwound on a large thread
// stack; sanitizer builds test the same limit logic at a smaller depth.
inline constexpr int kMaxEvalNesting = 2000;
#else
inline constexpr int kMaxEvalNesting = 25000;
#endif

// Runs f to completion on a fresh thread with a kBigStackBytes stack; rethrows whatever
// f throws. Falls back to the calling thread if such a thread cannot be created.
// `while_waiting`, if given, is called on the calling thread every 20 ms until f ends.
void run_on_big_stack(const std::function<void()>& f, const std::function<void()>& while_waiting = {});

}  // namespace halo
