//===- HalfLoopWidthTest.cpp - Vector widths of loops over half values ----===//
//
// A run of known length takes the width that leaves the least remainder,
// and splits into a head of the widest steps and a tail only where two
// loops take fewer steps than one.
//
//===----------------------------------------------------------------------===//

#include "codegen/HalfLoopWidth.h"

#include "target/Target.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <doctest/doctest.h>

using namespace mote;
using hlo::PrimitiveType;

namespace {

struct Target {
  llvm::LLVMContext context;
  llvm::Module module{"widths", context};
  std::optional<target::TargetSpec> spec;

  Target(llvm::StringRef triple, llvm::StringRef cpu) {
    auto resolved = target::resolveTarget(triple, cpu, "");
    REQUIRE(static_cast<bool>(resolved));
    spec = *resolved;
    module.setTargetTriple(spec->triple);
  }

  llvm::Value *run(uint64_t length) {
    return llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), length);
  }
  unsigned width(uint64_t length, PrimitiveType type = PrimitiveType::BF16) {
    return codegen::halfLoopWidth(module, &*spec, type, run(length), true);
  }
  std::optional<codegen::HalfLoopSplit> split(uint64_t length,
                                              PrimitiveType type = PrimitiveType::BF16) {
    return codegen::splitHalfLoop(module, &*spec, type, run(length), true);
  }
};

} // namespace

TEST_CASE("a known run of staged bf16 sums takes the width that leaves the least remainder") {
  Target v4("x86_64-linux-gnu", "x86-64-v4");
  CHECK(v4.width(64) == 32);
  CHECK(v4.width(24) == 8);   // three steps, not 16 and 8 scalar elements
  CHECK(v4.width(144) == 16); // nine steps
  // An unknown length takes one register.
  CHECK(codegen::halfLoopWidth(v4.module, &*v4.spec, PrimitiveType::BF16, nullptr, true) == 16);
}

TEST_CASE("a run the widest step does not divide splits into a head and a tail") {
  Target v4("x86_64-linux-gnu", "x86-64-v4");
  std::optional<codegen::HalfLoopSplit> split = v4.split(144);
  REQUIRE(split);
  CHECK(split->head == 128);
  CHECK(split->headWidth == 32);
  CHECK(split->tailWidth == 16);
  split = v4.split(40);
  REQUIRE(split);
  CHECK(split->head == 32);
  CHECK(split->tailWidth == 8);
  // Divided by the widest step, shorter than it, or no fewer steps split.
  CHECK(!v4.split(64));
  CHECK(!v4.split(24));
  CHECK(!v4.split(48)); // 3 steps of 16 either way
  // AVX2: 16 lanes divide 144.
  Target v3("x86_64-linux-gnu", "x86-64-v3");
  CHECK(!v3.split(144));
  // Outside x86, widths are the cost model's.
  Target arm("aarch64-linux-gnu", "");
  CHECK(arm.width(144) == 0);
  CHECK(!arm.split(144));
}
