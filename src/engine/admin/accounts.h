// Account logins and grants (rowsocket_auth=account).
//
// A client proves it is a MariaDB account without sending its password: `A 2 <user>`
// is answered with a nonce, `A 3 <user> <response>` carries mysql_native_password's
// scramble of it, which is checked against the hash the server stores for the
// account. `A 4 <user> <password>` sends the password itself and is taken over TLS
// only. The account is the one SQL's login would pick for that user and the
// connection's address (acl_getroot, the server's own host matching); what the
// server stores for it (plugin, hash, locking, expiry, limits) is read from
// mysql.global_priv.
//
// LogIn is the account policy of every listener (HandlerSocket's A 3/A 4, memcached's
// SASL, any protocol to come): the rules SQL's login applies, in its order
// (CheckAccount), with max_password_errors counted over rowsocket's own logins. What
// follows a refusal (a delay, a close) and the login timeout are the server layer's
// (server/login_policy.h), which the executor tells through
// ConnectionSession::failed_logins.
//
// Once logged in, the connection's requests carry the account's security context,
// and the server's own privilege checks decide (check_access, check_grant,
// check_grant_column): a `P` needs SELECT on the columns it names, its filter
// columns and its index's columns; an insert needs INSERT on the columns it writes,
// an update UPDATE on them, a delete DELETE on the table. The context is rebuilt
// from the server's ACL at most a second after it was built, so that GRANT, REVOKE,
// DROP USER and FLUSH PRIVILEGES reach connections already logged in within a second.
//
// Used only on its executor's thread; an AccountLogin belongs to one connection.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server_headers.h"
#include "protocol/engine_status.h"

namespace rowsocket {

struct StoredAccount;  // what mysql.global_priv holds for an account (accounts.cc)

// How a client proves it is an account, whatever its protocol's words for it.
enum class LoginMechanism : uint8_t {
  kChallengeResponse,  // mysql_native_password's scramble of the nonce Challenge gave
                       // the connection, in hex (HandlerSocket's A 3)
  kClearPassword,      // the password itself (A 4, SASL PLAIN): taken over TLS only
};

// A login's credentials, as each protocol's handler fills them (HandlerSocket's
// `A 3`/`A 4`, memcached's SASL PLAIN); they point into the request's buffer.
struct LoginCredentials {
  std::string_view user;
  std::string_view secret;  // the response (kChallengeResponse) or the password
  LoginMechanism mechanism = LoginMechanism::kChallengeResponse;
};

// How old an account's security context may be before it is built again from the
// server's ACL: how long a GRANT, REVOKE or DROP USER may take to reach a
// connection already logged in.
constexpr uint64_t kAccountMaxAgeMs = 1000;

class AccountLogin {
 public:
  AccountLogin() = default;
  ~AccountLogin();  // gives back the account's connection slot (MAX_USER_CONNECTIONS)
  AccountLogin(const AccountLogin&) = delete;
  AccountLogin& operator=(const AccountLogin&) = delete;

  bool logged_in() const { return !user_.empty(); }
  // `user@host` as SQL names the account (the host pattern it matched).
  std::string AccountName() const;
  // Changes with every login and every rebuild of the security context: privileges
  // derived from an older generation must be checked again.
  uint64_t generation() const { return generation_; }

 private:
  friend class Accounts;
  void LogOut();

  std::string nonce_;        // the last A 2's 20 bytes; empty when none is pending
  std::string nonce_user_;
  std::string user_;         // empty while not logged in
  std::string host_;         // the connection's host as accounts match it
  std::string ip_;
  std::string role_;         // the account's default role, if any
  Security_context sctx_;    // points into the strings above
  USER_CONN* user_conn_ = nullptr;
  uint64_t built_ms_ = 0;    // when sctx_ was last built from the ACL
  uint64_t generation_ = 0;
};

// What an account may do through one open index, as the server's grants say.
struct IndexGrants {
  uint64_t generation = 0;   // AccountLogin::generation() they were derived from
  bool select = false;       // the columns, filter columns and key columns
  bool del = false;
  uint32_t insert_columns = 0;  // leading columns of the index an insert may write
  uint32_t update_columns = 0;  // and an update
};

class Accounts {
 public:
  explicit Accounts(THD* thd) : thd_(thd) {}

  // A 2 <user>: a fresh nonce for `login` of `user`, as 40 hex digits in *nonce_hex.
  EngineStatus Challenge(AccountLogin* login, std::string_view user, std::string* nonce_hex);
  // A login with `credentials` (A 3 <user> <response>, A 4 <user> <password>, SASL
  // PLAIN), from `ip` (over TLS or not). On success the connection is logged in as
  // the account.
  EngineStatus LogIn(AccountLogin* login, const LoginCredentials& credentials,
                     const std::string& ip, bool tls);

  // Rebuilds the security context from the server's ACL if it was built `max_age_ms`
  // or longer ago. False if the account no longer exists (the login ends).
  bool Refresh(AccountLogin* login, uint64_t now_ms, uint64_t max_age_ms);

  // Brings `grants` up to date with the login's generation for the table of `table`
  // and the index's columns.
  void Check(AccountLogin* login, TABLE* table, uint key_number, const std::vector<Field*>& columns,
             const std::vector<Field*>& filter_columns, IndexGrants* grants);
  // The columns of `table` SHOW COLUMNS would show the account of `login`, decided
  // by the same server code in the same order: false when the account has no
  // privilege on the table nor on any of its columns (SQL's
  // ER_TABLEACCESS_DENIED_ERROR); else, by field index, its privileges on each
  // column (COL_ACLS bits: SELECT, INSERT, UPDATE, REFERENCES; none: not shown).
  bool ColumnPrivileges(AccountLogin* login, TABLE* table, std::vector<privilege_t>* privileges);
  // Whether the account of `login` has some privilege on db.table or on one of its
  // columns (as ColumnPrivileges decides it), asked before the table is opened: SQL
  // refuses a statement on a table the account may not touch whether or not the
  // table exists, so a refusal says nothing of what the schema holds.
  bool MaySeeTable(AccountLogin* login, std::string_view db, std::string_view table);

 private:
  // The check of MaySeeTable on `tl` (initialized on db.table), in the login's
  // security context.
  bool SomePrivilegeOn(AccountLogin* login, TABLE_LIST* tl);
  EngineStatus CheckAccount(AccountLogin* login, const StoredAccount& stored,
                            const LoginCredentials& credentials, const std::string& nonce,
                            bool tls);
  bool BuildContext(AccountLogin* login);
  bool CountConnection(AccountLogin* login, const USER_RESOURCES& limits);
  bool TableAllows(AccountLogin* login, TABLE* table, TABLE_LIST* tl, privilege_t want);
  bool ColumnAllows(AccountLogin* login, TABLE_LIST* tl, const Field* field);

  THD* thd_;
};

}  // namespace rowsocket
