#include "advise/compare_report.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "advise/report_parts.h"

namespace hitcost::corpus {
namespace {

using report_parts::escaped;
using report_parts::failures_json;
using report_parts::fmt;
using report_parts::hex_flags;
using report_parts::mib;
using report_parts::us;
using report_parts::verdict_json;

// The method, in the words every report uses.
std::vector<std::string> method_notes(const CompareResult& r) {
  const CompareMeasurement& h = r.how;
  std::vector<std::string> n;
  n.push_back(
      fmt("CPU: %s around loops of at least %.1f us per step, divided by the repetitions; %d interleaved "
          "rounds (row order rotating), a value's figure is its median over rounds",
          h.clock.c_str(), double(h.min_time_ns) / 1000.0, h.rounds));
  n.push_back("read = decompress + decode per hit (html rows and plain strings: no decode, served as stored)");
  n.push_back(
      "decode = hitcost's C++ decoders into one generic tree (an allocation per string and array, as PHP's "
      "zvals): the ratios between formats are what carries over to PHP, the absolute us are hitcost's own; a "
      "whole hit (fetch, decode, render, write) on these values: hitcost-server --corpus, GET /value/{n}");
  n.push_back(
      "read+render adds render_tree_html of the tree for values stored structured: the template a struct hit "
      "still runs; html rows serve their bytes, so read+render compares like with like");
  n.push_back("weighting over values: " + h.weighting + "; p50/p99/mean are weighted over the corpus values");
  n.push_back(
      "bytes: the values' stored bytes (no key, no item overhead); vs today = bytes / as-stored bytes of "
      "the same values");
  n.push_back(
      "cache: what memcached spends on the items, the slab chunks they land in (item header, key, "
      "flags, value; chained above slab_chunk_max), by " +
      h.slab_settings + "; vs today = chunks / as-stored chunks of the same values");
  n.push_back(
      fmt("verdict: read+render per hit vs \"as stored\" on the row's values, paired by round (the rounds' "
          "weighted means), the sweep's rule: \"costs\" ratio [interval], \"the same within %.0f %%\" or "
          "undecided; every interval of the %zu rows holds together at %.0f %% over %s",
          h.min_effect * 100, r.rows.empty() ? size_t{0} : r.rows.size() - 1, (1 - h.alpha) * 100,
          h.stopped_because.empty() ? "one look after the last round"
                                    : ("every look (rounds until decided: " + h.stopped_because + ")").c_str()));
  n.push_back(
      "a row's figure leaves out the fetch of its stored bytes and the write of the page: a row storing more "
      "bytes than as stored (html) is a lower bound, one storing fewer an upper bound; the whole hit on these "
      "values: hitcost-server --corpus and a sweep of GET /value/{n}");
  n.push_back(
      h.pinned_cpu >= 0
          ? fmt("pinned to CPU %d (sched_getcpu: %d at start, %d at end)", h.pinned_cpu, h.cpu_at_start, h.cpu_at_end)
          : fmt("not pinned (sched_getcpu: %d at start, %d at end)", h.cpu_at_start, h.cpu_at_end));
  return n;
}

std::string ok_failed(const CompareRow& row) { return fmt("%" PRIu64 "/%" PRIu64, row.values_ok, row.values_failed); }

nlohmann::ordered_json costs_json(const CostFigures& c) { return {{"p50", c.p50}, {"p99", c.p99}, {"mean", c.mean}}; }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == s.npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

}  // namespace

std::string verdict_cell(const CompareRow& row, double min_effect) {
  if (row.baseline) return "baseline";
  const std::optional<client::Verdict>& v = row.verdict;
  if (!v) return "-";
  if (!v->low || !v->high) return fmt("undecided (%zu paired rounds)", v->pairs);
  const std::string estimate = fmt("%.3gx [%.3g..%.3g]", v->ratio.value_or(0), *v->low, *v->high);
  // Its bytes' fetch is not in the figure: say which way that leans (compare.h).
  const std::string bound =
      row.bound.empty() ? ""
                        : fmt(", a %s: %.2fx the bytes, fetch not counted", row.bound.c_str(), row.bytes_vs_baseline);
  switch (v->kind) {
    case client::Verdict::Kind::costs: return estimate + bound;
    case client::Verdict::Kind::same: return fmt("the same within %.0f %%, ", min_effect * 100) + estimate + bound;
    case client::Verdict::Kind::undecided: break;
  }
  return fmt("undecided after %zu rounds, ", v->pairs) + estimate + bound;
}

std::string compare_table(const CompareResult& r) {
  std::string out =
      fmt("%-24s %13s %10s %9s %10s %9s %9s %9s %9s %12s  %s\n", "strategy", "ok/failed", "stored MiB", "vs today",
          "cache MiB", "vs today", "read p50", "read p99", "read mean", "+render mean", "verdict (read+render)");
  out += fmt("%-24s %13s %10s %9s %10s %9s %9s %9s %9s %12s\n", "", "", "", "", "", "", "us", "us", "us", "us");
  for (const CompareRow& row : r.rows) {
    out += fmt("%-24s %13s %10.3f %8.3fx %10.3f %8.3fx %9.3f %9.3f %9.3f %12.3f  %s\n", row.label.c_str(),
               ok_failed(row).c_str(), mib(row.stored_bytes), row.bytes_vs_baseline, mib(row.cache_bytes),
               row.cache_vs_baseline, us(row.read_ns.p50), us(row.read_ns.p99), us(row.read_ns.mean),
               us(row.read_render_ns.mean), verdict_cell(row, r.how.min_effect).c_str());
  }
  out += fmt("\n%" PRIu64 " records, %" PRIu64 " decoded (%" PRIu64 " structured, %" PRIu64
             " plain strings), "
             "flags read as %s\n",
             r.records, r.values_good, r.good_structured, r.good_strings, r.scheme.c_str());
  for (const std::string& n : method_notes(r)) out += "  - " + n + "\n";
  for (const CompareRow& row : r.rows) {
    for (const FailureKind& k : row.failures) {
      const bool loud = k.kind == "round_trip_mismatch";
      out += fmt("%s%s: %s: %" PRIu64 " value(s)%s\n", loud ? "!! CODEC BUG " : "", row.label.c_str(), k.kind.c_str(),
                 k.count, k.listed.size() < k.count ? fmt(" (first %zu listed)", k.listed.size()).c_str() : "");
      for (const FailureExample& e : k.listed)
        out += "    " + e.key + " flags " + hex_flags(e.flags) + ": " + e.reason + "\n";
    }
  }
  return out;
}

std::string compare_json(const CompareResult& r, const Manifest& corpus) {
  const CompareMeasurement& h = r.how;
  nlohmann::ordered_json j;
  j["corpus"] = {{"source", corpus.source},
                 {"scheme", corpus.scheme},
                 {"sampled_at_unix_s", corpus.sampled_at_unix_s},
                 {"sampling", corpus.sampling},
                 {"manifest_values", corpus.values},
                 {"manifest_value_bytes", corpus.value_bytes},
                 {"redacted", corpus.redacted},
                 {"records", r.records},
                 {"values_good", r.values_good},
                 {"good_structured", r.good_structured},
                 {"good_strings", r.good_strings},
                 {"read_as_scheme", r.scheme}};
  j["measurement"] = {
      {"clock", h.clock},
      {"rounds", h.rounds},
      {"min_time_ns", h.min_time_ns},
      {"interleaving", "every round measures every row over the whole corpus, order rotating"},
      {"weighting", h.weighting},
      {"now_unix_s", h.now_unix_s},
      {"pinned_cpu", h.pinned_cpu >= 0 ? nlohmann::ordered_json(h.pinned_cpu) : nlohmann::ordered_json(nullptr)},
      {"cpu_at_start", h.cpu_at_start},
      {"cpu_at_end", h.cpu_at_end},
      {"alpha", h.alpha},
      {"min_effect", h.min_effect},
      {"rounds_stopped_because",
       h.stopped_because.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(h.stopped_because)},
      {"wall_seconds", h.wall_seconds},
      {"slab_settings", h.slab_settings}};
  j["notes"] = method_notes(r);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const CompareRow& row : r.rows) {
    rows.push_back(
        {{"label", row.label},
         {"strategy", row.strategy},
         {"scheme", row.scheme},
         {"baseline", row.baseline},
         {"values_ok", row.values_ok},
         {"values_failed", row.values_failed},
         {"failures", failures_json(row.failures)},
         {"stored_bytes", row.stored_bytes},
         {"baseline_bytes", row.baseline_bytes},
         {"bytes_vs_as_stored", row.bytes_vs_baseline},
         {"compressed_values", row.compressed_values},
         {"cache_bytes", row.cache_bytes},
         {"cache_vs_as_stored", row.cache_vs_baseline},
         {"read_ns", costs_json(row.read_ns)},
         {"read_render_ns", costs_json(row.read_render_ns)},
         {"decompress_mean_ns", row.decompress_mean_ns},
         {"decode_mean_ns", row.decode_mean_ns},
         {"render_mean_ns", row.render_mean_ns},
         {"encode_mean_ns", row.encode_mean_ns ? nlohmann::ordered_json(*row.encode_mean_ns) : nullptr},
         {"round_read_ns", row.round_read_ns},
         {"round_read_render_ns", row.round_read_render_ns},
         {"verdict", verdict_json(row.verdict)},
         {"verdict_bound", row.bound.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.bound)},
         {"verdict_read", verdict_json(row.verdict_read)}});
  }
  j["rows"] = std::move(rows);
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string compare_csv(const CompareResult& r) {
  std::string out =
      "label,strategy,scheme,values_ok,values_failed,stored_bytes,bytes_vs_as_stored,read_p50_ns,read_p99_ns,"
      "read_mean_ns,read_render_p50_ns,read_render_p99_ns,read_render_mean_ns,decompress_mean_ns,decode_mean_ns,"
      "render_mean_ns,encode_mean_ns,verdict,verdict_ratio,verdict_low,verdict_high,cache_bytes,cache_vs_as_stored\n";
  auto opt = [](const std::optional<double>& d) { return d ? fmt("%.6g", *d) : std::string(); };
  for (const CompareRow& row : r.rows) {
    const std::optional<client::Verdict>& v = row.verdict;
    out += csv_field(row.label) + "," + csv_field(row.strategy) + "," + row.scheme + "," +
           fmt("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6g,", row.values_ok, row.values_failed, row.stored_bytes,
               row.bytes_vs_baseline) +
           fmt("%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,", row.read_ns.p50, row.read_ns.p99, row.read_ns.mean,
               row.read_render_ns.p50, row.read_render_ns.p99, row.read_render_ns.mean, row.decompress_mean_ns,
               row.decode_mean_ns, row.render_mean_ns) +
           (row.encode_mean_ns ? fmt("%.1f", *row.encode_mean_ns) : std::string()) + "," +
           (row.baseline ? std::string("baseline")
            : v          ? client::to_string(v->kind)
                         : "") +
           "," + (v ? opt(v->ratio) + "," + opt(v->low) + "," + opt(v->high) : std::string(",,")) +
           fmt(",%" PRIu64 ",%.6g\n", row.cache_bytes, row.cache_vs_baseline);
  }
  return out;
}

std::string compare_html(const CompareResult& r, const Manifest& corpus) {
  double widest = 0;
  for (const CompareRow& row : r.rows) widest = std::max(widest, row.read_render_ns.mean);
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hitcost-corpus compare</title>\n<style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
      ".bad{color:#b00;font-weight:bold}</style></head><body>\n<h1>hitcost-corpus compare</h1>\n";
  out += "<p>Corpus: " + escaped(corpus.source) + ", " + fmt("%" PRIu64, r.records) + " records, " +
         fmt("%" PRIu64, r.values_good) + " decoded, flags read as " + escaped(r.scheme) + ", sampled at " +
         fmt("%" PRIu64, corpus.sampled_at_unix_s) + " (unix s).</p>\n";
  out +=
      "<table>\n<tr><th>strategy</th><th>ok/failed</th><th>stored MiB</th><th>vs today</th><th>cache MiB</th>"
      "<th>vs today</th><th>read p50 &micro;s"
      "</th><th>read p99 &micro;s</th><th>read mean &micro;s</th><th>read+render mean &micro;s</th><th></th>"
      "<th>verdict (read+render)</th></tr>\n";
  for (const CompareRow& row : r.rows) {
    const double bar = widest > 0 ? 200.0 * row.read_render_ns.mean / widest : 0;
    out += "<tr><td>" + escaped(row.label) + "</td><td>" + ok_failed(row) + "</td>" +
           fmt("<td>%.3f</td><td>%.3f&times;</td><td>%.3f</td><td>%.3f&times;</td><td>%.3f</td><td>%.3f</td>"
               "<td>%.3f</td><td>%.3f</td>",
               mib(row.stored_bytes), row.bytes_vs_baseline, mib(row.cache_bytes), row.cache_vs_baseline,
               us(row.read_ns.p50), us(row.read_ns.p99), us(row.read_ns.mean), us(row.read_render_ns.mean)) +
           fmt("<td><svg width=\"204\" height=\"14\" role=\"img\" aria-label=\"read+render mean\">"
               "<rect x=\"2\" y=\"2\" width=\"%.1f\" height=\"10\" fill=\"%s\"/></svg></td>",
               bar, row.baseline ? "#888" : "#4a7") +
           "<td>" + escaped(verdict_cell(row, r.how.min_effect)) + "</td></tr>\n";
  }
  out += "</table>\n<ul>\n";
  for (const std::string& n : method_notes(r)) out += "<li>" + escaped(n) + "</li>\n";
  out += "</ul>\n";
  for (const CompareRow& row : r.rows) {
    for (const FailureKind& k : row.failures) {
      const bool loud = k.kind == "round_trip_mismatch";
      out += std::string("<h3") + (loud ? " class=\"bad\">codec bug: " : ">") + escaped(row.label) + ": " +
             escaped(k.kind) + fmt(" (%" PRIu64 ")</h3>\n<ul>\n", k.count);
      for (const FailureExample& e : k.listed)
        out += "<li><code>" + escaped(e.key) + "</code> flags " + hex_flags(e.flags) + ": " + escaped(e.reason) +
               "</li>\n";
      out += "</ul>\n";
    }
  }
  return out + "</body></html>\n";
}

}  // namespace hitcost::corpus
