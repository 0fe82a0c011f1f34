// The memcached command table (memcached_commands.h).
#include "protocol/memcached_commands.h"

namespace rowsocket {
namespace {

using C = McCommand;
using N = McCountsAs;

// command, name, uses_rows, writes, writes_with_flag, inserts, deletes, before_login,
// logs_in, counts_as. In McCommand order.
constexpr McCommandInfo kTable[kMcCommands] = {
    {C::kGet, "get", true, false, 0, false, false, false, false, N::kFind},
    {C::kGets, "gets", true, false, 0, false, false, false, false, N::kFind},
    {C::kGat, "gat", true, true, 0, false, false, false, false, N::kUpdate},
    {C::kGats, "gats", true, true, 0, false, false, false, false, N::kUpdate},
    {C::kStore, "store", true, true, 0, true, false, false, false, N::kInsert},
    {C::kDelete, "delete", true, true, 0, false, true, false, false, N::kDelete},
    {C::kIncr, "incr", true, true, 0, true, false, false, false, N::kUpdate},
    {C::kDecr, "decr", true, true, 0, true, false, false, false, N::kUpdate},
    {C::kTouch, "touch", true, true, 0, false, false, false, false, N::kUpdate},
    {C::kVersion, "version", false, false, 0, false, false, true, false, N::kOther},
    {C::kVerbosity, "verbosity", false, false, 0, false, false, false, false, N::kOther},
    {C::kStats, "stats", false, false, 0, false, false, false, false, N::kOther},
    {C::kFlushAll, "flush_all", true, true, 0, false, true, false, false, N::kOther},
    {C::kQuit, "quit", false, false, 0, false, false, true, false, N::kOther},
    {C::kNoop, "noop", false, false, 0, false, false, true, false, N::kOther},
    {C::kMetaGet, "mg", true, false, 'T', false, false, false, false, N::kFind},
    {C::kMetaSet, "ms", true, true, 0, true, false, false, false, N::kInsert},
    {C::kMetaDelete, "md", true, true, 0, false, true, false, false, N::kDelete},
    {C::kMetaArithmetic, "ma", true, true, 0, true, false, false, false, N::kUpdate},
    {C::kMetaNoop, "mn", false, false, 0, false, false, false, false, N::kOther},
    {C::kMetaDebug, "me", true, false, 0, false, false, false, false, N::kOther},
    {C::kSaslListMechs, "sasl_list_mechs", false, false, 0, false, false, true, false, N::kOther},
    {C::kSaslAuth, "sasl_auth", false, false, 0, false, false, false, true, N::kOther},
    {C::kSaslStep, "sasl_step", false, false, 0, false, false, false, false, N::kOther},
    {C::kInvalid, "invalid", false, false, 0, false, false, true, false, N::kInvalid},
};

}  // namespace

const McCommandInfo& McCommandProperties(McCommand command) {
  return kTable[static_cast<size_t>(command)];
}

const McCommandInfo* McCommandTable() { return kTable; }

}  // namespace rowsocket
