#ifndef DEVSIM_CLINUX_SHIM_H
#define DEVSIM_CLINUX_SHIM_H
// Linux interfaces Glibc's Swift module leaves out: the event loop's epoll and eventfd.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
