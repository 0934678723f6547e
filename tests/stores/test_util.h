#pragma once
// Helpers shared by the store and file tests: temporary files, deterministic values, reading a
// text file back.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hitcost::testing {

// A fresh directory under $TMPDIR, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hitcost-stores-XXXXXX").string();
    char* p = ::mkdtemp(tmpl.data());
    if (!p) std::abort();
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The lines of a text file (a last line without its newline included); none if it cannot be read.
inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// A value that names its key and version, so a read can be checked against what was
// written for that key: "key|version|" followed by filler derived from both.
inline std::string make_value(const std::string& key, uint64_t version, size_t len) {
  std::string v = key + "|" + std::to_string(version) + "|";
  uint64_t x = std::hash<std::string>{}(key) ^ (version * 0x9E3779B97F4A7C15ull);
  while (v.size() < len) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v.push_back(static_cast<char>('a' + x % 26));
  }
  v.resize(std::max(len, v.size()));
  return v;
}

// True if `v` is exactly make_value(key, version, v.size()) for the version it names.
inline bool value_matches(const std::string& key, const std::string& v, uint64_t* version = nullptr) {
  if (v.compare(0, key.size() + 1, key + "|") != 0) return false;
  size_t bar = v.find('|', key.size() + 1);
  if (bar == std::string::npos) return false;
  uint64_t ver = std::stoull(v.substr(key.size() + 1, bar - key.size() - 1));
  if (version) *version = ver;
  return make_value(key, ver, v.size()) == v;
}

}  // namespace hitcost::testing
