// Requests of memcached's protocols (text, meta, binary), and the parser that makes them.
//
// ParseMcRequest takes the unread bytes of a connection and says one of three things:
// it needs more bytes, it parsed one request of `consumed` bytes, or the stream is
// lost and the connection must close. A McRequest is the same for every framing (a
// text `get a b`, a binary GetK, a meta `mg a v`), so the server and engine layers
// execute it without knowing how it came; the framing fields say only how to answer.
// The first byte of a connection decides its protocol (McDetectProtocol), as in
// memcached: 0x80 is binary, anything else text (meta commands are text).
//
// Every string_view of a McRequest points into the caller's input bytes: keep them
// unchanged while the request is in use. Requests are meant to be reused: Clear()
// keeps the keys vector's capacity. Pure code: no I/O, no allocation but that vector.
// Thread-compatible: a McRequest belongs to one thread at a time.
//
// What the parser checks is the shape (commands, token counts, numbers, key and value
// lengths, binary header lengths), with memcached 1.6's own error answers; what a key
// means, whether it exists, and whether a command is allowed is for the engine.
// Answers are written by McTextWriter / McBinaryWriter (memcached_response.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed_request.h"

namespace rowsocket {

// Longest key memcached accepts, in every framing.
constexpr size_t kMcMaxKeyLength = 250;
// Binary request and response headers.
constexpr size_t kMcBinaryHeaderSize = 24;
constexpr uint8_t kMcBinaryRequestMagic = 0x80;
constexpr uint8_t kMcBinaryResponseMagic = 0x81;
// A meta command carries at most this many flag tokens (memcached: 20 tokens in
// all, less the command, the key and its end marker).
constexpr size_t kMcMaxMetaFlags = 17;
// Longest meta opaque token (`O` included), as memcached.
constexpr size_t kMcMaxMetaOpaque = 32;

// A connection's protocol, fixed by its first byte.
enum class McProtocol : uint8_t { kText, kBinary };
inline McProtocol McDetectProtocol(uint8_t first_byte) {
  return first_byte == kMcBinaryRequestMagic ? McProtocol::kBinary : McProtocol::kText;
}

// How one request came, and so how it is answered.
enum class McFraming : uint8_t {
  kText,    // classic text commands: `VALUE`, `STORED`, ...
  kMeta,    // mg ms md ma mn me: `VA`, `HD`, `EN`, ...
  kBinary,  // 24-byte headers, status codes
};

enum class McCommand : uint8_t {
  kGet,        // text get; binary Get/GetQ/GetK/GetKQ
  kGets,       // text gets (binary answers always carry the CAS)
  kGat,        // text gat; binary GAT/GATQ/GATK/GATKQ
  kGats,       // text gats
  kStore,      // set add replace append prepend cas, binary Set..PrependQ: see `store`
  kDelete,
  kIncr,
  kDecr,
  kTouch,
  kVersion,
  kVerbosity,
  kStats,      // `argument`: the text after `stats`, or the binary key (group)
  kFlushAll,   // `exptime` (with has_exptime): the delay
  kQuit,
  kNoop,       // binary Noop
  kMetaGet,    // mg
  kMetaSet,    // ms: see `store`
  kMetaDelete,      // md
  kMetaArithmetic,  // ma: `decrement`, `delta`, `initial`, `vivify`
  kMetaNoop,        // mn
  kMetaDebug,       // me
  kSaslListMechs,
  kSaslAuth,   // `argument`: the mechanism; `value`: the client's data
  kSaslStep,
  kInvalid,    // see `error` / `error_status`
};

// What a storage command does. ms and the binary protocol turn set/replace (binary:
// set/add/replace) with a CAS into kCas, as memcached does.
enum class McStoreMode : uint8_t { kNone, kSet, kAdd, kReplace, kAppend, kPrepend, kCas };

// Binary response status codes.
enum class McStatus : uint16_t {
  kOk = 0x00,
  kKeyNotFound = 0x01,
  kKeyExists = 0x02,
  kValueTooLarge = 0x03,
  kInvalidArguments = 0x04,
  kNotStored = 0x05,
  kNonNumeric = 0x06,
  kAuthError = 0x20,
  kAuthContinue = 0x21,
  kUnknownCommand = 0x81,
  kOutOfMemory = 0x82,
};

// How a request ended, for McRequest::WantsAnswer.
enum class McOutcome : uint8_t {
  kSuccess,    // hit, STORED, DELETED, TOUCHED, a number, OK, HD
  kMiss,       // NOT_FOUND, EN, NF, binary key not found
  kNotStored,  // NOT_STORED, NS
  kExists,     // EXISTS, EX
  kError,      // any error answer
};

// Limits the caller chooses (the listener's options).
struct McLimits {
  // Longest value a storage command may carry; longer ones are answered
  // `SERVER_ERROR object too large for cache` (binary: kValueTooLarge) and skipped.
  size_t max_value_size = 1024 * 1024;
  // Longest text line (without its LF); a longer one closes the connection, like
  // memcached's 2048 bytes without a newline.
  size_t max_line = 2048;
  // get/gets/gat/gats lines may be longer (memcached lets multi-gets grow unbounded).
  size_t max_retrieval_line = 1024 * 1024;
};

// The meta flags of one mg/ms/md/ma request (`v`, `f`, `O123`, `T30`, ...). Flags
// with an argument store it in McRequest's common fields: F -> flags, T -> exptime,
// C -> cas, E -> new_cas, N -> vivify and vivify_exptime, D -> delta, J -> initial,
// M -> mode, R -> recache_exptime.
struct McMetaFlags {
  uint64_t present = 0;                // one bit per flag letter: see Has()
  char order[kMcMaxMetaFlags] = {};    // the flag letters, as sent (answers echo in order)
  uint8_t count = 0;
  std::string_view opaque;             // the whole `O...` token, echoed as sent
  char mode = 0;                       // M's character (0 when absent)

  static int Bit(char flag) {
    if (flag >= 'A' && flag <= 'Z') return flag - 'A';
    if (flag >= 'a' && flag <= 'z') return 26 + (flag - 'a');
    return -1;
  }
  bool Has(char flag) const {
    const int bit = Bit(flag);
    return bit >= 0 && (present >> bit) & 1;
  }
};

// (ParsedRequest::category: McCategoryOf, set by the server once its rules have run.)
struct McRequest : ParsedRequest {
  McCommand command = McCommand::kInvalid;
  McFraming framing = McFraming::kText;

  // get/gets/gat/gats take any number of keys (text gat may have none, and is
  // answered `END`); every other keyed command exactly one.
  std::vector<std::string_view> keys;

  McStoreMode store = McStoreMode::kNone;  // kStore, kMetaSet
  uint32_t flags = 0;          // client flags of a storage command
  int64_t exptime = 0;         // storage, touch, gat, flush_all delay, ms/mg/ma T, binary extras
  bool has_exptime = false;    // an exptime was given (flush_all, meta T, binary flush extras)
  uint64_t cas = 0;            // cas command, meta C, binary header CAS; 0 = none
  uint64_t new_cas = 0;        // meta E
  uint64_t delta = 1;          // incr/decr, ma D, binary extras
  uint64_t initial = 0;        // ma J, binary incr/decr extras
  bool decrement = false;      // kDecr, ma MD / M-
  bool vivify = false;         // ma/mg N; binary incr/decr unless exptime is 0xffffffff
  int64_t vivify_exptime = 0;  // N's TTL (binary: the extras' exptime)
  int64_t recache_exptime = 0; // mg R
  uint32_t verbosity = 0;
  std::string_view value;      // storage data (without its CRLF), SASL data
  std::string_view argument;   // stats arguments, SASL mechanism

  // noreply: text `noreply`, meta `q`, binary quiet opcodes. WantsAnswer() applies it.
  bool noreply = false;
  // Answer with the key: binary GetK/GetKQ/GATK/GATKQ, meta `k`.
  bool return_key = false;

  // Binary framing: the request's opcode and opaque, echoed by every answer.
  uint8_t opcode = 0;
  uint32_t opaque = 0;

  // Meta framing.
  McMetaFlags meta;

  // kInvalid: the whole text answer line without CRLF (`ERROR`,
  // `CLIENT_ERROR bad command line format`, `SERVER_ERROR object too large for
  // cache`, ...), and the binary status (in text too, kValueTooLarge where the
  // value is over the limit). Static strings.
  std::string_view error;
  McStatus error_status = McStatus::kOk;
  // Close the connection after answering (binary: the packet's lengths made no
  // sense, so the framing is lost; memcached answers kInvalidArguments and closes).
  bool close_after = false;
  // It changes rows (McWritesRows), as the server decided it once parsed.
  bool writes = false;

  // The key a base64 key (meta flag `b`) stands for, decoded; keys[0] points into it
  // (held on the heap, so that moving the request keeps it where keys[0] points).
  std::unique_ptr<std::string> decoded_key;

  // Resets to an empty request, keeping the keys vector's capacity.
  void Clear();

  // Whether an answer is written for this outcome, given the request's framing and
  // its noreply. Text `noreply` silences every answer, errors included (memcached
  // does; the parser sets noreply on a malformed line only where memcached had read
  // it). Meta `q` silences EN for mg and HD for ms/md/ma; errors always go out. A
  // binary quiet get silences misses; other quiet opcodes their success only.
  bool WantsAnswer(McOutcome outcome) const;
};

enum class McParseStatus : uint8_t {
  kNeedMore,  // no complete request yet; call again with more bytes
  kRequest,   // one request (maybe kInvalid, to be answered) of `consumed` bytes
  kClose,     // the stream cannot be read further: close without answering
};

struct McParseResult {
  McParseStatus status = McParseStatus::kNeedMore;
  size_t consumed = 0;  // kRequest: bytes of input the request took
  // kRequest: after these `consumed` bytes, drop this many more input bytes, which
  // may not have arrived yet (a value that was too large, the body of an unknown
  // binary command), as memcached's "swallow" state does.
  uint64_t discard = 0;
};

// Parses the first request of `input` (a connection's unread bytes) into `*out`.
McParseResult ParseMcRequest(std::string_view input, McProtocol protocol,
                             const McLimits& limits, McRequest* out);

// A key that memcached 1.6's text protocol accepts: 1 to 250 bytes, none of them a
// space, CR, LF or NUL (tabs, other control bytes, DEL and bytes above 0x7f are
// fine, as memcached stores them). Binary keys may hold any byte (memcached's binary
// protocol allows it) but have the same length limits.
bool McValidKey(std::string_view key, McFraming framing);

// Base64 (RFC 4648's alphabet, with `=` padding) for the meta protocol's binary
// keys. McBase64Decode appends the bytes `text` stands for to `*out`; false (leaving
// *out as it was) when `text` is not base64: a length that is not a multiple of 4, a
// byte outside the alphabet, padding in the middle.
bool McBase64Decode(std::string_view text, std::string* out);
void McBase64Encode(std::string_view bytes, std::string* out);

// incr/decr on a stored value, with memcached's rules: the value must be a decimal
// unsigned 64-bit number (ASCII digits, optionally followed by spaces, as memcached's
// own in-place decr leaves them); incr wraps at 2^64, decr stops at 0.
struct McDeltaResult {
  bool numeric = false;  // false: `CLIENT_ERROR cannot increment or decrement
                         // non-numeric value` / McStatus::kNonNumeric
  uint64_t value = 0;
  char digits[20] = {};  // the new value as text, what is stored back
  uint8_t size = 0;
  std::string_view text() const { return std::string_view(digits, size); }
};
McDeltaResult McApplyDelta(std::string_view stored, bool decrement, uint64_t delta);

// The text and binary error answers for a non-numeric incr/decr.
constexpr std::string_view kMcNonNumericError =
    "CLIENT_ERROR cannot increment or decrement non-numeric value";

}  // namespace rowsocket
