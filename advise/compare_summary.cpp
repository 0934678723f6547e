// The compare engine's arithmetic: per-value medians over rounds, weighted corpus figures,
// per-round weighted means and the verdicts against "as stored" on the same values.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "advise/compare_cells.h"

namespace hitcost::corpus::detail {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

double weighted_mean(const std::vector<std::pair<double, double>>& vw) {
  double sum = 0, total = 0;
  for (const auto& [v, w] : vw) {
    sum += v * w;
    total += w;
  }
  return total > 0 ? sum / total : 0;
}

CostFigures figures(const std::vector<std::pair<double, double>>& vw) {
  return {weighted_quantile(vw, 0.5), weighted_quantile(vw, 0.99), weighted_mean(vw)};
}

// Per round r of one cell: its read (decompress + decode), and read + render when it pays one.
double read_at(const Cell& c, size_t r) { return c.decompress[r] + c.decode[r]; }
double read_render_at(const Cell& c, const std::vector<double>& render, size_t r) {
  return read_at(c, r) + (c.pays_render ? render[r] : 0);
}

// The rounds' weighted means of a row over the values `use` marks (its ok values).
std::vector<double> round_means(const RowState& rs, const std::vector<Good>& good,
                                const std::vector<std::vector<double>>& render, const std::vector<bool>& use,
                                bool with_render) {
  size_t rounds = SIZE_MAX;
  for (size_t gi = 0; gi < good.size(); ++gi)
    if (use[gi]) rounds = std::min(rounds, rs.cells[gi].decompress.size());
  if (rounds == SIZE_MAX) return {};
  std::vector<double> out;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<std::pair<double, double>> vw;
    for (size_t gi = 0; gi < good.size(); ++gi) {
      if (!use[gi]) continue;
      const Cell& c = rs.cells[gi];
      vw.emplace_back(with_render ? read_render_at(c, render[gi], r) : read_at(c, r), good[gi].weight);
    }
    out.push_back(weighted_mean(vw));
  }
  return out;
}

void summarize_one(RowState& rs, const RowState& base, const std::vector<Good>& good,
                   const std::vector<std::vector<double>>& render, const SlabSettings& slab) {
  CompareRow& row = rs.row;
  // Until decided, the rows are summarized at every look: start the counts afresh each time.
  row.values_ok = row.values_failed = row.baseline_bytes = row.compressed_values = 0;
  std::vector<std::pair<double, double>> read, read_render, decompress, decode, rend, encode;
  uint64_t ok_bytes = 0;
  SlabTally cache(slab), base_cache(slab);  // this row's items and as stored's, the same values
  for (size_t gi = 0; gi < good.size(); ++gi) {
    const Cell& c = rs.cells[gi];
    if (!c.ok) continue;
    const double w = good[gi].weight;
    ++row.values_ok;
    ok_bytes += c.stored_bytes;
    row.baseline_bytes += base.cells[gi].stored_bytes;
    cache.add(good[gi].key_bytes, c.stored_bytes, c.flags);
    base_cache.add(good[gi].key_bytes, base.cells[gi].stored_bytes, base.cells[gi].flags);
    row.compressed_values += c.compressed;
    std::vector<double> reads, read_renders;
    for (size_t r = 0; r < c.decompress.size(); ++r) {
      reads.push_back(read_at(c, r));
      read_renders.push_back(read_render_at(c, render[gi], r));
    }
    read.emplace_back(median_of(reads), w);
    read_render.emplace_back(median_of(read_renders), w);
    decompress.emplace_back(median_of(c.decompress), w);
    decode.emplace_back(median_of(c.decode), w);
    rend.emplace_back(c.pays_render ? median_of(render[gi]) : 0, w);
    if (!c.encode.empty()) encode.emplace_back(median_of(c.encode), w);
  }
  if (rs.strategy) row.stored_bytes = ok_bytes;            // as stored keeps every record's bytes
  if (rs.strategy) row.cache_bytes = cache.chunk_bytes();  // and every record's chunks
  row.bytes_vs_baseline = row.baseline_bytes ? double(ok_bytes) / double(row.baseline_bytes) : 0;
  row.cache_vs_baseline = base_cache.chunk_bytes() ? double(cache.chunk_bytes()) / double(base_cache.chunk_bytes()) : 0;
  for (const FailureKind& k : row.failures) row.values_failed += k.count;
  row.read_ns = figures(read);
  row.read_render_ns = figures(read_render);
  row.decompress_mean_ns = weighted_mean(decompress);
  row.decode_mean_ns = weighted_mean(decode);
  row.render_mean_ns = weighted_mean(rend);
  if (rs.strategy) row.encode_mean_ns = weighted_mean(encode);
}

}  // namespace

void summarize_rows(std::vector<RowState>& rows, const std::vector<Good>& good,
                    const std::vector<std::vector<double>>& render, const client::VerdictOptions& verdict,
                    const SlabSettings& slab) {
  if (rows.empty()) return;
  const RowState& base = rows[0];
  for (RowState& rs : rows) summarize_one(rs, base, good, render, slab);

  const size_t comparisons = rows.size() - 1;  // Bonferroni over every row against the baseline
  for (RowState& rs : rows) {
    std::vector<bool> use(good.size());
    for (size_t gi = 0; gi < good.size(); ++gi) use[gi] = rs.cells[gi].ok;
    rs.row.round_read_ns = round_means(rs, good, render, use, false);
    rs.row.round_read_render_ns = round_means(rs, good, render, use, true);
    if (!rs.strategy) continue;
    // The baseline over this row's own ok values, so both sides hold the same values.
    auto against_base = [&](bool with_render, const char* metric) {
      std::vector<client::Sample> samples = {
          {kAsStoredLabel, round_means(base, good, render, use, with_render)},
          {rs.row.label, with_render ? rs.row.round_read_render_ns : rs.row.round_read_ns}};
      auto v = client::compare_to_baseline(samples, kAsStoredLabel, metric, verdict, comparisons);
      return v.empty() ? std::optional<client::Verdict>() : std::optional<client::Verdict>(std::move(v[0]));
    };
    rs.row.verdict = against_base(true, "read+render CPU per hit");
    rs.row.verdict_read = against_base(false, "read CPU per hit");
    // The fetch the figure leaves out grows with the bytes stored (compare.h).
    rs.row.bound = rs.row.bytes_vs_baseline > 1.05       ? "lower bound"
                   : rs.row.bytes_vs_baseline < 1 / 1.05 ? "upper bound"
                                                         : "";
  }
}

}  // namespace hitcost::corpus::detail
