//===- code_selection.h - Which code object fits the machine we run on ----===//
//
// A fat package holds code for several triples and CPU feature sets; the
// one to load is the one built for this program's own triple whose required
// features the CPU has. The triple and the features come from the runtime's
// probes (mote/machine.h), so a riscv64 machine without the vector
// extension falls back to the plain code.
//
//===----------------------------------------------------------------------===//
#ifndef MOTE_RUNTIME_TOOLS_CODE_SELECTION_H
#define MOTE_RUNTIME_TOOLS_CODE_SELECTION_H

#include <cstdint>
#include <string>
#include <vector>

#include "mote/package.h"

namespace mote::run {

/// The target triple this program was built for ("" when Mote has none).
const char *machineTriple();

/// One feature of mote/cpu_features.h's list for this architecture, and
/// whether the running machine has it.
struct FeatureProbe {
  std::string name;
  bool present;
};
/// Every feature of this architecture's list, in its order, probed.
std::vector<FeatureProbe> machineFeatureProbes();
/// That list (mote/cpu_features.h) for the architecture mote-run is built for.
const char *detectableFeatures();

/// The CPU features of the running machine, LLVM-style ("+m,+a,+v").
std::string machineFeatures();

/// Picks the code object for `triple` and `features` (see
/// mote_package_select): MOTE_NO_MATCHING_CODE when none fits.
mote_status selectCode(const mote_package *package, const char *triple, const std::string &features,
                       uint32_t *out_index);

} // namespace mote::run

#endif // MOTE_RUNTIME_TOOLS_CODE_SELECTION_H
