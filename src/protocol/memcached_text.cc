// The text half of ParseMcRequest: classic commands and meta commands, one line (and,
// for storage commands, one data block) at a time.
//
// Called by the server's connection code on its event-loop thread. A line ends at LF
// (a CR before it is dropped, as memcached does); it is cut into space-separated
// tokens, at most 23 of them as memcached's tokenizer (a longer line is a wrong
// token count, except for the keys of a retrieval command, which may run on). Each
// command checks its token count, then its numbers and keys, in memcached 1.6's order
// and with its answers, so that a client sees the error memcached would give.
#include <cstring>

#include "protocol/memcached.h"
#include "protocol/memcached_parse.h"

namespace rowsocket {
namespace mc_internal {
namespace {

constexpr std::string_view kError = "ERROR";
constexpr std::string_view kBadFormat = "CLIENT_ERROR bad command line format";
constexpr std::string_view kBadExptime = "CLIENT_ERROR invalid exptime argument";
constexpr std::string_view kBadDelta = "CLIENT_ERROR invalid numeric delta argument";
constexpr std::string_view kBadDeleteFormat =
    "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]";
constexpr std::string_view kBadDataChunk = "CLIENT_ERROR bad data chunk";
constexpr std::string_view kTooLarge = "SERVER_ERROR object too large for cache";
constexpr std::string_view kBadMetaToken = "CLIENT_ERROR bad token in command line format";
constexpr std::string_view kBadBase64Key = "CLIENT_ERROR error decoding key";

// A line cut at spaces: at most kMax tokens, as memcached's MAX_TOKENS (24, one of
// which is its end marker); `more` when the line holds further tokens.
struct Tokens {
  static constexpr size_t kMax = 23;
  std::string_view token[kMax];
  size_t count = 0;
  bool more = false;

  std::string_view last() const { return token[count - 1]; }
};

// The next space-separated token of `*rest`, taken off it; empty when none is left.
std::string_view NextToken(std::string_view* rest) {
  // (A plain loop: tokens are short, and a search call per token costs more.)
  const char* p = rest->data();
  const char* const end = p + rest->size();
  while (p != end && *p == ' ') ++p;
  const char* const start = p;
  while (p != end && *p != ' ') ++p;
  *rest = std::string_view(p, static_cast<size_t>(end - p));
  return std::string_view(start, static_cast<size_t>(p - start));
}

void Tokenize(std::string_view line, Tokens* tokens) {
  while (tokens->count < Tokens::kMax) {
    const std::string_view t = NextToken(&line);
    if (t.empty()) return;
    tokens->token[tokens->count++] = t;
  }
  tokens->more = !NextToken(&line).empty();
}

// Whether a line starting with `input` is a retrieval command, allowed to be longer
// than max_line. Decided by the first token and the space after it, which must lie
// within the first max_line bytes: asked only once that many bytes are there, the
// answer is the same however the line arrives.
bool IsRetrieval(std::string_view input, size_t max_line) {
  input = input.substr(0, max_line);
  const size_t start = input.find_first_not_of(' ');
  if (start == std::string_view::npos) return false;
  input.remove_prefix(start);
  const size_t space = input.find(' ');
  if (space == std::string_view::npos) return false;
  const std::string_view command = input.substr(0, space);
  return command == "get" || command == "gets" || command == "gat" || command == "gats";
}

// Parses one complete line; for storage commands also looks at the data block after
// it. `result` comes in as a request of the line's bytes.
class LineParser {
 public:
  LineParser(std::string_view line, std::string_view after, const McLimits& limits,
             McRequest* out, McParseResult* result)
      : line_(line), after_(after), limits_(limits), out_(out), result_(result) {}

  void Parse();

 private:
  void Fail(std::string_view error) {
    out_->command = McCommand::kInvalid;
    out_->error = error;
    out_->error_status = McStatus::kInvalidArguments;
  }
  // Sets noreply when the last token says so (memcached's set_noreply_maybe).
  void NoreplyMaybe() { out_->noreply = tokens_.last() == "noreply"; }
  bool TakeKey(std::string_view key) {
    if (!McValidKey(key, out_->framing)) return false;
    out_->keys.push_back(key);
    return true;
  }
  // A meta command's key, base64 when its flags have `b` (then any bytes, as in the
  // binary protocol). Fails with the command's error.
  bool TakeMetaKey(std::string_view key) {
    if (!out_->meta.Has('b')) {
      if (TakeKey(key)) return true;
      Fail(kBadFormat);
      return false;
    }
    out_->decoded_key = std::make_unique<std::string>();
    if (!McBase64Decode(key, out_->decoded_key.get())) {
      Fail(kBadBase64Key);
      return false;
    }
    const std::string_view decoded(*out_->decoded_key);
    if (!McValidKey(decoded, McFraming::kBinary)) {
      Fail(kBadFormat);
      return false;
    }
    out_->keys.push_back(decoded);
    return true;
  }

  void Retrieval(McCommand command);
  void Storage(McStoreMode mode);
  void Arithmetic(bool decrement);
  void Touch();
  void Delete();
  void Verbosity();
  void FlushAll();
  void Stats();

  void Meta();
  bool MetaFlags(size_t first);
  bool MetaFlag(std::string_view token);
  enum class FlagArgument : uint8_t;
  FlagArgument ReadMetaFlagArgument(std::string_view token);
  void MetaSet();
  // Takes the data block of `size` bytes after the line into out_->value, or asks for
  // more input, or fails on a bad terminator.
  void DataBlock(size_t size);
  // A storage command that is not executed: answer `error`, and skip its data block.
  // `status`: what the refusal is, for the counters (kValueTooLarge: store_too_large).
  void FailAndSkip(std::string_view error, size_t size,
                   McStatus status = McStatus::kInvalidArguments) {
    Fail(error);
    out_->error_status = status;
    result_->discard = static_cast<uint64_t>(size) + 2;
  }

  std::string_view line_;
  std::string_view after_;  // the input after the line's LF
  const McLimits& limits_;
  McRequest* out_;
  McParseResult* result_;
  Tokens tokens_;
};

void LineParser::Parse() {
  Tokenize(line_, &tokens_);
  const size_t n = tokens_.count;
  if (n == 0 || tokens_.token[0].size() < 2) return Fail(kError);
  const std::string_view command = tokens_.token[0];
  if (command[0] == 'm' && command.size() == 2) return Meta();

  // Guide: token counts (memcached answers a wrong count `ERROR`).
  auto count_in = [n](size_t low, size_t high) { return n >= low && n <= high; };
  if (command == "get" || command == "gets" || command == "gat" || command == "gats") {
    if (n < 2) return Fail(kError);
    if (command == "get") return Retrieval(McCommand::kGet);
    if (command == "gets") return Retrieval(McCommand::kGets);
    if (command == "gat") return Retrieval(McCommand::kGat);
    return Retrieval(McCommand::kGats);
  }
  struct StorageName { std::string_view name; McStoreMode mode; };
  static constexpr StorageName kStorage[] = {
      {"set", McStoreMode::kSet},         {"add", McStoreMode::kAdd},
      {"replace", McStoreMode::kReplace}, {"append", McStoreMode::kAppend},
      {"prepend", McStoreMode::kPrepend}, {"cas", McStoreMode::kCas}};
  for (const StorageName& s : kStorage) {
    if (command != s.name) continue;
    const size_t base = s.mode == McStoreMode::kCas ? 6 : 5;
    if (!count_in(base, base + 1)) return Fail(kError);
    return Storage(s.mode);
  }
  if (command == "incr" || command == "decr") {
    if (!count_in(3, 4)) return Fail(kError);
    return Arithmetic(command == "decr");
  }
  if (command == "touch") return count_in(3, 4) ? Touch() : Fail(kError);
  if (command == "delete") return count_in(2, 4) ? Delete() : Fail(kError);
  if (command == "verbosity") return count_in(2, 3) ? Verbosity() : Fail(kError);
  if (command == "flush_all") return count_in(1, 3) ? FlushAll() : Fail(kError);
  if (command == "stats") return Stats();
  if (command == "version") {
    out_->command = McCommand::kVersion;
    return;
  }
  if (command == "quit") {
    out_->command = McCommand::kQuit;
    return;
  }
  Fail(kError);
}

void LineParser::Retrieval(McCommand command) {
  std::string_view rest = line_;
  NextToken(&rest);  // the command
  if (command == McCommand::kGat || command == McCommand::kGats) {
    if (!ParseInt32(NextToken(&rest), &out_->exptime)) return Fail(kBadExptime);
    out_->has_exptime = true;
  }
  for (std::string_view key = NextToken(&rest); !key.empty(); key = NextToken(&rest)) {
    if (!TakeKey(key)) return Fail(kBadFormat);
  }
  out_->command = command;
}

void LineParser::Storage(McStoreMode mode) {
  NoreplyMaybe();
  const Tokens& t = tokens_;
  uint64_t flags = 0;
  int64_t size = 0;
  const bool size_read = ParseInt32(t.token[4], &size) && size >= 0 && size <= 0x7fffffff - 2;
  // A key memcached would refuse answers memcached's words; its data block, when the
  // line says how long it is, is skipped, so that it is never read as a command.
  if (!TakeKey(t.token[1]))
    return size_read ? FailAndSkip(kBadFormat, static_cast<size_t>(size)) : Fail(kBadFormat);
  if (!ParseUnsigned(t.token[2], UINT32_MAX, &flags) || !ParseInt32(t.token[3], &out_->exptime) ||
      !size_read) {
    return Fail(kBadFormat);
  }
  if (mode == McStoreMode::kCas && !ParseUnsigned(t.token[5], UINT64_MAX, &out_->cas)) {
    return Fail(kBadFormat);
  }
  out_->flags = static_cast<uint32_t>(flags);
  out_->has_exptime = true;
  out_->store = mode;
  if (static_cast<uint64_t>(size) > limits_.max_value_size) {
    return FailAndSkip(kTooLarge, static_cast<size_t>(size), McStatus::kValueTooLarge);
  }
  out_->command = McCommand::kStore;
  DataBlock(static_cast<size_t>(size));
}

void LineParser::DataBlock(size_t size) {
  if (after_.size() < size + 2) {
    result_->status = McParseStatus::kNeedMore;
    result_->consumed = 0;
    return;
  }
  result_->consumed += size + 2;
  if (after_[size] != '\r' || after_[size + 1] != '\n') return Fail(kBadDataChunk);
  out_->value = after_.substr(0, size);
}

void LineParser::Arithmetic(bool decrement) {
  NoreplyMaybe();
  if (!TakeKey(tokens_.token[1])) return Fail(kBadFormat);
  if (!ParseUnsigned(tokens_.token[2], UINT64_MAX, &out_->delta)) return Fail(kBadDelta);
  out_->decrement = decrement;
  out_->command = decrement ? McCommand::kDecr : McCommand::kIncr;
}

void LineParser::Touch() {
  NoreplyMaybe();
  if (!TakeKey(tokens_.token[1])) return Fail(kBadFormat);
  if (!ParseInt32(tokens_.token[2], &out_->exptime)) return Fail(kBadExptime);
  out_->has_exptime = true;
  out_->command = McCommand::kTouch;
}

void LineParser::Delete() {
  // `delete <key> [0] [noreply]`: the old hold time is accepted only as 0.
  const size_t n = tokens_.count;
  if (n > 2) {
    const bool hold_is_zero = tokens_.token[2] == "0";
    NoreplyMaybe();
    const bool valid = (n == 3 && (hold_is_zero || out_->noreply)) ||
                       (n == 4 && hold_is_zero && out_->noreply);
    if (!valid) return Fail(kBadDeleteFormat);
  }
  if (!TakeKey(tokens_.token[1])) return Fail(kBadFormat);
  out_->command = McCommand::kDelete;
}

void LineParser::Verbosity() {
  NoreplyMaybe();
  uint64_t level = 0;
  if (!ParseUnsigned(tokens_.token[1], UINT32_MAX, &level)) return Fail(kBadFormat);
  out_->verbosity = static_cast<uint32_t>(level);
  out_->command = McCommand::kVerbosity;
}

void LineParser::FlushAll() {
  NoreplyMaybe();
  if (tokens_.count != (out_->noreply ? 2u : 1u)) {
    if (!ParseInt32(tokens_.token[1], &out_->exptime)) return Fail(kBadExptime);
    out_->has_exptime = true;
  }
  out_->command = McCommand::kFlushAll;
}

void LineParser::Stats() {
  std::string_view rest = line_;
  NextToken(&rest);
  const size_t start = rest.find_first_not_of(' ');
  const size_t end = rest.find_last_not_of(' ');
  out_->argument = start == std::string_view::npos ? std::string_view()
                                                   : rest.substr(start, end - start + 1);
  out_->command = McCommand::kStats;
}

// --- meta commands -------------------------------------------------------------------

void LineParser::Meta() {
  out_->framing = McFraming::kMeta;
  const size_t n = tokens_.count;
  const char which = tokens_.token[0][1];
  if (which == 'n') {
    out_->command = McCommand::kMetaNoop;
    return;
  }
  if (which != 'g' && which != 's' && which != 'd' && which != 'a' && which != 'e') {
    return Fail(kError);
  }
  if (n < 2) return Fail(kError);
  const std::string_view key = tokens_.token[1];
  if (key.size() > kMcMaxKeyLength) return Fail(kBadFormat);
  if (which == 'e') {
    // `me <key> [b]`: memcached reads no other flag.
    if (n >= 3 && tokens_.token[2] == "b") out_->meta.present |= uint64_t{1} << McMetaFlags::Bit('b');
    if (!TakeMetaKey(key)) return;
    out_->command = McCommand::kMetaDebug;
    return;
  }
  if (which == 's') return MetaSet();
  if (n + 1 > 20 || tokens_.more) {
    return Fail(which == 'g' ? "CLIENT_ERROR options flags are too long"
                             : "CLIENT_ERROR options flags too long");
  }
  if (!MetaFlags(2)) {
    // memcached answers md and ma flag errors with one message.
    if (which != 'g') out_->error = "CLIENT_ERROR invalid or duplicate flag";
    return;
  }
  if (!TakeMetaKey(key)) return;
  if (which == 'g') {
    out_->command = McCommand::kMetaGet;
  } else if (which == 'd') {
    out_->command = McCommand::kMetaDelete;
  } else {
    switch (out_->meta.mode) {
      case 0: case 'I': case 'i': case '+': out_->decrement = false; break;
      case 'D': case 'd': case '-':         out_->decrement = true; break;
      default: return Fail("CLIENT_ERROR invalid mode for ma M token");
    }
    out_->command = McCommand::kMetaArithmetic;
  }
}

// `ms <key> <datalen> <flags>*`. Once the data length is known, an error skips the
// data block, as memcached does.
void LineParser::MetaSet() {
  const size_t n = tokens_.count;
  if (n == 2) return Fail(kBadFormat);
  if (n + 1 > 20 || tokens_.more) return Fail("CLIENT_ERROR options flags too long");
  int64_t size = 0;
  if (!ParseInt32(tokens_.token[2], &size) || size < 0 || size > 0x7fffffff - 2) {
    return Fail(kBadFormat);
  }
  const size_t data_size = static_cast<size_t>(size);
  if (!MetaFlags(3)) return FailAndSkip(out_->error, data_size);
  if (!TakeMetaKey(tokens_.token[1])) return FailAndSkip(out_->error, data_size);
  McStoreMode mode;
  switch (out_->meta.mode) {
    case 0: case 'S': case 's': mode = McStoreMode::kSet; break;
    case 'E': case 'e':         mode = McStoreMode::kAdd; break;
    case 'A': case 'a':         mode = McStoreMode::kAppend; break;
    case 'P': case 'p':         mode = McStoreMode::kPrepend; break;
    case 'R': case 'r':         mode = McStoreMode::kReplace; break;
    default: return FailAndSkip("CLIENT_ERROR invalid mode for ms M token", data_size);
  }
  if (out_->meta.Has('C') && (mode == McStoreMode::kSet || mode == McStoreMode::kReplace)) {
    mode = McStoreMode::kCas;
  }
  out_->store = mode;
  if (static_cast<uint64_t>(size) > limits_.max_value_size) {
    return FailAndSkip(kTooLarge, data_size, McStatus::kValueTooLarge);
  }
  out_->command = McCommand::kMetaSet;
  DataBlock(data_size);
}

bool LineParser::MetaFlags(size_t first) {
  for (size_t i = first; i < tokens_.count; ++i) {
    if (!MetaFlag(tokens_.token[i])) return false;
  }
  return true;
}

// What ReadMetaFlagArgument found.
enum class LineParser::FlagArgument : uint8_t {
  kRead,        // the flag is known and its argument, if any, stored in the request
  kNotANumber,  // a flag whose argument must be a number has another one
  kRefused,     // Fail() has set the answer
};

// Stores the argument that follows a flag's letter, for the letters that take one,
// in the request's common fields (see McMetaFlags).
LineParser::FlagArgument LineParser::ReadMetaFlagArgument(std::string_view token) {
  McMetaFlags& meta = out_->meta;
  const std::string_view arg = token.substr(1);
  auto refuse = [this](std::string_view error) {
    Fail(error);
    return FlagArgument::kRefused;
  };
  auto read_if = [](bool parsed) {
    return parsed ? FlagArgument::kRead : FlagArgument::kNotANumber;
  };
  switch (token[0]) {
    case 'b':
      return read_if(arg.empty());
    case 'N':
      if (!ParseInt32(arg, &out_->vivify_exptime)) return FlagArgument::kNotANumber;
      out_->vivify = true;
      return FlagArgument::kRead;
    case 'T':
      if (!ParseInt32(arg, &out_->exptime)) return FlagArgument::kNotANumber;
      out_->has_exptime = true;
      return FlagArgument::kRead;
    case 'R':
      return read_if(ParseInt32(arg, &out_->recache_exptime));
    case 'C':
      return read_if(ParseUnsigned(arg, UINT64_MAX, &out_->cas));
    case 'E':
      return read_if(ParseUnsigned(arg, UINT64_MAX, &out_->new_cas));
    case 'F': {
      uint64_t flags = 0;
      if (!ParseUnsigned(arg, UINT32_MAX, &flags)) return refuse(kBadFormat);
      out_->flags = static_cast<uint32_t>(flags);
      return FlagArgument::kRead;
    }
    case 'M':
      if (token.size() != 2) return refuse("CLIENT_ERROR incorrect length for M token");
      meta.mode = token[1];
      return FlagArgument::kRead;
    case 'J':
      if (!ParseUnsigned(arg, UINT64_MAX, &out_->initial)) {
        return refuse("CLIENT_ERROR invalid numeric initial value");
      }
      return FlagArgument::kRead;
    case 'D':
      if (!ParseUnsigned(arg, UINT64_MAX, &out_->delta)) {
        return refuse("CLIENT_ERROR invalid numeric delta value");
      }
      return FlagArgument::kRead;
    case 'O':
      if (token.size() > kMcMaxMetaOpaque) return refuse("CLIENT_ERROR opaque token too long");
      meta.opaque = token;
      return FlagArgument::kRead;
    case 'q':
      out_->noreply = true;
      return FlagArgument::kRead;
    case 'k':
      out_->return_key = true;
      return FlagArgument::kRead;
    case 'v': case 'f': case 't': case 'c': case 's': case 'h': case 'l': case 'u':
    case 'I': case 'x': case 'P': case 'L':
      return FlagArgument::kRead;
    default:
      return refuse("CLIENT_ERROR invalid flag");
  }
}

// One flag token: its letter, and the argument that follows it for some letters.
bool LineParser::MetaFlag(std::string_view token) {
  McMetaFlags& meta = out_->meta;
  const int bit = McMetaFlags::Bit(token[0]);
  if (bit >= 0 && (meta.present >> bit) & 1) {
    Fail("CLIENT_ERROR duplicate flag");
    return false;
  }
  switch (ReadMetaFlagArgument(token)) {
    case FlagArgument::kRead:
      break;
    case FlagArgument::kNotANumber:
      Fail(kBadMetaToken);
      return false;
    case FlagArgument::kRefused:
      return false;
  }
  meta.present |= uint64_t{1} << bit;
  meta.order[meta.count++] = token[0];
  return true;
}

}  // namespace

McParseResult ParseText(std::string_view input, const McLimits& limits, McRequest* out) {
  McParseResult result;
  out->framing = McFraming::kText;
  // Guide: find the line's end, within the line limits.
  const size_t window = input.size() < limits.max_retrieval_line + 1
                            ? input.size() : limits.max_retrieval_line + 1;
  const void* lf = window > 0 ? std::memchr(input.data(), '\n', window) : nullptr;
  if (lf == nullptr) {
    if (input.size() > limits.max_line &&
        (!IsRetrieval(input, limits.max_line) || input.size() > limits.max_retrieval_line)) {
      result.status = McParseStatus::kClose;
    }
    return result;
  }
  const size_t length = static_cast<size_t>(static_cast<const char*>(lf) - input.data());
  if (length > limits.max_line && !IsRetrieval(input, limits.max_line)) {
    result.status = McParseStatus::kClose;
    return result;
  }
  std::string_view line = input.substr(0, length);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

  // Guide: parse it (a storage command may still ask for its data block).
  result.status = McParseStatus::kRequest;
  result.consumed = length + 1;
  LineParser(line, input.substr(length + 1), limits, out, &result).Parse();
  return result;
}

}  // namespace mc_internal
}  // namespace rowsocket
