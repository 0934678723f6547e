// The shared on-disk format, its checksum and the I/O loops, below the Store interface.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/crc32c.h"
#include "core/io_util.h"
#include "stores/store_file.h"
#include "tests/stores/test_util.h"

namespace hitcost {
namespace {

using namespace storefile;

uint32_t crc32c_bitwise(const std::string& s) {
  uint32_t c = ~0u;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

TEST(Crc32c, MatchesKnownVectors) {
  EXPECT_EQ(crc32c(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c(0, "", 0), 0u);
  std::string zeros(32, '\0');
  EXPECT_EQ(crc32c(0, zeros.data(), zeros.size()), 0x8A9136AAu);
}

TEST(Crc32c, InterleavedPathMatchesBitwiseAtEverySplit) {
  std::string big = testing::make_value("crc", 7, 3 * 6144 + 1234);
  const uint32_t want = crc32c_bitwise(big);
  EXPECT_EQ(crc32c(0, big.data(), big.size()), want);
  for (size_t split : {size_t{0}, size_t{1}, size_t{7}, size_t{6143}, size_t{6144}, size_t{9999}}) {
    uint32_t c = crc32c(0, big.data(), split);
    c = crc32c(c, big.data() + split, big.size() - split);
    EXPECT_EQ(c, want) << "split at " << split;
  }
}

// Builds a ring image the way FileStore writes one.
struct Ring {
  explicit Ring(uint64_t cap) : bytes(cap, '\0'), cap(cap) {}
  uint64_t put(RecordType t, const std::string& key, const std::string& value, uint64_t seq) {
    uint64_t total = record_total_len(key.size(), value.size());
    auto h =
        make_record_header(t, salt, seq, key, static_cast<uint32_t>(value.size()), 42, body_crc(key, value), total);
    std::string rec;
    encode_record(rec, h, key, value);
    std::memcpy(bytes.data() + at, rec.data(), rec.size());
    uint64_t where = at;
    at += total;
    return where;
  }
  std::string bytes;
  uint64_t cap, at = 0;
  uint32_t salt = 0xABCD1234;
};

TEST(StoreFileScan, FindsEveryCompleteRecordAndTheHead) {
  Ring r(64 * 1024);
  r.put(RecordType::value, "a", "one", 1);
  r.put(RecordType::value, "b", std::string(500, 'x'), 2);
  r.put(RecordType::tombstone, "a", "", 3);
  auto s = scan_ring(reinterpret_cast<const unsigned char*>(r.bytes.data()), r.cap, r.salt);
  ASSERT_EQ(s.chain.size(), 3u);
  EXPECT_EQ(s.dropped_records, 0u);
  EXPECT_EQ(s.max_seq, 3u);
  EXPECT_EQ(s.head, r.at);
  EXPECT_EQ(s.chain[1].key, "b");
  EXPECT_EQ(s.chain[1].value_len, 500u);
  EXPECT_TRUE(s.holes.empty());
}

TEST(StoreFileScan, TornBodyIsDroppedAndCounted) {
  Ring r(64 * 1024);
  r.put(RecordType::value, "a", "one", 1);
  uint64_t torn = r.put(RecordType::value, "b", std::string(300, 'x'), 2);
  r.put(RecordType::value, "c", "three", 3);
  r.bytes[torn + kRecordHeaderBytes + 100] ^= 1;  // a byte of b's value
  auto s = scan_ring(reinterpret_cast<const unsigned char*>(r.bytes.data()), r.cap, r.salt);
  ASSERT_EQ(s.chain.size(), 2u);
  EXPECT_EQ(s.chain[0].key, "a");
  EXPECT_EQ(s.chain[1].key, "c");
  EXPECT_EQ(s.dropped_records, 1u);
  ASSERT_EQ(s.holes.size(), 1u);
  EXPECT_EQ(s.holes[0].first, torn);
}

TEST(StoreFileScan, TornHeaderResyncsAtTheNextRecord) {
  Ring r(64 * 1024);
  uint64_t torn = r.put(RecordType::value, "a", std::string(1000, 'y'), 1);
  r.put(RecordType::value, "c", "three", 2);
  r.bytes[torn + 3] ^= 0x40;  // the magic
  auto s = scan_ring(reinterpret_cast<const unsigned char*>(r.bytes.data()), r.cap, r.salt);
  ASSERT_EQ(s.chain.size(), 1u);
  EXPECT_EQ(s.chain[0].key, "c");
  EXPECT_EQ(s.dropped_records, 1u);
}

TEST(StoreFileScan, RecordsOfAnotherFileDoNotParse) {
  Ring r(64 * 1024);
  r.put(RecordType::value, "a", "one", 1);
  auto s = scan_ring(reinterpret_cast<const unsigned char*>(r.bytes.data()), r.cap, r.salt + 1);
  EXPECT_TRUE(s.chain.empty());
  EXPECT_EQ(s.dropped_records, 1u);
}

TEST(StoreFileHeader, RoundTripsAndRejectsDamage) {
  auto h = make_file_header(99, 1 << 20);
  EXPECT_TRUE(file_header_valid(h));
  h.capacity += 64;
  EXPECT_FALSE(file_header_valid(h));
}

TEST(IoUtil, PreadFullStopsAtEndOfFileAndPreadvFillsEveryBuffer) {
  testing::TempDir dir;
  UniqueFd fd(::open(dir.file("f").c_str(), O_RDWR | O_CREAT, 0600));
  ASSERT_TRUE(fd);
  std::string data = testing::make_value("io", 1, 10000);
  ASSERT_TRUE(io::pwrite_full(fd.get(), data.data(), data.size(), 0));
  std::string back(20000, '\0');
  auto r = io::pread_full(fd.get(), back.data(), back.size(), 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, data.size());
  EXPECT_EQ(back.substr(0, data.size()), data);
  char a[3], b[5000];
  std::string c(4997, '\0');
  iovec iov[3] = {{a, 3}, {b, 5000}, {c.data(), c.size()}};
  auto v = io::preadv_full(fd.get(), iov, 3, 0);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, 10000u);
  EXPECT_EQ(std::string(a, 3) + std::string(b, 5000) + c, data);
}

}  // namespace
}  // namespace hitcost
