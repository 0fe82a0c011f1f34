// Helpers shared by the memcached protocol tests: parse a whole input, parse it fed
// one byte at a time, build binary request packets, requests and error answers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/memcached.h"
#include "protocol/memcached_response.h"

namespace rowsocket {
namespace mc_test {

// A storage command as a parser would give it, in text or in binary (opaque 7),
// for the tests of error answers.
inline McRequest StoreRequest(McFraming framing, bool noreply = false) {
  McRequest mc;
  mc.command = McCommand::kStore;
  mc.framing = framing;
  mc.noreply = noreply;
  if (framing == McFraming::kBinary) {
    mc.opcode = 0x01;
    mc.opaque = 7;
  }
  return mc;
}

// The binary error packet answering `mc` with `status`.
inline std::string BinaryError(const McRequest& mc, McStatus status) {
  std::string out;
  McBinaryWriter(&out).Error(mc, status);
  return out;
}

// A binary request packet.
inline std::string Packet(uint8_t opcode, std::string_view extras, std::string_view key,
                          std::string_view value, uint32_t opaque = 0, uint64_t cas = 0) {
  std::string p;
  p.push_back(static_cast<char>(0x80));
  p.push_back(static_cast<char>(opcode));
  p.push_back(static_cast<char>(key.size() >> 8));
  p.push_back(static_cast<char>(key.size() & 0xff));
  p.push_back(static_cast<char>(extras.size()));
  p.push_back('\0');
  p.append(2, '\0');
  const uint32_t body = static_cast<uint32_t>(extras.size() + key.size() + value.size());
  for (int s = 24; s >= 0; s -= 8) p.push_back(static_cast<char>(body >> s));
  for (int s = 24; s >= 0; s -= 8) p.push_back(static_cast<char>(opaque >> s));
  for (int s = 56; s >= 0; s -= 8) p.push_back(static_cast<char>(cas >> s));
  p.append(extras);
  p.append(key);
  p.append(value);
  return p;
}

// Big-endian bytes of `v`, `n` bytes long.
inline std::string Big(uint64_t v, int n) {
  std::string s;
  for (int shift = (n - 1) * 8; shift >= 0; shift -= 8) s.push_back(static_cast<char>(v >> shift));
  return s;
}

// A parse and what it said. It owns a copy of the input, which the request's
// string_views point into.
struct Parsed {
  std::shared_ptr<const std::string> input;
  McParseResult result;
  McRequest request;
};

inline Parsed ParseAll(std::string_view input, McProtocol protocol, const McLimits& limits = {}) {
  Parsed p;
  p.input = std::make_shared<const std::string>(input);
  p.result = ParseMcRequest(*p.input, protocol, limits, &p.request);
  return p;
}

// Feeds `input` one byte at a time: every strict prefix shorter than the first
// answer must ask for more bytes, and the first non-kNeedMore answer must equal the
// one for the whole input (same status, consumed, discard, command and error).
inline Parsed ParseByteByByte(std::string_view input, McProtocol protocol,
                              const McLimits& limits = {}) {
  Parsed whole = ParseAll(input, protocol, limits);
  for (size_t n = 0; n <= input.size(); ++n) {
    Parsed p = ParseAll(input.substr(0, n), protocol, limits);
    if (p.result.status == McParseStatus::kNeedMore) continue;
    EXPECT_EQ(p.result.status, whole.result.status) << "at " << n << " bytes";
    EXPECT_EQ(p.result.consumed, whole.result.consumed) << "at " << n << " bytes";
    EXPECT_EQ(p.result.discard, whole.result.discard) << "at " << n << " bytes";
    EXPECT_EQ(p.request.command, whole.request.command) << "at " << n << " bytes";
    EXPECT_EQ(p.request.error, whole.request.error) << "at " << n << " bytes";
    EXPECT_EQ(p.request.keys, whole.request.keys) << "at " << n << " bytes";
    if (p.result.status == McParseStatus::kRequest) {
      EXPECT_LE(p.result.consumed, n) << "consumed bytes it had not seen";
    }
    return p;
  }
  ADD_FAILURE() << "the whole input still needs more bytes";
  return whole;
}

// Parses `input` request after request, the way a connection reads a pipeline; every
// one must parse. The requests point into `input`.
inline std::vector<McRequest> ParsePipeline(std::string_view input, McProtocol protocol) {
  std::vector<McRequest> requests;
  while (!input.empty()) {
    McRequest request;
    const McParseResult r = ParseMcRequest(input, protocol, McLimits(), &request);
    EXPECT_EQ(r.status, McParseStatus::kRequest);
    if (r.status != McParseStatus::kRequest) break;
    requests.push_back(std::move(request));
    input.remove_prefix(r.consumed);
  }
  return requests;
}

inline std::vector<std::string> Strings(const std::vector<std::string_view>& views) {
  return std::vector<std::string>(views.begin(), views.end());
}

}  // namespace mc_test
}  // namespace rowsocket
