// HelpText: what `help` and `help <command>` print. Each human command is shown
// with the protocol request it sends, so the CLI doubles as a protocol tutorial.
// Constant text; any thread.
#include <string>

#include "session.h"

namespace rowsocket {
namespace cli {

namespace {

const char kOverview[] =
    "Commands (each sends one HandlerSocket request; <t> is <db>.<table>):\n"
    "  open <t> [<index>] [<col,...>] [filter <col,...>]   P: open an index (default PRIMARY,\n"
    "                                                     all columns) for later commands\n"
    "  find <t> [using <index>] [columns <col,...>] <op> <key>... [limit <n> [offset <m>]]\n"
    "       [in <keypart> <v>...] [where|while <col> <op> <v>]...           find\n"
    "  insert <t> [columns <col,...>] <v>...                                +\n"
    "  update <t> <op> <key>... [...] set <v>... [returning]                U  (U?)\n"
    "  increment <t> <op> <key>... [...] by <v>... [returning]              +  (+?)\n"
    "  decrement <t> <op> <key>... [...] by <v>... [returning]              -  (-?)\n"
    "  delete <t> <op> <key>... [...] [returning]                           D  (D?)\n"
    "  raw [read|write]   send protocol lines as typed (TAB key inserts a TAB); 'human' ends it\n"
    "  use <db>   format tab|table|vertical   timing on|off   help [<command>]   quit\n"
    "Operators: = > >= < <= (filters also !=). Values: bare words, 'quoted text' with\n"
    "\\t \\n \\0 \\xHH escapes, NULL (unquoted) for NULL, '' for the empty string.\n"
    "End a command with \\G for vertical output. Finds go to the read port, writes to the\n"
    "write port. Example: find test.user >= 100 limit 10\n";

struct Topic {
  const char* name;
  const char* text;
};

const Topic kTopics[] = {
    {"open",
     "open <db>.<table> [<index>] [<col,...>] [filter <col,...>]\n"
     "  Sends P with an index id of the CLI's choosing, and makes this index and these\n"
     "  columns the default of later commands on the table. Without a column list it uses\n"
     "  all the columns you may read, as the server lists them (?describe; from a\n"
     "  server that cannot, over SQL with --sql-socket / --sql-port).\n"
     "  open test.user PRIMARY user_name,user_email,created\n"},
    {"find",
     "find <t> [using <index>] [columns <col,...>] <op> <key>... [limit <n> [offset <m>]]\n"
     "     [in <keypart> <v>...] [where <col> <op> <v>]... [while <col> <op> <v>]...\n"
     "  <op> is = > >= < <=; the keys are values for the first key parts of the index.\n"
     "  limit defaults to 1, as in the protocol. in repeats the lookup with key part\n"
     "  <keypart> (0-based) replaced by each value. where skips rows that fail (F);\n"
     "  while ends the scan at the first row that fails (W).\n"
     "  find test.user = 101          find test.user >= 100 limit 10\n"
     "  find test.user = 0 limit 10 in 0 101 102 103\n"},
    {"insert",
     "insert <t> [columns <col,...>] <v>...\n"
     "  Values go to the first columns of the table's index columns. Prints the\n"
     "  AUTO_INCREMENT id when the table has one.\n"
     "  insert test.user columns user_id,user_name 104 'Ann Lee'\n"},
    {"update",
     "update <t> <op> <key>... [limit ..] [where ..] set <v>... [returning]\n"
     "  Sets the first columns of the rows found; prints how many changed, or with\n"
     "  returning the rows as they were before (U?).\n"
     "  update test.user columns user_name = 104 set 'Anne Lee'\n"},
    {"increment", "increment <t> <op> <key>... by <v>... [returning]   adds (+, +?)\n"},
    {"decrement",
     "decrement <t> <op> <key>... by <v>... [returning]   subtracts (-, -?); a row whose\n"
     "  value would cross zero is left alone\n"},
    {"delete", "delete <t> <op> <key>... [limit ..] [where ..] [returning]   deletes (D, D?)\n"},
    {"raw",
     "raw [read|write]\n"
     "  Lines go to the read (default) or write listener exactly as typed: TAB separates\n"
     "  tokens (the TAB key inserts one), and \\t \\n \\0 \\\\ \\xHH are\n"
     "  decoded first. Answers print as they came, TABs kept and other control bytes\n"
     "  escaped; the NULL token shows as \\0. 'human' goes back.\n"
     "  P\\t0\\ttest\\tuser\\tPRIMARY\\tuser_name,user_email,created\n"},
};

}  // namespace

std::string HelpText(const std::string& topic) {
  for (const Topic& t : kTopics) {
    if (topic == t.name) return t.text;
  }
  return kOverview;
}

}  // namespace cli
}  // namespace rowsocket
