// Accounts: logins checked against what the server stores, grants checked by the
// server's own ACL code (see accounts.h).
#include "engine/admin/accounts.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <ctime>
#include <mutex>
#include <unordered_map>

#include "engine/engine.h"
#include "engine/rows/row_lookup.h"
#include "protocol/engine_status.h"
#include "sql_acl.h"
#include "sql_connect.h"
#include <mysql/service_json.h>
#include <mysql/service_my_crypt.h>
#include <mysql/service_sha1.h>

namespace rowsocket {
namespace {

constexpr const char* kNativePassword = "mysql_native_password";
constexpr size_t kHashSize = SCRAMBLE_LENGTH;  // SHA1

std::string ToHex(const unsigned char* bytes, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    hex[2 * i] = kDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return hex;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `hex` as exactly `n` bytes; false if it is anything else.
bool FromHex(std::string_view hex, unsigned char* out, size_t n) {
  if (hex.size() != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    const int hi = HexDigit(hex[2 * i]), lo = HexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace

// What mysql.global_priv holds for one account (its Priv column, a JSON object).
struct StoredAccount {
  std::string priv;                // the whole Priv object, as stored
  std::string plugin;
  std::string auth_string;
  std::string default_role;
  bool locked = false;
  bool expired = false;
  long long ssl_type = 0;          // 0: no REQUIRE SSL/X509/...
  USER_RESOURCES limits{};
};

namespace {

class PrivJson {
 public:
  explicit PrivJson(const std::string& json) : begin_(json.data()), end_(json.data() + json.size()) {}

  std::string Str(const char* key) const {
    const char* value;
    int len;
    if (json_get_object_key(begin_, end_, key, &value, &len) != JSV_STRING) return "";
    return std::string(value, static_cast<size_t>(len));
  }
  long long Int(const char* key, long long absent) const {
    const char* value;
    int len;
    if (json_get_object_key(begin_, end_, key, &value, &len) != JSV_NUMBER) return absent;
    return std::strtoll(std::string(value, static_cast<size_t>(len)).c_str(), nullptr, 10);
  }
  bool True(const char* key) const {
    const char* value;
    int len;
    return json_get_object_key(begin_, end_, key, &value, &len) == JSV_TRUE;
  }

 private:
  const char* begin_;
  const char* end_;
};

// As the server decides at login: explicitly expired (password_last_changed 0), or
// older than the account's password_lifetime (-1: default_password_lifetime; days).
bool PasswordExpired(const PrivJson& priv) {
  const long long changed = priv.Int("password_last_changed", -1);
  if (changed == 0) return true;
  if (changed < 0) return false;
  long long lifetime = priv.Int("password_lifetime", -1);
  if (lifetime < 0) lifetime = static_cast<long long>(default_password_lifetime);
  if (lifetime == 0) return false;
  return static_cast<long long>(std::time(nullptr)) - changed >= lifetime * 86400;
}

// Reads the account `user`@`host` (as stored: the host pattern) from
// mysql.global_priv, in a transaction of its own. False if it has no row.
bool ReadStoredAccount(THD* thd, const char* host, const char* user, StoredAccount* out) {
  std::vector<std::optional<std::string>> row;  // Host, User, Priv
  if (!LookUpRow(thd, "mysql", "global_priv", {host, user}, &row) || row.size() < 3 || !row[2])
    return false;
  out->priv = *row[2];
  const PrivJson priv(out->priv);
  out->plugin = priv.Str("plugin");
  out->auth_string = priv.Str("authentication_string");
  out->default_role = priv.Str("default_role");
  out->locked = priv.True("account_locked");
  out->expired = PasswordExpired(priv);
  out->ssl_type = priv.Int("ssl_type", 0);
  out->limits.user_conn = static_cast<int>(priv.Int("max_user_connections", 0));
  out->limits.conn_per_hour = static_cast<uint>(priv.Int("max_connections", 0));
  return true;
}

// Whether `c` (a response: the scramble of `nonce`; or the password) proves the
// password whose mysql_native_password hash is `auth_string` (empty: no password).
bool PasswordMatches(const std::string& auth_string, const LoginCredentials& c,
                     const std::string& nonce) {
  unsigned char stage2[kHashSize];
  if (auth_string.empty()) {
    unsigned char stage1[kHashSize];
    my_sha1(stage1, "", 0);
    my_sha1(stage2, reinterpret_cast<const char*>(stage1), kHashSize);
  } else if (auth_string.size() != 2 * kHashSize + 1 || auth_string[0] != '*' ||
             !FromHex(std::string_view(auth_string).substr(1), stage2, kHashSize)) {
    return false;  // not a hash this plugin made
  }
  if (c.mechanism == LoginMechanism::kClearPassword) {
    unsigned char stage1[kHashSize], computed[kHashSize];
    my_sha1(stage1, c.secret.data(), c.secret.size());
    my_sha1(computed, reinterpret_cast<const char*>(stage1), kHashSize);
    unsigned char differ = 0;  // in constant time
    for (size_t i = 0; i < kHashSize; ++i) differ |= computed[i] ^ stage2[i];
    return differ == 0;
  }
  unsigned char reply[kHashSize];
  if (nonce.size() != kHashSize || !FromHex(c.secret, reply, kHashSize)) return false;
  return check_scramble(reply, nonce.data(), stage2) == 0;
}

bool IsLoopback(const std::string& ip) {
  return ip == "::1" || ip.compare(0, 4, "127.") == 0;
}

// Wrong passwords by account (user@host as stored), given through rowsocket on any
// listener and worker or through SQL's login (NoteSqlLogin): max_password_errors
// applies to them as SQL's login applies it to its own. Only accounts that exist are
// counted, so the table is as large as the number of accounts at most. The server's
// own counter (ACL_USER::password_errors) is private to sql_acl.cc, where no plugin
// can reach it; this one keeps its rules: counted per account, cleared by a
// successful login, a block refuses the right password too, accounts with SUPER or
// CONNECTION ADMIN on a loopback host are never blocked, and SQL's own block
// (ER_USER_IS_BLOCKED, seen at a SQL login) holds here too. ALTER USER (any change of
// the account's stored Priv) starts the count again, as it does SQL's.
class PasswordErrors {
 public:
  // Whether the account is blocked now.
  bool Blocked(const std::string& account, const std::string& priv, bool exempt) {
    if (exempt) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = counts_.find(account);
    if (it == counts_.end()) return false;
    if (it->second.priv.empty()) {
      it->second.priv = priv;  // counted by SQL's login, which does not say it
    } else if (it->second.priv != priv) {  // ALTER USER since
      counts_.erase(it);
      size_.store(counts_.size(), std::memory_order_relaxed);
      return false;
    }
    return it->second.errors >= max_password_errors;
  }
  // `priv` empty: not known (SQL's login).
  void Failed(const std::string& account, const std::string& priv) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& e = counts_[account];
    if (!priv.empty() && !e.priv.empty() && e.priv != priv) e = Entry{0, priv};
    if (e.priv.empty()) e.priv = priv;
    ++e.errors;
    size_.store(counts_.size(), std::memory_order_relaxed);
  }
  // SQL's login found the account blocked.
  void Block(const std::string& account) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& e = counts_[account];
    e.errors = std::max<uint32_t>(e.errors, max_password_errors);
    size_.store(counts_.size(), std::memory_order_relaxed);
  }
  void Succeeded(const std::string& account) {
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.erase(account);
    size_.store(counts_.size(), std::memory_order_relaxed);
  }
  // No account has a count (a hint, for SQL's successful logins: nothing to clear).
  bool empty() const { return size_.load(std::memory_order_relaxed) == 0; }

 private:
  struct Entry {
    uint32_t errors = 0;
    std::string priv;  // the account's Priv when counting began
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> counts_;
  std::atomic<size_t> size_{0};  // counts_.size(), read without the mutex
};

PasswordErrors g_password_errors;

// The account a context was built for, as PasswordErrors names it.
std::string AccountKey(const Security_context& sctx) {
  return std::string(sctx.priv_user) + '@' + sctx.priv_host;
}

// As the server's ignore_max_password_errors: SUPER or CONNECTION ADMIN accounts on
// a loopback host are never blocked, so that an administrator can always log in.
bool IgnoresPasswordErrors(const Security_context& sctx) {
  const char* host = sctx.priv_host;
  return (sctx.master_access & PRIV_IGNORE_MAX_PASSWORD_ERRORS) != NO_ACL &&
         (!strcasecmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "::1"));
}

}  // namespace

AccountLogin::~AccountLogin() { LogOut(); }

void AccountLogin::LogOut() {
  if (user_conn_ != nullptr) decrease_user_connections(user_conn_);
  user_conn_ = nullptr;
  user_.clear();
  role_.clear();
  ++generation_;
}

std::string AccountLogin::AccountName() const {
  if (!logged_in()) return "";
  return std::string(sctx_.priv_user) + "@" + sctx_.priv_host;
}

EngineStatus Accounts::Challenge(AccountLogin* login, std::string_view user,
                                 std::string* nonce_hex) {
  unsigned char bytes[kHashSize];
  if (my_random_bytes(bytes, static_cast<int>(kHashSize)) != 0)
    return EngineStatus::StorageError(ER_OUT_OF_RESOURCES);
  login->nonce_.assign(reinterpret_cast<const char*>(bytes), kHashSize);
  login->nonce_user_.assign(user);
  *nonce_hex = ToHex(bytes, kHashSize);
  return EngineStatus::OK();
}

// The rules SQL's login applies to an account that exists, in its order: blocked
// by max_password_errors (before the password, so that the right one is refused
// too), the authentication plugin and the password (a wrong one counts towards
// max_password_errors, a right one clears the count), REQUIRE SSL and the like,
// ACCOUNT LOCK, PASSWORD EXPIRE, then MAX_USER_CONNECTIONS and its kin. OK: the
// connection is logged in.
EngineStatus Accounts::CheckAccount(AccountLogin* login, const StoredAccount& stored,
                                  const LoginCredentials& credentials,
                                  const std::string& nonce, bool tls) {
  const std::string account = AccountKey(login->sctx_);
  if (g_password_errors.Blocked(account, stored.priv, IgnoresPasswordErrors(login->sctx_)))
    return EngineStatus::AccountBlocked();
  if (!stored.plugin.empty() && stored.plugin != kNativePassword)
    return EngineStatus::AuthPluginUnsupported();
  if (!PasswordMatches(stored.auth_string, credentials, nonce)) {
    g_password_errors.Failed(account, stored.priv);
    return EngineStatus::Unauthenticated();
  }
  g_password_errors.Succeeded(account);
  if (stored.ssl_type != 0 && !tls) return EngineStatus::TlsRequired();
  // REQUIRE X509, SUBJECT, ISSUER or CIPHER: client certificates are not checked.
  if (stored.ssl_type > 1) return EngineStatus::AuthPluginUnsupported();
  if (stored.locked) return EngineStatus::AccountLocked();
  if (stored.expired) return EngineStatus::PasswordExpired();
  login->role_ = stored.default_role;
  if (!login->role_.empty()) BuildContext(login);
  if (!CountConnection(login, stored.limits)) return EngineStatus::TooManyConnections();
  return EngineStatus::OK();
}

EngineStatus Accounts::LogIn(AccountLogin* login, const LoginCredentials& credentials,
                             const std::string& ip, bool tls) {
  const std::string_view user = credentials.user;
  const bool plain = credentials.mechanism == LoginMechanism::kClearPassword;
  // A nonce answers one A 3, whatever its outcome: a response cannot be tried twice.
  std::string nonce, nonce_user;
  nonce.swap(login->nonce_);
  nonce_user.swap(login->nonce_user_);
  login->LogOut();  // a login attempt ends the connection's previous login
  if (!plain && (nonce.empty() || nonce_user != user)) return EngineStatus::NoChallenge();
  if (plain && !tls) return EngineStatus::TlsRequired();
  if (user.empty() || user.size() > USERNAME_LENGTH)
    return EngineStatus::Unauthenticated();

  // The account SQL's login would pick for this user from this address. Host names
  // are not looked up: an account matches by address, or as localhost for a
  // loopback address, as SQL's login names it unless skip_name_resolve is set.
  login->user_.assign(user);
  login->ip_ = ip;
  login->host_ = IsLoopback(ip) && !opt_skip_name_resolve ? std::string(my_localhost) : ip;
  StoredAccount stored;
  if (!BuildContext(login) || !ReadStoredAccount(thd_, login->sctx_.priv_host,
                                                  login->sctx_.priv_user, &stored)) {
    login->LogOut();
    return EngineStatus::Unauthenticated();  // no such account: as a wrong password
  }
  const EngineStatus refusal = CheckAccount(login, stored, credentials, nonce, tls);
  if (refusal.ok()) return refusal;
  login->LogOut();
  return refusal;
}

// The account's connections count with its SQL sessions against
// MAX_USER_CONNECTIONS, max_user_connections and MAX_CONNECTIONS_PER_HOUR, as the
// server counts them. False if they have reached a limit.
bool Accounts::CountConnection(AccountLogin* login, const USER_RESOURCES& limits) {
  if (!limits.user_conn && !limits.conn_per_hour && !max_user_connections_checking) return true;
  Security_context* own = thd_->security_ctx;
  thd_->security_ctx = &login->sctx_;
  thd_->user_connect = nullptr;
  const char* user = opt_old_style_user_limits ? login->sctx_.user : login->sctx_.priv_user;
  const char* host = opt_old_style_user_limits ? login->sctx_.host_or_ip : login->sctx_.priv_host;
  bool counted = get_or_create_user_conn(thd_, user, host, &limits) == 0;
  USER_CONN* uc = thd_->user_connect;
  // On refusal the server has already taken the connection back out of the count.
  if (counted) counted = check_for_max_user_connections(thd_, uc) == 0;
  if (counted) login->user_conn_ = uc;
  thd_->user_connect = nullptr;
  thd_->security_ctx = own;
  thd_->clear_error();
  return counted;
}

bool Accounts::BuildContext(AccountLogin* login) {
  Security_context* sctx = &login->sctx_;
  if (acl_getroot(sctx, login->user_.c_str(), login->host_.c_str(), login->ip_.c_str(), nullptr))
    return false;
  if (!login->role_.empty()) {
    // The account's default role, as its SQL sessions begin with it (a role since
    // revoked is left out).
    Security_context* own = thd_->security_ctx;
    thd_->security_ctx = sctx;
    privilege_t access(NO_ACL);
    if (acl_check_setrole(thd_, login->role_.c_str(), &access) == 0)
      acl_setrole(thd_, login->role_.c_str(), access);
    thd_->security_ctx = own;
    thd_->clear_error();
  }
  ++login->generation_;
  return true;
}

bool Accounts::Refresh(AccountLogin* login, uint64_t now_ms, uint64_t max_age_ms) {
  if (!login->logged_in()) return false;
  if (now_ms - login->built_ms_ < max_age_ms) return true;
  login->built_ms_ = now_ms;
  if (BuildContext(login)) return true;
  login->LogOut();  // DROP USER, RENAME USER
  return false;
}

bool Accounts::TableAllows(AccountLogin* login, TABLE* table, TABLE_LIST* tl, privilege_t want) {
  tl->init_one_table(&table->s->db, &table->s->table_name, nullptr, TL_READ);
  tl->security_ctx = &login->sctx_;
  if (check_access(thd_, want, table->s->db.str, &tl->grant.privilege, &tl->grant.m_internal,
                   false, true))
    return false;
  return !check_grant(thd_, want, tl, false, 1, true);
}

bool Accounts::ColumnAllows(AccountLogin* login, TABLE_LIST* tl, const Field* field) {
  return !check_grant_column(thd_, &tl->grant, tl->db.str, tl->table_name.str,
                             field->field_name.str, field->field_name.length, &login->sctx_);
}

void Accounts::Check(AccountLogin* login, TABLE* table, uint key_number,
                     const std::vector<Field*>& columns,
                     const std::vector<Field*>& filter_columns, IndexGrants* grants) {
  if (grants->generation == login->generation_) return;
  *grants = IndexGrants();
  grants->generation = login->generation_;
  if (!login->logged_in()) return;
  Security_context* own = thd_->security_ctx;
  thd_->security_ctx = &login->sctx_;
  Dummy_error_handler quiet;  // refusals are answered, not raised
  thd_->push_internal_handler(&quiet);
  TABLE_LIST tl;
  if (TableAllows(login, table, &tl, SELECT_ACL)) {
    bool all = true;
    for (const Field* f : columns) all = all && ColumnAllows(login, &tl, f);
    for (const Field* f : filter_columns) all = all && ColumnAllows(login, &tl, f);
    const KEY& key = table->key_info[key_number];
    for (uint i = 0; i < key.user_defined_key_parts; ++i)
      all = all && ColumnAllows(login, &tl, key.key_part[i].field);
    grants->select = all;
  }
  if (TableAllows(login, table, &tl, INSERT_ACL)) {
    while (grants->insert_columns < columns.size() &&
           ColumnAllows(login, &tl, columns[grants->insert_columns]))
      ++grants->insert_columns;
  }
  if (TableAllows(login, table, &tl, UPDATE_ACL)) {
    while (grants->update_columns < columns.size() &&
           ColumnAllows(login, &tl, columns[grants->update_columns]))
      ++grants->update_columns;
  }
  grants->del = TableAllows(login, table, &tl, DELETE_ACL);
  thd_->pop_internal_handler();
  thd_->security_ctx = own;
  thd_->clear_error();
}

// As check_show_access (sql_parse.cc) admits SHOW COLUMNS and
// get_schema_column_record (sql_show.cc) fills its Privileges column.
bool Accounts::ColumnPrivileges(AccountLogin* login, TABLE* table,
                                std::vector<privilege_t>* privileges) {
  privileges->assign(table->s->fields, NO_ACL);
  if (!login->logged_in()) return false;
  Security_context* own = thd_->security_ctx;
  thd_->security_ctx = &login->sctx_;
  Dummy_error_handler quiet;  // a refusal is answered, not raised
  thd_->push_internal_handler(&quiet);
  TABLE_LIST tl;
  tl.init_one_table(&table->s->db, &table->s->table_name, nullptr, TL_READ);
  const bool shown = SomePrivilegeOn(login, &tl);
  if (shown) {
    for (uint i = 0; i < table->s->fields; ++i) {
      (*privileges)[i] = get_column_grant(thd_, &tl.grant, table->s->db.str,
                                          table->s->table_name.str,
                                          table->field[i]->field_name.str) & COL_ACLS;
    }
  }
  thd_->pop_internal_handler();
  thd_->security_ctx = own;
  thd_->clear_error();
  return shown;
}

bool Accounts::MaySeeTable(AccountLogin* login, std::string_view db, std::string_view table) {
  if (!login->logged_in()) return false;
  const std::string db_text(db), table_text(table);  // the server reads C strings
  Security_context* own = thd_->security_ctx;
  thd_->security_ctx = &login->sctx_;
  Dummy_error_handler quiet;  // a refusal is answered, not raised
  thd_->push_internal_handler(&quiet);
  const LEX_CSTRING db_name{db_text.c_str(), db_text.size()};
  const LEX_CSTRING table_name{table_text.c_str(), table_text.size()};
  TABLE_LIST tl;
  tl.init_one_table(&db_name, &table_name, nullptr, TL_READ);
  const bool allowed = SomePrivilegeOn(login, &tl);
  thd_->pop_internal_handler();
  thd_->security_ctx = own;
  thd_->clear_error();
  return allowed;
}

// Some privilege on the table or on any of its columns will do (check_grant's
// any_combination_will_do, as for SHOW COLUMNS).
bool Accounts::SomePrivilegeOn(AccountLogin* login, TABLE_LIST* tl) {
  tl->security_ctx = &login->sctx_;
  return !check_access(thd_, SELECT_ACL, tl->db.str, &tl->grant.privilege, &tl->grant.m_internal,
                       false, true) &&
         !check_grant(thd_, SELECT_ACL, tl, true, 1, true);
}

void NoteSqlLogin(const char* user, const char* host, const char* ip, int status) {
  if (user == nullptr || *user == '\0') return;
  if (status != 0 && status != ER_ACCESS_DENIED_ERROR && status != ER_USER_IS_BLOCKED) return;
  if (status == 0 && g_password_errors.empty()) return;  // every SQL login: keep it cheap
  // The account SQL's login matched (none: nothing to count, as SQL counts nothing);
  // a client without a host name is matched by its address, as SQL's login does.
  if (ip == nullptr) ip = "";
  if (host == nullptr || *host == '\0') host = ip;
  if (*host == '\0') return;
  Security_context sctx;
  if (acl_getroot(&sctx, user, host, ip, nullptr)) return;
  const std::string account = AccountKey(sctx);
  if (status == 0) {
    g_password_errors.Succeeded(account);
  } else if (status == ER_USER_IS_BLOCKED) {
    g_password_errors.Block(account);
  } else {
    g_password_errors.Failed(account, "");
  }
}

}  // namespace rowsocket
