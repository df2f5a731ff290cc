/*===- mote/machine.h - What the machine the runtime runs on can run -------===
 *
 * A package holds code for several triples and CPU feature sets; the one to
 * load is the one built for this machine's triple whose required features
 * (mote/cpu_features.h) this CPU has. The triple is the one the runtime was
 * compiled for; the features come from the CPU itself on Linux (AT_HWCAP and
 * AT_HWCAP2, cpuid), so a riscv64 machine without the vector extension, say,
 * runs the plain code. Bare-metal machines detect nothing: firmware knows its board,
 * and code is chosen by triple alone.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_MACHINE_H
#define MOTE_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "mote/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The triple this runtime runs code for, e.g. "aarch64-linux-gnu" or
 * "thumbv7em-none-eabihf"; "" on a machine Mote has no target for. */
const char *mote_machine_triple(void);

/* 1 when this machine's CPU features can be detected (Linux), 0 when code
 * is chosen by triple alone (bare metal). */
int mote_machine_detects_features(void);

/* How many features of mote/cpu_features.h's list for this architecture
 * can be checked here (0 on bare metal). */
uint32_t mote_machine_feature_count(void);

/* Feature `index` of that list: its name (LLVM's spelling, static) and
 * whether this machine has it. MOTE_INVALID_ARGUMENT past the end. */
mote_status mote_machine_feature(uint32_t index, const char **out_name, int *out_present);

/* The features this machine has, LLVM-style ("+avx2,+fma"), NUL-terminated
 * in `buffer` (`capacity` bytes). MOTE_BUFFER_TOO_SMALL when it does not fit
 * (256 bytes always do). */
mote_status mote_machine_features(char *buffer, size_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_MACHINE_H */
