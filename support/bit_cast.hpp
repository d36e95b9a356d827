// std::bit_cast for every standard library halo is built with: the playground's Emscripten
// (Debian 12's 3.1.6, docs/playground.md) ships a libc++ without std::bit_cast, although its
// clang, like GCC, has the builtin that std::bit_cast is made of.
#pragma once

namespace halo {

template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
  return __builtin_bit_cast(To, from);
}

}  // namespace halo
