#ifndef DEVSIM_CLINUX_SHIM_H
#define DEVSIM_CLINUX_SHIM_H
// sched_getaffinity and cpu_set_t are GNU's.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
// Linux interfaces Glibc's Swift module leaves out: epoll, eventfd and prctl for the event loop,
// the CPU set for the cores a process may use.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sched.h>

// prctl is variadic, which Swift cannot call.
static inline int devsim_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

// The calling thread's name (at most 15 bytes are kept), as top -H and /proc show it.
static inline int devsim_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
// CPU_COUNT is a macro, which Swift cannot call.
static inline int devsim_cpu_count(const cpu_set_t *set) {
    return CPU_COUNT(set);
}
#endif
