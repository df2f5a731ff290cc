//===- ContractionTilingTest.cpp - Register tiles chosen for contractions -===//
//
// The tiles must cover every result element exactly once whatever the
// shape, fit the target's registers, and follow the shape where a fixed
// tile would waste most of its lanes or sums.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionTiling.h"

#include "target/Target.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace mote;
using codegen::ContractionPlan;
using codegen::ContractionTiling;

namespace {

/// A row-major [rows, k] x [k, columns] matrix product.
ContractionPlan matrixProduct(int64_t rows, int64_t k, int64_t columns, bool fused = true) {
  ContractionPlan plan;
  plan.fused = fused;
  plan.rows = rows;
  plan.columns = columns;
  plan.contractingDims = {k};
  plan.operand[0].row = k;
  plan.operand[0].contracting = {1};
  plan.operand[1].column = 1;
  plan.operand[1].contracting = {columns};
  plan.result.row = columns;
  plan.result.column = 1;
  return plan;
}

ContractionTiling tilingFor(const ContractionPlan &plan, llvm::StringRef triple,
                            llvm::StringRef cpu = "", llvm::StringRef features = "") {
  auto spec = target::resolveTarget(triple, cpu, features);
  REQUIRE(static_cast<bool>(spec));
  return codegen::chooseContractionTiling(plan, llvm::Triple(spec->triple), &*spec);
}

int64_t columnsOf(llvm::ArrayRef<unsigned> widths) {
  return std::accumulate(widths.begin(), widths.end(), int64_t(0));
}

/// Main tiles and the tail cover the columns exactly; the rows likewise.
void checkCovers(const ContractionTiling &tiling, const ContractionPlan &plan) {
  CHECK(tiling.rows >= 1);
  CHECK(!tiling.widths.empty());
  CHECK(plan.columns / tiling.tileColumns() * tiling.tileColumns() + tiling.tailColumns() ==
        plan.columns);
  CHECK(tiling.tailColumns() < tiling.tileColumns());
  CHECK(tiling.leftoverRows == plan.rows % tiling.rows);
  for (unsigned width : tiling.widths)
    CHECK(width <= tiling.lanes);
}

} // namespace

TEST_CASE("tiles cover every shape exactly once") {
  for (llvm::StringRef triple : {"x86_64-linux-gnu", "aarch64-linux-gnu", "riscv64-linux-gnu"})
    for (int64_t rows : {1, 2, 5, 7, 13, 128})
      for (int64_t columns : {1, 3, 12, 24, 37, 64, 144, 513}) {
        CAPTURE(triple.str());
        CAPTURE(rows);
        CAPTURE(columns);
        ContractionPlan plan = matrixProduct(rows, 40, columns);
        checkCovers(tilingFor(plan, triple, triple.starts_with("x86") ? "skylake-avx512" : ""),
                    plan);
      }
}

TEST_CASE("tiles fit the registers") {
  // AVX-512 has 32 vector registers: the sums, a vector of the rhs per
  // column vector and a broadcast of the lhs.
  ContractionPlan plan = matrixProduct(512, 512, 512);
  ContractionTiling avx512 = tilingFor(plan, "x86_64-linux-gnu", "skylake-avx512");
  CHECK(avx512.lanes == 16);
  CHECK(avx512.rows * avx512.widths.size() + avx512.widths.size() + 1 <= 32);
  CHECK(avx512.rows * avx512.widths.size() >= 16); // enough sums to hide the latency
  // Without fusion each product needs a register too; SSE has 16.
  ContractionTiling sse = tilingFor(matrixProduct(512, 512, 512, false), "x86_64-linux-gnu");
  CHECK(sse.lanes == 4);
  CHECK(sse.rows * sse.widths.size() + sse.widths.size() + 2 <= 16);
  // Helium has 8 registers.
  ContractionTiling mve = tilingFor(plan, "thumbv8.1m.main-none-eabihf", "cortex-m55", "+mve.fp");
  CHECK(mve.lanes == 4);
  CHECK(mve.rows * mve.widths.size() + mve.widths.size() + 1 <= 8);
  // Scalar floating-point registers: no vectors at all.
  ContractionTiling rv32 = tilingFor(plan, "riscv32-unknown-elf", "", "+f");
  CHECK(rv32.lanes == 1);
  CHECK(rv32.rows * rv32.widths.size() <= 16);
}

TEST_CASE("tiles follow narrow shapes") {
  // 24 columns on AVX-512: a 16-lane and an 8-lane vector, not three 8-lane ones.
  ContractionTiling narrow =
      tilingFor(matrixProduct(3136, 144, 24), "x86_64-linux-gnu", "skylake-avx512");
  CHECK(narrow.widths == codegen::TileWidths{16, 8});
  CHECK(narrow.tail.empty());
  // Five rows: one tile of five rows, not five single rows.
  ContractionTiling fiveRows =
      tilingFor(matrixProduct(5, 40, 64), "x86_64-linux-gnu", "skylake-avx512");
  CHECK(fiveRows.rows == 5);
  CHECK(columnsOf(fiveRows.widths) == 64);
  // A matrix-vector product spends the registers on one row of many vectors.
  ContractionTiling vector = tilingFor(matrixProduct(1, 784, 256), "aarch64-linux-gnu");
  CHECK(vector.rows == 1);
  CHECK(vector.widths.size() >= 4);
}
