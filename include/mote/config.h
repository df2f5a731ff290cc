/*===- mote/config.h - Build-time knobs of the runtime ---------------------===
 *
 * Each knob is `#ifndef X / #define X default`. Override one with -DX=value,
 * or put the overrides in a header of your own and build with
 * -DMOTE_USER_CONFIG='"my_mote_config.h"'. Every knob costs a test
 * configuration, so there are few.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_CONFIG_H
#define MOTE_CONFIG_H

#ifdef MOTE_USER_CONFIG
#include MOTE_USER_CONFIG
#endif

/* 1: mote_status_message() returns a short text per code. 0: it returns ""
 * and the strings are not linked (saves a few hundred bytes of flash). */
#ifndef MOTE_STATUS_MESSAGES
#define MOTE_STATUS_MESSAGES 1
#endif

/* The highest tensor rank the runtime accepts. Descriptors with a tensor of
 * higher rank are rejected (MOTE_BAD_DESCRIPTOR) and relayout refuses it
 * (MOTE_UNSUPPORTED). Relayout keeps two int64_t[MOTE_MAX_RANK] on the stack. */
#ifndef MOTE_MAX_RANK
#define MOTE_MAX_RANK 16
#endif

#endif /* MOTE_CONFIG_H */
