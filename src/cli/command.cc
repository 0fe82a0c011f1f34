// ParseCommand: the grammar of rowsocket-cli's human commands (see command.h).
//
// Two passes: Tokenize cuts the line into words, keeping quoted words apart (they
// are never keywords and never NULL); Parser then walks the words with one
// function per command shape. Every error is a usage error whose text says what
// was expected, so the CLI can print it as is. Pure; any thread.
#include "command.h"

#include <cctype>
#include <charconv>

namespace rowsocket {
namespace cli {

namespace {

using client::Error;

struct Token {
  std::string text;
  bool quoted = false;
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<std::vector<Token>> Tokenize(std::string_view line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    if (IsSpace(line[i])) {
      ++i;
      continue;
    }
    Token t;
    if (line[i] == '\'' || line[i] == '"') {
      const char quote = line[i++];
      std::string raw;
      while (i < line.size() && line[i] != quote) {
        if (line[i] == '\\' && i + 1 < line.size()) raw.push_back(line[i++]);
        raw.push_back(line[i++]);
      }
      if (i == line.size()) return Error::Usage("unterminated quote");
      ++i;
      if (!Unescape(raw, &t.text)) return Error::Usage("bad escape in '" + raw + "'");
      t.quoted = true;
    } else {
      const size_t start = i;
      while (i < line.size() && !IsSpace(line[i])) ++i;
      t.text = std::string(line.substr(start, i - start));
    }
    tokens.push_back(std::move(t));
  }
  return tokens;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ParseUint(const std::string& s, uint32_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool IsFindOp(const std::string& s) {
  return s == "=" || s == ">" || s == ">=" || s == "<" || s == "<=";
}

bool IsFilterOp(const std::string& s) { return IsFindOp(s) || s == "!="; }

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Result<Command> Parse() {
    Command c;
    if (t_.empty()) return c;
    const std::string verb = Lower(t_[0].text);
    pos_ = 1;
    if (verb == "open") c.verb = Verb::kOpen;
    else if (verb == "find" || verb == "get") c.verb = Verb::kFind;
    else if (verb == "insert") c.verb = Verb::kInsert;
    else if (verb == "update") c.verb = Verb::kUpdate;
    else if (verb == "increment" || verb == "incr") c.verb = Verb::kIncrement;
    else if (verb == "decrement" || verb == "decr") c.verb = Verb::kDecrement;
    else if (verb == "delete") c.verb = Verb::kDelete;
    else if (verb == "help" || verb == "?" || verb == "\\h") c.verb = Verb::kHelp;
    else if (verb == "quit" || verb == "exit" || verb == "\\q") c.verb = Verb::kQuit;
    else if (verb == "use") c.verb = Verb::kUse;
    else if (verb == "format") c.verb = Verb::kFormat;
    else if (verb == "timing") c.verb = Verb::kTiming;
    else if (verb == "raw") c.verb = Verb::kRaw;
    else if (verb == "human") c.verb = Verb::kHuman;
    else return Error::Usage("unknown command '" + t_[0].text + "' (try: help)");

    switch (c.verb) {
      case Verb::kOpen: return ParseOpen(std::move(c));
      case Verb::kInsert: return ParseInsert(std::move(c));
      case Verb::kFind: case Verb::kUpdate: case Verb::kIncrement: case Verb::kDecrement:
      case Verb::kDelete:
        return ParseFind(std::move(c));
      default:
        if (pos_ < t_.size()) c.argument = t_[pos_++].text;
        if (pos_ < t_.size()) return Error::Usage("unexpected '" + t_[pos_].text + "'");
        return c;
    }
  }

 private:
  bool AtEnd() const { return pos_ >= t_.size(); }
  // The next token is the unquoted keyword `word`.
  bool PeekKeyword(const char* word) const {
    return !AtEnd() && !t_[pos_].quoted && Lower(t_[pos_].text) == word;
  }
  bool AtAnyKeyword() const {
    for (const char* k : {"limit", "offset", "in", "where", "while", "set", "by", "returning",
                          "using", "columns"}) {
      if (PeekKeyword(k)) return true;
    }
    return false;
  }
  Value TakeValue() {
    const Token& t = t_[pos_++];
    if (!t.quoted && Lower(t.text) == "null") return Value::Null();
    if (t.quoted) return Value(t.text);
    std::string decoded;
    return Unescape(t.text, &decoded) ? Value(decoded) : Value(t.text);
  }
  Row TakeValues() {
    Row values;
    while (!AtEnd() && !AtAnyKeyword()) values.push_back(TakeValue());
    return values;
  }

  Result<bool> ParseTable(Command* c) {
    if (AtEnd()) return Error::Usage("which table? write <db>.<table>");
    const std::string& name = t_[pos_++].text;
    const size_t dot = name.find('.');
    if (dot == std::string::npos) {
      c->table = name;
    } else {
      c->db = name.substr(0, dot);
      c->table = name.substr(dot + 1);
    }
    if (c->table.empty()) return Error::Usage("which table? write <db>.<table>");
    return true;
  }

  Result<Command> ParseOpen(Command c) {
    Result<bool> table = ParseTable(&c);
    if (!table.ok()) return table.error();
    if (!AtEnd() && !PeekKeyword("filter")) c.index = t_[pos_++].text;
    if (!AtEnd() && !PeekKeyword("filter")) c.columns = SplitList(t_[pos_++].text);
    if (PeekKeyword("filter")) {
      ++pos_;
      if (AtEnd()) return Error::Usage("filter needs a column list");
      c.filter_columns = SplitList(t_[pos_++].text);
    }
    if (!AtEnd()) return Error::Usage("unexpected '" + t_[pos_].text + "' (see: help open)");
    return c;
  }

  Result<Command> ParseInsert(Command c) {
    Result<bool> table = ParseTable(&c);
    if (!table.ok()) return table.error();
    if (PeekKeyword("columns")) {
      ++pos_;
      if (AtEnd()) return Error::Usage("columns needs a list: columns a,b");
      c.columns = SplitList(t_[pos_++].text);
    }
    if (PeekKeyword("values")) ++pos_;
    while (!AtEnd()) c.values.push_back(TakeValue());
    if (c.values.empty()) return Error::Usage("insert needs values (see: help insert)");
    return c;
  }

  Result<Command> ParseFind(Command c) {
    Result<bool> table = ParseTable(&c);
    if (!table.ok()) return table.error();
    for (;;) {  // using / columns, in any order
      if (PeekKeyword("using")) {
        if (++pos_ == t_.size()) return Error::Usage("using needs an index name");
        c.index = t_[pos_++].text;
      } else if (PeekKeyword("columns")) {
        if (++pos_ == t_.size()) return Error::Usage("columns needs a list: columns a,b");
        c.columns = SplitList(t_[pos_++].text);
      } else {
        break;
      }
    }
    if (AtEnd() || !IsFindOp(t_[pos_].text)) {
      return Error::Usage("expected an operator (= > >= < <=) and key values after the table");
    }
    c.op = t_[pos_++].text;
    c.key = TakeValues();
    if (c.key.empty()) return Error::Usage("expected key values after '" + c.op + "'");
    while (!AtEnd()) {
      Result<bool> clause = ParseClause(&c);
      if (!clause.ok()) return clause.error();
    }
    return Check(std::move(c));
  }

  Result<bool> ParseClause(Command* c) {
    const std::string word = Lower(t_[pos_].text);
    if (t_[pos_].quoted) return Error::Usage("unexpected '" + t_[pos_].text + "'");
    ++pos_;
    if (word == "limit" || word == "offset") {
      uint32_t n;
      if (AtEnd() || !ParseUint(t_[pos_].text, &n)) return Error::Usage(word + " needs a number");
      ++pos_;
      (word == "limit" ? c->limit : c->offset) = n;
    } else if (word == "in") {
      if (AtEnd() || !ParseUint(t_[pos_].text, &c->in_key_part)) {
        return Error::Usage("in needs a key part number and values: in 0 101 102");
      }
      ++pos_;
      c->has_in = true;
      c->in_values = TakeValues();
    } else if (word == "where" || word == "while") {
      if (pos_ + 3 > t_.size()) return Error::Usage(word + " needs <column> <op> <value>");
      CliFilter f;
      f.stop = word == "while";
      f.column = t_[pos_++].text;
      f.op = t_[pos_++].text;
      if (!IsFilterOp(f.op)) return Error::Usage("unknown filter operator '" + f.op + "'");
      f.value = TakeValue();
      c->filters.push_back(std::move(f));
    } else if (word == "set" || word == "by") {
      c->values = TakeValues();
    } else if (word == "returning") {
      c->returning = true;
    } else {
      return Error::Usage("unexpected '" + t_[pos_ - 1].text + "'");
    }
    return true;
  }

  Result<Command> Check(Command c) {
    const bool needs_values = c.verb == Verb::kUpdate || c.verb == Verb::kIncrement ||
                              c.verb == Verb::kDecrement;
    if (needs_values && c.values.empty()) {
      return Error::Usage(c.verb == Verb::kUpdate ? "update needs: set <value>..."
                                                  : "increment/decrement need: by <value>...");
    }
    if (!needs_values && !c.values.empty()) return Error::Usage("set/by belong to update, "
                                                                "increment and decrement");
    if (c.returning && c.verb == Verb::kFind) return Error::Usage("returning belongs to modifies");
    return c;
  }

  std::vector<Token> t_;
  size_t pos_ = 0;
};

}  // namespace

bool Unescape(std::string_view text, std::string* out) {
  out->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out->push_back(text[i]);
      continue;
    }
    const char c = text[++i];
    switch (c) {
      case 't': out->push_back('\t'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case '0': out->push_back('\0'); break;
      case '\\': case '\'': case '"': out->push_back(c); break;
      case 'x': {
        const int hi = i + 1 < text.size() ? HexDigit(text[i + 1]) : -1;
        const int lo = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
        if (hi < 0 || lo < 0) return false;
        out->push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        break;
      }
      default: return false;
    }
  }
  return true;
}

Result<Command> ParseCommand(std::string_view line) {
  // A trailing `;` ends a command; a trailing \G asks for vertical output.
  while (!line.empty() && (IsSpace(line.back()) || line.back() == ';')) line.remove_suffix(1);
  bool vertical = false;
  if (line.size() >= 2 && line.substr(line.size() - 2) == "\\G") {
    vertical = true;
    line.remove_suffix(2);
  }
  Result<std::vector<Token>> tokens = Tokenize(line);
  if (!tokens.ok()) return tokens.error();
  Result<Command> c = Parser(std::move(tokens.value())).Parse();
  if (c.ok()) c->vertical = vertical;
  return c;
}

std::vector<std::string> SplitCommands(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      current.push_back(c);
      if (c == '\\' && i + 1 < text.size()) current.push_back(text[++i]);
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
      current.push_back(c);
    } else if (c == ';' || c == '\n') {
      if (current.find_first_not_of(" \t\r") != std::string::npos) out.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (current.find_first_not_of(" \t\r") != std::string::npos) out.push_back(current);
  return out;
}

}  // namespace cli
}  // namespace rowsocket
