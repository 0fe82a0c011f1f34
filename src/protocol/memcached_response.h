// Writes answers in memcached's protocols: McTextWriter for text and meta commands,
// McBinaryWriter for binary packets.
//
// Like ResponseWriter (response.h), a writer appends to a caller-owned buffer (a
// connection's output buffer), so all answers of a batch leave in one write. The
// writers never decide whether to answer: ask McRequest::WantsAnswer() first (text
// noreply, meta q, binary quiet opcodes). Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/memcached.h"

namespace rowsocket {

// The fixed one-word answers of the text protocol.
enum class McTextReply : uint8_t {
  kStored,     // STORED
  kNotStored,  // NOT_STORED
  kExists,     // EXISTS
  kNotFound,   // NOT_FOUND
  kDeleted,    // DELETED
  kTouched,    // TOUCHED
  kOk,         // OK
  kEnd,        // END: after the VALUEs of a get, or the STATs
  kError,      // ERROR
};

// What the engine knows of an item, for the return flags of a meta answer. Only
// the fields the request asked for are written.
struct McMetaItem {
  uint32_t flags = 0;         // f
  uint64_t cas = 0;           // c
  int64_t ttl = -1;           // t: seconds left, -1 for none
  uint64_t size = 0;          // s: the value's length
  uint64_t last_access = 0;   // l: seconds since
  bool fetched = false;       // h: fetched before
  bool won = false;           // W: this client should recache
  bool stale = false;         // X
  bool token_sent = false;    // Z: another client already won
};

class McTextWriter {
 public:
  explicit McTextWriter(std::string* out) : out_(out) {}

  // Text answers.
  void Reply(McTextReply reply);
  // `VALUE <key> <flags> <bytes>\r\n<data>\r\n` (get, gat); then End() after the last.
  void Value(std::string_view key, uint32_t flags, std::string_view data);
  // The same with the CAS (gets, gats).
  void ValueWithCas(std::string_view key, uint32_t flags, std::string_view data, uint64_t cas);
  // incr/decr: the new value.
  void Number(uint64_t value);
  void Version(std::string_view version);
  // `STAT <name> <value>`; End() after the last.
  void Stat(std::string_view name, std::string_view value);
  void ClientError(std::string_view message);  // CLIENT_ERROR <message>
  void ServerError(std::string_view message);  // SERVER_ERROR <message>
  // A whole line, CRLF added: the parser's McRequest::error.
  void Line(std::string_view line);

  // Meta answers. Each echoes, in the request's order, the return flags the command
  // has: mg `s t c f l h O k`, ms `O k c`, md `O k`, ma `c t O k`; then W, X, Z
  // when the item says so. With no item (EN, NF, NS, EX) only O and k are echoed.
  // `VA <size> <flags>*\r\n<data>\r\n` (mg with v, ma with v).
  void MetaValue(const McRequest& request, const McMetaItem& item, std::string_view data);
  // `<code> <flags>*\r\n` for HD, EN, NF, NS, EX; `item` may be null.
  void MetaStatus(std::string_view code, const McRequest& request, const McMetaItem* item);
  void MetaNoop() { out_->append("MN\r\n", 4); }
  // `ME <key> <details>\r\n` (me); miss: MetaStatus("EN", ...).
  void MetaDebug(const McRequest& request, std::string_view details);

 private:
  void AppendMetaKey(const McRequest& request);
  void WriteValue(std::string_view key, uint32_t flags, std::string_view data, const uint64_t* cas);
  void MetaFlags(const McRequest& request, const McMetaItem* item);

  std::string* out_;
};

class McBinaryWriter {
 public:
  explicit McBinaryWriter(std::string* out) : out_(out) {}

  // One response packet to `request` (its opcode and opaque echoed).
  void Packet(const McRequest& request, McStatus status, uint64_t cas, std::string_view extras,
              std::string_view key, std::string_view value);
  // A success with an empty body and the item's new CAS (set, delete, touch,
  // flush, noop, quit, verbosity, SASL done).
  void Success(const McRequest& request, uint64_t cas = 0);
  // A get hit: the flags as extras, the key for GetK/GetKQ/GATK/GATKQ.
  void Hit(const McRequest& request, uint32_t flags, uint64_t cas, std::string_view value);
  // A get miss: kKeyNotFound, with the key (return_key) or memcached's message.
  void Miss(const McRequest& request);
  // An error status with memcached's text for it as the value ("Not found", ...).
  void Error(const McRequest& request, McStatus status);
  // incr/decr: the new value as 8 bytes, big-endian.
  void Counter(const McRequest& request, uint64_t value, uint64_t cas);
  void Version(const McRequest& request, std::string_view version);
  // One statistic; an empty name and value ends the list.
  void Stat(const McRequest& request, std::string_view name, std::string_view value);
  void StatEnd(const McRequest& request) { Stat(request, {}, {}); }

  // memcached's message for an error status ("Not found", "Too large.", ...).
  static std::string_view MessageFor(McStatus status);

 private:
  std::string* out_;
};

}  // namespace rowsocket
