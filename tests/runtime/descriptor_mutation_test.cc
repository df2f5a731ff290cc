// ===- tests/runtime/descriptor_mutation_test.cc - Random corruption ------===
//
// Flips random bytes and words of valid descriptors (hand-made and compiled
// ones alike) many thousand times: verify must answer every time without
// reading outside the bytes it was given (ASan builds check that), and any
// descriptor it accepts must decode to tensors that lie inside those bytes.
#include <doctest/doctest.h>

#include <stdint.h>
#include <string.h>

#include <vector>

#include "descriptor_builder.h"
#include "mote/mote.h"

using mote_test::DescriptorImage;

namespace {

int32_t never_called(const mote_call *) { return 1; }

// A small deterministic generator (xorshift64*), so failures reproduce.
struct Random {
  uint64_t state;
  uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

bool inside(const void *p, size_t n, const uint8_t *base, size_t size) {
  const uint8_t *q = static_cast<const uint8_t *>(p);
  return q >= base && n <= size && q <= base + size - n;
}

void check_accepted(const uint8_t *base, size_t size) {
  const mote_model_desc *desc = reinterpret_cast<const mote_model_desc *>(base);
  mote_model model;
  REQUIRE(mote_model_init(desc, never_called, &model) == MOTE_OK);
  for (int side = 0; side < 2; ++side) {
    uint32_t count = side ? mote_model_result_count(&model) : mote_model_arg_count(&model);
    for (uint32_t i = 0; i < count; ++i) {
      mote_tensor_info info;
      REQUIRE((side ? mote_model_result_info(&model, i, &info)
                    : mote_model_arg_info(&model, i, &info)) == MOTE_OK);
      REQUIRE(info.rank <= MOTE_MAX_RANK);
      REQUIRE(inside(info.dims, 8 * info.rank, base, size));
      REQUIRE(inside(info.minor_to_major, info.rank, base, size));
      REQUIRE(inside(info.name, 1, base, size));
      REQUIRE(mote_layout_is_valid(info.rank, info.minor_to_major));
    }
  }
}

} // namespace

void mote_test::mutate_descriptor(const uint8_t *valid, size_t size, uint64_t seed, int rounds) {
  Random random{seed};
  int accepted = 0;
  for (int round = 0; round < rounds; ++round) {
    // An exactly sized heap copy: ASan flags any read past `size`.
    std::vector<uint64_t> storage((size + 7) / 8);
    uint8_t *bytes = reinterpret_cast<uint8_t *>(storage.data());
    memcpy(bytes, valid, size);
    int edits = 1 + static_cast<int>(random.below(4));
    for (int e = 0; e < edits; ++e) {
      uint32_t at = random.below(static_cast<uint32_t>(size));
      switch (random.below(3)) {
      case 0:
        bytes[at] ^= static_cast<uint8_t>(1u << random.below(8));
        break;
      case 1:
        bytes[at] = static_cast<uint8_t>(random.next());
        break;
      default: {
        at &= ~3u; // a whole 32-bit field: offsets, counts, sizes
        uint32_t value = random.below(2) ? static_cast<uint32_t>(random.next())
                                         : random.below(static_cast<uint32_t>(size) + 64);
        if (at + 4 <= size)
          memcpy(bytes + at, &value, 4);
      }
      }
    }
    mote_status status =
        mote_model_desc_verify(reinterpret_cast<const mote_model_desc *>(bytes), size);
    REQUIRE((status == MOTE_OK || status == MOTE_BAD_DESCRIPTOR || status == MOTE_ABI_MISMATCH));
    if (status == MOTE_OK) {
      ++accepted;
      check_accepted(bytes, size);
    }
  }
  // Some mutations hit padding or harmless bytes; most must be caught.
  CHECK(accepted > 0);
  CHECK(accepted < rounds);
}

TEST_CASE("random corruption of a hand-made descriptor never escapes its bytes") {
  DescriptorImage image(
      {{"x", MOTE_F32, {2, 3}, {1, 0}, 24}, {"s", MOTE_PRED, {}, {}, 1}},
      {{"y", MOTE_S64, {4, 1, 2, 3}, {3, 1, 0, 2}, 192}, {"z", MOTE_BF16, {0}, {0}, 0}}, 64, 8);
  REQUIRE(mote_model_desc_verify(image.desc(), image.size()) == MOTE_OK);
  mote_test::mutate_descriptor(image.data(), image.size(), 0x1234567u, 20000);
}
