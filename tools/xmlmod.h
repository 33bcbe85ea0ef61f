/* xmlmod.h: the XML readers for taskir-run, which does not link libxml2. Linking it (with ICU
 * and libstdc++ behind it) costs every process about a millisecond of dynamic linking at
 * start, and taskir-run reads XML only for --chip-exact (the built-in chip description,
 * taskir/chip.h) and for CINN programs (frontend/cinn/cinn.h). Those readers are the
 * library's own, built into a small shared module (libtaskir-xml.so, tools/xmlmod_lib.c)
 * that taskir-run opens when it first needs one: the file beside the running taskir-run
 * (the build tree), else in LIBDIR/taskir (where meson install puts it). The other tools link the
 * library, libxml2 with it, as before. */
#ifndef TASKIR_TOOLS_XMLMOD_H
#define TASKIR_TOOLS_XMLMOD_H

#include "frontend/cinn/cinn.h"
#include "taskir/chip.h"
#include "taskir/diag.h"

/* The module's file name. */
#define TIR_XML_MODULE "libtaskir-xml.so"
/* The function the module exports: its table. */
#define TIR_XML_ENTRY "taskir_xml_module"

/* The readers, as the module has them (each as chip.h and cinn.h say). */
typedef struct TirXml {
    Status (*chip_load_default)(Chip **out, Diag *d);
    void (*chip_destroy)(Chip *c);
    Status (*cinn_read_xml_mem)(const char *xml, size_t len, const char *file, Diag *d,
                                CinnBuilder **out);
} TirXml;

/* The module's table in *out (the module stays open until the process ends). A runtime
 * error [io.module] when it cannot be opened or is not the module. */
Status tir_xml_open(const TirXml **out, Diag *d);

#endif
