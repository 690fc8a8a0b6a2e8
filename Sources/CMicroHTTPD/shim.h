#ifndef DEVSIM_CMICROHTTPD_SHIM_H
#define DEVSIM_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/select.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call.

/// A daemon with no thread of its own, its sockets in an epoll set for an outside loop
/// (`devsim_mhd_epoll_fd`), listening at `address`; `completed` is told when a request is done.
static inline struct MHD_Daemon *devsim_mhd_start(const struct sockaddr *address, MHD_AccessHandlerCallback handler,
                                                  void *context, MHD_RequestCompletedCallback completed) {
    // Suspend and resume: a stream (Server-Sent Events) that has nothing to send sleeps until
    // there is, instead of being asked again at every run.
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | (address->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
                            MHD_OPTION_END);
}

static inline int devsim_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

static inline int devsim_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? (int)info->port : -1;
}
#endif
