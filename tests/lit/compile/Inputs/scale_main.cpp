// Runs the `scale` model of object-and-header.hlo through its generated class,
// then binds an input of the wrong element type, which must be refused.
#include "scale.h"

#include <cstdio>

int main() {
  alignas(16) static unsigned char memory[scale::kArenaBytes];
  float x[4] = {1, 2.5f, -3, 0};
  float y[4] = {0, 0, 0, 0};
  scale model(memory);
  mote::Status status = model.status();
  if (status)
    status = model.set_x(x);
  if (status)
    status = model.set_result(y);
  if (status)
    status = model.run();
  std::printf("status %s: %g %g %g %g\n", status.message(), y[0], y[1], y[2], y[3]);
  int32_t wrong[4] = {0, 0, 0, 0};
  std::printf("int32_t input: %s\n", model.session().set_input(0, wrong).message());
  return status.ok() ? 0 : 1;
}
