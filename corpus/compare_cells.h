#pragma once
// Internal to the compare engine (compare.cpp measures, compare_summary.cpp summarizes): the
// raw per-value figures of each row, before they become a CompareRow's weighted figures.
#include <cstdint>
#include <vector>

#include "codecs/strategy.h"
#include "corpus/compare.h"
#include "corpus/value.h"

namespace hitcost::corpus::detail {

// A corpus value that decoded.
struct Good {
  size_t input = 0;  // index into the inputs
  Value tree;
  bool structured = false;  // false: stored as a plain string (its tree is that string)
  double weight = 1;
  size_t key_bytes = 0;  // its key's, for the memory its item takes
};

// One row's figures for one good value.
struct Cell {
  bool ok = false;
  bool pays_render = false;  // its stored form is structured: a hit renders it
  uint32_t flags = 0;        // as written
  Strategy used;             // the strategy its bytes were written with
  uint64_t stored_bytes = 0;
  bool compressed = false;
  std::vector<double> decompress, decode, encode;  // ns per round (encode empty for as stored)
};

struct RowState {
  CompareRow row;
  const CompareStrategy* strategy = nullptr;  // nullptr: as stored
  std::vector<Cell> cells;                    // per good value
};

// Fills each row's bytes, cost figures, per-round means and (rows 1..) verdicts against
// rows[0] on the same values. `render` is per good value, ns per round (0 for strings). Cache
// bytes by `slab`; rows[0]'s own (over every record, good or not) are the caller's, as its stored bytes.
void summarize_rows(std::vector<RowState>& rows, const std::vector<Good>& good,
                    const std::vector<std::vector<double>>& render, const client::VerdictOptions& verdict,
                    const SlabSettings& slab);

}  // namespace hitcost::corpus::detail
