// The memcached command table (memcached_commands.h).
#include "protocol/memcached_commands.h"

namespace rowsocket {
namespace {

using C = McCommand;
using N = McCountsAs;

// command, name, uses_rows, writes, writes_with_flag, inserts, deletes, before_login,
// logs_in, counts_as, retrieves. In McCommand order.
constexpr McCommandInfo kTable[kMcCommands] = {
    {C::kGet, "get", true, false, 0, false, false, false, false, N::kFind, true},
    {C::kGets, "gets", true, false, 0, false, false, false, false, N::kFind, true},
    {C::kGat, "gat", true, true, 0, false, false, false, false, N::kUpdate, true},
    {C::kGats, "gats", true, true, 0, false, false, false, false, N::kUpdate, true},
    {C::kStore, "store", true, true, 0, true, false, false, false, N::kInsert, false},
    {C::kDelete, "delete", true, true, 0, false, true, false, false, N::kDelete, false},
    {C::kIncr, "incr", true, true, 0, true, false, false, false, N::kUpdate, false},
    {C::kDecr, "decr", true, true, 0, true, false, false, false, N::kUpdate, false},
    {C::kTouch, "touch", true, true, 0, false, false, false, false, N::kUpdate, false},
    {C::kVersion, "version", false, false, 0, false, false, true, false, N::kOther, false},
    {C::kVerbosity, "verbosity", false, false, 0, false, false, false, false, N::kOther, false},
    {C::kStats, "stats", false, false, 0, false, false, false, false, N::kOther, false},
    {C::kFlushAll, "flush_all", true, true, 0, false, true, false, false, N::kOther, false},
    {C::kQuit, "quit", false, false, 0, false, false, true, false, N::kOther, false},
    {C::kNoop, "noop", false, false, 0, false, false, true, false, N::kOther, false},
    {C::kMetaGet, "mg", true, false, 'T', false, false, false, false, N::kFind, true},
    {C::kMetaSet, "ms", true, true, 0, true, false, false, false, N::kInsert, false},
    {C::kMetaDelete, "md", true, true, 0, false, true, false, false, N::kDelete, false},
    {C::kMetaArithmetic, "ma", true, true, 0, true, false, false, false, N::kUpdate, false},
    {C::kMetaNoop, "mn", false, false, 0, false, false, false, false, N::kOther, false},
    {C::kMetaDebug, "me", true, false, 0, false, false, false, false, N::kOther, true},
    {C::kSaslListMechs, "sasl_list_mechs", false, false, 0, false, false, true, false, N::kOther, false},
    {C::kSaslAuth, "sasl_auth", false, false, 0, false, false, false, true, N::kOther, false},
    {C::kSaslStep, "sasl_step", false, false, 0, false, false, false, false, N::kOther, false},
    {C::kInvalid, "invalid", false, false, 0, false, false, true, false, N::kInvalid, false},
};

}  // namespace

const McCommandInfo& McCommandProperties(McCommand command) {
  return kTable[static_cast<size_t>(command)];
}

const McCommandInfo* McCommandTable() { return kTable; }

RequestCategory McCategoryOf(const McRequest& mc) {
  switch (McCommandProperties(mc.command).counts_as) {
    case McCountsAs::kFind: return RequestCategory::kFind;
    case McCountsAs::kInsert: return RequestCategory::kInsert;
    case McCountsAs::kUpdate: return RequestCategory::kUpdate;
    case McCountsAs::kDelete: return RequestCategory::kDelete;
    case McCountsAs::kInvalid: return RequestCategory::kInvalid;
    case McCountsAs::kOther: break;
  }
  return RequestCategory::kOpen;
}

}  // namespace rowsocket
