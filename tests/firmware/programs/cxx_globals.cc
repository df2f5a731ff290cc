// ===- tests/firmware/programs/cxx_globals.cc - Constructors run before main ===
//
// Firmware in C++ may have globals with constructors; the port's startup must
// run them (.init_array) before main, as a hosted C++ program would.
//
// ===--------------------------------------------------------------------===
#include "mote_port.h"

namespace {

// Read at run time, so the compiler cannot turn the constructor into data.
volatile int seed = 41;

struct Counter {
  Counter() : value(seed + 1) {}
  int value;
};

Counter counter;

} // namespace

int main() {
  if (counter.value != 42) {
    mote_port_write("constructor did not run\n");
    return 1;
  }
  mote_port_write("constructors ok\n");
  return 0;
}
