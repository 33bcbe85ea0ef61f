/* xmlmod_lib.c: the module libtaskir-xml.so (xmlmod.h): the library's XML readers, for
 * taskir-run to open when it needs one. */
#include "xmlmod.h"

/* The entry xmlmod.c looks up (TIR_XML_ENTRY). */
const TirXml *taskir_xml_module(void);

const TirXml *taskir_xml_module(void)
{
    static const TirXml table = {chip_load_default, chip_destroy, fe_cinn_read_xml_mem};
    return &table;
}
