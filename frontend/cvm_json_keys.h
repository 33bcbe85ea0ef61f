/* cvm_json_keys.h: the member tables of a cvm-runtime graph JSON (cvm_json_keys.c). Internal
 * to the CVM reader. */
#ifndef FRONTEND_CVM_JSON_KEYS_H
#define FRONTEND_CVM_JSON_KEYS_H

#include "taskir/diag.h"

#include <json-c/json.h>

/* Checks root (a JSON object) as cvm-runtime's loader does before reading any value: every
 * key of the document, of each node, of each node's attrs and of the graph attrs is one it
 * reads, with a value of the type it reads; the required members are there; device_index is
 * empty and dtype a well-formed skip entry. Logic errors [cvm.json.key, cvm.json.type,
 * cvm.json.missing, cvm.json.device, cvm.json.attrs]. */
Status cvm_json_check_keys(json_object *root, Diag *d);

#endif
