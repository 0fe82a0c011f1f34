// rowsocket-cli: a command-line client for rowsocket and HandlerSocket servers.
//
// main() reads the options (mariadb-client style: -h -P -u -p, plus --port-wr and
// --secret; -h may name several hosts), asks for the password when a bare -p says
// so, then runs one of three loops over a Session: the -e commands (one-shot, for
// scripts), lines from a terminal through libedit (interactive), or lines from a
// pipe (batch). Exit status 0 when every command succeeded, 1 when one failed (the
// CLI stops there unless --force), 2 for bad options. Single-threaded.
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "command.h"
#include "line_editor.h"
#include "password_prompt.h"
#include "session.h"

namespace rowsocket {
namespace cli {
namespace {

const char kUsage[] =
    "Usage: rowsocket-cli [options] [-e 'command; command']\n"
    "  -h, --host=HOST[,HOST]   server (127.0.0.1); several (a list, or -h again): finds\n"
    "                           and writes go to the first one that answers\n"
    "  -P, --port=PORT          read listener (9998; 0 for none)\n"
    "  -W, --port-wr=PORT       write listener (9999; 0 for none)\n"
    "      --secret=S           secret for A 1 <S> on the read listener\n"
    "      --secret-wr=S        secret for the write listener (default: --secret)\n"
    "  -u, --user=USER          MariaDB account to log in to on both listeners (and\n"
    "                           for SQL)\n"
    "  -p, --password[=P]       its password; without a value, asked on the terminal\n"
    "      --ssl                TLS to both listeners (the server's certificate unchecked)\n"
    "      --ssl-ca=FILE        TLS, the server's certificate signed by this CA (PEM)\n"
    "      --ssl-verify-server-cert  TLS, and the certificate must name --host\n"
    "  -D, --database=DB        database for tables named without one\n"
    "  -e, --execute=CMDS       run the commands (split at ; and newlines) and exit\n"
    "      --raw                start in raw mode (-e lines are protocol lines)\n"
    "  -B, --batch              tab-separated output (default unless interactive)\n"
    "  -t, --table              aligned table output (default when interactive)\n"
    "  -E, --vertical           one line per column\n"
    "      --column-names       header line in tab-separated output\n"
    "      --no-timing          no request timings\n"
    "  -f, --force              go on after a failed command\n"
    "      --connect-timeout=S  seconds to wait for a connection (5)\n"
    "      --timeout=S          seconds to wait for an answer (30)\n"
    "      --sql-socket=PATH    SQL socket, to read column names for auto-open from a\n"
    "                           server that cannot tell them (the original plugin;\n"
    "                           rowsocket tells them itself)\n"
    "      --sql-port=PORT      SQL port (on --sql-host, default --host), likewise\n"
    "      --history-file=PATH  (default $ROWSOCKET_HISTFILE or ~/.rowsocket_history; '' for none)\n"
    "  -V, --version            -?, --help\n";

enum LongOnly {
  kSecret = 1000, kSecretWr, kRaw, kColumnNames, kNoTiming, kConnectTimeout, kTimeout,
  kSqlSocket, kSqlPort, kSqlHost, kHistoryFile, kHelp, kSsl, kSslCa,
  kSslVerifyServerCert,
};

bool ParsePort(const char* text, uint16_t* port) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0 || v > 65535) return false;
  *port = static_cast<uint16_t>(v);
  return true;
}

// Appends the hosts of a comma-separated list; false when one is empty.
bool AddHosts(const std::string& list, std::vector<std::string>* hosts) {
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string host =
        list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (host.empty()) return false;
    hosts->push_back(host);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

// Overwrites a password given on the command line, so that ps shows x's instead (as
// the mariadb client does).
void HideArgument(char* arg) {
  for (; *arg != '\0'; ++arg) *arg = 'x';
}

std::string DefaultHistoryFile() {
  if (const char* env = std::getenv("ROWSOCKET_HISTFILE")) return env;
  if (const char* home = std::getenv("HOME")) return std::string(home) + "/.rowsocket_history";
  return "";
}

int RunLines(Session* session, bool force, bool (*next)(void*, std::string*), void* source) {
  int status = 0;
  std::string line;
  while (!session->done() && next(source, &line)) {
    if (!session->Run(line)) {
      status = 1;
      if (!force) break;
    }
  }
  return status;
}

const option kLongOptions[] = {
    {"host", required_argument, nullptr, 'h'},   {"port", required_argument, nullptr, 'P'},
    {"port-wr", required_argument, nullptr, 'W'}, {"secret", required_argument, nullptr, kSecret},
    {"secret-wr", required_argument, nullptr, kSecretWr},
    {"ssl", no_argument, nullptr, kSsl},         {"ssl-ca", required_argument, nullptr, kSslCa},
    {"ssl-verify-server-cert", no_argument, nullptr, kSslVerifyServerCert},
    {"database", required_argument, nullptr, 'D'}, {"execute", required_argument, nullptr, 'e'},
    {"raw", no_argument, nullptr, kRaw},         {"batch", no_argument, nullptr, 'B'},
    {"table", no_argument, nullptr, 't'},        {"vertical", no_argument, nullptr, 'E'},
    {"column-names", no_argument, nullptr, kColumnNames},
    {"no-timing", no_argument, nullptr, kNoTiming}, {"force", no_argument, nullptr, 'f'},
    {"connect-timeout", required_argument, nullptr, kConnectTimeout},
    {"timeout", required_argument, nullptr, kTimeout},
    {"sql-socket", required_argument, nullptr, kSqlSocket},
    {"sql-port", required_argument, nullptr, kSqlPort},
    {"sql-host", required_argument, nullptr, kSqlHost},
    {"user", required_argument, nullptr, 'u'},   {"password", optional_argument, nullptr, 'p'},
    {"history-file", required_argument, nullptr, kHistoryFile},
    {"version", no_argument, nullptr, 'V'},      {"help", no_argument, nullptr, kHelp},
    {nullptr, 0, nullptr, 0}};

// What the command line asked for: the session's options and what decides how the
// CLI runs them.
struct CommandLine {
  CliOptions options;
  bool force = false;           // -f: go on after a failed command
  std::string execute;          // the -e commands, each ended by a newline
  bool has_execute = false;
  std::string history_file = DefaultHistoryFile();
  std::string sql_host;         // --sql-host
  bool host_given = false;      // -h was given (the first replaces the default host)
  bool secret_wr_given = false;
  bool format_given = false;
  bool password_given = false;
  bool ask_password = false;    // a bare -p: ask on the terminal
};

// What ApplyOption says when the CLI goes on; any other value is the exit status.
constexpr int kGoOn = -1;

// Applies one option getopt_long returned (its argument in `optarg`).
int ApplyOption(int opt, CommandLine* cl) {
  CliOptions& o = cl->options;
  switch (opt) {
    case 'h':
      if (!cl->host_given) o.hosts.clear();
      cl->host_given = true;
      if (!AddHosts(optarg, &o.hosts)) { std::cerr << "bad --host\n"; return 2; }
      break;
    case 'P': if (!ParsePort(optarg, &o.port)) { std::cerr << "bad --port\n"; return 2; } break;
    case 'W': if (!ParsePort(optarg, &o.port_wr)) { std::cerr << "bad --port-wr\n"; return 2; } break;
    case kSecret: o.secret = optarg; break;
    case kSecretWr: o.secret_wr = optarg; cl->secret_wr_given = true; break;
    case kSsl: o.ssl = true; break;
    case kSslCa: o.ssl = true; o.ssl_ca = optarg; break;
    case kSslVerifyServerCert: o.ssl = true; o.ssl_verify_server_cert = true; break;
    case 'D': o.database = optarg; break;
    case 'e': cl->execute += std::string(optarg) + "\n"; cl->has_execute = true; break;
    case kRaw: o.raw = true; break;
    case 'B': o.format = Format::kTab; cl->format_given = true; break;
    case 't': o.format = Format::kTable; cl->format_given = true; break;
    case 'E': o.format = Format::kVertical; cl->format_given = true; break;
    case kColumnNames: o.column_names = true; break;
    case kNoTiming: o.timing = false; break;
    case 'f': cl->force = true; break;
    case kConnectTimeout: o.connect_timeout = std::chrono::seconds(std::atoi(optarg)); break;
    case kTimeout: o.io_timeout = std::chrono::seconds(std::atoi(optarg)); break;
    case kSqlSocket: o.sql.socket = optarg; o.sql.given = true; break;
    case kSqlPort: o.sql.port = static_cast<unsigned>(std::atoi(optarg)); o.sql.given = true; break;
    case kSqlHost: cl->sql_host = optarg; o.sql.given = true; break;
    case 'u': o.user = optarg; break;
    case 'p':
      cl->password_given = true;
      if (optarg == nullptr) {
        cl->ask_password = true;
      } else {
        o.password = optarg;
        cl->ask_password = false;
        HideArgument(optarg);
      }
      break;
    case kHistoryFile: cl->history_file = optarg; break;
    case 'V': std::cout << "rowsocket-cli 0.1.0\n"; return 0;
    case kHelp: std::cout << kUsage; return 0;
    default: std::cerr << kUsage; return 2;
  }
  return kGoOn;
}

// Reads argv into `*cl`; kGoOn, or the exit status (help, version, a bad option).
int ParseCommandLine(int argc, char** argv, CommandLine* cl) {
  int opt;
  while ((opt = getopt_long(argc, argv, "h:P:W:D:e:BtEfu:p::V?", kLongOptions, nullptr)) != -1) {
    const int status = ApplyOption(opt, cl);
    if (status != kGoOn) return status;
  }
  if (optind < argc) {
    std::cerr << "unexpected argument '" << argv[optind] << "'\n" << kUsage;
    return 2;
  }
  return kGoOn;
}

// The defaults that depend on other options: the write secret, the password asked
// on the terminal, where SQL is, the output format. kGoOn, or the exit status.
int CompleteOptions(CommandLine* cl) {
  CliOptions& o = cl->options;
  if (!cl->secret_wr_given) o.secret_wr = o.secret;
  if (cl->ask_password && !PromptPassword("Enter password: ", &o.password)) {
    std::cerr << "cannot ask for the password: no terminal (give -pPASSWORD)\n";
    return 2;
  }
  // The account serves SQL too (column names for auto-open), as mariadb would use it.
  if (!o.user.empty()) o.sql.user = o.user;
  if (cl->password_given) o.sql.password = o.password;
  // SQL lives where the listeners are: on --host when it names another machine or
  // a port was given; otherwise the local server, found as the mariadb client finds it.
  // With several hosts, SQL goes to the first (--sql-host says otherwise).
  const std::string& host = o.hosts.front();
  const bool local = !cl->host_given || host == "127.0.0.1" || host == "localhost";
  if (!cl->sql_host.empty()) {
    o.sql.host = cl->sql_host;
  } else if (o.sql.port != 0 || !local) {
    o.sql.host = host;
  }
  o.interactive = !cl->has_execute && isatty(STDIN_FILENO);
  if (o.interactive && !cl->format_given) o.format = Format::kTable;
  return kGoOn;
}

// The -e commands, one after the other.
int RunExecuteCommands(Session* session, const CommandLine& cl) {
  // Raw lines may hold `;`: split them at newlines only.
  std::vector<std::string> commands;
  if (cl.options.raw) {
    size_t start = 0;
    for (size_t lf; (lf = cl.execute.find('\n', start)) != std::string::npos; start = lf + 1) {
      if (lf > start) commands.push_back(cl.execute.substr(start, lf - start));
    }
  } else {
    commands = SplitCommands(cl.execute);
  }
  size_t next = 0;
  auto from_list = [](void* src, std::string* line) {
    auto* p = static_cast<std::pair<std::vector<std::string>*, size_t*>*>(src);
    if (*p->second >= p->first->size()) return false;
    *line = (*p->first)[(*p->second)++];
    return true;
  };
  std::pair<std::vector<std::string>*, size_t*> src(&commands, &next);
  return RunLines(session, cl.force, from_list, &src);
}

// Lines from a pipe.
int RunStandardInput(Session* session, bool force) {
  auto from_stdin = [](void*, std::string* line) {
    if (!std::getline(std::cin, *line)) return false;
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return true;
  };
  return RunLines(session, force, from_stdin, nullptr);
}

// Lines from a terminal, through libedit, with history and completion.
int RunInteractive(Session* session, const CommandLine& cl, const char* program) {
  const CliOptions& o = cl.options;
  std::string hosts;
  for (const std::string& h : o.hosts) hosts += (hosts.empty() ? "" : ",") + h;
  std::printf("rowsocket-cli: %s, read port %u, write port %u. Type 'help' for help.\n",
              hosts.c_str(), o.port, o.port_wr);
  LineEditor editor(program, cl.history_file);
  std::string line;
  while (!session->done()) {
    editor.SetRawMode(session->raw_mode());
    editor.SetWords(session->Words());
    if (!editor.ReadLine(session->Prompt(), &line)) {
      std::printf("\n");
      break;
    }
    session->Run(line);
  }
  return 0;
}

int Main(int argc, char** argv) {
  CommandLine cl;
  int status = ParseCommandLine(argc, argv, &cl);
  if (status == kGoOn) status = CompleteOptions(&cl);
  if (status != kGoOn) return status;

  Session session(cl.options, stdout, stderr);
  if (cl.has_execute) return RunExecuteCommands(&session, cl);
  if (!cl.options.interactive) return RunStandardInput(&session, cl.force);
  return RunInteractive(&session, cl, argv[0]);
}

}  // namespace
}  // namespace cli
}  // namespace rowsocket

int main(int argc, char** argv) { return rowsocket::cli::Main(argc, argv); }
