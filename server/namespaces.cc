#include "server/namespaces.h"

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

std::filesystem::path AccountsDir(const std::string& data_dir) {
  return std::filesystem::path(data_dir) / "accounts";
}

}  // namespace

Namespaces::Namespaces(EngineOptions base, Isolation isolation)
    : base_(std::move(base)), isolation_(isolation) {}

Namespaces::Namespaces(Engine& engine) : isolation_(Isolation::kShared), shared_(&engine) {}

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
  std::error_code ec;
  for (const auto& account : std::filesystem::directory_iterator(AccountsDir(base_.data_dir), ec)) {
    if (!account.is_directory() || !ValidAccount(account.path().filename().string())) continue;
    for (const auto& region : std::filesystem::directory_iterator(account.path(), ec)) {
      if (!region.is_directory() || !ValidRegion(region.path().filename().string())) continue;
      DDB_RETURN_IF_ERROR(
          Of(account.path().filename().string(), region.path().filename().string()).status());
    }
  }
  return Status::Ok();
}

Result<Engine*> Namespaces::Of(std::string_view account, std::string_view region) {
  if (isolation_ == Isolation::kShared) return shared_;
  if (!ValidAccount(account) || !ValidRegion(region)) {
    return Error::Validation("The account or region of the request cannot name a namespace: " +
                             std::string(account) + "/" + std::string(region));
  }
  const std::string key = std::string(account) + "/" + std::string(region);
  std::lock_guard lock(mu_);
  auto it = engines_.find(key);
  if (it != engines_.end()) return it->second.get();
  EngineOptions options = base_;
  if (!options.in_memory) {
    const std::filesystem::path dir = AccountsDir(base_.data_dir) / account / region;
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
  const std::string key = std::string(account) + "/" + std::string(region);
  std::lock_guard lock(mu_);
  auto it = engines_.find(key);
  return it == engines_.end() ? nullptr : it->second.get();
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
