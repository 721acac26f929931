#include "server/namespaces.h"

#include <atomic>
#include <filesystem>
#include <system_error>

namespace ddb::server {
namespace {

// Both name a directory: 12 digits, and a region such as "eu-west-2".
bool ValidAccount(std::string_view account) {
  if (account.size() != 12) return false;
  for (char c : account) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ValidRegion(std::string_view region) {
  if (region.empty() || region.size() > 32) return false;
  for (char c : region) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// DynamoDB Local's rule for the access keys that name its databases: letters and digits.
bool ValidAccessKey(std::string_view key) {
  if (key.empty() || key.size() > 128) return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

// The directory of the namespaces of one kind under the data directory, and the names an
// owner of that kind may have.
struct Kind {
  const char* dir;
  bool (*valid)(std::string_view);
  const char* label;
};
constexpr Kind kAccounts{"accounts", ValidAccount, "account"};
constexpr Kind kAccessKeys{"keys", ValidAccessKey, "access_key"};

}  // namespace

namespace {
std::atomic<uint64_t> next_namespaces_id{1};
}  // namespace

Namespaces::Namespaces(EngineOptions base, Isolation isolation)
    : base_(std::move(base)), isolation_(isolation), id_(next_namespaces_id++) {}

Namespaces::Namespaces(Engine& engine)
    : isolation_(Isolation::kShared), id_(next_namespaces_id++), shared_(&engine) {}

Namespaces::~Namespaces() = default;

Status Namespaces::Open() {
  if (shared_) return Status::Ok();
  if (isolation_ == Isolation::kShared) {
    DDB_ASSIGN_OR_RETURN(owned_shared_, Engine::Open(base_));
    shared_ = owned_shared_.get();
    return Status::Ok();
  }
  if (base_.in_memory) return Status::Ok();
  // Namespaces already on disk, so that their background work (TTL, streams retention)
  // goes on before their first request.
  const Kind& kind = isolation_ == Isolation::kAccount ? kAccounts : kAccessKeys;
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::path(base_.data_dir) / kind.dir;
  for (const auto& owner : std::filesystem::directory_iterator(root, ec)) {
    if (!owner.is_directory() || !kind.valid(owner.path().filename().string())) continue;
    for (const auto& region : std::filesystem::directory_iterator(owner.path(), ec)) {
      if (!region.is_directory() || !ValidRegion(region.path().filename().string())) continue;
      DDB_RETURN_IF_ERROR(
          OpenNamespace(owner.path().filename().string(), region.path().filename().string())
              .status());
    }
  }
  return Status::Ok();
}

Result<Engine*> Namespaces::ForCaller(const RequestContext& ctx) {
  if (isolation_ == Isolation::kAccessKey) return OpenNamespace(ctx.access_key_id, ctx.region);
  return Of(ctx.account_id, ctx.region);
}

Result<Engine*> Namespaces::Of(std::string_view account, std::string_view region) {
  if (isolation_ == Isolation::kShared) return shared_;
  if (isolation_ == Isolation::kAccessKey) {
    return Error::Validation("Tables are kept per access key: an account names no namespace");
  }
  return OpenNamespace(account, region);
}

Result<Engine*> Namespaces::OpenNamespace(std::string_view owner, std::string_view region) {
  const Kind& kind = isolation_ == Isolation::kAccount ? kAccounts : kAccessKeys;
  if (!kind.valid(owner) || !ValidRegion(region)) {
    return Error::Validation(
        std::string("The ") + (isolation_ == Isolation::kAccount ? "account" : "access key") +
        " or region of the request cannot name a namespace: " + std::string(owner) + "/" +
        std::string(region));
  }
  // Most requests of a thread are one caller's: its last namespace, without the lock (an
  // engine, once open, lives as long as this object).
  struct LastHit {
    uint64_t owner_of = 0;  // id_: another Namespaces at the same address is another one
    std::string key;
    Engine* engine = nullptr;
  };
  thread_local LastHit last;
  if (last.owner_of == id_ && last.key.size() == owner.size() + 1 + region.size() &&
      last.key.starts_with(owner) && last.key[owner.size()] == '/' && last.key.ends_with(region)) {
    return last.engine;
  }
  const std::string key = std::string(owner) + "/" + std::string(region);
  std::lock_guard lock(mu_);
  auto it = engines_.find(key);
  if (it != engines_.end()) {
    last = {id_, key, it->second.get()};
    return it->second.get();
  }
  EngineOptions options = base_;
  if (!options.in_memory) {
    const std::filesystem::path dir =
        std::filesystem::path(base_.data_dir) / kind.dir / owner / region;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error::Internal("cannot create " + dir.string() + ": " + ec.message());
    options.data_dir = dir.string();
  }
  DDB_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Open(options));
  return engines_.emplace(key, std::move(engine)).first->second.get();
}

Engine* Namespaces::Find(std::string_view account, std::string_view region) {
  if (isolation_ == Isolation::kShared) return shared_;
  if (isolation_ == Isolation::kAccessKey) return nullptr;
  const std::string key = std::string(account) + "/" + std::string(region);
  std::lock_guard lock(mu_);
  auto it = engines_.find(key);
  return it == engines_.end() ? nullptr : it->second.get();
}

std::vector<Namespaces::Entry> Namespaces::List() {
  std::vector<Entry> list;
  if (isolation_ == Isolation::kShared) return list;
  std::lock_guard lock(mu_);
  for (const auto& [key, engine] : engines_) {
    const size_t slash = key.find('/');
    list.push_back({key.substr(0, slash), key.substr(slash + 1), engine.get()});
  }
  return list;
}

std::vector<protocol::MetricsSource> Namespaces::Sources() {
  if (isolation_ == Isolation::kShared) return {{"", shared_}};
  std::vector<protocol::MetricsSource> sources;
  std::lock_guard lock(mu_);
  for (const auto& [key, engine] : engines_) {
    const size_t slash = key.find('/');
    sources.push_back(
        {"account=\"" + key.substr(0, slash) + "\",region=\"" + key.substr(slash + 1) + "\"",
         engine.get()});
  }
  return sources;
}

}  // namespace ddb::server
