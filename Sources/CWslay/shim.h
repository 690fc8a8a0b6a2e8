#ifndef DEVSIM_CWSLAY_SHIM_H
#define DEVSIM_CWSLAY_SHIM_H
// libwslay: WebSocket framing only, no I/O of its own (Debian's libwslay-dev ships no .pc file).
#include <sys/types.h>
#include <wslay/wslay.h>
#endif
