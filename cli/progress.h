// The progress line of `ddb dump` and `ddb load` on stderr: done so far, a bar and the
// percentage when the total is known, the rate and the time left. Drawn only when stderr is
// a terminal (and not --quiet), at most ten times a second; Finish() always prints one
// summary line ("loaded 100,000 items in 1.9 s (52,631 items/s)").
// Thread safety: Add may be called from several threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace ddb::cli {

class Progress {
 public:
  // verb: "loaded", "dumped". total: the expected units of work (bytes of the input, or
  // items), 0 when unknown.
  Progress(std::string verb, uint64_t total, bool enabled);

  // `items` more done, `units` more of the total's work.
  void Add(uint64_t items, uint64_t units);
  void Finish();

  uint64_t items() const { return items_.load(); }
  double seconds() const;

  // The text of the line (for tests): "12,000 items  40% [####      ] 50,000 items/s  ETA 3s".
  static std::string Line(uint64_t items, uint64_t units, uint64_t total, double seconds,
                          bool unicode);

 private:
  void Draw(bool force);

  const std::string verb_;
  const uint64_t total_;
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> items_{0};
  std::atomic<uint64_t> units_{0};
  std::mutex draw_mu_;
  std::chrono::steady_clock::time_point last_draw_{};
};

// Whether stderr is a terminal.
bool StderrIsTerminal();
bool StdoutIsTerminal();

}  // namespace ddb::cli
