#ifndef DEVSIM_CSYSTEMD_SHIM_H
#define DEVSIM_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#endif
