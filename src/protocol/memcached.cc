// The parts of the memcached protocol layer that do not depend on the framing: the
// dispatch of ParseMcRequest to the text or binary parser, noreply rules, keys, and
// the incr/decr arithmetic. Called by the server's connection code and by the
// engine, on whichever thread owns the request. Pure functions.
#include "protocol/memcached.h"

#include <charconv>

#include "protocol/decimal.h"
#include "protocol/memcached_parse.h"

namespace rowsocket {

void McRequest::Clear() {
  keys.clear();
  McRequest fresh;
  fresh.keys.swap(keys);
  *this = std::move(fresh);
}

bool McRequest::WantsAnswer(McOutcome outcome) const {
  if (!noreply) return true;
  switch (framing) {
    case McFraming::kText:
      return false;
    case McFraming::kMeta:
      if (outcome == McOutcome::kError) return true;
      if (command == McCommand::kMetaGet) return outcome != McOutcome::kMiss;
      return outcome != McOutcome::kSuccess;
    case McFraming::kBinary:
      if (outcome == McOutcome::kError) return true;
      if (command == McCommand::kGet || command == McCommand::kGat) {
        return outcome != McOutcome::kMiss;
      }
      return outcome != McOutcome::kSuccess;
  }
  return true;
}

McParseResult ParseMcRequest(std::string_view input, McProtocol protocol,
                             const McLimits& limits, McRequest* out) {
  out->Clear();
  if (protocol == McProtocol::kBinary) return mc_internal::ParseBinary(input, limits, out);
  return mc_internal::ParseText(input, limits, out);
}

bool McValidKey(std::string_view key, McFraming framing) {
  if (key.empty() || key.size() > kMcMaxKeyLength) return false;
  if (framing == McFraming::kBinary) return true;
  // memcached 1.6 cuts a line at spaces only and ends it at LF (a NUL ends its C
  // string): every other byte, tabs and control bytes included, is part of a key.
  for (const char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= ' ' && (byte == ' ' || byte == '\r' || byte == '\n' || byte == '\0')) return false;
  }
  return true;
}

namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

bool McBase64Decode(std::string_view text, std::string* out) {
  if (text.size() % 4 != 0) return false;
  const size_t start = out->size();
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t padding = !last ? 0 : text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    uint32_t group = 0;
    for (size_t j = 0; j < 4 - padding; ++j) {
      const int v = Base64Value(text[i + j]);
      if (v < 0) {
        out->resize(start);
        return false;
      }
      group = group << 6 | static_cast<uint32_t>(v);
    }
    group <<= 6 * padding;
    out->push_back(static_cast<char>(group >> 16));
    if (padding < 2) out->push_back(static_cast<char>(group >> 8 & 0xff));
    if (padding < 1) out->push_back(static_cast<char>(group & 0xff));
  }
  return true;
}

void McBase64Encode(std::string_view bytes, std::string* out) {
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = bytes.size() - i < 3 ? bytes.size() - i : 3;
    uint32_t group = 0;
    for (size_t j = 0; j < 3; ++j)
      group = group << 8 | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    for (size_t j = 0; j < 4; ++j)
      out->push_back(j <= n ? kBase64Alphabet[group >> (18 - 6 * j) & 0x3f] : '=');
  }
}

McDeltaResult McApplyDelta(std::string_view stored, bool decrement, uint64_t delta) {
  McDeltaResult result;
  const size_t end = stored.find_last_not_of(' ');
  if (end == std::string_view::npos) return result;  // empty or all spaces
  uint64_t value = 0;
  if (!ParseDecimal(stored.substr(0, end + 1), &value)) return result;
  if (decrement) {
    value = delta > value ? 0 : value - delta;
  } else {
    value += delta;  // wraps at 2^64, as memcached
  }
  result.numeric = true;
  result.value = value;
  const auto printed = std::to_chars(result.digits, result.digits + sizeof(result.digits), value);
  result.size = static_cast<uint8_t>(printed.ptr - result.digits);
  return result;
}

namespace mc_internal {

bool ParseUnsigned(std::string_view text, uint64_t max, uint64_t* value) {
  uint64_t v = 0;
  if (!ParseDecimal(text, &v) || v > max) return false;
  *value = v;
  return true;
}

bool ParseInt32(std::string_view text, int64_t* value) {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  uint64_t magnitude = 0;
  if (!ParseUnsigned(text, negative ? 0x80000000ULL : 0x7fffffffULL, &magnitude)) return false;
  *value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

}  // namespace mc_internal
}  // namespace rowsocket
