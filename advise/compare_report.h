#pragma once
// The reports of `hitcost-corpus compare` (advise/compare.h): a text table for the terminal,
// one JSON object, one CSV row per strategy, and a self-contained HTML page (inline CSS and
// SVG, no external resources). All of them say how the figures were measured and that
// read+render adds the template's render to structured rows only (html rows serve their bytes).
#include <cstdint>
#include <optional>
#include <string>

#include "advise/compare.h"
#include "corpus/corpus_file.h"
#include "report/verdict.h"

namespace hitcost::corpus {

// One row per strategy: strategy, ok/failed, stored MiB, vs today, read p50/p99/mean µs,
// read+render mean µs, verdict; then notes on the method and the failures listed per kind.
std::string compare_table(const CompareResult& r);
// `corpus` is the corpus's manifest (source, scheme, when sampled, how many values).
// One object {corpus, measurement, notes, rows[]}, 2-space indented. Non-UTF-8 bytes in keys
// and reasons are replaced (U+FFFD), never an exception.
std::string compare_json(const CompareResult& r, const Manifest& corpus);
// A header line, then one line per row (RFC 4180 quoting).
std::string compare_csv(const CompareResult& r);
// A whole HTML page: the table, a bar of read+render mean per row, the notes and failures.
std::string compare_html(const CompareResult& r, const Manifest& corpus);

// The verdict cell of the table: "baseline", "0.62x [0.58..0.66]", "the same within 5 %, 1.01x
// [0.98..1.03]", "undecided after 20 rounds, ...", with ", a lower bound: 3.66x the bytes, fetch
// not counted" where the row's stored bytes differ from as stored by more than 5 %.
std::string verdict_cell(const CompareRow& row, double min_effect);

}  // namespace hitcost::corpus
