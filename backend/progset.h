/* progset.h: a program set, the backend's output and the per-core executor's input
 * (docs/backend.md, "The program set").
 *
 * On disk a program set is a directory DIR holding:
 *
 *   DIR/program.pb     the Assembly IR (taskir.asm.Config, proto/program.proto), binary;
 *                      its data_config lists the static and dynamic blocks
 *   DIR/program.txt    the same Config in protobuf text format (taskir-emit --format text;
 *                      the existing tools print and read this form); when both exist,
 *                      program.pb is read
 *   DIR/data/ID.bin    one file a StaticBlock, named by its id (ids are [A-Za-z0-9_.-]+,
 *                      unique): the block's 32-bit memory words, little-endian, written into
 *                      core (chip_idx, chip_idy, core_idx, core_idy) from word start_addr
 *                      before the run (or before each phase listed in `phases`)
 *   DIR/sockets.json   the model's inputs and outputs, so that `taskir-run DIR` takes the
 *                      same --input files and writes the same outputK.npy files as
 *                      `taskir-run` on the TaskGraph the set was emitted from (ProgSocket)
 *
 * A DynamicBlock of the Config places one piece of a socket: socket_id and io_type name the
 * socket, begin_position and shape the piece inside the socket's natural (y, x, f, r) shape,
 * precision / storage_order / align_number its layout in the core's memory from start_addr.
 */
#ifndef TASKIR_BACKEND_PROGSET_H
#define TASKIR_BACKEND_PROGSET_H

#include <stddef.h>
#include <stdint.h>

#include "program.pb-c.h"
#include "taskir/diag.h"

/* One model input or output of the program set (one line of sockets.json). */
typedef struct ProgSocket {
    char *name;            /* the TaskGraph INPUT / OUTPUT block's name */
    int is_output;         /* 0 input, 1 output */
    int socket_id;         /* the TaskGraph block's socket_id */
    int precision;         /* IR Precision of the values (proto enum) */
    int64_t shape[4];      /* natural shape, y x f r (0 = absent dim) */
    /* The model tensor the socket carries (taskgraph.proto extension model_tensor), so that
     * inputs and outputs are read and written in the model's shape and element type;
     * model_rank 0 when the TaskGraph block had none. */
    int model_rank;
    int64_t model_dims[8];
    char *model_dtype;     /* numpy dtype string ("int32", "int8", ...); NULL when none */
} ProgSocket;

/* The words of one StaticBlock (data_config.static_blocks[i] <-> data[i]). */
typedef struct ProgData {
    uint32_t *w;
    size_t n;
} ProgData;

typedef struct ProgSet {
    Taskir__Asm__Config *config;   /* owned (protobuf-c unpacked or built by the emitter) */
    ProgData *data;                /* one per config->data_config->static_blocks entry */
    size_t n_data;
    ProgSocket *sockets;
    size_t n_sockets;
} ProgSet;

/* Reads DIR into *out. Returns ST_OK; ST_LOGIC for a logic error (malformed Config, a static block
 * without its data file or with a bad id, sockets.json invalid), ST_RUNTIME for I/O or memory;
 * the message goes to d naming the file and the rule (prog.* rule ids, docs/rules.md).
 * Implemented in progset_load.c. */
Status progset_load(const char *dir, ProgSet *out, Diag *d);

/* Writes s into DIR (created if missing; files of an earlier set that s does not have are
 * removed); text != 0 writes program.txt instead of program.pb. All files are written or
 * none. Returns as progset_load. Implemented in progset_save.c. */
Status progset_save(const char *dir, const ProgSet *s, int text, Diag *d);

/* Frees everything s owns and zeroes it (progset_load.c) (config with protobuf-c's free when it came from
 * progset_load; the emitter builds its Config the same way so one free fits both). */
void progset_free(ProgSet *s);

#endif
