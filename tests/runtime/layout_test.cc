// ===- tests/runtime/layout_test.cc - Element sizes, layouts, relayout ----===
#include <doctest/doctest.h>

#include <stdint.h>
#include <string.h>

#include <algorithm>

#include <vector>

#include "mote/mote.h"

namespace {

// Where logical element `index` (row-major dims order) lives in memory under
// layout `m2m`, computed the slow obvious way.
int64_t offset_of(const std::vector<int64_t> &dims, const std::vector<uint8_t> &m2m,
                  const std::vector<int64_t> &index) {
  int64_t offset = 0, stride = 1;
  for (uint8_t d : m2m) {
    offset += index[d] * stride;
    stride *= dims[d];
  }
  return offset;
}

// Expected destination of relayouting `src` (layout `from`) into layout `to`.
std::vector<int32_t> reference(const std::vector<int64_t> &dims, const std::vector<uint8_t> &from,
                               const std::vector<uint8_t> &to, const std::vector<int32_t> &src) {
  std::vector<int32_t> out(src.size());
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t n = 0; n < src.size(); ++n) {
    out[offset_of(dims, to, index)] = src[offset_of(dims, from, index)];
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

std::vector<uint8_t> row_major(size_t rank) {
  std::vector<uint8_t> m2m(rank);
  for (size_t i = 0; i < rank; ++i)
    m2m[i] = static_cast<uint8_t>(rank - 1 - i);
  return m2m;
}

void check_round_trip(const std::vector<int64_t> &dims, const std::vector<uint8_t> &layout) {
  int64_t count = 1;
  for (int64_t d : dims)
    count *= d;
  std::vector<int32_t> host(count), device(count, -1), back(count, -1);
  for (int64_t i = 0; i < count; ++i)
    host[i] = static_cast<int32_t>(1000 + i);
  const uint32_t rank = static_cast<uint32_t>(dims.size());
  REQUIRE(mote_relayout(host.data(), nullptr, device.data(), layout.data(), rank, dims.data(), 4) ==
          MOTE_OK);
  CHECK(device == reference(dims, row_major(rank), layout, host));
  REQUIRE(mote_relayout(device.data(), layout.data(), back.data(), nullptr, rank, dims.data(), 4) ==
          MOTE_OK);
  CHECK(back == host);
}

} // namespace

TEST_CASE("element sizes") {
  CHECK(mote_element_size(MOTE_PRED) == 1);
  CHECK(mote_element_size(MOTE_S8) == 1);
  CHECK(mote_element_size(MOTE_U8) == 1);
  CHECK(mote_element_size(MOTE_S16) == 2);
  CHECK(mote_element_size(MOTE_F16) == 2);
  CHECK(mote_element_size(MOTE_BF16) == 2);
  CHECK(mote_element_size(MOTE_U32) == 4);
  CHECK(mote_element_size(MOTE_F32) == 4);
  CHECK(mote_element_size(MOTE_S64) == 8);
  CHECK(mote_element_size(MOTE_F64) == 8);
  CHECK(mote_element_size(MOTE_C64) == 8);
  CHECK(mote_element_size(MOTE_C128) == 16);
  CHECK(mote_element_size(MOTE_S4) == 1); // sub-byte types take a byte each
  CHECK(mote_element_size(MOTE_U4) == 1);
  CHECK(mote_element_size(MOTE_S2) == 1);
  CHECK(mote_element_size(MOTE_U2) == 1);
  CHECK(mote_element_size(0) == 0);
  CHECK(mote_element_size(MOTE_U2 + 1) == 0);
}

TEST_CASE("row-major and permutation checks") {
  const uint8_t rm3[] = {2, 1, 0}, cm3[] = {0, 1, 2}, dup[] = {0, 0, 1}, big[] = {3, 1, 0};
  CHECK(mote_layout_is_row_major(3, rm3));
  CHECK_FALSE(mote_layout_is_row_major(3, cm3));
  CHECK(mote_layout_is_row_major(0, nullptr));
  CHECK(mote_layout_is_row_major(1, cm3)); // {0} is row-major for rank 1
  CHECK(mote_layout_is_valid(3, cm3));
  CHECK_FALSE(mote_layout_is_valid(3, dup));
  CHECK_FALSE(mote_layout_is_valid(3, big));
  CHECK_FALSE(mote_layout_is_valid(MOTE_MAX_RANK + 1, rm3));
  // Unit dimensions do not change the byte order.
  const int64_t dims_1x4[] = {1, 4}, dims_2x3[] = {2, 3};
  const uint8_t l01[] = {0, 1};
  CHECK(mote_layout_is_same_order(2, dims_1x4, l01, nullptr));
  CHECK_FALSE(mote_layout_is_same_order(2, dims_2x3, l01, nullptr));
}

TEST_CASE("relayout rank 0 and 1 copy as they are") {
  int32_t scalar = 42, out = 0;
  CHECK(mote_relayout(&scalar, nullptr, &out, nullptr, 0, nullptr, 4) == MOTE_OK);
  CHECK(out == 42);
  check_round_trip({5}, {0});
}

TEST_CASE("relayout rank 2 column-major") {
  // f32[2,3]{0,1}: memory holds column by column.
  const int32_t host[] = {1, 2, 3, 4, 5, 6};
  int32_t device[6] = {};
  const int64_t dims[] = {2, 3};
  const uint8_t cm[] = {0, 1};
  REQUIRE(mote_relayout(host, nullptr, device, cm, 2, dims, 4) == MOTE_OK);
  const int32_t expected[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i)
    CHECK(device[i] == expected[i]);
  check_round_trip({2, 3}, {0, 1});
  check_round_trip({7, 1}, {0, 1});
}

TEST_CASE("relayout rank 3 and 4, every permutation") {
  std::vector<uint8_t> p3 = {0, 1, 2};
  do {
    CAPTURE(p3[0] * 100 + p3[1] * 10 + p3[2]);
    check_round_trip({2, 3, 4}, p3);
  } while (std::next_permutation(p3.begin(), p3.end()));
  std::vector<uint8_t> p4 = {0, 1, 2, 3};
  do {
    check_round_trip({3, 1, 4, 2}, p4);
    check_round_trip({2, 3, 2, 5}, p4);
  } while (std::next_permutation(p4.begin(), p4.end()));
}

TEST_CASE("relayout between two non-row-major layouts and odd element sizes") {
  const int64_t dims[] = {2, 3, 2};
  const uint8_t a[] = {0, 1, 2}, b[] = {1, 2, 0};
  uint8_t src[12 * 3], mid[12 * 3], back[12 * 3];
  for (int i = 0; i < 36; ++i)
    src[i] = static_cast<uint8_t>(i);
  REQUIRE(mote_relayout(src, a, mid, b, 3, dims, 3) == MOTE_OK);
  REQUIRE(mote_relayout(mid, b, back, a, 3, dims, 3) == MOTE_OK);
  CHECK(memcmp(src, back, sizeof src) == 0);
  CHECK(memcmp(src, mid, sizeof src) != 0);
}

TEST_CASE("relayout of an empty tensor touches nothing") {
  const int64_t dims[] = {3, 0, 2};
  const uint8_t cm[] = {0, 1, 2};
  CHECK(mote_relayout(nullptr, nullptr, nullptr, cm, 3, dims, 4) == MOTE_OK);
}

TEST_CASE("relayout refuses what it cannot do") {
  int32_t a[4] = {}, b[4] = {};
  const int64_t dims[] = {2, 2}, negative[] = {2, -2};
  const uint8_t bad[] = {1, 1};
  CHECK(mote_relayout(a, bad, b, nullptr, 2, dims, 4) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_relayout(a, nullptr, b, nullptr, 2, negative, 4) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_relayout(a, nullptr, b, nullptr, 2, dims, 0) == MOTE_INVALID_ARGUMENT);
  CHECK(mote_relayout(nullptr, nullptr, b, nullptr, 2, dims, 4) == MOTE_INVALID_ARGUMENT);
  std::vector<int64_t> many(MOTE_MAX_RANK + 1, 1);
  CHECK(mote_relayout(a, nullptr, b, nullptr, MOTE_MAX_RANK + 1, many.data(), 4) ==
        MOTE_UNSUPPORTED);
  // Rank MOTE_MAX_RANK itself works.
  std::vector<uint8_t> reversed(MOTE_MAX_RANK);
  for (uint32_t i = 0; i < MOTE_MAX_RANK; ++i)
    reversed[i] = static_cast<uint8_t>(i);
  std::vector<int64_t> dims_max(MOTE_MAX_RANK, 1);
  dims_max[0] = 2;
  dims_max[MOTE_MAX_RANK - 1] = 2;
  CHECK(mote_relayout(a, nullptr, b, reversed.data(), MOTE_MAX_RANK, dims_max.data(), 4) ==
        MOTE_OK);
}
