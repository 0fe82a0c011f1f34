// McTextWriter and McBinaryWriter: append memcached answers to an output buffer.
//
// Called by the server's connection code and by the engine while it executes a
// batch, on the thread that owns the buffer. Numbers are formatted with
// std::to_chars, so an answer allocates only when the buffer has to grow.
#include "protocol/memcached_response.h"

#include <charconv>
#include <cstring>

namespace rowsocket {

namespace {

template <typename Int>
void AppendDecimal(std::string* out, Int v) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendBig(std::string* out, uint64_t v, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

// A meta return flag: a space, the letter, the number.
template <typename Int>
void AppendFlag(std::string* out, char flag, Int v) {
  out->push_back(' ');
  out->push_back(flag);
  AppendDecimal(out, v);
}

// Whether `command` echoes return flag `flag` (with an item: `with_item`).
bool Echoes(McCommand command, char flag, bool with_item) {
  if (flag == 'O' || flag == 'k') return true;
  if (!with_item) return false;
  switch (command) {
    case McCommand::kMetaGet:
      return flag == 's' || flag == 't' || flag == 'c' || flag == 'f' || flag == 'l' ||
             flag == 'h';
    case McCommand::kMetaSet:
      return flag == 'c';
    case McCommand::kMetaArithmetic:
      return flag == 'c' || flag == 't';
    default:
      return false;
  }
}

}  // namespace

// --- text ----------------------------------------------------------------------------

void McTextWriter::Reply(McTextReply reply) {
  static constexpr std::string_view kLines[] = {
      "STORED\r\n", "NOT_STORED\r\n", "EXISTS\r\n", "NOT_FOUND\r\n", "DELETED\r\n",
      "TOUCHED\r\n", "OK\r\n", "END\r\n", "ERROR\r\n"};
  out_->append(kLines[static_cast<size_t>(reply)]);
}

void McTextWriter::Value(std::string_view key, uint32_t flags, std::string_view data) {
  WriteValue(key, flags, data, nullptr);
}

void McTextWriter::ValueWithCas(std::string_view key, uint32_t flags, std::string_view data,
                                uint64_t cas) {
  WriteValue(key, flags, data, &cas);
}

void McTextWriter::WriteValue(std::string_view key, uint32_t flags, std::string_view data,
                              const uint64_t* cas) {
  // The VALUE line is put together here and appended at once: an answer is many of
  // them, and an append per part would cost more than the rest of the line.
  constexpr size_t kDigits = 20;  // of the largest uint64_t
  char line[6 + kMcMaxKeyLength + 3 * (1 + kDigits) + 2];
  char* end = line;
  if (key.size() <= kMcMaxKeyLength) {
    memcpy(end, "VALUE ", 6);
    end += 6;
    if (!key.empty()) memcpy(end, key.data(), key.size());
    end += key.size();
  } else {  // (longer than any key a request can name)
    out_->append("VALUE ", 6);
    out_->append(key);
  }
  *end++ = ' ';
  end = std::to_chars(end, end + kDigits, flags).ptr;
  *end++ = ' ';
  end = std::to_chars(end, end + kDigits, data.size()).ptr;
  if (cas != nullptr) {
    *end++ = ' ';
    end = std::to_chars(end, end + kDigits, *cas).ptr;
  }
  *end++ = '\r';
  *end++ = '\n';
  out_->append(line, static_cast<size_t>(end - line));
  out_->append(data);
  out_->append("\r\n", 2);
}

void McTextWriter::Number(uint64_t value) {
  AppendDecimal(out_, value);
  out_->append("\r\n", 2);
}

void McTextWriter::Version(std::string_view version) {
  out_->append("VERSION ", 8);
  out_->append(version);
  out_->append("\r\n", 2);
}

void McTextWriter::Stat(std::string_view name, std::string_view value) {
  out_->append("STAT ", 5);
  out_->append(name);
  out_->push_back(' ');
  out_->append(value);
  out_->append("\r\n", 2);
}

void McTextWriter::ClientError(std::string_view message) {
  out_->append("CLIENT_ERROR ", 13);
  Line(message);
}

void McTextWriter::ServerError(std::string_view message) {
  out_->append("SERVER_ERROR ", 13);
  Line(message);
}

void McTextWriter::Line(std::string_view line) {
  out_->append(line);
  out_->append("\r\n", 2);
}

// --- meta ----------------------------------------------------------------------------

void McTextWriter::MetaFlags(const McRequest& request, const McMetaItem* item) {
  const McMetaFlags& meta = request.meta;
  for (uint8_t i = 0; i < meta.count; ++i) {
    const char flag = meta.order[i];
    if (!Echoes(request.command, flag, item != nullptr)) continue;
    switch (flag) {
      case 'O':
        out_->push_back(' ');
        out_->append(meta.opaque);
        break;
      case 'k':
        out_->append(" k", 2);
        AppendMetaKey(request);
        if (meta.Has('b')) out_->append(" b", 2);
        break;
      case 's': AppendFlag(out_, 's', item->size); break;
      case 't': AppendFlag(out_, 't', item->ttl); break;
      case 'c': AppendFlag(out_, 'c', item->cas); break;
      case 'f': AppendFlag(out_, 'f', item->flags); break;
      case 'l': AppendFlag(out_, 'l', item->last_access); break;
      case 'h': AppendFlag(out_, 'h', item->fetched ? 1 : 0); break;
      default: break;
    }
  }
  if (item != nullptr) {
    if (item->won) out_->append(" W", 2);
    if (item->stale) out_->append(" X", 2);
    if (item->token_sent) out_->append(" Z", 2);
  }
}

void McTextWriter::MetaValue(const McRequest& request, const McMetaItem& item,
                             std::string_view data) {
  out_->append("VA ", 3);
  AppendDecimal(out_, data.size());
  MetaFlags(request, &item);
  out_->append("\r\n", 2);
  out_->append(data);
  out_->append("\r\n", 2);
}

void McTextWriter::MetaStatus(std::string_view code, const McRequest& request,
                              const McMetaItem* item) {
  out_->append(code);
  MetaFlags(request, item);
  out_->append("\r\n", 2);
}

// The request's key as its meta flags sent it: base64 with `b`.
void McTextWriter::AppendMetaKey(const McRequest& request) {
  if (request.keys.empty()) return;
  if (request.meta.Has('b'))
    McBase64Encode(request.keys[0], out_);
  else
    out_->append(request.keys[0]);
}

void McTextWriter::MetaDebug(const McRequest& request, std::string_view details) {
  out_->append("ME ", 3);
  AppendMetaKey(request);
  out_->push_back(' ');
  out_->append(details);
  out_->append("\r\n", 2);
}

// --- binary --------------------------------------------------------------------------

void McBinaryWriter::Packet(const McRequest& request, McStatus status, uint64_t cas,
                            std::string_view extras, std::string_view key,
                            std::string_view value) {
  out_->push_back(static_cast<char>(kMcBinaryResponseMagic));
  out_->push_back(static_cast<char>(request.opcode));
  AppendBig(out_, key.size(), 2);
  out_->push_back(static_cast<char>(extras.size()));
  out_->push_back('\0');  // data type: raw bytes
  AppendBig(out_, static_cast<uint16_t>(status), 2);
  AppendBig(out_, extras.size() + key.size() + value.size(), 4);
  AppendBig(out_, request.opaque, 4);
  AppendBig(out_, cas, 8);
  out_->append(extras);
  out_->append(key);
  out_->append(value);
}

void McBinaryWriter::Success(const McRequest& request, uint64_t cas) {
  Packet(request, McStatus::kOk, cas, {}, {}, {});
}

void McBinaryWriter::Hit(const McRequest& request, uint32_t flags, uint64_t cas,
                         std::string_view value) {
  char extras[4];
  for (int i = 0; i < 4; ++i) extras[i] = static_cast<char>(flags >> (24 - 8 * i));
  const std::string_view key = request.return_key && !request.keys.empty()
                                   ? request.keys[0] : std::string_view();
  Packet(request, McStatus::kOk, cas, std::string_view(extras, 4), key, value);
}

void McBinaryWriter::Miss(const McRequest& request) {
  if (request.return_key && !request.keys.empty()) {
    Packet(request, McStatus::kKeyNotFound, 0, {}, request.keys[0], {});
  } else {
    Error(request, McStatus::kKeyNotFound);
  }
}

void McBinaryWriter::Error(const McRequest& request, McStatus status) {
  Packet(request, status, 0, {}, {}, MessageFor(status));
}

void McBinaryWriter::Counter(const McRequest& request, uint64_t value, uint64_t cas) {
  char body[8];
  for (int i = 0; i < 8; ++i) body[i] = static_cast<char>(value >> (56 - 8 * i));
  Packet(request, McStatus::kOk, cas, {}, {}, std::string_view(body, 8));
}

void McBinaryWriter::Version(const McRequest& request, std::string_view version) {
  Packet(request, McStatus::kOk, 0, {}, {}, version);
}

void McBinaryWriter::Stat(const McRequest& request, std::string_view name,
                          std::string_view value) {
  Packet(request, McStatus::kOk, 0, {}, name, value);
}

std::string_view McBinaryWriter::MessageFor(McStatus status) {
  switch (status) {
    case McStatus::kOk:               return {};
    case McStatus::kKeyNotFound:      return "Not found";
    case McStatus::kKeyExists:        return "Data exists for key.";
    case McStatus::kValueTooLarge:    return "Too large.";
    case McStatus::kInvalidArguments: return "Invalid arguments";
    case McStatus::kNotStored:        return "Not stored.";
    case McStatus::kNonNumeric:       return "Non-numeric server-side value for incr or decr";
    case McStatus::kAuthError:        return "Auth failure.";
    case McStatus::kAuthContinue:     return {};
    case McStatus::kUnknownCommand:   return "Unknown command";
    case McStatus::kOutOfMemory:      return "Out of memory";
  }
  return "Unknown error";
}

}  // namespace rowsocket
