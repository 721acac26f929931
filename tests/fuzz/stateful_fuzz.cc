// Stateful fuzzing: each input is a SEQUENCE of up to kMaxSteps operations on one engine
// (opened for the input, closed after it), checked after every step against the reference
// model of stateful_model.h. Operations: CreateTable (keys S/N/B, LSI, GSIs, stream, billing
// modes and capacities up to 2^63-1), UpdateTable (capacities, GSI create/delete, streams,
// deletion protection), DeleteTable, PutItem/UpdateItem/DeleteItem with conditions,
// Query/Scan with filters, segments and pages, BatchWriteItem/BatchGetItem,
// TransactWriteItems/TransactGetItems, PartiQL INSERT/UPDATE/DELETE/SELECT, backups and
// restores, UpdateTimeToLive, the fake clock moving, and (byte 0 == kDiskMode) closing and
// reopening an on-disk store. After each step, for the tables it touched (every table at the
// end): DescribeTable (ItemCount, index counts, billing), a Scan == the model, GetItem of each
// item, every GSI and LSI == its definition applied to the model, the stream's records ==
// the acknowledged changes. A disagreement aborts with the steps so far
// (DDB_FUZZ_VERBOSE=1 prints them as they run).
// Input: byte 0 the mode; then per step one opcode byte and the bytes it consumes (a missing
// byte reads as 0). Leak checks work per input: the engine is closed (threads joined) at its end.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "tests/fuzz/stateful_model.h"

namespace ddb::fuzz {
namespace {

using model::Action;
using model::Condition;
using model::Outcome;
using model::Show;
using model::Table;

constexpr int kMaxSteps = 64;
constexpr int kSlots = 3;  // tables "tb0".."tb2"
constexpr uint8_t kDiskMode = 0xd5;

// --- Input bytes ---

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return n_ == 0; }
  uint8_t U8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  int Below(int k) { return U8() % k; }
  bool Bit() { return U8() & 1; }

 private:
  const uint8_t* p_;
  size_t n_;
};

// --- The run: engine, model, trace ---

struct Stream {
  std::string iterator;               // "" until the first check after the stream was enabled
  std::string last_sequence;          // of the last record read ("" before the first)
  std::vector<StreamRecord> pending;  // acknowledged changes not yet read back
};

struct Slot {
  std::optional<Table> table;
  BillingMode billing = BillingMode::kPayPerRequest;
  ProvisionedThroughput throughput;
  bool protected_ = false;
  Stream stream;
};

struct Backup {
  std::string arn;
  Table snapshot;
  BillingMode billing;
  ProvisionedThroughput throughput;
};

std::atomic<uint64_t> g_now_ms{1'800'000'000'000};  // the engine's fake clock

struct Run {
  std::unique_ptr<Engine> engine;
  EngineOptions options;
  Slot slots[kSlots];
  std::vector<Backup> backups;
  std::vector<std::string> trace;
  bool touched[kSlots] = {};
  RequestContext ctx;
};

bool Verbose() {
  static const bool verbose = std::getenv("DDB_FUZZ_VERBOSE") != nullptr;
  return verbose;
}

[[noreturn]] void Fail(const Run& run, const std::string& what) {
  std::fprintf(stderr, "stateful fuzz: disagreement after %zu steps:\n", run.trace.size());
  for (size_t i = 0; i < run.trace.size(); ++i) {
    std::fprintf(stderr, "  step %zu: %s\n", i, run.trace[i].c_str());
  }
  std::fprintf(stderr, "  => %s\n", what.c_str());
  std::abort();
}

void Note(Run& run, std::string what) {
  if (Verbose()) std::fprintf(stderr, "step %zu: %s\n", run.trace.size(), what.c_str());
  run.trace.push_back(std::move(what));
}

std::string Describe(const Error& e) {
  return "error " + std::to_string(static_cast<int>(e.code())) + ": " + e.message();
}

// An engine answer against the model's prediction. `refusals` are the codes that count as
// kInvalid for this operation besides kValidation.
template <typename R>
void Expect(Run& run, Outcome predicted, const R& r, const char* op,
            std::initializer_list<ErrorCode> refusals = {}) {
  if (!r.ok() && r.error().code() == ErrorCode::kInternal) {
    Fail(run, std::string(op) + ": internal error " + r.error().message());
  }
  bool agree = false;
  switch (predicted) {
    case Outcome::kOk:
      agree = r.ok();
      break;
    case Outcome::kConditionFailed:
      agree = !r.ok() && r.error().code() == ErrorCode::kConditionalCheckFailed;
      break;
    case Outcome::kNotFound:
      agree = !r.ok() && r.error().code() == ErrorCode::kResourceNotFound;
      break;
    case Outcome::kInvalid:
      agree = !r.ok() && r.error().code() == ErrorCode::kValidation;
      for (ErrorCode c : refusals) agree = agree || (!r.ok() && r.error().code() == c);
      break;
  }
  if (!agree) {
    static const char* const kNames[] = {"ok", "condition failed", "invalid", "not found"};
    Fail(run, std::string(op) + ": model says " + kNames[static_cast<int>(predicted)] +
                  ", engine says " + (r.ok() ? std::string("ok") : Describe(r.error())));
  }
}

std::string SlotName(int i) { return "tb" + std::to_string(i); }

// --- Values ---

AttributeValue NumberValue(Bytes& in) {
  static const int64_t kPool[] = {0, 1, -1, 100, 150, -250, 99999, 5, 123456789, -7};
  uint8_t b = in.U8();
  if (b < 200) return AttributeValue::N(model::NumberText(kPool[b % std::size(kPool)]));
  return AttributeValue::N(model::NumberText(static_cast<int8_t>(in.U8()) * 25));
}

AttributeValue SetValue(Bytes& in, AttributeType type) {
  static const char* const kS[] = {"x", "y", "zz", "\xc3\xa9"};
  static const int64_t kN[] = {1, -1, 150, 0};
  static const char* const kB[] = {"\x00", "\x01", "ab", "\xff"};
  int mask = in.Below(15) + 1;  // a non-empty subset: members distinct
  std::vector<std::string> members;
  for (int i = 0; i < 4; ++i) {
    if (!(mask & (1 << i))) continue;
    if (type == AttributeType::kSS) members.push_back(kS[i]);
    if (type == AttributeType::kNS) members.push_back(model::NumberText(kN[i]));
    if (type == AttributeType::kBS)
      members.push_back(std::string(kB[i], i == 0 ? 1 : strlen(kB[i])));
  }
  SortSet(type, &members);
  if (type == AttributeType::kSS) return AttributeValue::SS(members);
  if (type == AttributeType::kNS) return AttributeValue::NS(members);
  return AttributeValue::BS(members);
}

AttributeValue AnyValue(Bytes& in, int depth = 0) {
  static const char* const kStrings[] = {"", "x", "xy", "y", "\xc3\xa9", "g1"};
  static const char* const kBinary[] = {"", "\x01\xff", "ab"};
  switch (in.Below(depth < 2 ? 10 : 8)) {
    case 0:
      return AttributeValue::S(kStrings[in.Below(6)]);
    case 1:
      return NumberValue(in);
    case 2: {
      int i = in.Below(4);
      return AttributeValue::B(i == 3 ? std::string("\0", 1) : std::string(kBinary[i]));
    }
    case 3:
      return AttributeValue::Bool(in.Bit());
    case 4:
      return AttributeValue::Null();
    case 5:
      return SetValue(in, AttributeType::kSS);
    case 6:
      return SetValue(in, AttributeType::kNS);
    case 7:
      return SetValue(in, AttributeType::kBS);
    case 8: {
      std::vector<AttributeValue> l;
      for (int n = in.Below(3); n > 0; --n) l.push_back(AnyValue(in, depth + 1));
      return AttributeValue::L(std::move(l));
    }
    default: {
      AttributeMap m;
      for (int n = in.Below(3); n > 0; --n) m[n == 1 ? "p" : "q"] = AnyValue(in, depth + 1);
      return AttributeValue::M(std::move(m));
    }
  }
}

// Non-key attributes of items: a, b (anything), c (a number, GSI gsiB's key), g (a string,
// GSI gsiA's key), l (a string, the LSI's key), ttl (an expiry far ahead, or anything else).
const char* const kAttributes[] = {"a", "b", "c", "g", "l", "ttl"};

AttributeValue ValueFor(Bytes& in, const std::string& attribute) {
  uint8_t b = in.U8();
  if (b >= 40) {  // mostly what the attribute's index wants
    if (attribute == "c") return NumberValue(in);
    if (attribute == "g") return AttributeValue::S(b & 1 ? "g1" : "g2");
    if (attribute == "l") return AttributeValue::S(b & 1 ? "l1" : "l2");
    if (attribute == "ttl") return AttributeValue::N(b & 1 ? "4102444800" : "4102444801");
  }
  if (attribute == "ttl") return AttributeValue::S("never");  // not a number: never expires
  return AnyValue(in);
}

AttributeValue KeyValue(Bytes& in, ScalarType type) {
  uint8_t b = in.U8();
  if (b == 0xff) {  // empty: refused
    return type == ScalarType::kN   ? AttributeValue::S("")
           : type == ScalarType::kS ? AttributeValue::S("")
                                    : AttributeValue::B("");
  }
  static const char* const kS[] = {"a", "b", "\xc3\xa9"};
  static const int64_t kN[] = {1, -250, 10000};
  static const char* const kB[] = {"\x00", "\x01\xff", "b"};
  int i = b % 3;
  if (type == ScalarType::kS) return AttributeValue::S(kS[i]);
  if (type == ScalarType::kN) return AttributeValue::N(model::NumberText(kN[i]));
  return AttributeValue::B(std::string(kB[i], i == 0 ? 1 : strlen(kB[i])));
}

Item KeyFor(Bytes& in, const Table& t) {
  Item key;
  key["pk"] = KeyValue(in, t.hash_type);
  if (t.range_type) key["sk"] = KeyValue(in, *t.range_type);
  return key;
}

Item ItemFor(Bytes& in, const Table& t) {
  Item item = KeyFor(in, t);
  int mask = in.U8();
  for (int i = 0; i < 6; ++i) {
    if (mask & (1 << i)) item[kAttributes[i]] = ValueFor(in, kAttributes[i]);
  }
  return item;
}

// The table a step works on; a fixed schema when the slot is empty, so that the request is
// well formed and must fail with ResourceNotFound.
Table TableOrStandIn(const Run& run, int slot) {
  if (run.slots[slot].table) return *run.slots[slot].table;
  Table t;
  t.name = SlotName(slot);
  t.range_type = ScalarType::kN;
  return t;
}

// --- Expressions ---

struct Placeholders {
  std::map<std::string, std::string> names;
  Item values;
  std::string Name(const std::string& attribute) {
    std::string p = "#" + attribute;
    names[p] = attribute;
    return p;
  }
  std::string Value(const AttributeValue& v) {
    std::string p = ":v" + std::to_string(values.size());
    values[p] = v;
    return p;
  }
  template <typename R>
  void ApplyTo(R* r) {
    if (!names.empty()) r->expression_attribute_names = names;
    if (!values.empty()) r->expression_attribute_values = values;
  }
};

Condition ConditionFor(Bytes& in, const Table& t) {
  Condition c;
  c.kind = static_cast<Condition::Kind>(in.Below(7));
  static const char* const kCompared[] = {"a", "c", "g", "ttl"};
  switch (c.kind) {
    case Condition::kExists:
    case Condition::kNotExists:
      c.attribute = in.Bit() ? "pk" : kAttributes[in.Below(6)];
      break;
    case Condition::kBeginsWith:
      c.attribute = kCompared[in.Below(4)];
      c.value = AttributeValue::S(in.Bit() ? "g" : "x");
      break;
    case Condition::kLt:
      c.attribute = kCompared[in.Below(4)];
      c.value = NumberValue(in);
      break;
    case Condition::kEq:
    case Condition::kNe:
      c.attribute = kCompared[in.Below(4)];
      c.value = ValueFor(in, c.attribute);
      break;
    case Condition::kNone:
      break;
  }
  (void)t;
  return c;
}

std::string ConditionText(const Condition& c, Placeholders* ph) {
  switch (c.kind) {
    case Condition::kNone:
      return "";
    case Condition::kExists:
      return "attribute_exists(" + ph->Name(c.attribute) + ")";
    case Condition::kNotExists:
      return "attribute_not_exists(" + ph->Name(c.attribute) + ")";
    case Condition::kEq:
      return ph->Name(c.attribute) + " = " + ph->Value(c.value);
    case Condition::kNe:
      return ph->Name(c.attribute) + " <> " + ph->Value(c.value);
    case Condition::kBeginsWith:
      return "begins_with(" + ph->Name(c.attribute) + ", " + ph->Value(c.value) + ")";
    case Condition::kLt:
      return ph->Name(c.attribute) + " < " + ph->Value(c.value);
  }
  return "";
}

std::vector<Action> ActionsFor(Bytes& in) {
  std::vector<Action> actions;
  for (int n = in.Below(3) + 1; n > 0; --n) {
    Action a;
    a.kind = static_cast<Action::Kind>(in.Below(6));
    uint8_t which = in.U8();
    a.attribute = which == 0xff ? "pk" : kAttributes[which % 6];
    switch (a.kind) {
      case Action::kSet:
      case Action::kSetIfNotExists:
        a.value = ValueFor(in, a.attribute);
        break;
      case Action::kRemove:
        break;
      case Action::kAdd:
        a.value = in.Below(3) ? NumberValue(in)
                              : SetValue(in, in.Bit() ? AttributeType::kSS : AttributeType::kNS);
        break;
      case Action::kDelete:
        a.value = SetValue(in, in.Bit() ? AttributeType::kSS : AttributeType::kNS);
        break;
      case Action::kIncrement:
        a.value = NumberValue(in);
        break;
    }
    actions.push_back(std::move(a));
  }
  return actions;
}

std::string UpdateText(const std::vector<Action>& actions, Placeholders* ph) {
  std::string set, remove, add, del;
  auto append = [](std::string* clause, const std::string& part) {
    *clause += (clause->empty() ? "" : ", ") + part;
  };
  for (const Action& a : actions) {
    std::string name = ph->Name(a.attribute);
    switch (a.kind) {
      case Action::kSet:
        append(&set, name + " = " + ph->Value(a.value));
        break;
      case Action::kSetIfNotExists:
        append(&set, name + " = if_not_exists(" + name + ", " + ph->Value(a.value) + ")");
        break;
      case Action::kIncrement:
        append(&set, name + " = " + name + " + " + ph->Value(a.value));
        break;
      case Action::kRemove:
        append(&remove, name);
        break;
      case Action::kAdd:
        append(&add, name + " " + ph->Value(a.value));
        break;
      case Action::kDelete:
        append(&del, name + " " + ph->Value(a.value));
        break;
    }
  }
  std::string out;
  for (auto [keyword, clause] : {std::pair<const char*, std::string*>{"SET ", &set},
                                 {"REMOVE ", &remove},
                                 {"ADD ", &add},
                                 {"DELETE ", &del}}) {
    if (!clause->empty()) out += (out.empty() ? "" : " ") + std::string(keyword) + *clause;
  }
  return out;
}

// Two actions on one attribute overlap: refused before anything is read.
bool Overlap(const std::vector<Action>& actions) {
  std::set<std::string> seen;
  for (const Action& a : actions) {
    if (!seen.insert(a.attribute).second) return true;
  }
  return false;
}

// --- Model updates ---

// Records an acknowledged change of one item in the model (and the stream record it makes).
void Commit(Run& run, int slot, const Item& key, const std::optional<Item>& new_item) {
  Slot& s = run.slots[slot];
  Table& t = *s.table;
  const std::string k = model::KeyText(t, key);
  std::optional<Item> old;
  if (auto it = t.items.find(k); it != t.items.end()) old = it->second;
  if (new_item) {
    t.items[k] = *new_item;
  } else {
    t.items.erase(k);
  }
  if (!t.stream || (!old && !new_item) || (old && new_item && model::Same(*old, *new_item))) {
    return;
  }
  StreamRecord r;
  r.event_name = !old ? "INSERT" : !new_item ? "REMOVE" : "MODIFY";
  r.keys = model::KeyOf(t, new_item ? *new_item : *old);
  StreamViewType v = *t.stream;
  if (new_item && (v == StreamViewType::kNewImage || v == StreamViewType::kNewAndOldImages)) {
    r.new_image = new_item;
  }
  if (old && (v == StreamViewType::kOldImage || v == StreamViewType::kNewAndOldImages)) {
    r.old_image = old;
  }
  s.stream.pending.push_back(std::move(r));
}

std::optional<Item> ModelItem(const Table& t, const Item& key) {
  auto it = t.items.find(model::KeyText(t, key));
  if (it == t.items.end()) return std::nullopt;
  return it->second;
}

// PutItem's prediction: refused for bad keys before the condition is looked at.
Outcome PredictPut(const Run& run, int slot, const Item& item, const Condition& cond) {
  if (!run.slots[slot].table) return Outcome::kNotFound;
  const Table& t = *run.slots[slot].table;
  if (!model::GoodPrimaryKey(t, item) || !model::GoodIndexKeys(t, item)) return Outcome::kInvalid;
  return model::Holds(cond, ModelItem(t, item)) ? Outcome::kOk : Outcome::kConditionFailed;
}

Outcome PredictDelete(const Run& run, int slot, const Item& key, const Condition& cond) {
  if (!run.slots[slot].table) return Outcome::kNotFound;
  const Table& t = *run.slots[slot].table;
  if (!model::GoodPrimaryKey(t, key)) return Outcome::kInvalid;
  return model::Holds(cond, ModelItem(t, key)) ? Outcome::kOk : Outcome::kConditionFailed;
}

model::UpdatePrediction PredictUpdate(const Run& run, int slot, const Item& key,
                                      const Condition& cond, const std::vector<Action>& actions) {
  model::UpdatePrediction p;
  if (Overlap(actions)) {  // refused before the table is looked up
    p.outcome = Outcome::kInvalid;
    return p;
  }
  if (!run.slots[slot].table) {
    p.outcome = Outcome::kNotFound;
    return p;
  }
  const Table& t = *run.slots[slot].table;
  if (!model::GoodPrimaryKey(t, key)) {
    p.outcome = Outcome::kInvalid;
    return p;
  }
  return model::PredictUpdate(t, key, cond, actions);
}

// --- Reads used by the checks ---

template <typename Request>
std::vector<Item> ReadAll(Run& run, Request req, const char* op,
                          Result<ReadResult> (Engine::*call)(const Request&)) {
  std::vector<Item> items;
  for (int page = 0;; ++page) {
    if (page > 1000) Fail(run, std::string(op) + ": more than 1000 pages");
    Result<ReadResult> r = ((*run.engine).*call)(req);
    if (!r.ok()) Fail(run, std::string(op) + " of " + req.table_name + ": " + Describe(r.error()));
    for (Item& i : r->items) items.push_back(std::move(i));
    if (!r->last_evaluated_key) break;
    req.exclusive_start_key = r->last_evaluated_key;
  }
  return items;
}

void SameItems(Run& run, std::vector<Item> got, std::vector<Item> want, const std::string& what,
               bool ordered = false) {
  std::vector<std::string> g, w;
  for (const Item& i : got) g.push_back(Show(i));
  for (const Item& i : want) w.push_back(Show(i));
  if (!ordered) {
    std::sort(g.begin(), g.end());
    std::sort(w.begin(), w.end());
  }
  if (g == w) return;
  std::string msg = what + ": engine has\n";
  for (const std::string& s : g) msg += "      " + s + "\n";
  msg += "    model has\n";
  for (const std::string& s : w) msg += "      " + s + "\n";
  Fail(run, msg);
}

// --- Invariants of one table ---

void CheckStream(Run& run, int slot, const TableDescription& d) {
  Slot& s = run.slots[slot];
  const Table& t = *s.table;
  if (!t.stream) return;
  if (!d.latest_stream_arn) Fail(run, t.name + ": stream enabled but no LatestStreamArn");
  GetRecordsRequest probe;
  probe.shard_iterator = s.stream.iterator;
  probe.limit = 1;
  if (!s.stream.iterator.empty() && !run.engine->GetRecords(run.ctx, probe).ok()) {
    s.stream.iterator.clear();  // expired (the fake clock moved): start after the last read
  }
  if (s.stream.iterator.empty()) {
    DescribeStreamRequest ds;
    ds.stream_arn = *d.latest_stream_arn;
    Result<StreamDescription> desc = run.engine->DescribeStream(run.ctx, ds);
    if (!desc.ok() || desc->shards.empty()) {
      Fail(run, t.name + ": DescribeStream " + (desc.ok() ? "no shards" : Describe(desc.error())));
    }
    GetShardIteratorRequest gi;
    gi.stream_arn = *d.latest_stream_arn;
    gi.shard_id = desc->shards.back().shard_id;
    if (!s.stream.last_sequence.empty()) {
      gi.shard_iterator_type = ShardIteratorType::kAfterSequenceNumber;
      gi.sequence_number = s.stream.last_sequence;
    }
    Result<std::string> it = run.engine->GetShardIterator(run.ctx, gi);
    if (!it.ok() && it.error().code() == ErrorCode::kTrimmedDataAccess) {
      // The last record read is past the 24-hour retention (the fake clock moved), so is
      // every record before it: what is left is all unread.
      gi.shard_iterator_type = ShardIteratorType::kTrimHorizon;
      gi.sequence_number.reset();
      it = run.engine->GetShardIterator(run.ctx, gi);
    }
    if (!it.ok()) Fail(run, t.name + ": GetShardIterator: " + Describe(it.error()));
    s.stream.iterator = *it;
  }
  std::vector<StreamRecord> got;
  for (int i = 0;; ++i) {
    if (i > 100) Fail(run, t.name + ": GetRecords does not reach the end");
    GetRecordsRequest gr;
    gr.shard_iterator = s.stream.iterator;
    Result<GetRecordsResult> r = run.engine->GetRecords(run.ctx, gr);
    if (!r.ok()) Fail(run, t.name + ": GetRecords: " + Describe(r.error()));
    if (!r->next_shard_iterator) Fail(run, t.name + ": open shard without a next iterator");
    s.stream.iterator = *r->next_shard_iterator;
    if (r->records.empty()) break;
    s.stream.last_sequence = r->records.back().sequence_number;
    for (StreamRecord& rec : r->records) got.push_back(std::move(rec));
  }
  auto show = [](const StreamRecord& r) {
    return r.event_name + " keys " + Show(r.keys) + " new " +
           (r.new_image ? Show(*r.new_image) : "-") + " old " +
           (r.old_image ? Show(*r.old_image) : "-");
  };
  std::string g, w;
  for (const StreamRecord& r : got) g += "      " + show(r) + "\n";
  for (const StreamRecord& r : s.stream.pending) w += "      " + show(r) + "\n";
  if (g != w) Fail(run, t.name + " stream records: engine has\n" + g + "    model has\n" + w);
  s.stream.pending.clear();
}

void CheckTable(Run& run, int slot) {
  Slot& s = run.slots[slot];
  Result<TableDescription> d = run.engine->DescribeTable(run.ctx, SlotName(slot));
  if (!s.table) {
    if (d.ok()) Fail(run, SlotName(slot) + ": exists but the model has no such table");
    if (d.error().code() != ErrorCode::kResourceNotFound) {
      Fail(run, SlotName(slot) + ": DescribeTable: " + Describe(d.error()));
    }
    return;
  }
  const Table& t = *s.table;
  if (!d.ok()) Fail(run, t.name + ": DescribeTable: " + Describe(d.error()));
  if (d->table_status != TableStatus::kActive) Fail(run, t.name + ": not ACTIVE");
  if (d->item_count != static_cast<int64_t>(t.items.size())) {
    Fail(run, t.name + ": ItemCount " + std::to_string(d->item_count) + ", model has " +
                  std::to_string(t.items.size()));
  }
  if (d->billing_mode != s.billing) Fail(run, t.name + ": billing mode differs");
  if (s.billing == BillingMode::kProvisioned &&
      (d->provisioned_throughput.read_capacity_units != s.throughput.read_capacity_units ||
       d->provisioned_throughput.write_capacity_units != s.throughput.write_capacity_units)) {
    Fail(run, t.name + ": provisioned throughput differs");
  }
  std::vector<Item> want;
  for (const auto& [k, item] : t.items) want.push_back(item);
  ScanRequest scan;
  scan.table_name = t.name;
  scan.consistent_read = true;
  SameItems(run, ReadAll(run, scan, "Scan", &Engine::Scan), want, t.name + " Scan");
  for (const auto& [k, item] : t.items) {
    GetItemRequest get;
    get.table_name = t.name;
    get.key = model::KeyOf(t, item);
    get.consistent_read = true;
    Result<GetItemResult> r = run.engine->GetItem(get);
    if (!r.ok()) Fail(run, t.name + " GetItem: " + Describe(r.error()));
    if (!r->item || !model::Same(*r->item, item)) {
      Fail(run, t.name + " GetItem " + Show(get.key) + ": engine has " +
                    (r->item ? Show(*r->item) : "nothing") + ", model has " + Show(item));
    }
  }
  // Indexes: each is its definition applied to the model's items.
  struct IndexCheck {
    std::string name, hash, range;
    int projection;
    const std::vector<SecondaryIndexDefinition>* described;
  };
  std::vector<IndexCheck> indexes;
  if (t.lsi) indexes.push_back({"lsi", "pk", "l", t.lsi_projection, &d->local_secondary_indexes});
  for (const model::Gsi& g : t.gsis) {
    indexes.push_back({g.name, g.hash, g.range, g.projection, &d->global_secondary_indexes});
  }
  if (d->global_secondary_indexes.size() != t.gsis.size() ||
      d->local_secondary_indexes.size() != (t.lsi ? 1u : 0u)) {
    Fail(run, t.name + ": DescribeTable lists other indexes than the model");
  }
  for (const IndexCheck& ix : indexes) {
    std::vector<Item> entries;
    for (const auto& [k, item] : t.items) {
      const bool typed_hash =
          item.count(ix.hash) && model::GoodKeyValue(item.at(ix.hash), t.TypeOf(ix.hash));
      const bool typed_range =
          ix.range.empty() ||
          (item.count(ix.range) && model::GoodKeyValue(item.at(ix.range), t.TypeOf(ix.range)));
      if (!typed_hash || !typed_range) continue;
      entries.push_back(*model::IndexEntry(t, item, ix.hash, ix.range, ix.projection));
    }
    ScanRequest is;
    is.table_name = t.name;
    is.index_name = ix.name;
    SameItems(run, ReadAll(run, is, "Scan", &Engine::Scan), entries, t.name + " index " + ix.name);
    bool listed = false;
    for (const SecondaryIndexDefinition& def : *ix.described) {
      if (def.index_name != ix.name) continue;
      listed = true;
      if (def.item_count != static_cast<int64_t>(entries.size())) {
        Fail(run, t.name + " index " + ix.name + ": ItemCount " + std::to_string(def.item_count) +
                      ", model has " + std::to_string(entries.size()));
      }
    }
    if (!listed) Fail(run, t.name + ": index " + ix.name + " not described");
  }
  CheckStream(run, slot, *d);
  Result<std::optional<std::string>> ttl = run.engine->DescribeTimeToLive(t.name);
  if (!ttl.ok() || *ttl != t.ttl) Fail(run, t.name + ": DescribeTimeToLive differs");
}

// --- Operations ---

ProvisionedThroughput ThroughputFor(Bytes& in) {
  static const int64_t kUnits[] = {
      1, 5, 1000, 40000, 80000, 1'000'000'000'000, int64_t{1} << 62, INT64_MAX, 0, -1, 10, 100000};
  ProvisionedThroughput p;
  p.read_capacity_units = kUnits[in.Below(12)];
  p.write_capacity_units = kUnits[in.Below(12)];
  return p;
}

void OpenOrFail(Run& run) {
  Result<std::unique_ptr<Engine>> e = Engine::Open(run.options);
  if (!e.ok()) Fail(run, "Engine::Open: " + Describe(e.error()));
  run.engine = std::move(*e);
}

// The description of an index or a restored table may lag its creation: waits (bounded) for
// the table and its indexes to be ACTIVE.
void WaitActive(Run& run, const std::string& table) {
  for (int i = 0; i < 20000; ++i) {
    Result<TableDescription> d = run.engine->DescribeTable(run.ctx, table);
    if (!d.ok()) Fail(run, table + ": DescribeTable while waiting: " + Describe(d.error()));
    bool active = d->table_status == TableStatus::kActive;
    for (const auto& g : d->global_secondary_indexes) {
      active = active && g.index_status == IndexStatus::kActive && !g.backfilling;
    }
    if (active) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Fail(run, table + ": not ACTIVE after 20000 polls");
}

SecondaryIndexDefinition GsiDefinition(const model::Gsi& g, const Slot& s,
                                       const ProvisionedThroughput& throughput) {
  SecondaryIndexDefinition def;
  def.index_name = g.name;
  def.key_schema.push_back({g.hash, KeyType::kHash});
  if (!g.range.empty()) def.key_schema.push_back({g.range, KeyType::kRange});
  def.projection.projection_type = static_cast<ProjectionType>(g.projection);
  if (g.projection == 2) def.projection.non_key_attributes = {"a"};
  if (s.billing == BillingMode::kProvisioned) def.provisioned_throughput = throughput;
  return def;
}

model::Gsi GsiFor(Bytes& in) {
  model::Gsi g;
  if (in.Bit()) {
    g.name = "gsiA";
    g.hash = "g";
  } else {
    g.name = "gsiB";
    g.hash = "c";
    g.range = "pk";
  }
  g.projection = in.Below(3);
  return g;
}

void AddDefinition(std::vector<AttributeDefinition>* defs, const Table& t, const std::string& a) {
  for (const AttributeDefinition& d : *defs) {
    if (d.attribute_name == a) return;
  }
  defs->push_back({a, t.TypeOf(a)});
}

void CreateTableStep(Run& run, Bytes& in, int slot) {
  Slot& s = run.slots[slot];
  Table t;
  t.name = SlotName(slot);
  t.hash_type = static_cast<ScalarType>(in.Below(3));
  int range = in.Below(4);
  if (range < 3) t.range_type = static_cast<ScalarType>(range);
  uint8_t features = in.U8();
  t.lsi = t.range_type && (features & 1);
  t.lsi_projection = (features >> 1) % 2;  // ALL or KEYS_ONLY
  if (features & 4) t.gsis.push_back(GsiFor(in));
  if (features & 8) t.stream = static_cast<StreamViewType>(in.Below(4));
  const bool provisioned = features & 16;
  const ProvisionedThroughput throughput =
      (features & 32) ? ThroughputFor(in) : ProvisionedThroughput{5, 5};
  CreateTableRequest req;
  req.table_name = t.name;
  req.key_schema.push_back({"pk", KeyType::kHash});
  AddDefinition(&req.attribute_definitions, t, "pk");
  if (t.range_type) {
    req.key_schema.push_back({"sk", KeyType::kRange});
    AddDefinition(&req.attribute_definitions, t, "sk");
  }
  req.billing_mode = provisioned ? BillingMode::kProvisioned : BillingMode::kPayPerRequest;
  if (provisioned) req.provisioned_throughput = throughput;
  Slot shape;
  shape.billing = *req.billing_mode;
  if (t.lsi) {
    SecondaryIndexDefinition lsi;
    lsi.index_name = "lsi";
    lsi.key_schema = {{"pk", KeyType::kHash}, {"l", KeyType::kRange}};
    lsi.projection.projection_type = static_cast<ProjectionType>(t.lsi_projection);
    req.local_secondary_indexes.push_back(lsi);
    AddDefinition(&req.attribute_definitions, t, "l");
  }
  for (const model::Gsi& g : t.gsis) {
    req.global_secondary_indexes.push_back(GsiDefinition(g, shape, throughput));
    AddDefinition(&req.attribute_definitions, t, g.hash);
    if (!g.range.empty()) AddDefinition(&req.attribute_definitions, t, g.range);
  }
  if (t.stream) req.stream_specification = StreamSpecification{true, *t.stream};
  Note(run, "CreateTable " + t.name + " hash " + std::string(ScalarTypeName(t.hash_type)) +
                (t.range_type ? " range " + std::string(ScalarTypeName(*t.range_type)) : "") +
                (t.lsi ? " lsi" : "") + (t.gsis.empty() ? "" : " gsi " + t.gsis[0].name) +
                (t.stream ? " stream" : "") +
                (provisioned ? " provisioned " + std::to_string(throughput.read_capacity_units) +
                                   "/" + std::to_string(throughput.write_capacity_units)
                             : " on-demand"));
  Result<TableDescription> r = run.engine->CreateTable(run.ctx, req);
  if (s.table) {
    Expect(run, Outcome::kInvalid, r, "CreateTable",
           {ErrorCode::kResourceInUse, ErrorCode::kLimitExceeded});
    return;
  }
  // Capacities out of range are refused; the model does not know the limits.
  if (!r.ok() && (r.error().code() == ErrorCode::kValidation ||
                  r.error().code() == ErrorCode::kLimitExceeded)) {
    return Note(run, "  refused: " + Describe(r.error()));
  }
  Expect(run, Outcome::kOk, r, "CreateTable");
  s = Slot{};
  s.table = std::move(t);
  s.billing = shape.billing;
  if (provisioned) s.throughput = throughput;
  WaitActive(run, s.table->name);
}

void DeleteTableStep(Run& run, int slot) {
  Slot& s = run.slots[slot];
  Note(run, "DeleteTable " + SlotName(slot));
  Result<TableDescription> r = run.engine->DeleteTable(run.ctx, SlotName(slot));
  if (!s.table) return Expect(run, Outcome::kNotFound, r, "DeleteTable");
  if (s.protected_) return Expect(run, Outcome::kInvalid, r, "DeleteTable");
  // The stream's records must all have been read: checks run after every step.
  Expect(run, Outcome::kOk, r, "DeleteTable");
  s = Slot{};
}

void UpdateCapacityStep(Run& run, Bytes& in, int slot) {
  Slot& s = run.slots[slot];
  UpdateTableRequest req;
  req.table_name = SlotName(slot);
  const uint8_t what = in.U8();
  std::optional<BillingMode> billing;
  if (what & 1) billing = (what & 2) ? BillingMode::kProvisioned : BillingMode::kPayPerRequest;
  req.billing_mode = billing;
  std::optional<ProvisionedThroughput> throughput;
  if (what & 4) throughput = ThroughputFor(in);
  req.provisioned_throughput = throughput;
  if (what & 8) {
    OnDemandThroughput od;
    static const int64_t kMax[] = {-1, 1, 100, 40000, 1'000'000'000'000, INT64_MAX};
    od.max_read_request_units = kMax[in.Below(6)];
    od.max_write_request_units = kMax[in.Below(6)];
    req.on_demand_throughput = od;
  }
  if (what & 16) req.deletion_protection_enabled = (what & 32) != 0;
  // Switching to provisioned: the GSIs need throughput too.
  if (s.table && billing == BillingMode::kProvisioned && throughput && (what & 64)) {
    for (const model::Gsi& g : s.table->gsis) {
      GlobalSecondaryIndexUpdate u;
      u.kind = GlobalSecondaryIndexUpdate::Kind::kUpdate;
      u.index.index_name = g.name;
      u.index.provisioned_throughput = throughput;
      req.global_secondary_index_updates.push_back(u);
    }
  }
  Note(run, "UpdateTable " + req.table_name + " capacity what=" + std::to_string(what) +
                (throughput ? " rcu " + std::to_string(throughput->read_capacity_units) + " wcu " +
                                  std::to_string(throughput->write_capacity_units)
                            : ""));
  Result<TableDescription> r = run.engine->UpdateTable(run.ctx, req);
  if (!s.table) return Expect(run, Outcome::kNotFound, r, "UpdateTable");
  // The model does not know the limits and rules of capacity changes; an accepted change
  // must show in DescribeTable (CheckTable), and the table must go on working.
  if (!r.ok()) {
    Note(run, "  refused: " + Describe(r.error()));
    return Expect(run, Outcome::kInvalid, r, "UpdateTable", {ErrorCode::kLimitExceeded});
  }
  const BillingMode before = s.billing;
  if (billing) s.billing = *billing;
  if (s.billing == BillingMode::kProvisioned) {
    if (throughput) {
      s.throughput = *throughput;
    } else if (before != BillingMode::kProvisioned) {
      s.throughput = r->provisioned_throughput;  // the model cannot tell what it defaults to
    }
  }
  if (req.deletion_protection_enabled) s.protected_ = *req.deletion_protection_enabled;
  WaitActive(run, req.table_name);
}

void UpdateIndexStep(Run& run, Bytes& in, int slot) {
  Slot& s = run.slots[slot];
  Table t = TableOrStandIn(run, slot);
  UpdateTableRequest req;
  req.table_name = t.name;
  model::Gsi g = GsiFor(in);
  bool exists = false;
  for (const model::Gsi& have : t.gsis) exists = exists || have.name == g.name;
  GlobalSecondaryIndexUpdate u;
  const bool create = in.Bit();
  u.kind = create ? GlobalSecondaryIndexUpdate::Kind::kCreate
                  : GlobalSecondaryIndexUpdate::Kind::kDelete;
  u.index = create ? GsiDefinition(g, s, s.throughput) : SecondaryIndexDefinition{};
  u.index.index_name = g.name;
  if (create) {
    AddDefinition(&req.attribute_definitions, t, g.hash);
    if (!g.range.empty()) AddDefinition(&req.attribute_definitions, t, g.range);
  }
  req.global_secondary_index_updates.push_back(u);
  Note(run, "UpdateTable " + t.name + (create ? " create " : " delete ") + g.name + " projection " +
                std::to_string(g.projection));
  Result<TableDescription> r = run.engine->UpdateTable(run.ctx, req);
  if (!s.table) return Expect(run, Outcome::kNotFound, r, "UpdateTable");
  if (create == exists) {
    return Expect(run, Outcome::kInvalid, r, "UpdateTable", {ErrorCode::kResourceNotFound});
  }
  Expect(run, Outcome::kOk, r, "UpdateTable");
  auto& gsis = s.table->gsis;
  if (create) {
    gsis.push_back(g);
  } else {
    gsis.erase(std::remove_if(gsis.begin(), gsis.end(),
                              [&](const model::Gsi& x) { return x.name == g.name; }),
               gsis.end());
  }
  WaitActive(run, t.name);
  // A deleted index may stay DELETING in the description for a moment.
  for (int i = 0; i < 20000 && !create; ++i) {
    Result<TableDescription> d = run.engine->DescribeTable(run.ctx, t.name);
    if (d.ok() && d->global_secondary_indexes.size() == gsis.size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void UpdateStreamStep(Run& run, Bytes& in, int slot) {
  Slot& s = run.slots[slot];
  UpdateTableRequest req;
  req.table_name = SlotName(slot);
  const bool enable = in.Bit();
  StreamViewType view = static_cast<StreamViewType>(in.Below(4));
  req.stream_specification =
      StreamSpecification{enable, enable ? std::optional(view) : std::nullopt};
  Note(run, "UpdateTable " + req.table_name + (enable ? " stream on" : " stream off"));
  Result<TableDescription> r = run.engine->UpdateTable(run.ctx, req);
  if (!s.table) return Expect(run, Outcome::kNotFound, r, "UpdateTable");
  // Enabling an enabled stream, or disabling a disabled one, is refused.
  if (enable == s.table->stream.has_value()) {
    return Expect(run, Outcome::kInvalid, r, "UpdateTable");
  }
  Expect(run, Outcome::kOk, r, "UpdateTable");
  if (enable) {
    s.table->stream = view;
  } else {
    s.table->stream.reset();
  }
  s.stream = Stream{};
}

void PutStep(Run& run, Bytes& in, int slot) {
  Table t = TableOrStandIn(run, slot);
  PutItemRequest req;
  req.table_name = t.name;
  req.item = ItemFor(in, t);
  Condition cond = in.Below(3) == 0 ? ConditionFor(in, t) : Condition{};
  Placeholders ph;
  std::string text = ConditionText(cond, &ph);
  if (!text.empty()) req.condition_expression = text;
  ph.ApplyTo(&req);
  req.return_values = in.Bit() ? ReturnValues::kAllOld : ReturnValues::kNone;
  Note(run, "PutItem " + t.name + " " + Show(req.item) + (text.empty() ? "" : " if " + text));
  Outcome predicted = PredictPut(run, slot, req.item, cond);
  Result<PutItemResult> r = run.engine->PutItem(req);
  Expect(run, predicted, r, "PutItem");
  if (predicted != Outcome::kOk) return;
  std::optional<Item> old = ModelItem(t, req.item);
  if (req.return_values == ReturnValues::kAllOld && (old.has_value() != r->attributes.has_value() ||
                                                     (old && !model::Same(*old, *r->attributes)))) {
    Fail(run, "PutItem ALL_OLD differs from the model's old item");
  }
  Commit(run, slot, req.item, req.item);
}

void UpdateStep(Run& run, Bytes& in, int slot) {
  Table t = TableOrStandIn(run, slot);
  UpdateItemRequest req;
  req.table_name = t.name;
  req.key = KeyFor(in, t);
  Condition cond = in.Below(3) == 0 ? ConditionFor(in, t) : Condition{};
  std::vector<Action> actions = ActionsFor(in);
  Placeholders ph;
  std::string ctext = ConditionText(cond, &ph);
  if (!ctext.empty()) req.condition_expression = ctext;
  req.update_expression = UpdateText(actions, &ph);
  ph.ApplyTo(&req);
  req.return_values = in.Bit() ? ReturnValues::kAllNew : ReturnValues::kNone;
  Note(run, "UpdateItem " + t.name + " " + Show(req.key) + " " + *req.update_expression +
                (ctext.empty() ? "" : " if " + ctext) + " values " + Show(ph.values));
  model::UpdatePrediction p = PredictUpdate(run, slot, req.key, cond, actions);
  Result<UpdateItemResult> r = run.engine->UpdateItem(req);
  Expect(run, p.outcome, r, "UpdateItem");
  if (p.outcome != Outcome::kOk) return;
  if (req.return_values == ReturnValues::kAllNew && p.new_item &&
      (!r->attributes || !model::Same(*r->attributes, *p.new_item))) {
    Fail(run, "UpdateItem ALL_NEW: engine " + (r->attributes ? Show(*r->attributes) : "none") +
                  ", model " + Show(*p.new_item));
  }
  if (p.new_item) Commit(run, slot, req.key, p.new_item);
}

void DeleteStep(Run& run, Bytes& in, int slot) {
  Table t = TableOrStandIn(run, slot);
  DeleteItemRequest req;
  req.table_name = t.name;
  req.key = KeyFor(in, t);
  Condition cond = in.Below(3) == 0 ? ConditionFor(in, t) : Condition{};
  Placeholders ph;
  std::string text = ConditionText(cond, &ph);
  if (!text.empty()) req.condition_expression = text;
  ph.ApplyTo(&req);
  Note(run, "DeleteItem " + t.name + " " + Show(req.key) + (text.empty() ? "" : " if " + text));
  Outcome predicted = PredictDelete(run, slot, req.key, cond);
  Result<DeleteItemResult> r = run.engine->DeleteItem(req);
  Expect(run, predicted, r, "DeleteItem");
  if (predicted == Outcome::kOk) Commit(run, slot, req.key, std::nullopt);
}

// Sort keys in DynamoDB's order: numbers by value, strings and binary bytewise.
bool SortKeyLess(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() == AttributeType::kN) {
    return *model::NumberHundredths(a.scalar()) < *model::NumberHundredths(b.scalar());
  }
  return a.scalar() < b.scalar();  // std::string: unsigned bytes
}

void QueryStep(Run& run, Bytes& in, int slot) {
  Table t = TableOrStandIn(run, slot);
  QueryRequest req;
  req.table_name = t.name;
  req.consistent_read = true;
  Item key = KeyFor(in, t);
  Placeholders ph;
  req.key_condition_expression = ph.Name("pk") + " = " + ph.Value(key["pk"]);
  const int range_op = t.range_type ? in.Below(3) : 0;  // none, >=, <
  if (range_op) {
    req.key_condition_expression +=
        " AND " + ph.Name("sk") + (range_op == 1 ? " >= " : " < ") + ph.Value(key["sk"]);
  }
  Condition filter = in.Bit() ? ConditionFor(in, t) : Condition{};
  if (filter.attribute == "pk" || filter.attribute == "sk") filter = Condition{};
  std::string ftext = ConditionText(filter, &ph);
  if (!ftext.empty()) req.filter_expression = ftext;
  ph.ApplyTo(&req);
  req.scan_index_forward = in.Bit();
  if (int limit = in.Below(4)) req.limit = limit;
  Note(run, "Query " + t.name + " " + req.key_condition_expression +
                (ftext.empty() ? "" : " filter " + ftext) + " values " + Show(ph.values));
  Outcome predicted = !run.slots[slot].table ? Outcome::kNotFound
                      : !model::GoodKeyValue(key["pk"], t.hash_type) ||
                              (range_op && key["sk"].type() != model::ToType(*t.range_type))
                          ? Outcome::kInvalid
                          : Outcome::kOk;
  // An empty sort key value in a key condition: refused by the service? The model does not
  // say; only the first page's answer is compared then.
  Result<QueryResult> first = run.engine->Query(req);
  if (predicted == Outcome::kOk && range_op && key["sk"].scalar().empty()) {
    if (!first.ok() && first.error().code() == ErrorCode::kValidation) return;
  }
  Expect(run, predicted, first, "Query");
  if (predicted != Outcome::kOk) return;
  std::vector<Item> got = ReadAll(run, req, "Query", &Engine::Query);
  std::vector<Item> want;
  for (const auto& [k, item] : t.items) {
    if (!model::Same(item.at("pk"), key["pk"])) continue;
    if (range_op == 1 && SortKeyLess(item.at("sk"), key["sk"])) continue;
    if (range_op == 2 && !SortKeyLess(item.at("sk"), key["sk"])) continue;
    if (!model::Holds(filter, item)) continue;
    want.push_back(item);
  }
  if (t.range_type) {
    std::stable_sort(want.begin(), want.end(), [](const Item& a, const Item& b) {
      return SortKeyLess(a.at("sk"), b.at("sk"));
    });
    if (!req.scan_index_forward) std::reverse(want.begin(), want.end());
  }
  SameItems(run, got, want, t.name + " Query", /*ordered=*/true);
}

void ScanStep(Run& run, Bytes& in, int slot) {
  Table t = TableOrStandIn(run, slot);
  ScanRequest req;
  req.table_name = t.name;
  req.consistent_read = true;
  Condition filter = in.Bit() ? ConditionFor(in, t) : Condition{};
  Placeholders ph;
  std::string ftext = ConditionText(filter, &ph);
  if (!ftext.empty()) req.filter_expression = ftext;
  ph.ApplyTo(&req);
  if (int limit = in.Below(4)) req.limit = limit;
  const int segments = in.Below(4);  // 0: no segments
  Note(run, "Scan " + t.name + (ftext.empty() ? "" : " filter " + ftext) + " segments " +
                std::to_string(segments) + " values " + Show(ph.values));
  std::vector<Item> got;
  for (int seg = 0; seg < std::max(segments, 1); ++seg) {
    if (segments) {
      req.segment = seg;
      req.total_segments = segments;
    }
    Result<ScanResult> first = run.engine->Scan(req);
    Expect(run, run.slots[slot].table ? Outcome::kOk : Outcome::kNotFound, first, "Scan");
    if (!run.slots[slot].table) return;
    for (Item& i : ReadAll(run, req, "Scan", &Engine::Scan)) got.push_back(std::move(i));
  }
  std::vector<Item> want;
  for (const auto& [k, item] : t.items) {
    if (model::Holds(filter, item)) want.push_back(item);
  }
  SameItems(run, got, want, t.name + " Scan");
}

// Requests of a batch or transaction, over the slots named by the input.
struct Target {
  int slot;
  Table table;
  Item item;  // the item (puts) or the key
};

void BatchWriteStep(Run& run, Bytes& in) {
  BatchWriteItemRequest req;
  std::vector<std::pair<Target, bool>> writes;  // bool: put
  Outcome predicted = Outcome::kOk;
  std::set<std::string> keys;
  std::string note = "BatchWriteItem";
  for (int n = in.Below(4) + 1; n > 0; --n) {
    const int slot = in.Below(kSlots);
    Target target{slot, TableOrStandIn(run, slot), {}};
    const bool put = in.Below(3) != 0;
    target.item = put ? ItemFor(in, target.table) : KeyFor(in, target.table);
    WriteRequest w{put, target.item};
    EntryFor(&req.request_items, target.table.name).push_back(w);
    note += std::string(put ? " put " : " delete ") + target.table.name + " " + Show(target.item);
    if (!run.slots[slot].table) {
      predicted = Outcome::kNotFound;
    } else if (predicted == Outcome::kOk) {
      const Table& t = target.table;
      if (!model::GoodPrimaryKey(t, target.item) ||
          (put && !model::GoodIndexKeys(t, target.item)) ||
          !keys.insert(t.name + model::KeyText(t, target.item)).second) {
        predicted = Outcome::kInvalid;
      }
    }
    writes.push_back({std::move(target), put});
  }
  Note(run, note);
  Result<BatchWriteItemResult> r = run.engine->BatchWriteItem(req);
  // A missing table and an invalid request are both refused; which is reported first is
  // the engine's choice.
  if (predicted != Outcome::kOk) {
    return Expect(run, Outcome::kInvalid, r, "BatchWriteItem", {ErrorCode::kResourceNotFound});
  }
  Expect(run, predicted, r, "BatchWriteItem");
  if (!r->unprocessed_items.empty()) Fail(run, "BatchWriteItem left items unprocessed");
  for (auto& [target, put] : writes) {
    Commit(run, target.slot, target.item, put ? std::optional(target.item) : std::nullopt);
    run.touched[target.slot] = true;
  }
}

void BatchGetStep(Run& run, Bytes& in) {
  BatchGetItemRequest req;
  std::vector<Item> want;
  std::set<std::string> keys;
  Outcome predicted = Outcome::kOk;
  std::string note = "BatchGetItem";
  for (int n = in.Below(4) + 1; n > 0; --n) {
    const int slot = in.Below(kSlots);
    Table t = TableOrStandIn(run, slot);
    Item key = KeyFor(in, t);
    if (!keys.insert(t.name + model::KeyText(t, key)).second) continue;  // no duplicates
    KeysAndAttributes& ka = EntryFor(&req.request_items, t.name);
    ka.keys.push_back(key);
    ka.consistent_read = true;
    note += " " + t.name + " " + Show(key);
    if (!run.slots[slot].table) {
      predicted = Outcome::kNotFound;
    } else if (!model::GoodPrimaryKey(t, key)) {
      if (predicted == Outcome::kOk) predicted = Outcome::kInvalid;
    } else if (std::optional<Item> item = ModelItem(t, key)) {
      want.push_back(*item);
    }
  }
  Note(run, note);
  Result<BatchGetItemResult> r = run.engine->BatchGetItem(req);
  if (predicted != Outcome::kOk) {
    return Expect(run, Outcome::kInvalid, r, "BatchGetItem", {ErrorCode::kResourceNotFound});
  }
  Expect(run, predicted, r, "BatchGetItem");
  if (!r->unprocessed_keys.empty()) Fail(run, "BatchGetItem left keys unprocessed");
  std::vector<Item> got;
  for (auto& entry : r->responses) {
    for (Item& i : entry.value) got.push_back(std::move(i));
  }
  SameItems(run, got, want, "BatchGetItem");
}

void TransactWriteStep(Run& run, Bytes& in) {
  TransactWriteItemsRequest req;
  struct Planned {
    int slot;
    Item key;
    std::optional<Item> new_item;
    bool writes;
  };
  std::vector<Planned> plan;
  std::set<std::string> keys;
  bool missing = false, invalid = false, failed = false;
  std::string note = "TransactWriteItems";
  for (int n = in.Below(3) + 1; n > 0; --n) {
    const int slot = in.Below(kSlots);
    Table t = TableOrStandIn(run, slot);
    TransactWriteAction a;
    a.kind = static_cast<TransactWriteAction::Kind>(in.Below(4));
    a.table_name = t.name;
    a.item_or_key = a.kind == TransactWriteAction::Kind::kPut ? ItemFor(in, t) : KeyFor(in, t);
    Condition cond = (a.kind == TransactWriteAction::Kind::kConditionCheck || in.Bit())
                         ? ConditionFor(in, t)
                         : Condition{};
    std::vector<Action> actions;
    Placeholders ph;
    std::string ctext = ConditionText(cond, &ph);
    if (!ctext.empty()) a.condition_expression = ctext;
    if (a.kind == TransactWriteAction::Kind::kUpdate) {
      actions = ActionsFor(in);
      a.update_expression = UpdateText(actions, &ph);
    }
    ph.ApplyTo(&a);
    static const char* const kKinds[] = {"check", "put", "delete", "update"};
    note += std::string(" ") + kKinds[static_cast<int>(a.kind)] + " " + t.name + " " +
            Show(a.item_or_key) + (a.update_expression ? " " + *a.update_expression : "") +
            (ctext.empty() ? "" : " if " + ctext) + " values " + Show(ph.values);
    Planned p{slot, model::KeyOf(t, a.item_or_key), std::nullopt, true};
    if (!run.slots[slot].table) {
      missing = true;
    } else if (!model::GoodPrimaryKey(t, a.item_or_key) ||
               !keys.insert(t.name + model::KeyText(t, a.item_or_key)).second) {
      invalid = true;
    } else {
      switch (a.kind) {
        case TransactWriteAction::Kind::kConditionCheck: {
          if (cond.kind == Condition::kNone) invalid = true;
          failed = failed || !model::Holds(cond, ModelItem(t, p.key));
          p.writes = false;
          break;
        }
        case TransactWriteAction::Kind::kPut:
          if (!model::GoodIndexKeys(t, a.item_or_key)) invalid = true;
          failed = failed || !model::Holds(cond, ModelItem(t, p.key));
          p.new_item = a.item_or_key;
          break;
        case TransactWriteAction::Kind::kDelete:
          failed = failed || !model::Holds(cond, ModelItem(t, p.key));
          break;
        case TransactWriteAction::Kind::kUpdate: {
          model::UpdatePrediction u = PredictUpdate(run, slot, p.key, cond, actions);
          if (u.outcome == Outcome::kInvalid) invalid = true;
          if (u.outcome == Outcome::kConditionFailed) failed = true;
          p.new_item = u.new_item;
          p.writes = u.new_item.has_value();  // nothing to write: a missing item, REMOVE only
          break;
        }
      }
    }
    req.actions.push_back(std::move(a));
    plan.push_back(std::move(p));
  }
  Note(run, note);
  Result<TransactWriteItemsResult> r = run.engine->TransactWriteItems(req);
  // Refusals: a missing table or an invalid action fails the call (ValidationException, or a
  // cancellation naming a ValidationError); which is found first is the engine's choice.
  if (missing || invalid) {
    return Expect(run, Outcome::kInvalid, r, "TransactWriteItems",
                  {ErrorCode::kResourceNotFound, ErrorCode::kTransactionCanceled});
  }
  if (failed) {
    if (r.ok() || r.error().code() != ErrorCode::kTransactionCanceled) {
      Fail(run, "TransactWriteItems: model says cancelled, engine says " +
                    (r.ok() ? std::string("ok") : Describe(r.error())));
    }
    return;
  }
  Expect(run, Outcome::kOk, r, "TransactWriteItems");
  for (Planned& p : plan) {
    if (!p.writes) continue;
    // An update that creates nothing, on a missing item, writes nothing.
    Commit(run, p.slot, p.key, p.new_item);
    run.touched[p.slot] = true;
  }
}

void TransactGetStep(Run& run, Bytes& in) {
  TransactGetItemsRequest req;
  std::vector<std::optional<Item>> want;
  std::set<std::string> keys;
  Outcome predicted = Outcome::kOk;
  std::string note = "TransactGetItems";
  for (int n = in.Below(3) + 1; n > 0; --n) {
    const int slot = in.Below(kSlots);
    Table t = TableOrStandIn(run, slot);
    Item key = KeyFor(in, t);
    if (!keys.insert(t.name + model::KeyText(t, key)).second) continue;
    req.actions.push_back({t.name, key, std::nullopt, std::nullopt});
    note += " " + t.name + " " + Show(key);
    if (!run.slots[slot].table) {
      predicted = Outcome::kNotFound;
    } else if (!model::GoodPrimaryKey(t, key)) {
      if (predicted == Outcome::kOk) predicted = Outcome::kInvalid;
    } else {
      want.push_back(ModelItem(t, key));
    }
  }
  Note(run, note);
  Result<TransactGetItemsResult> r = run.engine->TransactGetItems(req);
  if (predicted != Outcome::kOk) {
    return Expect(run, Outcome::kInvalid, r, "TransactGetItems",
                  {ErrorCode::kResourceNotFound, ErrorCode::kTransactionCanceled});
  }
  Expect(run, predicted, r, "TransactGetItems");
  if (r->items.size() != want.size()) Fail(run, "TransactGetItems: wrong number of items");
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& g = r->items[i];
    if (g.has_value() != want[i].has_value() || (g && !model::Same(*g, *want[i]))) {
      Fail(run, "TransactGetItems item " + std::to_string(i) + ": engine " +
                    (g ? Show(*g) : "none") + ", model " + (want[i] ? Show(*want[i]) : "none"));
    }
  }
}

// PartiQL: INSERT (refuses an existing key), UPDATE (only an existing item), DELETE, and
// SELECT by partition key or of the whole table.
void PartiqlStep(Run& run, Bytes& in, int slot) {
  Table t = TableOrStandIn(run, slot);
  ExecuteStatementRequest req;
  const std::string table = "\"" + t.name + "\"";
  const std::string where = std::string(" WHERE pk = ?") + (t.range_type ? " AND sk = ?" : "");
  const int kind = in.Below(5);
  Item item = kind == 0 ? ItemFor(in, t) : KeyFor(in, t);
  auto key_parameters = [&] {
    req.parameters.push_back(item["pk"]);
    if (t.range_type) req.parameters.push_back(item["sk"]);
  };
  std::optional<Item> old = ModelItem(t, item);
  Outcome predicted = !run.slots[slot].table            ? Outcome::kNotFound
                      : !model::GoodPrimaryKey(t, item) ? Outcome::kInvalid
                                                        : Outcome::kOk;
  std::optional<Item> new_item;
  bool writes = false;
  bool judge = true;
  switch (kind) {
    case 0: {  // INSERT
      req.statement = "INSERT INTO " + table + " VALUE {";
      bool first = true;
      for (const auto& [name, value] : item) {
        req.statement += std::string(first ? "" : ", ") + "'" + name + "': ?";
        req.parameters.push_back(value);
        first = false;
      }
      req.statement += "}";
      if (predicted == Outcome::kOk && !model::GoodIndexKeys(t, item))
        predicted = Outcome::kInvalid;
      if (predicted == Outcome::kOk && old) predicted = Outcome::kConditionFailed;  // duplicate
      new_item = item;
      writes = true;
      break;
    }
    case 1: {  // UPDATE ... SET a = ? (or REMOVE a)
      const char* attribute = kAttributes[in.Below(6)];
      std::vector<Action> actions(1);
      actions[0].attribute = attribute;
      if (in.Bit()) {
        actions[0].kind = Action::kSet;
        actions[0].value = ValueFor(in, attribute);
        req.statement = "UPDATE " + table + " SET " + attribute + " = ?" + where;
        req.parameters.push_back(actions[0].value);
      } else {
        actions[0].kind = Action::kRemove;
        req.statement = "UPDATE " + table + " REMOVE " + attribute + where;
      }
      key_parameters();
      if (predicted == Outcome::kOk) {
        if (!old) {
          predicted = Outcome::kConditionFailed;
        } else {
          model::UpdatePrediction p = model::PredictUpdate(t, item, Condition{}, actions);
          predicted = p.outcome;
          new_item = p.new_item;
        }
      }
      writes = true;
      break;
    }
    case 2:  // DELETE
      req.statement = "DELETE FROM " + table + where;
      key_parameters();
      writes = old.has_value();
      break;
    case 3:  // SELECT of one partition
      req.statement = "SELECT * FROM " + table + " WHERE pk = ?";
      req.parameters.push_back(item["pk"]);
      // Only the partition key counts; an empty one is not the model's to judge.
      if (predicted == Outcome::kInvalid) judge = false;
      break;
    default:  // SELECT of everything, in pages
      req.statement = "SELECT * FROM " + table;
      if (int limit = in.Below(4)) req.limit = limit;
      if (predicted == Outcome::kInvalid) predicted = Outcome::kOk;  // no key involved
      break;
  }
  req.consistent_read = true;
  std::string params;
  for (const AttributeValue& p : req.parameters) params += " " + Show(p);
  Note(run, "ExecuteStatement " + req.statement + " with" + params);
  Result<ExecuteStatementResult> r = run.engine->ExecuteStatement(run.ctx, req);
  if (!judge) {
    if (!r.ok() && r.error().code() == ErrorCode::kInternal) Fail(run, Describe(r.error()));
    return;
  }
  if (predicted == Outcome::kConditionFailed && kind == 0) {
    if (r.ok() || r.error().code() != ErrorCode::kDuplicateItem) {
      Fail(run, "PartiQL INSERT of an existing key: engine says " +
                    (r.ok() ? std::string("ok") : Describe(r.error())));
    }
    return;
  }
  Expect(run, predicted, r, "ExecuteStatement");
  if (predicted != Outcome::kOk) return;
  if (kind >= 3) {
    std::vector<Item> got = std::move(r->items);
    for (int page = 0; r->last_evaluated_key; ++page) {
      if (page > 1000) Fail(run, "ExecuteStatement: more than 1000 pages");
      req.exclusive_start_key = r->last_evaluated_key;
      r = run.engine->ExecuteStatement(run.ctx, req);
      if (!r.ok()) Fail(run, "ExecuteStatement next page: " + Describe(r.error()));
      for (Item& i : r->items) got.push_back(std::move(i));
    }
    std::vector<Item> want;
    for (const auto& [k, it] : t.items) {
      if (kind == 4 || model::Same(it.at("pk"), item["pk"])) want.push_back(it);
    }
    return SameItems(run, got, want, t.name + " SELECT");
  }
  if (writes) Commit(run, slot, model::KeyOf(t, item), new_item);
}

void BackupStep(Run& run, Bytes& in, int slot) {
  const int what = in.Below(3);
  Slot& s = run.slots[slot];
  if (what == 0) {  // CreateBackup
    Note(run, "CreateBackup " + SlotName(slot));
    Result<BackupDescription> r = run.engine->CreateBackup(run.ctx, SlotName(slot), "b");
    if (!s.table) {
      if (r.ok() || r.error().code() != ErrorCode::kTableNotFound) {
        Fail(run, "CreateBackup of a missing table: " +
                      (r.ok() ? std::string("ok") : Describe(r.error())));
      }
      return;
    }
    Expect(run, Outcome::kOk, r, "CreateBackup");
    run.backups.push_back({r->details.backup_arn, *s.table, s.billing, s.throughput});
    return;
  }
  if (run.backups.empty()) return;
  const size_t b = in.Below(static_cast<int>(run.backups.size()));
  if (what == 1) {  // RestoreTableFromBackup into this slot
    RestoreTableFromBackupRequest req;
    req.target_table_name = SlotName(slot);
    req.backup_arn = run.backups[b].arn;
    Note(run, "RestoreTableFromBackup " + run.backups[b].snapshot.name + " (backup " +
                  std::to_string(b) + ") to " + req.target_table_name);
    Result<TableDescription> r = run.engine->RestoreTableFromBackup(run.ctx, req);
    if (s.table) {
      if (r.ok() || r.error().code() != ErrorCode::kTableAlreadyExists) {
        Fail(run, "RestoreTableFromBackup onto a table: " +
                      (r.ok() ? std::string("ok") : Describe(r.error())));
      }
      return;
    }
    Expect(run, Outcome::kOk, r, "RestoreTableFromBackup");
    WaitActive(run, req.target_table_name);
    s = Slot{};
    Table t = run.backups[b].snapshot;
    t.name = req.target_table_name;
    t.stream.reset();  // neither the stream nor Time to Live is restored
    t.ttl.reset();
    s.table = std::move(t);
    s.billing = run.backups[b].billing;
    s.throughput = run.backups[b].throughput;
    return;
  }
  Note(run, "DeleteBackup " + std::to_string(b));
  Result<BackupDescription> r = run.engine->DeleteBackup(run.ctx, run.backups[b].arn);
  Expect(run, Outcome::kOk, r, "DeleteBackup");
  run.backups.erase(run.backups.begin() + b);
}

void TtlStep(Run& run, Bytes& in, int slot) {
  Slot& s = run.slots[slot];
  TimeToLiveSpecification spec;
  spec.enabled = in.Bit();
  spec.attribute_name = in.Below(4) ? "ttl" : "a";
  Note(run, std::string("UpdateTimeToLive ") + SlotName(slot) + (spec.enabled ? " on " : " off ") +
                spec.attribute_name);
  Result<TimeToLiveSpecification> r = run.engine->UpdateTimeToLive(SlotName(slot), spec);
  if (!s.table) return Expect(run, Outcome::kNotFound, r, "UpdateTimeToLive");
  // Enabling when enabled, or disabling when disabled or on another attribute: refused.
  const bool ok = spec.enabled ? !s.table->ttl : s.table->ttl == spec.attribute_name;
  if (!ok) return Expect(run, Outcome::kInvalid, r, "UpdateTimeToLive");
  Expect(run, Outcome::kOk, r, "UpdateTimeToLive");
  if (spec.enabled) {
    s.table->ttl = spec.attribute_name;
  } else {
    s.table->ttl.reset();
  }
}

void ReopenStep(Run& run) {
  if (run.options.in_memory) return;
  Note(run, "reopen");
  run.engine.reset();
  OpenOrFail(run);
  for (Slot& s : run.slots) {
    if (s.table) WaitActive(run, s.table->name);
  }
}

void Step(Run& run, Bytes& in) {
  const int op = in.Below(21);
  const int slot = in.Below(kSlots);
  for (bool& t : run.touched) t = false;
  run.touched[slot] = true;
  switch (op) {
    case 0:
    case 1:
      return CreateTableStep(run, in, slot);
    case 2:
      return DeleteTableStep(run, slot);
    case 3:
      return UpdateCapacityStep(run, in, slot);
    case 4:
      return UpdateIndexStep(run, in, slot);
    case 5:
      return UpdateStreamStep(run, in, slot);
    case 6:
    case 7:
      return PutStep(run, in, slot);
    case 8:
    case 9:
      return UpdateStep(run, in, slot);
    case 10:
      return DeleteStep(run, in, slot);
    case 11:
      return QueryStep(run, in, slot);
    case 12:
      return ScanStep(run, in, slot);
    case 13:
      return BatchWriteStep(run, in);
    case 14:
      return BatchGetStep(run, in);
    case 15:
      return TransactWriteStep(run, in);
    case 16:
      return TransactGetStep(run, in);
    case 17:
      return PartiqlStep(run, in, slot);
    case 18:
      return BackupStep(run, in, slot);
    case 19:
      return TtlStep(run, in, slot);
    default:
      if (in.Bit()) return ReopenStep(run);
      g_now_ms += 1000 * (1 + in.U8()) * 60;  // minutes pass
      Note(run, "time passes");
      return;
  }
}

std::string& ScratchDir() {
  static std::string* dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ddb-stateful-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    std::atexit([] { std::filesystem::remove_all(ScratchDir()); });
    return new std::string(tmpl);
  }();
  return *dir;
}

// DDB_FUZZ_REUSE_ENGINE=1 (tools/stateful-campaign.sh): in-memory inputs share one engine,
// emptied between inputs through the API, instead of opening one each (RocksDB's open and the
// engine's threads were two thirds of an input's cost). An input then starts from an engine
// that earlier inputs used (its ids, counters and closed streams), so a failure found this
// way is replayed without the variable first; the default (CI, ASan replays) opens a fresh
// engine per input, which also keeps libFuzzer's per-input leak checks meaningful.
constexpr int kSharedEngineInputs = 1000;

bool ReuseEngine() {
  static const bool reuse = [] {
    const char* v = std::getenv("DDB_FUZZ_REUSE_ENGINE");
    return v != nullptr && std::string(v) == "1";
  }();
  return reuse;
}

std::unique_ptr<Engine>& SharedEngine() {
  static auto* engine = new std::unique_ptr<Engine>();  // never destroyed: see ScratchDir
  return *engine;
}

// The shared engine as a fresh one looks through the API: no tables, no backups.
void EmptyEngine(Run& run) {
  for (int slot = 0; slot < kSlots; ++slot) {
    const std::string name = SlotName(slot);
    Result<TableDescription> d = run.engine->DescribeTable(run.ctx, name);
    if (!d.ok()) continue;
    if (d->deletion_protection_enabled) {
      UpdateTableRequest unprotect;
      unprotect.table_name = name;
      unprotect.deletion_protection_enabled = false;
      Result<TableDescription> u = run.engine->UpdateTable(run.ctx, unprotect);
      if (!u.ok()) Fail(run, "emptying the shared engine: " + Describe(u.error()));
    }
    Result<TableDescription> r = run.engine->DeleteTable(run.ctx, name);
    if (!r.ok()) Fail(run, "emptying the shared engine: " + Describe(r.error()));
  }
  for (int page = 0; page < 1000; ++page) {
    Result<ListBackupsResult> list = run.engine->ListBackups(run.ctx, ListBackupsRequest{});
    if (!list.ok()) Fail(run, "emptying the shared engine: " + Describe(list.error()));
    for (const BackupDetails& b : list->backup_summaries) {
      Result<BackupDescription> r = run.engine->DeleteBackup(run.ctx, b.backup_arn);
      if (!r.ok()) Fail(run, "emptying the shared engine: " + Describe(r.error()));
    }
    if (!list->last_evaluated_backup_arn) return;
  }
  Fail(run, "emptying the shared engine: backups remain after 1000 pages");
}

}  // namespace
}  // namespace ddb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Runs a few fixed pseudo-random inputs first: the engine's first use starts RocksDB's
// background threads and their thread_local destructor records, which live as long as the
// process and would otherwise count as the first inputs' leaks.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  uint64_t x = 0x9e3779b97f4a7c15;
  for (int i = 0; i < 16; ++i) {
    std::vector<uint8_t> input(256);
    for (uint8_t& b : input) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = static_cast<uint8_t>(x);
    }
    input[0] = i % 8 == 7 ? ddb::fuzz::kDiskMode : 0;
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddb::fuzz;
  if (size == 0) return 0;
  Bytes in(data, size);
  Run run;
  const bool disk = in.U8() == kDiskMode;
  run.options.in_memory = !disk;
  if (disk) {
    run.options.data_dir = ScratchDir() + "/store";
    std::filesystem::remove_all(run.options.data_dir);
  }
  run.options.clock_for_testing = [] { return g_now_ms.load(); };
  run.options.ttl_sweep_interval_ms = 3600 * 1000;  // expiries are far ahead anyway
  const bool reuse = !disk && ReuseEngine();
  // A shared engine serves kSharedEngineInputs inputs, then a fresh one takes over: each
  // input leaves range tombstones and closed streams behind, and after tens of thousands of
  // inputs reverse reads over the tombstones cost more than opening an engine.
  static int shared_uses = 0;
  if (reuse && SharedEngine() && ++shared_uses >= kSharedEngineInputs) {
    SharedEngine().reset();
    shared_uses = 0;
  }
  if (reuse && SharedEngine()) {
    run.engine = std::move(SharedEngine());
    EmptyEngine(run);
  } else {
    OpenOrFail(run);
  }
  for (int step = 0; step < kMaxSteps && !in.empty(); ++step) {
    Step(run, in);
    for (int slot = 0; slot < kSlots; ++slot) {
      if (run.touched[slot]) CheckTable(run, slot);
    }
  }
  for (int slot = 0; slot < kSlots; ++slot) CheckTable(run, slot);
  if (reuse) {
    SharedEngine() = std::move(run.engine);
  } else {
    run.engine.reset();
  }
  return 0;
}
