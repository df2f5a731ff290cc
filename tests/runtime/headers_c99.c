/*===- tests/runtime/headers_c99.c - mote.h is plain C99 -------------------===
 *
 * Compiled by check_freestanding.cmake with the bare-metal C compiler as
 * -std=c99 -pedantic -Werror: firmware in C can include the whole API.
 */
#include "mote/mote.h"

size_t headers_c99_element_size(void);
size_t headers_c99_element_size(void) { return mote_element_size(MOTE_F32); }
