/* status.h: the one project-wide status enum, shared by every module.
 *
 * Fallible functions return enum status; details go to a caller-supplied
 * error buffer that names the field and the reason. status_str() gives the
 * stable text for each value (curl's CURLcode, libuv's uv_strerror). */
#ifndef GPUPLAN_STATUS_H
#define GPUPLAN_STATUS_H

enum status {
    ST_OK = 0,
    ST_INVALID,   /* input is malformed or out of range */
    ST_NOTFOUND,  /* the named object does not exist (or is not yours) */
    ST_CONFLICT,  /* the request collides with existing state */
    ST_NOMEM,     /* allocation failed */
    ST_DB,        /* the database failed */
    ST_IO,        /* a file or socket operation failed */
    ST_TOOLARGE,  /* input exceeds a documented limit */
    ST_TOONEW,    /* stored data was written by a newer gpuplan */
    ST_AUTH,      /* missing or wrong credentials */
    ST_FORBIDDEN, /* credentials valid but not allowed */
    ST_GONE,      /* existed once, revoked or expired */
    ST_UNSUPPORTED,
    ST_INTERNAL
};

const char *status_str(enum status st);

#endif
