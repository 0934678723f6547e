// hitcost-bench --calibrate, the host's table: every step with every library on the same bytes
// (checked before timing), one fastest per set of alternatives, PHP's own functions beside the
// decoders and zlib, the JSON as printed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"

using nlohmann::json;

TEST(Calibrate, TheHostsTableHasEveryStepWithEveryLibraryAndPhpBeside) {
  const std::filesystem::path dir = hitcost::testing::fresh_dir("bench", "calibrate");
  const std::string out = (dir / "table.json").string();
  const auto r = hitcost::testing::run_command({std::string(HITCOST_BINARY_DIR) + "/bench/hitcost-bench", "--calibrate",
                                                "--repeats", "2", "--slice-ms", "0.3", "--json", out},
                                               {.timeout_ms = 60'000});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out);
  const json t = json::parse(in, nullptr, false);
  ASSERT_TRUE(t.is_object()) << r.out;
  std::map<std::string, int> by_part;
  std::map<std::tuple<std::string, std::string, std::string>, int> fastest;  // one per set of alternatives
  for (const json& s : t["steps"]) {
    ASSERT_FALSE(s.contains("error")) << s.dump();
    EXPECT_GT(s["ns"]["median"].get<double>(), 0) << s.dump();
    ++by_part[s["part"].get<std::string>()];
    fastest[{s["part"], s["step"], s["bytes_of"]}] += s["fastest"].get<bool>();
  }
  // 3 inflate libraries for zlib + zstd, lz4, FastLZ, each on the HTML and 4 serializations.
  EXPECT_EQ(by_part["decompress"], 6 * 5);
  EXPECT_EQ(by_part["decode"], 3 + 3);  // JSON with simdjson, hitcost's reader, nlohmann; msgpack, php, igbinary
  EXPECT_EQ(by_part["encode"], 4);
  EXPECT_EQ(by_part["render"], 1);
  EXPECT_EQ(by_part["copy"], 1);
  EXPECT_EQ(by_part["loopback"], 4);  // recv, http_parse, round_trip, send
  size_t sets = 0;
  for (const auto& [key, n] : fastest) {
    EXPECT_EQ(n, 1) << std::get<0>(key) << "/" << std::get<1>(key) << "/" << std::get<2>(key);
    ++sets;
  }
  // decompress: 4 compressors x 5 payloads (zlib's a set of 3 libraries each); decode: JSON's set of
  // 3 and 3 alone; then encode 4, render, copy, loopback 4.
  EXPECT_EQ(sets, 4u * 5 + 4 + 4 + 1 + 1 + 4);
  // PHP is a test dependency: its functions ran on the same bytes, each checked.
  ASSERT_FALSE(t["php"]["version"].get<std::string>().empty()) << r.out;
  size_t php = 0;
  for (const char* bytes : {"json", "php", "igbinary", "msgpack", "zlib of json", "zlib of html"}) {
    const json& p = t["php"]["by_bytes"][bytes];
    ASSERT_TRUE(p.contains("ns")) << bytes << ": " << p.dump();
    EXPECT_GT(p["ns"]["median"].get<double>(), 0) << bytes;
    ++php;
  }
  EXPECT_EQ(php, 6u);
  EXPECT_NE(r.out.find("json_decode"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gzuncompress"), std::string::npos) << r.out;
}
