// What the Pool tests share: a server handler that answers every request kind with
// success, the index they use, a count of request lines by their first byte, and a
// clock moved by hand (PoolOptions::clock).
// Header-only; used by pool_test.cc and pool_routing_test.cc (in namespace client, so
// that they read as the library's own names there).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "rowsocket/query.h"

namespace rowsocket {
namespace client {

// P -> opened; insert -> id 9; update -> 1 row; anything else -> one row.
inline std::string Answer(const std::string& line, int) {
  if (line[0] == 'P') return "0\t1\n";
  if (line.find("\t+\t") != std::string::npos) return "0\t1\t9\n";
  if (line.find("\tU\t") != std::string::npos) return "0\t1\t1\n";
  return "0\t1\trow\n";
}

inline const Index kIdx("db", "t", "PRIMARY", {"a"});

inline size_t Count(const std::vector<std::string>& lines, char first) {
  size_t n = 0;
  for (const std::string& l : lines) n += !l.empty() && l[0] == first;
  return n;
}

// A clock the test moves by hand; it must outlive the Pool given Source().
struct ManualClock {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  void Advance(std::chrono::milliseconds d) { now += d; }
  std::function<std::chrono::steady_clock::time_point()> Source() {
    return [this] { return now; };
  }
};

}  // namespace client
}  // namespace rowsocket
