// The steady (monotonic) clock in the units rowsocket counts in. Any thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace rowsocket {

inline uint64_t NowNs() {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

inline uint64_t NowUs() { return NowNs() / 1000; }

inline uint64_t NowMs() { return NowNs() / 1000000; }

}  // namespace rowsocket
