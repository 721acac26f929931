// EngineSlots: admission for engine calls, so that calls that block (a write to a table with
// a GSI waits up to ~2 s for the GSI applier) never occupy every thread of the server.
//
// The server lets at most `engine_threads` calls run at once (one slot each) and keeps as
// many spare threads (spare_threads.h) that serve the io_context while calls hold the I/O
// threads up, so that with every slot taken `threads` threads still serve accepting, reading
// and writing, health checks and /metrics.
// A call that gets a slot runs at once on the thread that read its request: no handoff to
// another thread, no wake-up, only this class's uncontended mutex. A call that finds every
// slot taken parks its continuation (FIFO); the call that next releases a slot passes the slot
// on to the oldest parked continuation and returns it, for the caller to schedule.
//
// Bounds: at most `slots` calls run; parked continuations are not bounded here but by the
// caller, which parks at most one per connection and reads nothing more from a connection
// while its request is parked: a parked continuation is a connection waiting its turn, not
// buffered input. Nothing is dropped, except by DiscardParked() at shutdown.
//
// Thread safety: every method may be called from any thread, concurrently.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace ddb::server {

class EngineSlots {
 public:
  using Continuation = std::function<void()>;

  // REQUIRES: slots >= 1.
  explicit EngineSlots(int slots);
  EngineSlots(const EngineSlots&) = delete;
  EngineSlots& operator=(const EngineSlots&) = delete;

  // Takes a slot and returns true, or returns false when all are taken (or continuations are
  // parked, which come first). On true the caller runs its call and then calls Release().
  bool TryAcquire();

  // Takes a slot and returns true (`continuation` is destroyed unrun: the caller runs its call
  // now), or parks `continuation` and returns false: a later Release() returns it with the
  // slot. Call after TryAcquire() failed, with what should run once a slot is free.
  bool AcquireOrPark(Continuation continuation);

  // Ends a call that held a slot. Returns the oldest parked continuation, which now holds the
  // slot (the caller must run or schedule it; it must call Release() in turn), or an empty
  // function when none is parked (the slot is free again).
  Continuation Release();

  // Destroys every parked continuation unrun (their slots are never handed out); returns how
  // many there were. For shutdown, once nothing runs them any more.
  size_t DiscardParked();

  // Snapshots, for tests and logs.
  int slots() const { return slots_; }
  int in_use() const;
  size_t parked() const;

 private:
  const int slots_;
  mutable std::mutex mu_;
  int in_use_ = 0;                   // guarded by mu_; <= slots_
  std::deque<Continuation> parked_;  // guarded by mu_; non-empty only while in_use_ == slots_
};

}  // namespace ddb::server
