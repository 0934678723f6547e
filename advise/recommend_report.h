#pragma once
// The reports of `hitcost-corpus recommend` (advise/recommend.h): the terminal's table of the
// front and the answer, one JSON object with every candidate searched, and a self-contained
// HTML page whose SVG chart plots every candidate's CPU per hit against its cache memory
// (both as ratios to today's), the front joined and highlighted, today's and the
// recommended one marked. Each says how it was measured and what was pruned.
#include <string>

#include "advise/recommend.h"
#include "corpus/corpus_file.h"

namespace hitcost::corpus {

// The answer first (one sentence, then the PHP settings and hitcost-server options), the
// front and the confirmed candidates a row each, then the search's and the memory model's notes.
std::string recommend_table(const RecommendResult& r);
// {corpus, search, memory, candidates[], confirmation, recommendation, recommendation_php, notes}.
std::string recommend_json(const RecommendResult& r, const Manifest& corpus);
// A whole page: the answer, the chart, the table of the front, the notes.
std::string recommend_html(const RecommendResult& r, const Manifest& corpus);
// The chart alone (an <svg> element), for the page and its tests.
std::string front_chart_svg(const RecommendResult& r);

}  // namespace hitcost::corpus
