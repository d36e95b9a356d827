// A string hash that is the same on every platform halo is built for. Where a hash names
// data a user can see (the buffer a seed names, `seeded(SEED)` in docs/inputs.md), std::hash
// will not do: its value is the standard library's choice, and the playground's libc++
// (WebAssembly, 32-bit size_t; docs/playground.md) gives other buffers than the libstdc++
// that every recorded output was computed with. This is libstdc++'s std::hash<std::string>
// on 64-bit targets (MurmurHash2's 64-bit mix with the seed 0xc70f6907, `_Hash_bytes`),
// computed in 64 bits everywhere, so that every seed keeps the buffer it always named.
#pragma once

#include <cstdint>
#include <string_view>

namespace halo {

constexpr uint64_t stable_string_hash(std::string_view s) {
  constexpr uint64_t mul = (uint64_t{0xc6a4a793} << 32) + 0x5bd1e995;
  auto shift_mix = [](uint64_t v) { return v ^ (v >> 47); };
  // Little-endian loads of n bytes, as x86-64 and WebAssembly read them.
  auto load = [&](size_t at, size_t n) {
    uint64_t r = 0;
    for (size_t k = n; k-- > 0;) r = (r << 8) + uint64_t(static_cast<unsigned char>(s[at + k]));
    return r;
  };
  const size_t aligned = s.size() & ~size_t{7};
  uint64_t hash = 0xc70f6907ull ^ (uint64_t(s.size()) * mul);
  for (size_t p = 0; p < aligned; p += 8) {
    hash ^= shift_mix(load(p, 8) * mul) * mul;
    hash *= mul;
  }
  if (s.size() & 7) {
    hash ^= load(aligned, s.size() & 7);
    hash *= mul;
  }
  hash = shift_mix(hash) * mul;
  return shift_mix(hash);
}

}  // namespace halo
