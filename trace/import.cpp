#include "trace/import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "core/parse_number.h"
#include "trace/key_hash.h"
#include "trace/source_input.h"

namespace hitcost::trace {
namespace {

constexpr size_t kOracleRecordBytes = 24;

// Turns source times (s) into trace times, keeping them monotone, and numbers the clients.
class EventClock {
 public:
  // false when the time went backwards (the event then takes the previous time).
  bool place(uint64_t source_s, TraceEvent& e) {
    if (!started_) {
      started_ = true;
      first_s_ = source_s;
    }
    bool in_order = true;
    if (source_s < last_s_) {
      in_order = false;
      source_s = last_s_;
    }
    last_s_ = std::max(last_s_, source_s);
    e.time_us = (source_s - first_s_) * 1'000'000;
    return in_order;
  }
  uint64_t start_unix_us() const noexcept { return started_ ? first_s_ * 1'000'000 : 0; }

 private:
  bool started_ = false;
  uint64_t first_s_ = 0, last_s_ = 0;
};

class ClientIds {
 public:
  uint16_t of(uint64_t id) {
    auto [it, added] = ids_.try_emplace(id, static_cast<uint16_t>(std::min<size_t>(ids_.size(), UINT16_MAX)));
    return it->second;
  }

 private:
  std::unordered_map<uint64_t, uint16_t> ids_;
};

void note_bad(ImportResult& r, const char* kind, uint64_t line_no) {
  BadLines& b = r.bad[kind];
  ++b.count;
  if (b.first_lines.size() < kBadLineExamples) b.first_lines.push_back(line_no);
}

// Splits on ','; false unless exactly n fields.
template <size_t N>
bool split_fields(std::string_view line, std::array<std::string_view, N>& fields) {
  size_t i = 0, pos = 0;
  for (;;) {
    const size_t comma = line.find(',', pos);
    if (i == N) return false;
    fields[i++] = line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return i == N;
}

struct Sink {
  TraceWriter& out;
  const KeyHasher& hasher;
  bool keep_keys;
  ImportResult& result;
  bool full = false;
  bool add(const TraceEvent& e, std::string_view key) {
    if (full || !out.append(e)) {
      full = true;
      return false;
    }
    if (keep_keys) out.keep_key(e.key, key);
    return true;
  }
};

Status import_twemcache(SourceInput& in, Sink& sink, EventClock& clock, ClientIds& clients) {
  ImportResult& r = sink.result;
  std::string_view line;
  for (;;) {
    auto got = in.next_line(line);
    if (!got) return got.error();
    if (!*got) return ok_status();
    const uint64_t line_no = ++r.lines;
    if (line.empty()) {
      note_bad(r, "empty", line_no);
      continue;
    }
    std::array<std::string_view, 7> f;
    if (!split_fields(line, f)) {
      note_bad(r, "fields (not 7)", line_no);
      continue;
    }
    uint64_t ts = 0, client = 0;
    uint32_t key_size = 0, value_size = 0, ttl = 0;
    if (!parse_number(f[0], ts)) {
      note_bad(r, "timestamp", line_no);
      continue;
    }
    if (f[1].empty()) {
      note_bad(r, "key", line_no);
      continue;
    }
    if (!parse_number(f[2], key_size) || !parse_number(f[3], value_size)) {
      note_bad(r, "size", line_no);
      continue;
    }
    if (!parse_number(f[4], client)) {
      note_bad(r, "client", line_no);
      continue;
    }
    const auto op = parse_op(f[5]);
    if (!op) {
      note_bad(r, "op", line_no);
      continue;
    }
    if (!parse_number(f[6], ttl)) {
      note_bad(r, "ttl", line_no);
      continue;
    }
    TraceEvent e{};
    if (!clock.place(ts, e)) ++r.time_backwards;
    e.key = sink.hasher(f[1]);
    e.key_size = static_cast<uint16_t>(std::min<uint32_t>(key_size, UINT16_MAX));
    e.value_size = value_size;
    e.ttl_s = is_write(*op) ? ttl : 0;
    e.op = static_cast<uint8_t>(*op);
    e.outcome =
        static_cast<uint8_t>(is_read(*op) ? (value_size > 0 ? Outcome::found : Outcome::not_found) : Outcome::unknown);
    e.client = clients.of(client);
    if (!sink.add(e, f[1])) return ok_status();
    ++r.events;
  }
}

Status import_oracle_general(SourceInput& in, Sink& sink, EventClock& clock) {
  ImportResult& r = sink.result;
  unsigned char rec[kOracleRecordBytes];
  for (;;) {
    size_t partial = 0;
    auto got = in.next_record(rec, sizeof rec, partial);
    if (!got) return got.error();
    if (!*got) {
      if (partial > 0) note_bad(r, "truncated record", r.lines + 1);
      return ok_status();
    }
    ++r.lines;
    uint32_t ts = 0, size = 0;
    uint64_t id = 0;
    std::memcpy(&ts, rec, 4);
    std::memcpy(&id, rec + 4, 8);
    std::memcpy(&size, rec + 12, 4);
    TraceEvent e{};
    if (!clock.place(ts, e)) ++r.time_backwards;
    const std::string_view id_bytes(reinterpret_cast<const char*>(rec + 4), 8);
    e.key = sink.hasher(id_bytes);
    e.value_size = size;
    e.op = static_cast<uint8_t>(Op::get);
    e.outcome = static_cast<uint8_t>(Outcome::unknown);
    if (!sink.add(e, std::to_string(id))) return ok_status();
    ++r.events;
  }
}

}  // namespace

const char* to_string(ImportFormat format) noexcept {
  return format == ImportFormat::twemcache ? "twemcache" : "oraclegeneral";
}

Result<ImportFormat> parse_import_format(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "twemcache") return ImportFormat::twemcache;
  if (lower == "oraclegeneral") return ImportFormat::oracle_general;
  return Error{Errc::invalid_argument,
               "unknown trace format \"" + std::string(text) + "\" (twemcache | oraclegeneral)"};
}

uint64_t ImportResult::bad_total() const noexcept {
  uint64_t n = 0;
  for (const auto& [kind, b] : bad) n += b.count;
  return n;
}

Result<ImportResult> import_trace(const ImportOptions& options) {
  auto in = SourceInput::open(options.input_path);
  if (!in) return in.error();
  auto writer = TraceWriter::create(options.output_path, options.limits);
  if (!writer) return writer.error();
  ImportResult result;
  result.compressed = in->compressed();
  const KeyHasher hasher = KeyHasher::random();
  Sink sink{*writer, hasher, options.keep_keys, result};
  EventClock clock;
  ClientIds clients;
  Status read = options.format == ImportFormat::twemcache ? import_twemcache(*in, sink, clock, clients)
                                                          : import_oracle_general(*in, sink, clock);
  if (!read) return read.error();
  result.stopped_by = writer->stopped_reason();
  result.events = writer->events();

  TraceInfo info;
  info.source = options.format == ImportFormat::twemcache ? TraceSource::twemcache : TraceSource::oracle_general;
  const size_t slash = options.input_path.find_last_of('/');
  info.origin = slash == std::string::npos ? options.input_path : options.input_path.substr(slash + 1);
  info.start_unix_us = clock.start_unix_us();
  info.time_resolution_us = 1'000'000;
  info.flags = kKeysHashed | (options.keep_keys ? kKeysKept : 0);
  info.malformed = result.bad_total();
  if (auto f = writer->finish(info); !f) return f.error();
  result.events = writer->events();
  return result;
}

}  // namespace hitcost::trace
