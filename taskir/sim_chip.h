/* sim_chip.h: the chip's arithmetic for the simulator (private to taskir/sim*.c): the kernels
 * sim.c runs instead of sim_kernels.c's once sim_use_chip gave the run a chip (sim_chip.c,
 * docs/exactness.md "Simulating the chip"). */
#ifndef TASKIR_SIM_CHIP_H
#define TASKIR_SIM_CHIP_H

#include "sim_internal.h"

/* The chip kernel of a block type, or NULL when the chip computes it as the TaskGraph does. */
SimKernelFn sim_chip_kernel(BlockType t);

#endif
