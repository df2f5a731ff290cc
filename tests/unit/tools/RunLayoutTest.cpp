//===- RunLayoutTest.cpp - Row-major values to and from compiled layouts --===//

#include "tools/lib/RunLayout.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace mote::tools;

TEST_CASE("row-major layouts are recognised") {
  CHECK(isRowMajor({}));
  CHECK(isRowMajor({0}));
  CHECK(isRowMajor({2, 1, 0}));
  CHECK_FALSE(isRowMajor({0, 1}));
  CHECK_FALSE(isRowMajor({1, 2, 0}));
}

TEST_CASE("a 2x3 matrix in column-major order") {
  std::vector<uint8_t> logical = {0, 1, 2, 3, 4, 5}; // element (r, c) = 3r + c
  std::vector<uint8_t> physical = relayout(logical, {2, 3}, {0, 1}, 1, LayoutDirection::ToPhysical);
  // Column-major: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2).
  CHECK(physical == std::vector<uint8_t>{0, 3, 1, 4, 2, 5});
  CHECK(relayout(physical, {2, 3}, {0, 1}, 1, LayoutDirection::ToLogical) == logical);
}

TEST_CASE("rank 3 with multi-byte elements matches the index formula") {
  const int64_t dims[3] = {2, 3, 4};
  const int64_t minorToMajor[3] = {1, 2, 0}; // dimension 1 fastest, then 2, then 0
  std::vector<uint8_t> logical(24 * 2);
  for (size_t i = 0; i < 24; ++i) {
    logical[2 * i] = uint8_t(i);
    logical[2 * i + 1] = uint8_t(100 + i);
  }
  std::vector<uint8_t> physical =
      relayout(logical, dims, minorToMajor, 2, LayoutDirection::ToPhysical);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 4; ++c) {
        int64_t logicalIndex = (a * 3 + b) * 4 + c;
        int64_t physicalIndex = b + 3 * (c + 4 * a); // strides: dim1 1, dim2 3, dim0 12
        CHECK(physical[2 * physicalIndex] == uint8_t(logicalIndex));
        CHECK(physical[2 * physicalIndex + 1] == uint8_t(100 + logicalIndex));
      }
  CHECK(relayout(physical, dims, minorToMajor, 2, LayoutDirection::ToLogical) == logical);
}

TEST_CASE("empty and degenerate shapes") {
  CHECK(relayout({}, {0, 3}, {0, 1}, 4, LayoutDirection::ToPhysical).empty());
  std::vector<uint8_t> scalar = {7, 8, 9, 10};
  CHECK(relayout(scalar, {}, {}, 4, LayoutDirection::ToPhysical) == scalar);
  std::vector<uint8_t> column = {1, 2, 3};
  CHECK(relayout(column, {3, 1}, {0, 1}, 1, LayoutDirection::ToPhysical) == column);
}
