#include "advise/recommend_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "advise/compare_report.h"
#include "advise/report_parts.h"

namespace hitcost::corpus {
namespace {

using json = nlohmann::ordered_json;
using report_parts::escaped;
using report_parts::failures_json;
using report_parts::fmt;
using report_parts::mib;
using report_parts::verdict_json;

// "0.71x [0.66..0.76]", "the same within 5 %: 1.01x [0.98..1.03]", "undecided (N rounds)", "-".
std::string confirmed_text(const Candidate& c, double min_effect) {
  if (!c.confirmed) return "-";
  const client::Verdict& v = *c.confirmed;
  if (!v.ratio || !v.low || !v.high) return fmt("undecided (%zu rounds)", v.pairs);
  const std::string est = fmt("%.2fx [%.2f..%.2f]", *v.ratio, *v.low, *v.high);
  switch (v.kind) {
    case client::Verdict::Kind::costs: return est;
    case client::Verdict::Kind::same: return fmt("the same within %.0f %%: ", min_effect * 100) + est;
    case client::Verdict::Kind::undecided: break;
  }
  return fmt("undecided after %zu rounds: ", v.pairs) + est;
}

// The rows worth a person's look: the front and every confirmed candidate, by memory.
std::vector<size_t> shown_rows(const RecommendResult& r) {
  std::vector<size_t> out;
  for (size_t i = 0; i < r.candidates.size(); ++i)
    if (r.candidates[i].on_front || r.candidates[i].confirmed) out.push_back(i);
  std::sort(out.begin(), out.end(),
            [&](size_t a, size_t b) { return r.candidates[a].memory_ratio < r.candidates[b].memory_ratio; });
  return out;
}

std::string mark_of(const RecommendResult& r, size_t i) {
  if (r.best.made && r.best.candidate == i) return "<- recommended";
  if (r.best_php.made && r.best_php.candidate == i) return "<- best PHP writes";
  return "";
}

std::vector<std::string> notes(const RecommendResult& r) {
  std::vector<std::string> n;
  n.push_back(
      fmt("search: %zu candidates (%zu compressed forms x thresholds, and each representation plain) "
          "over %" PRIu64 " values, %d interleaved rounds; a candidate's CPU per hit is derived from its "
          "values' measured steps (decode of the plain payload, unwrap of the plain or the compressed "
          "bytes as its threshold decides, render for structured values), as a ratio to as stored's "
          "(geometric mean over rounds)",
          r.candidates.size(), r.forms, r.values_good, r.search_rounds));
  if (!r.dictionaries.empty()) {
    std::string d = fmt("dictionaries: zstd, trained on the %" PRIu64
                        " values of every fifth (left out of every figure here, so that no candidate is measured "
                        "on what its dictionary learnt):",
                        uint64_t(r.training_records.size()));
    for (const TrainedDictionary& t : r.dictionaries)
      d += fmt(" %s %zu B (id %u, %zu samples, %.1f KiB);", t.scope.c_str(), t.bytes.size(), t.id, t.samples,
               double(t.sample_bytes) / 1024.0);
    d += " kept on each web server, not in memcached: not in the memory column";
    n.push_back(d);
  }
  for (const std::string& why : r.dictionary_notes) n.push_back(why);
  for (const std::string& p : r.pruning) n.push_back("pruned " + p);
  n.push_back(
      "confirm: the best of the front by score, and the best PHP writes, measured afresh against as "
      "stored by hitcost-corpus compare's engine (encoded anew, round-tripped, interleaved rounds, "
      "verdicts paired by round): the ratios in the answer are these, never the search's");
  n.push_back(
      fmt("score = CPU ratio + %.2f x memory ratio (--memory-weight); today's is %.2f; CPU is weighted "
          "by hits (%s), memory counts every value alike",
          r.memory_weight, 1 + r.memory_weight, r.confirmation.how.weighting.c_str()));
  n.push_back(
      "memory: the slab chunks memcached spends on the items (key, flags, item header; chained above "
      "slab_chunk_max), by " +
      r.slabs.source);
  n.push_back(
      "CPU leaves out the fetch of the bytes and the write of the page: a candidate storing fewer bytes "
      "also fetches fewer; the whole hit: hitcost-server --corpus and a sweep of GET /value/{n}");
  return n;
}

json recommendation_json(const RecommendResult& r, const Recommendation& rec) {
  const Candidate* c = rec.made ? &r.candidates[rec.candidate] : nullptr;
  return {{"made", rec.made},
          {"candidate", c ? json(c->name) : json(nullptr)},
          {"strategy", c ? json(c->strategy.name()) : json(nullptr)},
          {"threshold_bytes", c && c->compressing ? json(c->strategy.rule.threshold_bytes) : json(nullptr)},
          {"dictionary_scope", c && c->strategy.dictionary ? json(c->strategy.dictionary_scope()) : json(nullptr)},
          {"dictionary_file",
           c && c->strategy.dictionary ? json(dictionary_file_name(c->strategy.dictionary_scope())) : json(nullptr)},
          {"php", c ? json(to_string(c->php)) : json(nullptr)},
          {"confirmed", c ? verdict_json(c->confirmed) : json(nullptr)},
          {"sentence", rec.sentence},
          {"php_settings", rec.php_config},
          {"hitcost_options", rec.hitcost_config}};
}

void answer_lines(const Recommendation& rec, std::string& out) {
  out += rec.sentence + "\n";
  if (!rec.made) return;
  if (!rec.php_config.empty()) {
    out += "  PHP:";
    for (const std::string& s : rec.php_config) out += "  " + s + ";";
    out += "\n";
  }
  out += "  hitcost-server:";
  for (const std::string& s : rec.hitcost_config) out += " " + s;
  out += "\n";
}

}  // namespace

std::string recommend_table(const RecommendResult& r) {
  std::string out;
  answer_lines(r.best, out);
  if (!r.best_php.sentence.empty()) answer_lines(r.best_php, out);
  out += fmt("\n%-44s %9s %10s %9s %10s %9s %9s  %-34s %s\n", "candidate (front and confirmed)", "values", "stored MiB",
             "cache MiB", "memory", "CPU", "score", "confirmed CPU vs today", "PHP");
  out += fmt("%-44s %9s %10.3f %9.3f %9.3fx %8.3fx %9.3f  %-34s %s\n", "as stored (today)",
             std::to_string(r.values_good).c_str(), mib(r.as_stored_bytes), mib(r.as_stored_chunk_bytes), 1.0, 1.0,
             1 + r.memory_weight, "baseline", "");
  const double min_effect = r.confirmation.how.min_effect;
  for (size_t i : shown_rows(r)) {
    const Candidate& c = r.candidates[i];
    out += fmt("%-44s %9s %10.3f %9.3f %9.3fx %8.3fx %9.3f  %-34s %s%s%s\n", c.name.c_str(),
               fmt("%" PRIu64 "/%" PRIu64, c.compressed_values, c.values_ok).c_str(), mib(c.stored_bytes),
               mib(c.chunk_bytes), c.memory_ratio, c.cpu_ratio, c.score, confirmed_text(c, min_effect).c_str(),
               to_string(c.php), c.on_front ? "" : " (off the front)",
               mark_of(r, i).empty() ? "" : ("  " + mark_of(r, i)).c_str());
  }
  out +=
      "  values: compressed/ok; memory and CPU: ratios to today's (CPU from the search; the confirmed column "
      "and the answer from the confirmation)\n";
  for (const std::string& n : notes(r)) out += "  - " + n + "\n";
  for (const FailureKind& k : r.corpus_failures)
    out += fmt("as stored: %s: %" PRIu64 " value(s) left out\n", k.kind.c_str(), k.count);
  for (const FailureKind& k : r.codec_failures) {
    out += fmt("!! CODEC BUG %s: %" PRIu64 "\n", k.kind.c_str(), k.count);
    for (const FailureExample& e : k.listed) out += "    " + e.key + ": " + e.reason + "\n";
  }
  out += fmt("recommend: %.1f s\n", r.wall_seconds);
  return out;
}

std::string recommend_json(const RecommendResult& r, const Manifest& corpus) {
  json j;
  j["corpus"] = {{"source", corpus.source},      {"scheme", corpus.scheme},
                 {"redacted", corpus.redacted},  {"records", r.records},
                 {"values_good", r.values_good}, {"training_values", r.training_records.size()}};
  json dictionaries = json::array();
  for (const TrainedDictionary& d : r.dictionaries)
    dictionaries.push_back({{"scope", d.scope},
                            {"id", d.id},
                            {"bytes", d.bytes.size()},
                            {"samples", d.samples},
                            {"sample_bytes", d.sample_bytes}});
  j["dictionaries"] = {{"trained", std::move(dictionaries)}, {"notes", r.dictionary_notes}};
  j["search"] = {{"rounds", r.search_rounds},
                 {"forms", r.forms},
                 {"forms_dropped", r.forms_dropped},
                 {"candidates", r.candidates.size()},
                 {"pruning", r.pruning},
                 {"memory_weight", r.memory_weight},
                 {"as_stored_cpu_mean_ns", r.as_stored_cpu_mean_ns},
                 {"wall_seconds", r.wall_seconds}};
  j["memory"] = {{"model", r.slabs.source},
                 {"chunk_size", r.slabs.chunk_size},
                 {"growth_factor", r.slabs.growth_factor},
                 {"slab_chunk_max", r.slabs.slab_chunk_max},
                 {"cas", r.slabs.use_cas},
                 {"as_stored_bytes", r.as_stored_bytes},
                 {"as_stored_chunk_bytes", r.as_stored_chunk_bytes},
                 {"as_stored_page_bytes", r.as_stored_page_bytes}};
  j["today"] = {{"strategy", r.today.name()},
                {"scheme", to_string(r.today.scheme)},
                {"threshold_bytes", r.today_compresses ? json(r.today.rule.threshold_bytes) : json(nullptr)},
                {"note",
                 "the form most values are stored in, the compressor most compressed ones have, the scheme's default "
                 "rule"}};
  j["recommendation"] = recommendation_json(r, r.best);
  j["recommendation_php"] = r.best_php.sentence.empty() ? json(nullptr) : recommendation_json(r, r.best_php);
  json cands = json::array();
  for (const Candidate& c : r.candidates) {
    cands.push_back({{"name", c.name},
                     {"strategy", c.strategy.name()},
                     {"scheme", to_string(c.strategy.scheme)},
                     {"threshold_bytes", c.compressing ? json(c.strategy.rule.threshold_bytes) : json(nullptr)},
                     {"values_ok", c.values_ok},
                     {"values_failed", c.values_failed},
                     {"compressed_values", c.compressed_values},
                     {"stored_bytes", c.stored_bytes},
                     {"chunk_bytes", c.chunk_bytes},
                     {"page_bytes", c.page_bytes},
                     {"memory_ratio", c.memory_ratio},
                     {"cpu_mean_ns", c.cpu_mean_ns},
                     {"cpu_ratio", c.cpu_ratio},
                     {"round_cpu_ns", c.round_cpu_ns},
                     {"dropped_after_round", c.dropped_after_round ? json(c.dropped_after_round) : json(nullptr)},
                     {"on_front", c.on_front},
                     {"php", to_string(c.php)},
                     {"php_note", c.php_note},
                     {"dictionary_bytes", c.dictionary_bytes ? json(c.dictionary_bytes) : json(nullptr)},
                     {"confirmed", verdict_json(c.confirmed)},
                     {"score", c.score}});
  }
  j["candidates"] = std::move(cands);
  j["confirmation"] = json::parse(compare_json(r.confirmation, corpus));
  j["corpus_failures"] = failures_json(r.corpus_failures);
  j["codec_failures"] = failures_json(r.codec_failures);
  j["notes"] = notes(r);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string front_chart_svg(const RecommendResult& r) {
  // x: memory ratio, y: CPU ratio; both from 0 to a little past the largest point shown.
  constexpr double kW = 640, kH = 400, kLeft = 56, kBottom = 40, kTop = 16, kRight = 16;
  double max_x = 1.2, max_y = 1.2;
  for (const Candidate& c : r.candidates) {
    if (c.cpu_ratio <= 0 || c.values_failed) continue;
    max_x = std::max(max_x, c.memory_ratio * 1.05);
    max_y = std::max(max_y, c.cpu_ratio * 1.05);
  }
  max_x = std::min(max_x, 6.0);  // html can store several times today's bytes: clip, and say so
  max_y = std::min(max_y, 6.0);
  auto px = [&](double x) { return kLeft + (kW - kLeft - kRight) * std::min(x, max_x) / max_x; };
  auto py = [&](double y) { return kH - kBottom - (kH - kBottom - kTop) * std::min(y, max_y) / max_y; };
  std::string s =
      fmt("<svg width=\"%.0f\" height=\"%.0f\" role=\"img\" "
          "aria-label=\"CPU per hit against cache memory, ratios to today\">\n",
          kW, kH);
  s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>", kLeft, kH - kBottom, kW - kRight,
           kH - kBottom);
  s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", kLeft, kTop, kLeft,
           kH - kBottom);
  for (double t = 0; t <= max_x + 1e-9; t += 0.5)
    s += fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.1f</text>", px(t),
             kH - kBottom + 14, t);
  for (double t = 0; t <= max_y + 1e-9; t += 0.5)
    s += fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.1f</text>", kLeft - 4, py(t) + 4, t);
  s +=
      fmt("\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">cache memory vs today "
          "(memcached chunks)</text>",
          (kLeft + kW - kRight) / 2, kH - 6);
  s +=
      fmt("<text x=\"14\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">"
          "CPU per hit vs today</text>\n",
          (kTop + kH - kBottom) / 2, (kTop + kH - kBottom) / 2);
  std::vector<size_t> front;
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const Candidate& c = r.candidates[i];
    if (c.cpu_ratio <= 0 || c.values_failed) continue;
    if (c.on_front) front.push_back(i);
    s +=
        fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" class=\"%s\"><title>%s: memory %.3fx, CPU "
            "%.3fx</title></circle>\n",
            px(c.memory_ratio), py(c.cpu_ratio), c.on_front ? "4" : "2.5", c.on_front ? "#2a7" : "#bbb",
            c.on_front ? "front" : "candidate", escaped(c.name).c_str(), c.memory_ratio, c.cpu_ratio);
  }
  std::sort(front.begin(), front.end(),
            [&](size_t a, size_t b) { return r.candidates[a].memory_ratio < r.candidates[b].memory_ratio; });
  std::string path;
  for (size_t i : front)
    path +=
        fmt("%s%.1f,%.1f", path.empty() ? "" : " ", px(r.candidates[i].memory_ratio), py(r.candidates[i].cpu_ratio));
  if (front.size() > 1) s += "<polyline fill=\"none\" stroke=\"#2a7\" stroke-width=\"1.5\" points=\"" + path + "\"/>\n";
  // Today's encoding: (1, 1) by definition.
  s +=
      fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"#c33\" class=\"today\"><title>as stored "
          "(today)</title></rect>",
          px(1) - 4.5, py(1) - 4.5);
  s += fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c33\">today</text>\n", px(1) + 7, py(1) - 6);
  for (const Recommendation* rec : {&r.best, &r.best_php}) {
    if (!rec->made) continue;
    const Candidate& c = r.candidates[rec->candidate];
    s +=
        fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#06c\" stroke-width=\"2\" "
            "class=\"recommended\"><title>%s</title></circle>",
            px(c.memory_ratio), py(c.cpu_ratio), escaped(rec->sentence).c_str());
    // The two answers often sit close: one label above its ring, the other below.
    const bool best = rec == &r.best;
    s += fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#06c\">%s</text>\n", px(c.memory_ratio) + 10,
             py(c.cpu_ratio) + (best ? -10 : 22), best ? "recommended" : "best PHP writes");
  }
  return s + "</svg>\n";
}

std::string recommend_html(const RecommendResult& r, const Manifest& corpus) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hitcost-corpus recommend</title>\n<style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
      ".answer{font-size:1.15em}.bad{color:#b00;font-weight:bold}</style></head><body>\n"
      "<h1>hitcost-corpus recommend</h1>\n";
  out += "<p>Corpus: " + escaped(corpus.source) +
         fmt(", %" PRIu64 " records, %" PRIu64 " decoded, flags read as ", r.records, r.values_good) +
         escaped(r.scheme) + ".</p>\n";
  for (const Recommendation* rec : {&r.best, &r.best_php}) {
    if (rec->sentence.empty()) continue;
    out += "<p class=\"answer\">" + escaped(rec->sentence) + "</p>\n";
    if (!rec->made) continue;
    out += "<ul>";
    for (const std::string& s : rec->php_config) out += "<li>PHP: <code>" + escaped(s) + "</code></li>";
    std::string opts;
    for (const std::string& s : rec->hitcost_config) opts += (opts.empty() ? "" : " ") + s;
    out += "<li>hitcost-server: <code>" + escaped(opts) + "</code></li></ul>\n";
  }
  out += front_chart_svg(r);
  out +=
      "<p>Green: the front (no other candidate has both less CPU and less memory), joined; grey: the other "
      "candidates searched; red: today's; blue rings: the answer. Points past 6&times; sit on the edge.</p>\n";
  out +=
      "<table>\n<tr><th>candidate</th><th>compressed/ok</th><th>stored MiB</th><th>cache MiB</th><th>memory</th>"
      "<th>CPU (search)</th><th>score</th><th>confirmed CPU vs today</th><th>PHP</th></tr>\n";
  out += fmt("<tr><td>as stored (today)</td><td>%" PRIu64
             "</td><td>%.3f</td><td>%.3f</td><td>1&times;</td>"
             "<td>1&times;</td><td>%.3f</td><td>baseline</td><td></td></tr>\n",
             r.values_good, mib(r.as_stored_bytes), mib(r.as_stored_chunk_bytes), 1 + r.memory_weight);
  for (size_t i : shown_rows(r)) {
    const Candidate& c = r.candidates[i];
    out += "<tr><td>" + escaped(c.name) + "</td>" +
           fmt("<td>%" PRIu64 "/%" PRIu64
               "</td><td>%.3f</td><td>%.3f</td><td>%.3f&times;</td><td>%.3f&times;</td>"
               "<td>%.3f</td>",
               c.compressed_values, c.values_ok, mib(c.stored_bytes), mib(c.chunk_bytes), c.memory_ratio, c.cpu_ratio,
               c.score) +
           "<td>" + escaped(confirmed_text(c, r.confirmation.how.min_effect)) + "</td><td>" +
           escaped(std::string(to_string(c.php)) +
                   (mark_of(r, i).empty() ? std::string() : std::string(" ").append(mark_of(r, i)))) +
           "</td></tr>\n";
  }
  out += "</table>\n<ul>\n";
  for (const std::string& n : notes(r)) out += "<li>" + escaped(n) + "</li>\n";
  out += "</ul>\n";
  for (const FailureKind& k : r.codec_failures)
    out += "<p class=\"bad\">codec bug: " + escaped(k.kind) + fmt(" (%" PRIu64 ")</p>\n", k.count);
  return out + "</body></html>\n";
}

}  // namespace hitcost::corpus
