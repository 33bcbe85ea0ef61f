/* onnx_cli.h: the ONNX options of taskir-compile and taskir-run (argument parsing only; the
 * library takes them as OnnxOptions, frontend/onnx/onnx.h):
 *   --input-range NAME=LO..HI  graph input NAME holds integers in LO..HI (a float input
 *                              holding integers, or an integer input narrower than its type)
 *   --const NAME=X.npy         graph input NAME is the constant X.npy (as an initializer) */
#ifndef TASKIR_TOOLS_ONNX_CLI_H
#define TASKIR_TOOLS_ONNX_CLI_H

#include "frontend/onnx/onnx.h"

#include <stdbool.h>

typedef struct OnnxCli {
    OnnxInputRange *ranges;
    uint32_t nranges;
    OnnxBinding *bind;
    uint32_t nbind;
    const char **paths;     /* [nbind]: the .npy file of each binding */
    OnnxTensor *values;     /* [nbind]: filled by onnx_cli_load */
} OnnxCli;

/* When argv[*i] is --input-range or --const (either "NAME VALUE" or "NAME=VALUE"), takes it
 * (advancing *i) and sets *matched. Returns NULL, or the rule id of a usage error whose
 * message is written into err: a malformed value, a name given twice. */
const char *onnx_cli_option(OnnxCli *oc, int argc, char **argv, int *i, bool *matched,
                            char *err, size_t errsize);
/* True when any of these options was given (they apply to ONNX models only). */
bool onnx_cli_given(const OnnxCli *oc);
/* Reads the --const arrays and fills opt (which then points into oc). An .npy finding is
 * printed naming its file, as tool's message; returns the status. */
Status onnx_cli_load(OnnxCli *oc, const char *tool, OnnxOptions *opt);
void onnx_cli_free(OnnxCli *oc);

#endif
