// libFuzzer target for ParseMcRequest (protocol/memcached.h), the parser every byte
// from a memcached client goes through, and the answer writers fed from what it
// parsed. One input is a connection's unread bytes; its first byte picks the
// protocol, as McDetectProtocol does for a connection.
//
// Beyond "no crash, no memory error, no undefined behaviour", it checks what the
// parser promises:
//  - a request consumes at least one byte and no more than it was given, and every
//    key, value, argument and opaque lies inside those bytes;
//  - a request is invalid exactly when it carries an error; a valid one has valid
//    keys (McValidKey), one key unless it is a get, and a value only if it stores;
//  - a prefix of a request's bytes is never a request: it asks for more bytes; the
//    request's own bytes parse to the same request, and an input that needs more
//    still needs more one byte shorter;
//  - a reused McRequest parses as a fresh one does (Clear() forgets everything);
//  - a valid text storage or get request written back in canonical form parses to
//    the same fields, and a binary request rebuilt from its fields too;
//  - the writers' binary headers count their bodies right; McApplyDelta agrees with
//    a plain reference on the parsed value.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "protocol/memcached.h"
#include "protocol/memcached_response.h"

namespace rowsocket {
namespace {

using fuzz::LineCopy;

// Small limits, so that the fuzzer reaches them.
McLimits Limits() {
  McLimits limits;
  limits.max_value_size = 100;
  limits.max_line = 200;
  limits.max_retrieval_line = 600;
  return limits;
}

bool IsGetFamily(McCommand c) {
  return c == McCommand::kGet || c == McCommand::kGets || c == McCommand::kGat ||
         c == McCommand::kGats;
}

bool SameRequest(const McParseResult& a, const McRequest& ra, const McParseResult& b,
                 const McRequest& rb) {
  return a.status == b.status && a.consumed == b.consumed && a.discard == b.discard &&
         ra.command == rb.command && ra.error == rb.error && ra.keys == rb.keys &&
         ra.value == rb.value && ra.flags == rb.flags && ra.exptime == rb.exptime &&
         ra.cas == rb.cas && ra.delta == rb.delta && ra.noreply == rb.noreply &&
         ra.store == rb.store && ra.meta.present == rb.meta.present &&
         ra.close_after == rb.close_after;
}

void CheckInside(const LineCopy& copy, size_t consumed, std::string_view view) {
  if (view.empty()) return;
  FUZZ_CHECK(copy.Holds(view.data(), view.size()));
  FUZZ_CHECK(copy.OffsetOf(view.data()) + view.size() <= consumed);
}

// The plain reference for McApplyDelta: digits then spaces, in 64 bits.
bool ReferenceDelta(std::string_view stored, bool decrement, uint64_t delta, uint64_t* out) {
  while (!stored.empty() && stored.back() == ' ') stored.remove_suffix(1);
  uint64_t value = 0;
  if (!fuzz::ReferenceDecimal(stored, UINT64_MAX, &value)) return false;
  *out = decrement ? (delta > value ? 0 : value - delta) : value + delta;
  return true;
}

// A text storage or get request written back in canonical form, or "" for others.
std::string CanonicalText(const McRequest& r) {
  std::string line;
  if (r.framing != McFraming::kText) return line;
  if (r.command == McCommand::kGet || r.command == McCommand::kGets) {
    line = r.command == McCommand::kGet ? "get" : "gets";
    for (std::string_view k : r.keys) line.append(" ").append(k);
    return line + "\n";  // a bare LF: the line may be as long as the limit
  }
  if (r.command != McCommand::kStore) return line;
  static const char* const kNames[] = {"", "set", "add", "replace", "append", "prepend", "cas"};
  line = kNames[static_cast<int>(r.store)];
  line += " " + std::string(r.keys[0]) + " " + std::to_string(r.flags) + " " +
          std::to_string(r.exptime) + " " + std::to_string(r.value.size());
  if (r.store == McStoreMode::kCas) line += " " + std::to_string(r.cas);
  if (r.noreply) line += " noreply";
  return line.append("\n").append(r.value).append("\r\n");
}

// A binary request rebuilt from its fields (header lengths recomputed).
std::string RebuildBinary(std::string_view original, const McRequest& r, size_t consumed) {
  std::string p(original.substr(0, kMcBinaryHeaderSize));
  const size_t extras = static_cast<uint8_t>(original[4]);
  std::string_view key = r.keys.empty() ? r.argument : r.keys[0];
  p.append(original.substr(kMcBinaryHeaderSize, extras));
  p.append(key);
  p.append(r.value);
  FUZZ_CHECK(p.size() == consumed);
  return p;
}

// Writes the answers the request could get, and checks binary lengths.
void WriteAnswers(const McRequest& r) {
  std::string out;
  if (r.framing == McFraming::kBinary) {
    McBinaryWriter w(&out);
    if (r.command == McCommand::kInvalid) {
      w.Error(r, r.error_status);
    } else {
      w.Hit(r, r.flags, r.cas, r.value);
      w.Miss(r);
      w.Counter(r, r.delta, r.cas);
      w.Stat(r, r.argument, r.value);
    }
    for (size_t at = 0; at < out.size();) {
      FUZZ_CHECK(out.size() - at >= kMcBinaryHeaderSize);
      FUZZ_CHECK(static_cast<uint8_t>(out[at]) == kMcBinaryResponseMagic);
      FUZZ_CHECK(static_cast<uint8_t>(out[at + 1]) == r.opcode);
      const std::string_view h(out.data() + at, kMcBinaryHeaderSize);
      uint64_t body = 0;
      for (int i = 8; i < 12; ++i) body = (body << 8) | static_cast<uint8_t>(h[i]);
      at += kMcBinaryHeaderSize + body;
      FUZZ_CHECK(at <= out.size());
    }
    return;
  }
  McTextWriter w(&out);
  if (r.command == McCommand::kInvalid) {
    w.Line(r.error);
  } else if (r.framing == McFraming::kMeta) {
    McMetaItem item;
    item.size = r.value.size();
    w.MetaValue(r, item, r.value);
    w.MetaStatus("EN", r, nullptr);
  } else if (!r.keys.empty()) {
    w.ValueWithCas(r.keys[0], r.flags, r.value, r.cas);
  }
  FUZZ_CHECK(out.empty() || (out.size() >= 2 && out.compare(out.size() - 2, 2, "\r\n") == 0));
}

void CheckOne(std::string_view input, McProtocol protocol) {
  const McLimits limits = Limits();
  LineCopy copy(input);
  McRequest request;
  const McParseResult result =
      ParseMcRequest(std::string_view(copy.data(), copy.size()), protocol, limits, &request);

  // Guide: a reused request parses as a fresh one.
  McRequest reused;
  ParseMcRequest("cas k 1 2 1 3 noreply\r\nx\r\n", McProtocol::kText, limits, &reused);
  ParseMcRequest("mg k v q k T1 Oo\r\n", McProtocol::kText, limits, &reused);
  const McParseResult again =
      ParseMcRequest(std::string_view(copy.data(), copy.size()), protocol, limits, &reused);
  FUZZ_CHECK(SameRequest(result, request, again, reused));

  if (result.status == McParseStatus::kNeedMore) {
    FUZZ_CHECK(result.consumed == 0 && result.discard == 0);
    if (!input.empty()) {
      McRequest shorter;
      FUZZ_CHECK(ParseMcRequest(input.substr(0, input.size() - 1), protocol, limits, &shorter)
                     .status == McParseStatus::kNeedMore);
    }
    return;
  }
  if (result.status == McParseStatus::kClose) return;

  // Guide: placement and shape of a request.
  FUZZ_CHECK(result.consumed >= 1 && result.consumed <= input.size());
  // (A base64 key's bytes are the request's own, decoded.)
  for (std::string_view k : request.keys) {
    if (request.decoded_key)
      FUZZ_CHECK(k.data() == request.decoded_key->data() && k.size() == request.decoded_key->size());
    else
      CheckInside(copy, result.consumed, k);
  }
  CheckInside(copy, result.consumed, request.value);
  CheckInside(copy, result.consumed, request.argument);
  CheckInside(copy, result.consumed, request.meta.opaque);
  const bool invalid = request.command == McCommand::kInvalid;
  FUZZ_CHECK(invalid == !request.error.empty());
  FUZZ_CHECK(!request.close_after || invalid);
  if (invalid) {
    FUZZ_CHECK(request.framing == McFraming::kText || request.WantsAnswer(McOutcome::kError));
  } else {
    FUZZ_CHECK(result.discard == 0);
    const McFraming key_framing = request.decoded_key ? McFraming::kBinary : request.framing;
    for (std::string_view k : request.keys) FUZZ_CHECK(McValidKey(k, key_framing));
    if (!IsGetFamily(request.command) && !request.keys.empty()) {
      FUZZ_CHECK(request.keys.size() == 1);
    }
    const bool stores = request.command == McCommand::kStore ||
                        request.command == McCommand::kMetaSet ||
                        request.command == McCommand::kSaslAuth ||
                        request.command == McCommand::kSaslStep;
    FUZZ_CHECK(stores || request.value.empty());
    if (stores && request.framing != McFraming::kBinary) {
      FUZZ_CHECK(request.value.size() <= limits.max_value_size);
    }
  }
  FUZZ_CHECK(request.meta.count <= kMcMaxMetaFlags);

  // Guide: prefixes need more; the request's own bytes parse the same.
  McRequest other;
  const std::string_view own = input.substr(0, result.consumed);
  FUZZ_CHECK(SameRequest(result, request, ParseMcRequest(own, protocol, limits, &other), other));
  for (size_t n : {result.consumed - 1, result.consumed / 2, result.consumed / 3}) {
    const McParseResult prefix = ParseMcRequest(input.substr(0, n), protocol, limits, &other);
    FUZZ_CHECK(prefix.status == McParseStatus::kNeedMore);
  }

  // Guide: canonical forms parse back.
  if (!invalid) {
    const std::string canonical = protocol == McProtocol::kBinary
                                      ? RebuildBinary(input, request, result.consumed)
                                      : CanonicalText(request);
    if (!canonical.empty()) {
      const McParseResult back = ParseMcRequest(canonical, protocol, limits, &other);
      FUZZ_CHECK(back.status == McParseStatus::kRequest && back.consumed == canonical.size());
      FUZZ_CHECK(other.command == request.command && other.store == request.store);
      FUZZ_CHECK(other.keys == request.keys && other.value == request.value);
      FUZZ_CHECK(other.flags == request.flags && other.exptime == request.exptime);
      FUZZ_CHECK(other.cas == request.cas && other.noreply == request.noreply);
    }
  }

  // Guide: writers and arithmetic on what was parsed.
  WriteAnswers(request);
  const McDeltaResult delta = McApplyDelta(request.value, request.decrement, request.delta);
  uint64_t expected = 0;
  FUZZ_CHECK(delta.numeric == ReferenceDelta(request.value, request.decrement, request.delta,
                                             &expected));
  if (delta.numeric) {
    FUZZ_CHECK(delta.value == expected && delta.text() == std::to_string(expected));
  }
}

}  // namespace
}  // namespace rowsocket

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const rowsocket::McProtocol protocol =
      size > 0 ? rowsocket::McDetectProtocol(data[0]) : rowsocket::McProtocol::kText;
  rowsocket::CheckOne(input, protocol);
  return 0;
}
