// Threads in tests, shared by every test layer. A test thread is always
// stopped and joined, also when an assertion returns early from the test
// body (a joinable std::thread's destructor would end the whole run). A
// wait for another thread to reach a state has a hang guard, never a time
// bound that decides pass or fail.
#pragma once

#include <chrono>
#include <functional>
#include <stop_token>
#include <thread>
#include <type_traits>
#include <utility>

namespace zonestack::testing_common {

// How long WaitFor waits before it calls the wait hung. A guard only: the
// test passes or fails on the state it waits for, which a working build
// reaches long before.
inline constexpr std::chrono::seconds kHangGuard{60};

// Waits until `done()` holds, looking every millisecond; false after
// kHangGuard.
template <typename Done>
bool WaitFor(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + kHangGuard;
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A thread of a test, stopped and joined when it goes out of scope: the
// body sees the request on its std::stop_token (its optional parameter),
// and `on_stop` wakes it from anything else it may be blocked on. In the
// body, record failures with EXPECT or ADD_FAILURE and return: an ASSERT
// there ends only the body.
class TestThread {
 public:
  template <typename Body>
    requires(!std::is_same_v<std::remove_cvref_t<Body>, TestThread>)
  explicit TestThread(Body&& body, std::function<void()> on_stop = nullptr)
      : on_stop_(std::move(on_stop)), thread_(std::forward<Body>(body)) {}
  TestThread(TestThread&&) = default;
  TestThread& operator=(TestThread&&) = delete;
  ~TestThread() { Stop(); }

  // Asks the body to stop, runs on_stop, and waits for the body to end.
  void Stop() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    if (on_stop_) on_stop_();
    thread_.join();
  }
  // Waits for the body to end by itself.
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::function<void()> on_stop_;
  std::jthread thread_;
};

}  // namespace zonestack::testing_common
