#ifndef DEVSIM_CYAML_SHIM_H
#define DEVSIM_CYAML_SHIM_H
#include <yaml.h>
#endif
