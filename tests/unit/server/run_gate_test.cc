#include "server/run_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace rowsocket {
namespace {

using std::chrono::milliseconds;

TEST(RunGate, NobodyWaitingAdmitsNoSpare) {
  RunGate gate;
  EXPECT_FALSE(gate.Admit(milliseconds(1)));
  EXPECT_EQ(gate.waiting(), 0u);
}

TEST(RunGate, EachWaitAdmitsOneSpare) {
  RunGate gate;
  gate.WaitBegan();
  gate.WaitBegan();
  EXPECT_EQ(gate.waiting(), 2u);
  EXPECT_TRUE(gate.Admit(milliseconds(0)));
  EXPECT_TRUE(gate.Admit(milliseconds(0)));
  EXPECT_FALSE(gate.Admit(milliseconds(1)));  // two waits, two spares taking turns
  gate.Leave();
  EXPECT_TRUE(gate.Admit(milliseconds(0)));  // a spare gave its turn back
}

TEST(RunGate, AnEndedWaitAdmitsNoNewSpare) {
  RunGate gate;
  gate.WaitBegan();
  gate.WaitEnded();
  EXPECT_EQ(gate.waiting(), 0u);
  EXPECT_FALSE(gate.Admit(milliseconds(1)));
}

TEST(RunGate, AWaitWakesAParkedSpare) {
  RunGate gate;
  std::atomic<bool> admitted{false};
  std::thread spare([&] { admitted = gate.Admit(milliseconds(60000)); });
  // Whether the spare parked before or after the wait began, it is admitted.
  std::this_thread::sleep_for(milliseconds(20));
  gate.WaitBegan();
  spare.join();
  EXPECT_TRUE(admitted);
}

TEST(RunGate, StopAdmitsEveryParkedSpare) {
  RunGate gate;
  std::atomic<int> admitted{0};
  std::thread a([&] { admitted += gate.Admit(milliseconds(60000)); });
  std::thread b([&] { admitted += gate.Admit(milliseconds(60000)); });
  std::this_thread::sleep_for(milliseconds(20));
  gate.Stop();
  a.join();
  b.join();
  EXPECT_EQ(admitted, 2);
  EXPECT_TRUE(gate.Admit(milliseconds(0)));  // and any that asks after
}

}  // namespace
}  // namespace rowsocket
