// ShutdownDeadline: a process that has begun to shut down ends within a bound, whatever is
// stuck. Arm() starts the countdown (on SIGINT/SIGTERM); if the process still runs when it ends
// (it waits for an engine call that never returns, or for a close that hangs), the deadline
// logs it and ends the process at once with _exit(exit_status): no destructors, so the store
// is not closed. That loses no acknowledged write: under either durability mode a write is
// answered only once it is in RocksDB's write-ahead log, which the next open replays, as after
// kill -9 (docs/architecture/server.md "Shutdown").
// Thread safety: Arm from any thread, any number of times (the first counts); the destructor
// from the owner, once nothing will call Arm any more.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ddb::server {

class ShutdownDeadline {
 public:
  // `what`: the bound's name in the log line ("--shutdown-grace + 5 s").
  ShutdownDeadline(int exit_status, std::string what);
  ShutdownDeadline(const ShutdownDeadline&) = delete;
  ShutdownDeadline& operator=(const ShutdownDeadline&) = delete;
  // Disarms: the shutdown ended in time.
  ~ShutdownDeadline();

  // Ends the process `after` from now unless destroyed first. Later calls change nothing.
  void Arm(std::chrono::milliseconds after);

 private:
  const int exit_status_;
  const std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;     // guarded by mu_
  bool disarmed_ = false;  // guarded by mu_
  std::thread thread_;     // started by the first Arm()
};

}  // namespace ddb::server
