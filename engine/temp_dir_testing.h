// A scratch directory for a test's on-disk store, removed with everything in it when the
// object goes. Test-only; header-only.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace ddb::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ddb-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ddb::testing
