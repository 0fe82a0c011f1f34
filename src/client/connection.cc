// Connection: requests in, replies out, over one Socket.
//
// Execute is the one path every request takes. It walks the Batch once, writing
// each request's line after the index id it uses, and for an Index this connection
// has not opened yet it first writes a `P` line of its own ("hidden open") with the
// lowest free id; the hidden answers are read like the others and never shown. When
// a hidden open fails, the requests that relied on it get its error instead of the
// `stmtnum` the server gives them. Then one Socket::Exchange sends all lines and
// feeds the answers, in order, to a sink that turns each into its Reply.
// Login is the exception: its second request needs the first one's answer (the
// nonce), so it runs two exchanges of one `A` line each.
// Runs on the thread that uses the Connection.
#include "rowsocket/connection.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

#include "native_password.h"
#include "protocol/answer.h"
#include "protocol/codec.h"
#include "protocol/wire_errors.h"
#include "reply.h"
#include "socket.h"

namespace rowsocket {
namespace client {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// One answer the exchange waits for.
struct Expected {
  RequestKind kind;
  size_t item;      // position in the batch, or kNone for a hidden open
  size_t depends;   // position (in the expected list) of the hidden open used, or kNone
  const std::string* key;  // hidden opens: the Index key, to forget when it fails
  uint32_t id;
};

void AppendId(std::string* out, uint32_t id) {
  char buf[12];
  auto result = std::to_chars(buf, buf + sizeof(buf), id);
  out->append(buf, static_cast<size_t>(result.ptr - buf));
}

// The indexes this connection opened for Index requests, and the ids in use.
struct IndexTable {
  std::unordered_map<std::string, uint32_t> ids;  // Index::key() -> id on this connection
  std::vector<bool> used;                         // ids taken, by an Index or by the caller

  uint32_t Allocate() {
    auto free = std::find(used.begin(), used.end(), false);
    const uint32_t id = static_cast<uint32_t>(free - used.begin());
    if (free == used.end()) used.push_back(true); else *free = true;
    return id;
  }
  void Release(uint32_t id) {
    if (id < used.size()) used[id] = false;
  }
  void MarkUsed(uint32_t id) {
    if (id >= used.size()) used.resize(id + 1, false);
    used[id] = true;
  }
  // The caller reopened `id` by hand: no Index is open under it any more.
  void Retire(uint32_t id) {
    for (auto it = ids.begin(); it != ids.end(); ++it) {
      if (it->second == id) {
        ids.erase(it);
        return;
      }
    }
  }
  void Clear() {
    ids.clear();
    used.clear();
  }
};

}  // namespace

struct Connection::Impl {
  std::string host;
  uint16_t port = 0;
  ConnectOptions options;
  Socket socket;
  IndexTable indexes;
  std::string out;             // the lines of the batch being sent
  ::rowsocket::Answer answer;  // reused for every answer line

  // Sends one `A` line and reads its answer; `nonce` receives A 2's nonce.
  Status AuthRequest(std::string_view line, std::string* nonce);
};

namespace {

// Turns each answer line into the reply of the request it answers.
class ReplySink : public LineSink {
 public:
  ReplySink(IndexTable* indexes, ::rowsocket::Answer* answer,
            const std::vector<Expected>& expected,
            std::vector<std::optional<Result<Reply>>>* slots)
      : indexes_(indexes), answer_(answer), expected_(expected), slots_(slots),
        hidden_errors_(expected.size()) {}

  bool OnLine(char* line, size_t size) override {
    const Expected& e = expected_[received_];
    if (!::rowsocket::ParseAnswer(line, size, answer_)) return false;
    Result<Reply> reply = Reply();
    if (!ToReply(e.kind, *answer_, &reply)) return false;
    if (e.item == kNone) {
      if (!reply.ok()) {  // the hidden open failed: forget it, tell its users why
        hidden_errors_[received_] = reply.error();
        const std::string key = *e.key;  // e.key points into the map: copy first
        indexes_->ids.erase(key);
        indexes_->Release(e.id);
      }
    } else {
      if (!reply.ok() && e.depends != kNone && hidden_errors_[e.depends]) {
        reply = *hidden_errors_[e.depends];
      }
      (*slots_)[e.item] = std::move(reply);
    }
    ++received_;
    return true;
  }

  size_t received() const { return received_; }

 private:
  IndexTable* indexes_;
  ::rowsocket::Answer* answer_;
  const std::vector<Expected>& expected_;
  std::vector<std::optional<Result<Reply>>>* slots_;
  std::vector<std::optional<Error>> hidden_errors_;  // by position in expected_
  size_t received_ = 0;
};

// Reads the answer to one `A` request: `0 1 <nonce>` after A 2 (when `nonce` is set),
// `0 1` after the others, or an error.
class AuthSink : public LineSink {
 public:
  AuthSink(::rowsocket::Answer* answer, std::string* nonce) : answer_(answer), nonce_(nonce) {}

  bool OnLine(char* line, size_t size) override {
    if (!::rowsocket::ParseAnswer(line, size, answer_)) return false;
    if (nonce_ != nullptr && answer_->ok()) {
      if (answer_->count != 1 || answer_->values.size() != 1 || answer_->values[0].is_null) {
        return false;
      }
      nonce_->assign(answer_->values[0].view());
      return true;
    }
    return ToReply(RequestKind::kAuth, *answer_, &reply_);
  }

  const Result<Reply>& reply() const { return reply_; }

 private:
  ::rowsocket::Answer* answer_;
  std::string* nonce_;
  Result<Reply> reply_ = Reply();
};

class LineCollector : public LineSink {
 public:
  explicit LineCollector(std::vector<std::string>* lines) : lines_(lines) {}
  bool OnLine(char* line, size_t size) override {
    lines_->emplace_back(line, size);
    return true;
  }

 private:
  std::vector<std::string>* lines_;
};

}  // namespace

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

Result<Connection> Connection::Connect(const std::string& host, uint16_t port,
                                       const ConnectOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->host = host;
  impl->port = port;
  impl->options = options;
  Wipe(&impl->options.password);  // Login below reads `options`; keep no copy
  Status s = impl->socket.Connect(host, port, options);
  if (!s.ok()) return s.error();
  Connection conn(std::move(impl));
  if (!options.secret.empty()) {
    Status auth = conn.Auth(options.secret);
    if (!auth.ok()) return auth.error();
  }
  if (!options.user.empty()) {
    Status login = conn.Login(options.user, options.password);
    // The server does not ask this listener's clients to log in (`3 1 authtype`).
    const bool not_asked = !login.ok() && login.error().is_server() && login.error().code() == 3 &&
                           Describe(WireError::kAuthType).word == login.error().message();
    if (!login.ok() && !(not_asked && options.login_if_asked)) return login.error();
  }
  return Result<Connection>(std::move(conn));
}

bool Connection::connected() const { return impl_->socket.is_open(); }
const std::string& Connection::host() const { return impl_->host; }
uint16_t Connection::port() const { return impl_->port; }
bool Connection::LooksAlive() { return impl_->socket.LooksAlive(); }

void Connection::Close() {
  impl_->socket.Close();
  impl_->indexes.Clear();
}

BatchResult Connection::Execute(const Batch& batch) {
  Impl& m = *impl_;
  const std::vector<Batch::Item>& items = batch.items();
  const std::string& wire = batch.wire();
  std::vector<std::optional<Result<Reply>>> slots(items.size());
  std::vector<Expected> expected;
  expected.reserve(items.size());
  std::unordered_map<uint32_t, size_t> hidden_by_id;  // ids opened by this batch
  m.out.clear();

  // Guide: write every request's line, opening Indexes this connection lacks.
  for (size_t i = 0; i < items.size(); ++i) {
    const Batch::Item& item = items[i];
    if (!item.refused.empty()) {
      slots[i] = Error::Usage(item.refused);
      continue;
    }
    const char* tail = wire.data() + item.begin;
    const size_t tail_size = item.end - item.begin;
    if (item.kind == RequestKind::kAuth || item.kind == RequestKind::kOpenIndex) {
      if (item.kind == RequestKind::kOpenIndex) {
        m.indexes.Retire(item.index.id());
        m.indexes.MarkUsed(item.index.id());
      }
      m.out.append(tail, tail_size).push_back('\n');
      expected.push_back(Expected{item.kind, i, kNone, nullptr, 0});
      continue;
    }
    uint32_t id = item.index.id();
    size_t depends = kNone;
    if (!item.index.is_id()) {
      const std::string& key = item.index.index().key();
      auto it = m.indexes.ids.find(key);
      if (it == m.indexes.ids.end()) {
        id = m.indexes.Allocate();
        it = m.indexes.ids.emplace(key, id).first;
        m.out.append("P\t");
        AppendId(&m.out, id);
        m.out.append("\t").append(key).push_back('\n');
        expected.push_back(Expected{RequestKind::kOpenIndex, kNone, kNone, &it->first, id});
        hidden_by_id[id] = expected.size() - 1;
      }
      id = it->second;
      auto hidden = hidden_by_id.find(id);
      if (hidden != hidden_by_id.end()) depends = hidden->second;
    }
    AppendId(&m.out, id);
    m.out.push_back('\t');
    m.out.append(tail, tail_size).push_back('\n');
    expected.push_back(Expected{item.kind, i, depends, nullptr, id});
  }

  // Guide: send, and read one answer per line sent.
  ReplySink sink(&m.indexes, &m.answer, expected, &slots);
  Status s = expected.empty() ? Status()
                              : m.socket.Exchange(m.out, expected.size(), &sink,
                                                  m.options.io_timeout);
  BatchResult result;
  result.answered = items.size();
  if (!s.ok()) {
    const std::string& why = s.error().message();
    for (size_t k = sink.received(); k < expected.size(); ++k) {
      const size_t item = expected[k].item;
      if (item == kNone) continue;
      if (item < result.answered) result.answered = item;
      slots[item] = Error::Io(why == "not connected"
                                  ? why
                                  : why + "; no answer, the request may or may not have run");
    }
  }
  if (!m.socket.is_open()) m.indexes.Clear();

  result.replies.reserve(items.size());
  for (auto& slot : slots) result.replies.push_back(std::move(*slot));
  return result;
}

namespace {

Result<Reply> First(BatchResult&& r) { return std::move(r.replies[0]); }

}  // namespace

Status Connection::Auth(std::string_view secret) {
  Batch b;
  b.Auth(secret);
  Result<Reply> r = First(Execute(b));
  if (!r.ok()) return r.error();
  return Status();
}

Status Connection::Impl::AuthRequest(std::string_view line, std::string* nonce) {
  AuthSink sink(&answer, nonce);
  Status s = socket.Exchange(line, 1, &sink, options.io_timeout);
  if (!socket.is_open()) indexes.Clear();
  if (!s.ok()) return s;
  if (!sink.reply().ok()) return sink.reply().error();
  return Status();
}

Status Connection::Login(std::string_view user, std::string_view password) {
  Impl& m = *impl_;
  // Guide: A 2 <user> answers a nonce.
  std::string line = "A\t2\t";
  ::rowsocket::AppendEncoded(&line, user);
  line.push_back('\n');
  std::string nonce;
  Status s = m.AuthRequest(line, &nonce);
  if (!s.ok()) return s;
  // Guide: A 3 <user> <response> proves the password without sending it.
  std::string response;
  if (!NativePasswordResponse(password, nonce, &response)) {
    Close();
    return Error::Io("malformed answer: a nonce that is not 40 hex digits");
  }
  line = "A\t3\t";
  ::rowsocket::AppendEncoded(&line, user);
  line.append("\t").append(response).push_back('\n');
  return m.AuthRequest(line, nullptr);
}

Status Connection::OpenIndex(uint32_t id, const Index& index) {
  Batch b;
  b.OpenIndex(id, index);
  Result<Reply> r = First(Execute(b));
  if (!r.ok()) return r.error();
  return Status();
}

Result<uint32_t> Connection::Open(const Index& index) {
  Impl& m = *impl_;
  auto it = m.indexes.ids.find(index.key());
  if (it != m.indexes.ids.end()) return it->second;
  const uint32_t id = m.indexes.Allocate();
  Status s = OpenIndex(id, index);
  if (!s.ok()) {
    m.indexes.Release(id);
    return s.error();
  }
  m.indexes.ids[index.key()] = id;
  return id;
}

Result<Rows> Connection::Find(const IndexRef& index, const Query& query) {
  Batch b;
  b.Find(index, query);
  Result<Reply> r = First(Execute(b));
  if (!r.ok()) return r.error();
  return std::move(r.value().rows());
}

namespace {

Result<uint64_t> Count(Result<Reply>&& r) {
  if (!r.ok()) return r.error();
  return r.value().count();
}

}  // namespace

Result<uint64_t> Connection::Update(const IndexRef& index, const Query& query, Row values) {
  Batch b;
  b.Update(index, query, std::move(values));
  return Count(First(Execute(b)));
}

Result<uint64_t> Connection::Increment(const IndexRef& index, const Query& query, Row deltas) {
  Batch b;
  b.Increment(index, query, std::move(deltas));
  return Count(First(Execute(b)));
}

Result<uint64_t> Connection::Decrement(const IndexRef& index, const Query& query, Row deltas) {
  Batch b;
  b.Decrement(index, query, std::move(deltas));
  return Count(First(Execute(b)));
}

Result<uint64_t> Connection::Remove(const IndexRef& index, const Query& query) {
  Batch b;
  b.Remove(index, query);
  return Count(First(Execute(b)));
}

Result<Rows> Connection::FindAndModify(const IndexRef& index, const Query& query,
                                       const Modify& modify) {
  Batch b;
  b.FindAndModify(index, query, modify);
  Result<Reply> r = First(Execute(b));
  if (!r.ok()) return r.error();
  return std::move(r.value().rows());
}

Result<uint64_t> Connection::Insert(const IndexRef& index, Row values) {
  Batch b;
  b.Insert(index, std::move(values));
  Result<Reply> r = First(Execute(b));
  if (!r.ok()) return r.error();
  return r.value().insert_id();
}

Result<std::vector<std::string>> Connection::ExchangeRaw(std::string_view bytes) {
  Impl& m = *impl_;
  const size_t lines = static_cast<size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
  std::vector<std::string> answers;
  LineCollector collector(&answers);
  Status s = m.socket.Exchange(bytes, lines, &collector, m.options.io_timeout);
  if (!m.socket.is_open()) m.indexes.Clear();
  if (!s.ok()) return s.error();
  return answers;
}

}  // namespace client
}  // namespace rowsocket
