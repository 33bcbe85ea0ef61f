/* xmlmod.c: opening the XML readers' module (xmlmod.h). */
#define _DEFAULT_SOURCE /* readlink */
#include "xmlmod.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#ifndef TASKIR_XML_DIR
#define TASKIR_XML_DIR "" /* not installed: the build tree's place only */
#endif

/* The module's path beside the running program (/proc/self/exe) in buf, or "" when the
 * system does not say where that is. */
static void beside_program(char *buf, size_t cap)
{
    buf[0] = '\0';
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    slash[1] = '\0';
    if (strlen(exe) + strlen(TIR_XML_MODULE) < cap)
        snprintf(buf, cap, "%s%s", exe, TIR_XML_MODULE);
}

Status tir_xml_open(const TirXml **out, Diag *d)
{
    *out = NULL;
    /* full paths: dlopen's search by name would follow the run path of whoever calls it,
     * which is not this program under a sanitizer's interceptor */
    char paths[2][4200];
    beside_program(paths[0], sizeof paths[0]);
    snprintf(paths[1], sizeof paths[1], "%s%s%s", TASKIR_XML_DIR, *TASKIR_XML_DIR ? "/" : "",
             *TASKIR_XML_DIR ? TIR_XML_MODULE : "");
    void *h = NULL;
    char why[600] = ""; /* the first failure, or that of a file that is there */
    for (int i = 0; i < 2 && !h; i++) {
        if (!paths[i][0])
            continue;
        h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        const char *e = h ? NULL : dlerror(); /* valid until the next dl* call */
        if (e && (!why[0] || access(paths[i], F_OK) == 0))
            snprintf(why, sizeof why, "%s", e);
    }
    if (!h)
        return diag_add(d, ST_RUNTIME, "io.module", NULL, "cannot open the XML readers' module "
                        "%s (beside taskir-run%s%s): %s", TIR_XML_MODULE,
                        *TASKIR_XML_DIR ? " or in " : "", TASKIR_XML_DIR,
                        why[0] ? why : "not found");
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
