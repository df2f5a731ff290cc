// Runs the `scale` model of object-and-header.hlo through its generated class.
#include "scale.h"

#include <cstdio>

int main() {
  alignas(64) static unsigned char scratch[scale::kScratchBytes + 1];
  static_assert(scale::kScratchAlignment <= 64, "scratch buffer under-aligned");
  float x[4] = {1, 2.5f, -3, 0};
  float y[4] = {0, 0, 0, 0};
  scale model(scratch);
  model.set_arg_x(x);
  model.set_result_result(y);
  int32_t status = model.run();
  std::printf("status %d: %g %g %g %g\n", static_cast<int>(status), y[0], y[1], y[2], y[3]);
  return status;
}
