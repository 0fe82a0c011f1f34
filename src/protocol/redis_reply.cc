// RedisReplyWriter and Redis's error words (redis_reply.h).
#include "protocol/redis_reply.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace rowsocket {
namespace {

void AppendLine(std::string* out, char type, std::string_view text) {
  out->push_back(type);
  const size_t at = out->size();
  out->append(text);
  for (size_t i = at; i < out->size(); ++i) {
    if ((*out)[i] == '\r' || (*out)[i] == '\n') (*out)[i] = ' ';
  }
  out->append("\r\n", 2);
}

// What C's printf writes for %s of these bytes: up to the first NUL.
std::string_view AsCString(std::string_view bytes, size_t max) {
  const size_t nul = bytes.find('\0');
  if (nul != std::string_view::npos) bytes = bytes.substr(0, nul);
  return bytes.substr(0, max);
}

}  // namespace

// (Every reply has one: to_chars, not printf's format parsing.)
void RedisReplyWriter::Header(char type, int64_t n) {
  char buf[24];
  buf[0] = type;
  char* end = std::to_chars(buf + 1, buf + sizeof(buf) - 2, n).ptr;
  *end++ = '\r';
  *end++ = '\n';
  out_->append(buf, static_cast<size_t>(end - buf));
}

void RedisReplyWriter::SimpleString(std::string_view text) { AppendLine(out_, '+', text); }

void RedisReplyWriter::Error(std::string_view text) { AppendLine(out_, '-', text); }

void RedisReplyWriter::Integer(int64_t value) { Header(':', value); }

void RedisReplyWriter::Bulk(std::string_view bytes) {
  // A short value goes out with its header and CRLF in one append (an answer of
  // many keys is many of them); a longer one after its header.
  constexpr size_t kShort = 128;
  if (bytes.size() > kShort) {
    Header('$', static_cast<int64_t>(bytes.size()));
    out_->append(bytes);
    out_->append("\r\n", 2);
    return;
  }
  char bulk[1 + 3 + 2 + kShort + 2];  // `$`, at most 3 digits, CRLF, the bytes, CRLF
  char* end = bulk;
  *end++ = '$';
  end = std::to_chars(end, end + 3, bytes.size()).ptr;
  *end++ = '\r';
  *end++ = '\n';
  if (!bytes.empty()) memcpy(end, bytes.data(), bytes.size());
  end += bytes.size();
  *end++ = '\r';
  *end++ = '\n';
  out_->append(bulk, static_cast<size_t>(end - bulk));
}

void RedisReplyWriter::Null() {
  if (version_ == RespVersion::kResp3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("$-1\r\n", 5);
  }
}

void RedisReplyWriter::NullArray() {
  if (version_ == RespVersion::kResp3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("*-1\r\n", 5);
  }
}

void RedisReplyWriter::ArrayHeader(size_t elements) { Header('*', static_cast<int64_t>(elements)); }

void RedisReplyWriter::MapHeader(size_t pairs) {
  if (version_ == RespVersion::kResp3) {
    Header('%', static_cast<int64_t>(pairs));
  } else {
    Header('*', static_cast<int64_t>(2 * pairs));
  }
}

void RedisReplyWriter::SetHeader(size_t elements) {
  Header(version_ == RespVersion::kResp3 ? '~' : '*', static_cast<int64_t>(elements));
}

void RedisReplyWriter::Double(double value) {
  char buf[64];
  std::string_view text;
  if (std::isinf(value)) {
    text = value > 0 ? "inf" : "-inf";
  } else {
    const int len = std::snprintf(buf, sizeof(buf), "%.17g", value);
    text = std::string_view(buf, static_cast<size_t>(len));
  }
  if (version_ == RespVersion::kResp3) {
    AppendLine(out_, ',', text);
  } else {
    Bulk(text);
  }
}

void RedisReplyWriter::Boolean(bool value) {
  if (version_ == RespVersion::kResp3) {
    out_->append(value ? "#t\r\n" : "#f\r\n", 4);
  } else {
    Integer(value ? 1 : 0);
  }
}

void RedisReplyWriter::Verbatim(std::string_view text) {
  if (version_ != RespVersion::kResp3) return Bulk(text);
  Header('=', static_cast<int64_t>(text.size() + 4));
  out_->append("txt:", 4);
  out_->append(text);
  out_->append("\r\n", 2);
}

void RedisFormatLongDouble(long double value, std::string* out) {
  if (std::isinf(value)) {
    out->append(value > 0 ? "inf" : "-inf");
    return;
  }
  // %.17Lf of the largest long double has about 4,950 digits (Redis allows 5 KiB).
  char buf[5 * 1024];
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  if (len < 0 || static_cast<size_t>(len) >= sizeof(buf)) return;
  if (std::memchr(buf, '.', static_cast<size_t>(len)) != nullptr) {
    while (buf[len - 1] == '0') --len;
    if (buf[len - 1] == '.') --len;
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') {
    out->push_back('0');
    return;
  }
  out->append(buf, static_cast<size_t>(len));
}

std::string RedisErrWrongArity(std::string_view name) {
  std::string s = "ERR wrong number of arguments for '";
  s.append(name);
  s.append("' command");
  return s;
}

std::string RedisErrUnknownCommand(const std::string_view* argv, size_t argc) {
  std::string args;
  for (size_t i = 1; i < argc && args.size() < 128; ++i) {
    // Redis: sdscatprintf(args, "'%.*s' ", 128 - len, arg); %s stops at a NUL.
    const size_t room = 128 - args.size();
    args.push_back('\'');
    args.append(AsCString(argv[i], room));
    args.append("' ");
  }
  std::string s = "ERR unknown command '";
  s.append(AsCString(argc > 0 ? argv[0] : std::string_view(), 128));
  s.append("', with args beginning with: ");
  s.append(args);
  return s;
}

std::string RedisErrUnknownSubcommand(std::string_view command, std::string_view sub) {
  std::string s = "ERR unknown subcommand '";
  s.append(AsCString(sub, 128));
  s.append("'. Try ");
  s.append(command);
  s.append(" HELP.");
  return s;
}

std::string RedisErrInvalidExpire(std::string_view name) {
  std::string s = "ERR invalid expire time in '";
  s.append(name);
  s.append("' command");
  return s;
}

std::string RedisErrNoPermCommand(std::string_view name) {
  std::string s = "NOPERM this user has no permissions to run the '";
  s.append(name);
  s.append("' command");
  return s;
}

}  // namespace rowsocket
