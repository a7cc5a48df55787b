#pragma once
// The sum net_aggregate computes (aggregate.cpp), here for its tests.

#include "model/models.h"

namespace serbench::net {

// The element-wise sum of two sparse vectors of one dimension: entries merged by position,
// values added (a's first) where both have one; other dimensions are corrupt_input.
SparseVector merge_sum(const SparseVector& a, const SparseVector& b);

}  // namespace serbench::net
