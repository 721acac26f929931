#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include "cli/output.h"

namespace ddb::cli {

bool StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }
bool StdoutIsTerminal() { return ::isatty(STDOUT_FILENO) == 1; }

Progress::Progress(std::string verb, uint64_t total, bool enabled)
    : verb_(std::move(verb)),
      total_(total),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::Add(uint64_t items, uint64_t units) {
  items_ += items;
  units_ += units;
  if (enabled_) Draw(false);
}

std::string Progress::Line(uint64_t items, uint64_t units, uint64_t total, double seconds,
                           bool unicode) {
  std::string line = Grouped(static_cast<int64_t>(items)) + " items";
  double fraction = 0;
  if (total > 0) {
    fraction = std::min(1.0, static_cast<double>(units) / static_cast<double>(total));
    char pct[16];
    std::snprintf(pct, sizeof pct, "  %3.0f%% ", fraction * 100);
    line += pct;
    line += "[" + Bar(fraction, 24, unicode) + "]";
  }
  const double rate = seconds > 0 ? static_cast<double>(items) / seconds : 0;
  line += "  " + Grouped(static_cast<int64_t>(rate)) + " items/s";
  if (total > 0 && fraction > 0 && fraction < 1) {
    const double left = seconds * (1 - fraction) / fraction;
    char eta[32];
    if (left >= 60) {
      std::snprintf(eta, sizeof eta, "  ETA %dm%02ds", static_cast<int>(left) / 60,
                    static_cast<int>(left) % 60);
    } else {
      std::snprintf(eta, sizeof eta, "  ETA %.0fs", left);
    }
    line += eta;
  }
  return line;
}

void Progress::Draw(bool force) {
  std::unique_lock lock(draw_mu_, std::try_to_lock);
  if (!lock.owns_lock() && !force) return;
  if (!lock.owns_lock()) lock.lock();
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const std::string line = Line(items_.load(), units_.load(), total_, seconds(), true);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void Progress::Finish() {
  const double s = seconds();
  if (enabled_) {
    Draw(true);
    std::fputs("\r\033[K", stderr);
  }
  const uint64_t n = items_.load();
  char text[160];
  std::snprintf(text, sizeof text, "%s %s items in %.2f s (%s items/s)\n", verb_.c_str(),
                Grouped(static_cast<int64_t>(n)).c_str(), s,
                Grouped(static_cast<int64_t>(s > 0 ? static_cast<double>(n) / s : 0)).c_str());
  std::fputs(text, stderr);
}

}  // namespace ddb::cli
