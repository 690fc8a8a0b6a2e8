#ifndef DEVSIM_CLINUX_SHIM_H
#define DEVSIM_CLINUX_SHIM_H
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
// sched_getaffinity is GNU's, declared by <sched.h> only under _GNU_SOURCE, which this module must
// not define: its types (fd_set's members) would then differ from those of Glibc's own module,
// and clang refuses the two modules together on a clean build. Declared here as glibc has it.
extern int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
#endif
