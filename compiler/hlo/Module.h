//===- Module.h - An HLO module ---------------------------------*- C++ -*-===//
#ifndef MOTE_HLO_MODULE_H
#define MOTE_HLO_MODULE_H

#include "hlo/Computation.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mote::hlo {

/// An HLO module: computations in text order (callees before callers, as XLA
/// prints them) and the entry computation.
class Module {
public:
  explicit Module(std::string name) : name_(std::move(name)) {}

  llvm::StringRef name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  Computation *addComputation(std::unique_ptr<Computation> computation);
  /// Adds `computation` just before `caller` (appends if `caller` is not
  /// in the module), keeping callees before callers.
  Computation *addComputationBefore(std::unique_ptr<Computation> computation,
                                    const Computation *caller);
  const std::vector<std::unique_ptr<Computation>> &computations() const { return computations_; }
  Computation *findComputation(llvm::StringRef name) const;
  /// Drops computations nothing calls (the entry always stays).
  void removeUnreachableComputations();

  Computation *entry() const { return entry_; }
  void setEntry(Computation *entry) { entry_ = entry; }

  /// `entry_computation_layout={(...)->...}` from the header, when present:
  /// the layouts the caller's buffers use.
  const std::optional<ProgramShape> &entryComputationLayout() const { return entryLayout_; }
  void setEntryComputationLayout(std::optional<ProgramShape> layout) {
    entryLayout_ = std::move(layout);
  }

  /// Other header attributes (is_scheduled, input_output_alias, ...) verbatim.
  const std::vector<RawAttribute> &headerAttributes() const { return headerAttributes_; }
  std::vector<RawAttribute> &mutableHeaderAttributes() { return headerAttributes_; }

  /// The source the module was parsed from, for located diagnostics; null for
  /// modules built in code. Shared so passes and tools can keep it alive.
  const std::shared_ptr<llvm::SourceMgr> &sourceManager() const { return sourceManager_; }
  void setSourceManager(std::shared_ptr<llvm::SourceMgr> sourceManager) {
    sourceManager_ = std::move(sourceManager);
  }

  size_t instructionCount() const;

private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation *entry_ = nullptr;
  std::optional<ProgramShape> entryLayout_;
  std::vector<RawAttribute> headerAttributes_;
  std::shared_ptr<llvm::SourceMgr> sourceManager_;
};

} // namespace mote::hlo

#endif // MOTE_HLO_MODULE_H
