// Tests for the engine's status (engine_status.h) and its two mappings: every kind in
// HandlerSocket's words (handlersocket_status.h) and in memcached's, text and binary
// (memcached_status.h); the errors HandlerSocket's own layers decide round-trip.
#include "protocol/engine_status.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/handlersocket_status.h"
#include "memcached_test_util.h"
#include "protocol/memcached_response.h"
#include "protocol/memcached_status.h"
#include "protocol/response.h"
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace {

using Kind = EngineStatus::Kind;

// What each kind answers: HandlerSocket's line, memcached's text line, memcached's
// binary status. One row per kind, in Kind order.
struct Expected {
  EngineStatus status;
  const char* hs;
  const char* text;
  McStatus binary;
};

const Expected kExpected[] = {
    {EngineStatus::OK(), "0\t1\n", "", McStatus::kOk},
    {EngineStatus::BadRequest("kpnum"), "2\t1\tkpnum\n", "CLIENT_ERROR bad command line format",
     McStatus::kInvalidArguments},
    {EngineStatus::IndexNotOpen(), "2\t1\tstmtnum\n", "SERVER_ERROR no such index",
     McStatus::kOutOfMemory},
    {EngineStatus::NoSuchIndex(), "2\t1\tidxnum\n",
     "SERVER_ERROR the key column has no unique index of its own", McStatus::kOutOfMemory},
    {EngineStatus::IndexUnreadable(), "2\t1\tidxtype\n",
     "SERVER_ERROR the key's index cannot be read by key", McStatus::kOutOfMemory},
    {EngineStatus::NoSuchColumn(), "2\t1\tfld\n",
     "SERVER_ERROR the container names a column its table lacks", McStatus::kOutOfMemory},
    {EngineStatus::SchemaForbidden(), "2\t1\tforbidden\n",
     "SERVER_ERROR system schemas cannot be opened (rowsocket_allowed_system_schemas)",
     McStatus::kOutOfMemory},
    {EngineStatus::TooBig(), "2\t1\tanswersize\n",
     "SERVER_ERROR out of memory writing get response", McStatus::kOutOfMemory},
    {EngineStatus::TooManyRows(), "2\t1\trowsexamined\n",
     "SERVER_ERROR too many rows examined (rowsocket_max_rows_examined)", McStatus::kOutOfMemory},
    {EngineStatus::NotAKey(), "2\t1\tklen\n", "CLIENT_ERROR key is not a value of the key column",
     McStatus::kInvalidArguments},
    {EngineStatus::ValueShape(3, "|"), "2\t1\tklen\n",
     "CLIENT_ERROR the value must have 3 fields separated by '|'", McStatus::kInvalidArguments},
    {EngineStatus::NotANumber(), "2\t1\tmodop\n",
     "CLIENT_ERROR cannot increment or decrement non-numeric value", McStatus::kNonNumeric},
    {EngineStatus::UnknownCommand(), "2\t1\tcmd\n", "ERROR", McStatus::kUnknownCommand},
    {EngineStatus::Unauthenticated(), "3\t1\tunauth\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::AuthTypeUnknown(), "3\t1\tauthtype\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::NoChallenge(), "3\t1\tnonce\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::AccountLocked(), "3\t1\tlocked\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::PasswordExpired(), "3\t1\texpired\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::AuthPluginUnsupported(), "3\t1\tauthplugin\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::TlsRequired(), "3\t1\ttlsrequired\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::TooManyConnections(), "3\t1\tmaxconn\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::AccountBlocked(), "3\t1\tblocked\n", "CLIENT_ERROR unauthenticated",
     McStatus::kAuthError},
    {EngineStatus::Denied(), "3\t1\tdenied\n", "CLIENT_ERROR access denied", McStatus::kAuthError},
    {EngineStatus::ReadOnly(1290), "1\t1\t1290\n", "SERVER_ERROR 1 1290", McStatus::kOutOfMemory},
    {EngineStatus::ClusterNotReady(1047), "1\t1\t1047\n", "SERVER_ERROR 1 1047",
     McStatus::kOutOfMemory},
    {EngineStatus::ClusterRefused(1213), "1\t1\t1213\n", "SERVER_ERROR 1 1213",
     McStatus::kOutOfMemory},
    {EngineStatus::GeneratedColumn(1906), "1\t1\t1906\n", "SERVER_ERROR 1 1906",
     McStatus::kOutOfMemory},
    {EngineStatus::Triggers(), "1\t1\ttriggers\n",
     "SERVER_ERROR the table has triggers; writes are refused", McStatus::kOutOfMemory},
    {EngineStatus::TableOpenFailed(), "1\t1\topen_table\n",
     "SERVER_ERROR the table cannot be opened", McStatus::kOutOfMemory},
    {EngineStatus::TableLocked(), "1\t1\tlock_tables\n", "SERVER_ERROR the table is locked",
     McStatus::kOutOfMemory},
    {EngineStatus::LockWaitTimeout(146), "1\t1\t146\n", "SERVER_ERROR 1 146",
     McStatus::kOutOfMemory},
    {EngineStatus::Deadlock(149), "1\t1\t149\n", "SERVER_ERROR 1 149", McStatus::kOutOfMemory},
    {EngineStatus::Conflict(121), "1\t1\t121\n",
     "SERVER_ERROR the item was created meanwhile; try again", McStatus::kOutOfMemory},
    {EngineStatus::Killed(), "1\t1\tkilled\n", "SERVER_ERROR the request was killed",
     McStatus::kOutOfMemory},
    {EngineStatus::CommitFailed(), "1\t1\tcommit\n", "SERVER_ERROR the commit failed",
     McStatus::kOutOfMemory},
    {EngineStatus::StorageError(1205), "1\t1\t1205\n", "SERVER_ERROR 1 1205",
     McStatus::kOutOfMemory},
};

static_assert(sizeof(kExpected) / sizeof(kExpected[0]) == EngineStatus::kKinds,
              "one row per kind");

using mc_test::BinaryError;

McRequest Text(bool noreply = false) {
  return mc_test::StoreRequest(McFraming::kText, noreply);
}
McRequest Binary() { return mc_test::StoreRequest(McFraming::kBinary); }

TEST(EngineStatus, the_rows_cover_every_kind_in_order) {
  for (int i = 0; i < EngineStatus::kKinds; ++i)
    EXPECT_EQ(static_cast<int>(kExpected[i].status.kind()), i) << i;
}

TEST(EngineStatus, every_kind_has_a_name_and_its_category_is_handlersockets_class) {
  for (const Expected& e : kExpected) {
    EXPECT_FALSE(e.status.Name().empty());
    EXPECT_EQ(static_cast<int>(e.status.category()),
              static_cast<int>(HsWireStatus(e.status).code()))
        << e.hs;
  }
}

TEST(EngineStatus, every_kind_in_handlersockets_words) {
  for (const Expected& e : kExpected) {
    std::string out;
    ResponseWriter(&out).Result(e.status);
    EXPECT_EQ(out, e.hs) << e.status.Name();
  }
}

TEST(EngineStatus, every_failure_in_memcacheds_text_words) {
  for (const Expected& e : kExpected) {
    if (e.status.ok()) continue;
    EXPECT_EQ(McTextError(e.status), e.text);
    std::string out;
    McAnswerStatus(Text(), e.status, &out);
    EXPECT_EQ(out, std::string(e.text) + "\r\n");
  }
}

TEST(EngineStatus, every_failure_as_memcacheds_binary_status) {
  const McRequest mc = Binary();
  for (const Expected& e : kExpected) {
    if (e.status.ok()) continue;
    EXPECT_EQ(McBinaryError(e.status), e.binary) << e.status.Name();
    std::string out;
    McAnswerStatus(mc, e.status, &out);
    EXPECT_EQ(out, BinaryError(mc, e.binary)) << e.status.Name();
  }
}

TEST(EngineStatus, a_quiet_request_hears_of_a_refusal_but_not_of_a_failure) {
  std::string out;
  McAnswerFailure(Text(/*noreply=*/true), EngineStatus::LockWaitTimeout(146), &out);
  McAnswerStatus(Text(/*noreply=*/true), EngineStatus::TableOpenFailed(), &out);
  EXPECT_EQ(out, "");
  McAnswerRefusal(Text(/*noreply=*/true), EngineStatus::Denied(), &out);
  EXPECT_EQ(out, "CLIENT_ERROR access denied\r\n");
}

TEST(EngineStatus, a_detail_longer_than_its_room_is_cut) {
  const std::string long_word(EngineStatus::kMaxDetail + 5, 'x');
  EXPECT_EQ(EngineStatus::BadRequest(long_word).detail().size(), EngineStatus::kMaxDetail);
}

TEST(EngineStatus, equal_only_in_kind_error_and_detail) {
  EXPECT_EQ(EngineStatus::LockWaitTimeout(146), EngineStatus::LockWaitTimeout(146));
  EXPECT_NE(EngineStatus::LockWaitTimeout(146), EngineStatus::StorageError(146));
  EXPECT_NE(EngineStatus::Deadlock(149), EngineStatus::Deadlock(1213));
  EXPECT_NE(EngineStatus::BadRequest("kpnum"), EngineStatus::BadRequest("klen"));
}

// Every error HandlerSocket's parser or listener may decide reaches its client
// unchanged through the engine's status, and in the same category.
TEST(EngineStatus, every_wire_error_round_trips_through_the_engine_status) {
  for (int i = 0; i <= static_cast<int>(WireError::kDenied); ++i) {
    const WireStatus wire = ErrorStatus(static_cast<WireError>(i));
    const EngineStatus status = HsEngineStatus(wire);
    EXPECT_EQ(HsWireStatus(status), wire) << wire.message();
    EXPECT_EQ(static_cast<int>(status.category()), static_cast<int>(wire.code()));
  }
  EXPECT_EQ(HsWireStatus(HsEngineStatus(WireStatus::StorageCode(1205))),
            WireStatus::StorageCode(1205));
  EXPECT_TRUE(HsEngineStatus(WireStatus::OK()).ok());
}

}  // namespace
}  // namespace rowsocket
