//===- code_selection.cc - Which code object fits the machine we run on ---===//

#include "code_selection.h"

#include "mote/cpu_features.h"
#include "mote/machine.h"

namespace mote::run {

// The probes are the runtime's (mote/machine.h); these wrap them for C++.
const char *machineTriple() { return mote_machine_triple(); }

std::vector<FeatureProbe> machineFeatureProbes() {
  std::vector<FeatureProbe> probes;
  for (uint32_t i = 0; i < mote_machine_feature_count(); ++i) {
    const char *name = nullptr;
    int present = 0;
    if (mote_machine_feature(i, &name, &present) == MOTE_OK)
      probes.push_back({name, present != 0});
  }
  return probes;
}

const char *detectableFeatures() {
#if defined(__x86_64__)
  return MOTE_CPU_FEATURES_X86_64;
#elif defined(__aarch64__)
  return MOTE_CPU_FEATURES_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
  return MOTE_CPU_FEATURES_RISCV64;
#else
  return "";
#endif
}

std::string machineFeatures() {
  std::string out;
  for (const FeatureProbe &probe : machineFeatureProbes())
    if (probe.present)
      out += (out.empty() ? "+" : ",+") + probe.name;
  return out;
}

mote_status selectCode(const mote_package *package, const char *triple, const std::string &features,
                       uint32_t *out_index) {
  return mote_package_select(package, triple, features.c_str(), out_index);
}

} // namespace mote::run
