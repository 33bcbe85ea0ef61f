/* scotch_err.c: the error routines libscotch calls (its manual lets a program provide them
 * instead of linking libscotcherr). The library never prints: Scotch's messages are dropped
 * and its failure reaches the caller as a non-zero return, which place.c turns into a
 * runtime error [map.scotch]. map_scotch_errors is referenced by place.c so that a static
 * link pulls this file in before libscotch asks for the routines. */
#include <scotch.h>

#include <stdarg.h>

void map_scotch_errors(void);

void map_scotch_errors(void)
{
}

void SCOTCH_errorProg(const char *const name)
{
    (void)name;
}

void SCOTCH_errorPrint(const char *const fmt, ...)
{
    (void)fmt;
}

void SCOTCH_errorPrintW(const char *const fmt, ...)
{
    (void)fmt;
}
