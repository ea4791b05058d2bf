/* status.c: text for each enum status value; one table, in enum order. */
#include "status.h"

const char *status_str(enum status st)
{
    static const char *const names[] = {
        [ST_OK] = "ok",
        [ST_INVALID] = "invalid input",
        [ST_NOTFOUND] = "not found",
        [ST_CONFLICT] = "conflict",
        [ST_NOMEM] = "out of memory",
        [ST_DB] = "database error",
        [ST_IO] = "i/o error",
        [ST_TOOLARGE] = "too large",
        [ST_TOONEW] = "database is newer than this gpuplan",
        [ST_AUTH] = "authentication required",
        [ST_FORBIDDEN] = "forbidden",
        [ST_GONE] = "gone",
        [ST_UNSUPPORTED] = "unsupported",
        [ST_INTERNAL] = "internal error",
    };
    if ((unsigned)st < sizeof(names) / sizeof(names[0]) && names[st])
        return names[st];
    return "unknown status";
}
