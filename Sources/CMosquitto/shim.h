#ifndef DEVSIM_CMOSQUITTO_SHIM_H
#define DEVSIM_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
// From 2.1 on, mosquitto.h holds the protocol's constants and mqtt_protocol.h warns.
#if !defined(LIBMOSQUITTO_VERSION_NUMBER) || LIBMOSQUITTO_VERSION_NUMBER < 2001000
#include <mqtt_protocol.h>
#endif

// libmosquitto 2.1 has an option for a client driven by an external loop to go without the
// socketpair through which it would otherwise wake its own loop, writing a byte to it on every
// publish. Set when devsim is built against 2.1 or later (Debian bookworm's is 2.0.11); whether
// it saves anything is measured, not assumed (`Client.descriptorsPerClient`).
#if defined(LIBMOSQUITTO_VERSION_NUMBER) && LIBMOSQUITTO_VERSION_NUMBER >= 2001000
static inline int devsim_disable_socketpair(struct mosquitto *mosq) {
    return mosquitto_int_option(mosq, MOSQ_OPT_DISABLE_SOCKETPAIR, 1);
}
#else
static inline int devsim_disable_socketpair(struct mosquitto *mosq) {
    (void)mosq;
    return MOSQ_ERR_SUCCESS;
}
#endif
#endif
