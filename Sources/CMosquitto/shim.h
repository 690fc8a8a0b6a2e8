#ifndef DEVSIM_CMOSQUITTO_SHIM_H
#define DEVSIM_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
