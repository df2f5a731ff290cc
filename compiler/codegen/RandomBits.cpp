//===- RandomBits.cpp - Threefry and Philox block functions as IR ---------===//
//
// The same rounds as eval/Random.cpp (Random123's reference: Threefry-2x32
// with 20 rounds, Philox-4x32 with 10), on 32-bit words.
//
//===----------------------------------------------------------------------===//

#include "codegen/RandomBits.h"

namespace mote::codegen::random {

Words2 emitThreeFry(llvm::IRBuilderBase &b, Words2 key, Words2 counter) {
  static constexpr int rotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  llvm::Value *schedule[3] = {key[0], key[1],
                              b.CreateXor(b.CreateXor(b.getInt32(0x1BD11BDAu), key[0]), key[1])};
  llvm::Value *x0 = b.CreateAdd(counter[0], schedule[0]);
  llvm::Value *x1 = b.CreateAdd(counter[1], schedule[1]);
  for (int block = 0; block < 5; ++block) {
    for (int round = 0; round < 4; ++round) {
      const int r = rotations[(block % 2) * 4 + round];
      x0 = b.CreateAdd(x0, x1);
      x1 = b.CreateOr(b.CreateShl(x1, r), b.CreateLShr(x1, 32 - r));
      x1 = b.CreateXor(x1, x0);
    }
    x0 = b.CreateAdd(x0, schedule[(block + 1) % 3]);
    x1 = b.CreateAdd(x1, b.CreateAdd(schedule[(block + 2) % 3], b.getInt32(block + 1)));
  }
  return {x0, x1};
}

Words4 emitPhilox(llvm::IRBuilderBase &b, Words2 key, Words4 x) {
  llvm::Type *i64 = b.getInt64Ty(), *i32 = b.getInt32Ty();
  for (int round = 0; round < 10; ++round) {
    llvm::Value *p0 = b.CreateMul(b.CreateZExt(x[0], i64), b.getInt64(0xD2511F53u));
    llvm::Value *p1 = b.CreateMul(b.CreateZExt(x[2], i64), b.getInt64(0xCD9E8D57u));
    llvm::Value *p0High = b.CreateTrunc(b.CreateLShr(p0, 32), i32);
    llvm::Value *p1High = b.CreateTrunc(b.CreateLShr(p1, 32), i32);
    x = {b.CreateXor(b.CreateXor(p1High, x[1]), key[0]), b.CreateTrunc(p1, i32),
         b.CreateXor(b.CreateXor(p0High, x[3]), key[1]), b.CreateTrunc(p0, i32)};
    key = {b.CreateAdd(key[0], b.getInt32(0x9E3779B9u)),
           b.CreateAdd(key[1], b.getInt32(0xBB67AE85u))};
  }
  return x;
}

} // namespace mote::codegen::random
