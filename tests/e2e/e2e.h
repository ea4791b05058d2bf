/* e2e.h: helpers for end-to-end tests: start the real `gpuplan serve` on
 * 127.0.0.1 with an ephemeral port and a temporary database, talk real HTTP
 * to it with libcurl, stop it with SIGTERM. */
#ifndef GPUPLAN_E2E_H
#define GPUPLAN_E2E_H

#include <stddef.h>
#include <sys/types.h>

struct e2e_server {
    pid_t pid;
    int port;
    char dir[256];     /* temporary folder holding the database and logs */
    char db_path[300];
    char base[64];     /* "http://127.0.0.1:PORT" */
};

struct e2e_resp {
    long status;
    char *body;        /* NUL-terminated; freed by e2e_resp_release */
    size_t len;
    char *headers;     /* raw response header block */
};

/* Starts the server; extra is a NULL-terminated list of extra serve options
 * (may be NULL). db_path NULL means a fresh database in a new temp folder.
 * Returns 0 on success. */
int e2e_start(struct e2e_server *srv, const char *db_path, const char *const *extra);
/* Sends SIGTERM and waits; returns the exit status (or -1). */
int e2e_stop(struct e2e_server *srv);
/* Kills with SIGKILL and reaps. */
void e2e_kill(struct e2e_server *srv);

/* One request. headers: NULL-terminated "Name: value" list or NULL; body may be NULL.
 * Returns 0 when an HTTP answer came back (any status). */
int e2e_request(const struct e2e_server *srv, const char *method, const char *path,
                const char *const *headers, const char *body, size_t body_len, struct e2e_resp *out);
/* The value of response header name (case-insensitive) copied into buf, or NULL. */
const char *e2e_resp_header(const struct e2e_resp *r, const char *name, char *buf, size_t buflen);
void e2e_resp_release(struct e2e_resp *r);

/* Path of the gpuplan binary under test. */
const char *e2e_bin(void);
/* Runs the binary with argv (argv[0] ignored), stdin from in_path (or /dev/null),
 * capturing stdout into *out (heap, NUL-terminated) and stderr into *errout. Returns exit status. */
int e2e_run(const char *const *argv, const char *in_path, char **out, char **errout);
/* A whole file as a NUL-terminated heap string (caller frees); NULL if it cannot be read. */
char *e2e_read_file(const char *path);

#endif
