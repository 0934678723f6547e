#include "trace/watch_events.h"

#include <algorithm>
#include <charconv>

#include "core/parse_number.h"
#include "corpus/memcached_text.h"

namespace hitcost::trace {
namespace {

constexpr size_t kMalformedExamples = 5;

// "SEC.USEC" with USEC printed unpadded (see the header): SEC * 10^6 + USEC.
bool parse_ts(std::string_view text, uint64_t& unix_us) {
  const size_t dot = text.find('.');
  uint64_t sec = 0, usec = 0;
  if (dot == std::string_view::npos) {
    if (!parse_number(text, sec)) return false;
  } else if (!parse_number(text.substr(0, dot), sec) || !parse_number(text.substr(dot + 1), usec) ||
             usec >= 1'000'000) {
    return false;
  }
  unix_us = sec * 1'000'000 + usec;
  return true;
}

}  // namespace

Result<WatchLine> parse_watch_line(std::string_view line) {
  WatchLine w;
  // "skipped=N" (memcached's note that this watcher lost N lines), alone on its line.
  if (line.starts_with("skipped=")) {
    if (!parse_number(line.substr(8), w.skipped)) return Error{Errc::parse_error, "skipped= without a count"};
    w.kind = WatchLine::Kind::skipped;
    return w;
  }
  bool has_ts = false, has_gid = false, has_type = false, has_key = false, has_status = false, has_cfd = false,
       has_size = false, has_cmd = false;
  std::string_view type;
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view field = line.substr(pos, end - pos);
    pos = end + 1;
    if (field.empty()) continue;
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = field.substr(0, eq), value = field.substr(eq + 1);
    bool ok = true;
    if (name == "ts") {
      ok = has_ts = parse_ts(value, w.unix_us);
    } else if (name == "gid") {
      ok = has_gid = parse_number(value, w.gid);
    } else if (name == "type") {
      type = value;
      has_type = true;
    } else if (name == "key") {
      w.key = value;
      has_key = !value.empty();
    } else if (name == "status") {
      w.status = value;
      has_status = true;
    } else if (name == "cmd") {
      w.cmd = value;
      has_cmd = true;
    } else if (name == "ttl") {
      ok = parse_number(value, w.ttl_s);
    } else if (name == "cfd") {
      ok = has_cfd = parse_number(value, w.cfd);
    } else if (name == "size") {
      ok = has_size = parse_number(value, w.size);
    }
    if (!ok) return Error{Errc::parse_error, "bad " + std::string(name) + "=" + std::string(value)};
  }
  if (!has_ts || !has_gid || !has_type) return Error{Errc::parse_error, "no ts=, gid= or type="};
  if (type == "item_get") {
    w.kind = WatchLine::Kind::item_get;
  } else if (type == "item_store") {
    w.kind = WatchLine::Kind::item_store;
    if (!has_cmd) return Error{Errc::parse_error, "item_store without cmd="};
  } else {
    return w;  // Kind::other
  }
  if (!has_key || !has_status || !has_cfd || !has_size)
    return Error{Errc::parse_error, "no key=, status=, cfd= or size="};
  return w;
}

uint16_t WatchTranslator::client_of(int cfd) {
  auto [it, added] =
      client_ids_.try_emplace(cfd, static_cast<uint16_t>(std::min<size_t>(client_ids_.size(), UINT16_MAX)));
  if (added) counts_.clients = client_ids_.size();
  return it->second;
}

void WatchTranslator::feed(std::string_view line) {
  ++counts_.lines;
  auto parsed = parse_watch_line(line);
  if (!parsed) {
    ++counts_.malformed;
    if (counts_.malformed_examples.size() < kMalformedExamples)
      counts_.malformed_examples.push_back(std::string(line.substr(0, 200)) + " (" + parsed.error().message + ")");
    return;
  }
  const WatchLine& w = *parsed;
  if (w.kind == WatchLine::Kind::skipped) {
    counts_.skipped += w.skipped;
    return;
  }
  if (counts_.gids_seen == 0 || w.gid < counts_.gid_first) counts_.gid_first = w.gid;
  if (counts_.gids_seen == 0 || w.gid > counts_.gid_last) counts_.gid_last = w.gid;
  ++counts_.gids_seen;
  if (w.kind == WatchLine::Kind::other) {
    ++counts_.other_lines;
    return;
  }
  newest_unix_us_ = std::max(newest_unix_us_, w.unix_us);

  Pending p;
  p.unix_us = w.unix_us;
  p.gid = w.gid;
  p.key = corpus::url_decode(w.key);
  p.event.key = hasher_(p.key);
  p.event.key_size = static_cast<uint16_t>(std::min<size_t>(p.key.size(), UINT16_MAX));
  p.event.value_size = w.size;
  p.event.client = client_of(w.cfd);

  // This connection's earlier lookup: the store's own when this is a store of the same key,
  // a client's read otherwise.
  auto pending = lookup_by_cfd_.find(w.cfd);
  if (w.kind == WatchLine::Kind::item_store) {
    if (pending != lookup_by_cfd_.end()) {
      if (pending->second.key == p.key) {
        ++counts_.own_lookups_dropped;
      } else {
        queue(std::move(pending->second));
      }
      lookup_by_cfd_.erase(pending);
    }
    const auto op = parse_op(w.cmd);
    p.event.op = static_cast<uint8_t>(op && is_write(*op) ? *op : Op::set);
    const auto outcome = parse_outcome(w.status);
    p.event.outcome = static_cast<uint8_t>(outcome ? *outcome : Outcome::unknown);
    p.event.ttl_s = w.ttl_s;
    queue(std::move(p));
  } else {
    p.event.op = static_cast<uint8_t>(Op::get);
    p.event.outcome = static_cast<uint8_t>(w.status == "found" ? Outcome::found : Outcome::not_found);
    if (w.status == "not_found") p.event.value_size = 0;
    if (pending != lookup_by_cfd_.end()) queue(std::move(pending->second));
    lookup_by_cfd_.insert_or_assign(w.cfd, std::move(p));
  }
  // A lookup no store followed within half the window was a client's read (looked for every
  // 10 ms of stream time: the walk is over every connection).
  if (newest_unix_us_ > kReorderWindowUs / 2 && newest_unix_us_ >= last_sweep_unix_us_ + 10'000) {
    last_sweep_unix_us_ = newest_unix_us_;
    const uint64_t cutoff = newest_unix_us_ - kReorderWindowUs / 2;
    for (auto it = lookup_by_cfd_.begin(); it != lookup_by_cfd_.end();) {
      if (it->second.unix_us < cutoff) {
        queue(std::move(it->second));
        it = lookup_by_cfd_.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (newest_unix_us_ > kReorderWindowUs) release_older_than(newest_unix_us_ - kReorderWindowUs);
}

void WatchTranslator::queue(Pending p) { reorder_.push(std::move(p)); }

void WatchTranslator::release_older_than(uint64_t unix_us) {
  while (!reorder_.empty() && reorder_.top().unix_us < unix_us) {
    emit(reorder_.top());
    reorder_.pop();
  }
}

void WatchTranslator::emit(const Pending& p) {
  uint64_t at = p.unix_us;
  if (start_unix_us_ == 0) start_unix_us_ = at;
  if (at < last_written_unix_us_) {
    ++counts_.late;
    at = last_written_unix_us_;
  }
  last_written_unix_us_ = at;
  TraceEvent e = p.event;
  e.time_us = at - start_unix_us_;
  ++counts_.events;
  sink_(e, p.key);
}

void WatchTranslator::finish() {
  for (auto& [cfd, p] : lookup_by_cfd_) queue(std::move(p));
  lookup_by_cfd_.clear();
  while (!reorder_.empty()) {
    emit(reorder_.top());
    reorder_.pop();
  }
}

}  // namespace hitcost::trace
