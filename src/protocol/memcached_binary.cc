// The binary half of ParseMcRequest: one packet, a 24-byte header and its body of
// extras, key and value.
//
// Called by the server's connection code on its event-loop thread. The header alone
// decides what happens, before any body byte is waited for: a magic other than 0x80
// closes the stream (memcached does); an unknown opcode is answered kUnknownCommand
// and its body skipped; lengths that do not fit the opcode (each opcode has fixed
// extras, a key or none, a value or none) are answered kInvalidArguments and the
// connection closed, because nothing after them can be trusted. A storage value over
// the caller's limit is answered kValueTooLarge and skipped. Only then is the whole
// body awaited and cut.
#include "protocol/memcached.h"
#include "protocol/memcached_parse.h"

namespace rowsocket {
namespace mc_internal {
namespace {

// SASL data longer than this is refused (PLAIN carries two names and a password).
constexpr size_t kMaxSaslData = 4096;

enum class KeyRule : uint8_t { kNone, kRequired, kOptional };

// What an opcode is, and the shape of its body.
struct OpcodeSpec {
  McCommand command = McCommand::kInvalid;
  McStoreMode store = McStoreMode::kNone;
  bool quiet = false;
  bool return_key = false;
  uint8_t extras = 0;      // the extras' length
  uint8_t alt_extras = 0;  // another accepted length (Flush: 0 or 4)
  KeyRule key = KeyRule::kNone;
  bool value = false;      // a value may follow the key
};

OpcodeSpec Spec(uint8_t opcode) {
  OpcodeSpec s;
  auto get = [&s](McCommand command, bool quiet, bool return_key, uint8_t extras) {
    s.command = command;
    s.quiet = quiet;
    s.return_key = return_key;
    s.extras = s.alt_extras = extras;
    s.key = KeyRule::kRequired;
  };
  auto store = [&s](McStoreMode mode, bool quiet) {
    s.command = McCommand::kStore;
    s.store = mode;
    s.quiet = quiet;
    const bool has_extras = mode != McStoreMode::kAppend && mode != McStoreMode::kPrepend;
    s.extras = s.alt_extras = has_extras ? 8 : 0;
    s.key = KeyRule::kRequired;
    s.value = true;
  };
  auto bare = [&s](McCommand command, bool quiet) {
    s.command = command;
    s.quiet = quiet;
  };
  switch (opcode) {
    case 0x00: get(McCommand::kGet, false, false, 0); break;     // Get
    case 0x09: get(McCommand::kGet, true, false, 0); break;      // GetQ
    case 0x0c: get(McCommand::kGet, false, true, 0); break;      // GetK
    case 0x0d: get(McCommand::kGet, true, true, 0); break;       // GetKQ
    case 0x1d: get(McCommand::kGat, false, false, 4); break;     // GAT
    case 0x1e: get(McCommand::kGat, true, false, 4); break;      // GATQ
    case 0x23: get(McCommand::kGat, false, true, 4); break;      // GATK
    case 0x24: get(McCommand::kGat, true, true, 4); break;       // GATKQ
    case 0x1c: get(McCommand::kTouch, false, false, 4); break;   // Touch
    case 0x04: get(McCommand::kDelete, false, false, 0); break;  // Delete
    case 0x14: get(McCommand::kDelete, true, false, 0); break;   // DeleteQ
    case 0x05: get(McCommand::kIncr, false, false, 20); break;   // Increment
    case 0x15: get(McCommand::kIncr, true, false, 20); break;    // IncrementQ
    case 0x06: get(McCommand::kDecr, false, false, 20); break;   // Decrement
    case 0x16: get(McCommand::kDecr, true, false, 20); break;    // DecrementQ
    case 0x01: store(McStoreMode::kSet, false); break;
    case 0x11: store(McStoreMode::kSet, true); break;
    case 0x02: store(McStoreMode::kAdd, false); break;
    case 0x12: store(McStoreMode::kAdd, true); break;
    case 0x03: store(McStoreMode::kReplace, false); break;
    case 0x13: store(McStoreMode::kReplace, true); break;
    case 0x0e: store(McStoreMode::kAppend, false); break;
    case 0x19: store(McStoreMode::kAppend, true); break;
    case 0x0f: store(McStoreMode::kPrepend, false); break;
    case 0x1a: store(McStoreMode::kPrepend, true); break;
    case 0x07: bare(McCommand::kQuit, false); break;
    case 0x17: bare(McCommand::kQuit, true); break;
    case 0x08: bare(McCommand::kFlushAll, false); s.alt_extras = 4; break;
    case 0x18: bare(McCommand::kFlushAll, true); s.alt_extras = 4; break;
    case 0x0a: bare(McCommand::kNoop, false); break;
    case 0x0b: bare(McCommand::kVersion, false); break;
    case 0x10: bare(McCommand::kStats, false); s.key = KeyRule::kOptional; break;
    case 0x1b: bare(McCommand::kVerbosity, false); s.extras = s.alt_extras = 4; break;
    case 0x20: bare(McCommand::kSaslListMechs, false); break;
    case 0x21: bare(McCommand::kSaslAuth, false); s.key = KeyRule::kRequired; s.value = true; break;
    case 0x22: bare(McCommand::kSaslStep, false); s.key = KeyRule::kRequired; s.value = true; break;
    default: break;
  }
  return s;
}

uint32_t Load32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}
uint64_t Load64(const char* p) { return (uint64_t{Load32(p)} << 32) | Load32(p + 4); }

// An exptime of the binary extras: memcached reads it as a signed 32-bit number.
int64_t Exptime(const char* p) { return static_cast<int32_t>(Load32(p)); }

bool ShapeFits(const OpcodeSpec& spec, size_t extras, size_t key, uint64_t value) {
  if (extras != spec.extras && extras != spec.alt_extras) return false;
  if (spec.key == KeyRule::kNone && key != 0) return false;
  if (spec.key == KeyRule::kRequired && key == 0) return false;
  return spec.value || value == 0;
}

void Invalid(McRequest* out, McStatus status) {
  out->command = McCommand::kInvalid;
  out->error_status = status;
  switch (status) {
    case McStatus::kUnknownCommand: out->error = "ERROR"; break;
    case McStatus::kValueTooLarge: out->error = "SERVER_ERROR object too large for cache"; break;
    default: out->error = "CLIENT_ERROR bad command line format"; break;
  }
}

// Fills the request's fields that the opcode carries in its extras (flags,
// exptime, delta, initial, verbosity); `extras` holds `extras_size` bytes, a size
// ShapeFits accepted for the opcode.
void ReadExtras(const OpcodeSpec& spec, const char* extras, size_t extras_size,
                McRequest* out) {
  switch (spec.command) {
    case McCommand::kStore:
      if (extras_size == 8) {
        out->flags = Load32(extras);
        out->exptime = Exptime(extras + 4);
        out->has_exptime = true;
      }
      // memcached turns a set, add or replace with a CAS into a compare-and-swap.
      if (out->cas != 0 && (spec.store == McStoreMode::kSet || spec.store == McStoreMode::kAdd ||
                            spec.store == McStoreMode::kReplace)) {
        out->store = McStoreMode::kCas;
      }
      break;
    case McCommand::kGat:
    case McCommand::kTouch:
      out->exptime = Exptime(extras);
      out->has_exptime = true;
      break;
    case McCommand::kIncr:
    case McCommand::kDecr:
      out->decrement = spec.command == McCommand::kDecr;
      out->delta = Load64(extras);
      out->initial = Load64(extras + 8);
      // An exptime of all ones: a missing counter is not created.
      out->vivify = Load32(extras + 16) != 0xffffffffu;
      out->vivify_exptime = out->vivify ? Exptime(extras + 16) : 0;
      break;
    case McCommand::kFlushAll:
      if (extras_size == 4) {
        out->exptime = Exptime(extras);
        out->has_exptime = true;
      }
      break;
    case McCommand::kVerbosity:
      out->verbosity = Load32(extras);
      break;
    default:
      break;
  }
}

}  // namespace

McParseResult ParseBinary(std::string_view input, const McLimits& limits, McRequest* out) {
  McParseResult result;
  out->framing = McFraming::kBinary;
  if (input.size() < kMcBinaryHeaderSize) return result;

  // Guide: the header.
  const char* h = input.data();
  if (static_cast<uint8_t>(h[0]) != kMcBinaryRequestMagic) {
    result.status = McParseStatus::kClose;
    return result;
  }
  out->opcode = static_cast<uint8_t>(h[1]);
  const size_t key_size = (size_t{static_cast<uint8_t>(h[2])} << 8) | static_cast<uint8_t>(h[3]);
  const size_t extras_size = static_cast<uint8_t>(h[4]);
  const uint64_t body_size = Load32(h + 8);
  out->opaque = Load32(h + 12);
  out->cas = Load64(h + 16);
  result.status = McParseStatus::kRequest;
  result.consumed = kMcBinaryHeaderSize;

  // Guide: decide from the header alone: unknown opcode, lengths that lie, too large.
  const OpcodeSpec spec = Spec(out->opcode);
  out->noreply = spec.quiet;
  if (spec.command == McCommand::kInvalid) {
    Invalid(out, McStatus::kUnknownCommand);
    result.discard = body_size;
    return result;
  }
  if (key_size > kMcMaxKeyLength || key_size + extras_size > body_size ||
      !ShapeFits(spec, extras_size, key_size, body_size - key_size - extras_size)) {
    Invalid(out, McStatus::kInvalidArguments);
    out->close_after = true;
    return result;
  }
  const uint64_t value_size = body_size - key_size - extras_size;
  const size_t head_size = kMcBinaryHeaderSize + extras_size + key_size;
  if (spec.command == McCommand::kStore && value_size > limits.max_value_size) {
    // Wait for the key, so that the engine knows which item the refused set was for.
    if (input.size() < head_size) {
      result = McParseResult();
      return result;
    }
    Invalid(out, McStatus::kValueTooLarge);
    out->store = spec.store;
    out->keys.push_back(input.substr(kMcBinaryHeaderSize + extras_size, key_size));
    result.consumed = head_size;
    result.discard = value_size;
    return result;
  }
  if (spec.value && spec.command != McCommand::kStore && value_size > kMaxSaslData) {
    Invalid(out, McStatus::kInvalidArguments);
    result.discard = body_size;
    return result;
  }

  // Guide: the whole body, cut into extras, key and value.
  if (input.size() - kMcBinaryHeaderSize < body_size) return McParseResult();
  result.consumed = kMcBinaryHeaderSize + static_cast<size_t>(body_size);
  const char* extras = h + kMcBinaryHeaderSize;
  const std::string_view key = input.substr(kMcBinaryHeaderSize + extras_size, key_size);
  out->value = input.substr(head_size, static_cast<size_t>(value_size));
  out->command = spec.command;
  out->store = spec.store;
  out->return_key = spec.return_key;
  if (spec.key == KeyRule::kRequired && spec.command != McCommand::kSaslAuth &&
      spec.command != McCommand::kSaslStep) {
    out->keys.push_back(key);
  } else {
    out->argument = key;  // stats group, SASL mechanism
  }
  ReadExtras(spec, extras, extras_size, out);
  return result;
}

}  // namespace mc_internal
}  // namespace rowsocket
