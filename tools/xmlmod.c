/* xmlmod.c: opening the XML readers' module (xmlmod.h). */
#include "xmlmod.h"

#include <dlfcn.h>

Status tir_xml_open(const TirXml **out, Diag *d)
{
    *out = NULL;
    void *h = dlopen(TIR_XML_MODULE, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return diag_add(d, ST_RUNTIME, "io.module", NULL, "cannot open the XML readers' module "
                        "(%s): %s", TIR_XML_MODULE, why ? why : "not found");
    }
    const TirXml *(*entry)(void) = (const TirXml *(*)(void))dlsym(h, TIR_XML_ENTRY);
    const TirXml *t = entry ? entry() : NULL;
    if (!t || !t->chip_load_default || !t->chip_destroy || !t->cinn_read_xml_mem) {
        dlclose(h);
        return diag_add(d, ST_RUNTIME, "io.module", NULL, "%s is not taskir's XML readers' "
                        "module (no %s)", TIR_XML_MODULE, TIR_XML_ENTRY);
    }
    *out = t;
    return ST_OK;
}
