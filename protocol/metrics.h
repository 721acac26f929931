// Request metrics and the Prometheus text exposition of GET /metrics: per operation request
// counts and latency histograms, errors by type, and the engine's per-table, per-index and
// per-partition figures (engine/capacity/partition_model.h).
// Thread safety: every function may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/engine.h"
#include "protocol/handler.h"

namespace ddb::protocol {

// Counts one request of "operation" that took "seconds" and ended with HTTP "status" and
// error type "error_type" (empty on success).
void RecordRequest(std::string_view operation, double seconds, int status,
                   std::string_view error_type);

// RecordOverdueRequest and SetOverdueRequests (the request watchdog's figures) are declared
// in handler.h, the header the server sees.

// The Prometheus text format (version 0.0.4) of everything above, for one engine or for
// several (MetricsSource: handler.h), each engine's series carrying its labels.
std::string RenderMetrics(const std::vector<MetricsSource>& sources);
std::string RenderMetrics(Engine& engine);

// A partition key as text: its bytes when they are UTF-8, else "0x" and hex (B keys), so
// that labels and the console's JSON stay valid UTF-8.
std::string KeyLabel(std::string_view key);

}  // namespace ddb::protocol
