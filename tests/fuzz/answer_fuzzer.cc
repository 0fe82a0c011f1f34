// libFuzzer target for the answer reader of the client library: FindLineEnd cuts
// the input into lines as a connection cuts its stream, ParseAnswer
// (protocol/answer.h) reads each line, and ToReply (src/client/reply.h) gives it the
// meaning it would have after each kind of request. One input is a stream of
// answers; a last line without LF is read too.
//
// Beyond "no crash, no memory error, no undefined behaviour", it checks:
//  - FindLineEnd stops at the first LF;
//  - ParseAnswer accepts exactly the lines (less one trailing CR) of at least two
//    tokens whose first two are decimal numbers that fit 32 bits, with code and count
//    their values, and one value per further token, at that token's start and equal
//    to it decoded by a plain reference decoder; NULL exactly for the token 0x00;
//  - an accepted answer written back (by ResponseWriter, for a success) reads back
//    the same;
//  - a reply ToReply accepts has the shape its kind promises, holding the answer's
//    values in order; an error answer is a server error with its code and message,
//    unless its code is past int's range (then it does not fit any request).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "protocol/answer.h"
#include "protocol/codec.h"
#include "protocol/response.h"
#include "reply.h"

namespace rowsocket {
namespace {

using fuzz::LineCopy;

bool SameValue(const WireValue& a, const WireValue& b) {
  return a.is_null == b.is_null && a.view() == b.view();
}

bool SameValue(const client::Value& a, const WireValue& b) {
  return a.is_null() == b.is_null && a.view() == b.view();
}

// ParseAnswer against the protocol's rules, read from the original bytes.
void CheckParse(bool accepted, const Answer& a, const LineCopy& line, std::string_view original) {
  std::string_view text = original;
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  const std::vector<std::string_view> tokens = fuzz::SplitTabs(text);
  uint64_t code = 0, count = 0;
  const bool expected = tokens.size() >= 2 &&
                        fuzz::ReferenceDecimal(tokens[0], UINT32_MAX, &code) &&
                        fuzz::ReferenceDecimal(tokens[1], UINT32_MAX, &count);
  FUZZ_CHECK(accepted == expected);
  if (!accepted) return;
  FUZZ_CHECK(a.code == code && a.count == count);
  FUZZ_CHECK(a.ok() == (code == 0));
  FUZZ_CHECK(a.values.size() == tokens.size() - 2);
  size_t offset = tokens[0].size() + 1 + tokens[1].size() + 1;  // of tokens[2]
  for (size_t i = 0; i < a.values.size(); ++i) {
    const WireValue& v = a.values[i];
    const std::string_view token = tokens[i + 2];
    if (token == std::string_view("\0", 1)) {
      FUZZ_CHECK(v.is_null && v.data == nullptr && v.size == 0);
    } else {
      FUZZ_CHECK(!v.is_null);
      FUZZ_CHECK(line.Holds(v.data, v.size) && line.OffsetOf(v.data) == offset);
      FUZZ_CHECK(v.view() == fuzz::ReferenceDecode(token));
    }
    offset += token.size() + 1;
  }
  FUZZ_CHECK(a.message() == (!a.ok() && !a.values.empty() ? a.values[0].view()
                                                         : std::string_view()));
}

// Writes an accepted answer back and reads it again.
void CheckRoundTrip(const Answer& a) {
  std::string written = std::to_string(a.code) + "\t" + std::to_string(a.count);
  for (const WireValue& v : a.values) {
    written.push_back('\t');
    if (v.is_null) AppendNull(&written); else AppendEncoded(&written, v.view());
  }
  if (a.ok()) {  // the server's writer must write exactly that
    std::string by_writer;
    ResponseWriter writer(&by_writer);
    writer.BeginRows(a.count);
    for (const WireValue& v : a.values) {
      if (v.is_null) writer.NullValue(); else writer.WireValue(v.view());
    }
    writer.EndRows();
    FUZZ_CHECK(by_writer == written + "\n");
  }
  LineCopy line(written);
  Answer again;
  FUZZ_CHECK(ParseAnswer(line.data(), line.size(), &again));
  FUZZ_CHECK(again.code == a.code && again.count == a.count);
  FUZZ_CHECK(std::equal(a.values.begin(), a.values.end(), again.values.begin(),
                        again.values.end(), [](const WireValue& x, const WireValue& y) {
                          return SameValue(x, y);
                        }));
}

// What the client library makes of the answer after each kind of request.
void CheckReplies(const Answer& a) {
  using client::RequestKind;
  for (RequestKind kind : {RequestKind::kAuth, RequestKind::kOpenIndex, RequestKind::kFind,
                           RequestKind::kModify, RequestKind::kModifyReturning,
                           RequestKind::kInsert}) {
    client::Result<client::Reply> reply = client::Reply();
    const bool accepted = client::ToReply(kind, a, &reply);
    if (!a.ok()) {
      // A code past int's range is no server's: the answer does not fit.
      const bool fits = a.code <= static_cast<uint32_t>(std::numeric_limits<int>::max());
      FUZZ_CHECK(accepted == fits);
      if (!fits) continue;
      FUZZ_CHECK(!reply.ok());
      const client::Error& e = reply.error();
      FUZZ_CHECK(e.is_server() && e.code() > 0 && e.code() == static_cast<int>(a.code));
      FUZZ_CHECK(e.message() == a.message());
      (void)e.ToString();
      continue;
    }
    if (!accepted) continue;
    FUZZ_CHECK(reply.ok() && reply->kind() == kind);
    const client::Rows& rows = reply->rows();
    switch (kind) {
      case RequestKind::kAuth:
      case RequestKind::kOpenIndex:
        FUZZ_CHECK(a.count == 1 && a.values.empty());
        break;
      case RequestKind::kFind:
      case RequestKind::kModifyReturning: {
        size_t i = 0;
        for (const client::Row& row : rows) {
          FUZZ_CHECK(row.size() == a.count);
          for (const client::Value& value : row) FUZZ_CHECK(SameValue(value, a.values[i++]));
        }
        FUZZ_CHECK(i == a.values.size());
        break;
      }
      case RequestKind::kModify: {
        uint64_t n = 0;
        FUZZ_CHECK(a.count == 1 && a.values.size() == 1 && !a.values[0].is_null);
        FUZZ_CHECK(fuzz::ReferenceDecimal(a.values[0].view(), UINT64_MAX, &n));
        FUZZ_CHECK(reply->count() == n);
        break;
      }
      case RequestKind::kInsert: {
        uint64_t id = 0;
        FUZZ_CHECK(a.count == 1 && a.values.size() <= 1);
        if (a.values.size() == 1) {
          FUZZ_CHECK(!a.values[0].is_null);
          FUZZ_CHECK(fuzz::ReferenceDecimal(a.values[0].view(), UINT64_MAX, &id));
        }
        FUZZ_CHECK(reply->insert_id() == id);
        break;
      }
    }
    if (kind != RequestKind::kFind && kind != RequestKind::kModifyReturning) {
      FUZZ_CHECK(rows.empty());
    }
  }
}

}  // namespace
}  // namespace rowsocket

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowsocket;
  std::string_view stream(reinterpret_cast<const char*>(data), size);
  static Answer answer;  // reused, as a connection reuses its Answer
  for (;;) {
    // Guide: cut the next line.
    const size_t end = FindLineEnd(stream.data(), stream.size());
    FUZZ_CHECK(end == std::min(stream.find('\n'), stream.size()));
    const std::string_view original = stream.substr(0, end);

    // Guide: read it, check it, and read what it means.
    LineCopy line(original);
    const bool accepted = ParseAnswer(line.data(), line.size(), &answer);
    CheckParse(accepted, answer, line, original);
    if (accepted) {
      CheckRoundTrip(answer);
      CheckReplies(answer);
    }

    if (end == stream.size()) break;
    stream.remove_prefix(end + 1);
  }
  return 0;
}
