// The steady clock in the units the server layer counts in.
#pragma once

#include <chrono>
#include <cstdint>

namespace rowsocket {

inline uint64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

inline uint64_t NowUs() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace rowsocket
