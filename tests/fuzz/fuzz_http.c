/* fuzz_http.c: libFuzzer target for the HTTP layer: each input is written as
 * raw bytes to the real server running in this process (civetweb, the
 * dispatcher, path decoding, the body reader, every route, static files).
 *
 * Going through a socket rather than calling dispatch() directly is what
 * lets the fuzzer reach the body reader: it is bound to a civetweb
 * connection. The oracle is the server's promise: no crash or sanitizer
 * report in any worker, and never a 5xx answer to what a client sent
 * (a 5xx is turned into an abort so libFuzzer keeps the input). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "db.h"
#include "engine.h"
#include "server_int.h"

static struct app app;
static int port;
static char db_dir[] = "/tmp/gpuplan-fuzz-XXXXXX";

/* At exit (libFuzzer's runs end with exit()): the database directory is
 * not left in /tmp. The server's threads may still hold the file open;
 * unlinking it under them is harmless. */
static void remove_db_dir(void)
{
    static const char *const names[] = {"fuzz.db", "fuzz.db-wal", "fuzz.db-shm", "fuzz.db-journal"};
    char path[64];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", db_dir, names[i]);
        unlink(path);
    }
    rmdir(db_dir);
}

/* At exit, before the leak check: the server stops, finishing the request
 * in flight. libFuzzer's time limit exits from the main thread while a
 * worker may be inside a handler, which runs on the slot's own stack
 * (http.c): LeakSanitizer then scans that stack, not the worker's, and
 * reported the request's body (kept in dispatch's frame on the worker's
 * stack) as leaked. */
static void stop_server(void)
{
    http_stop(&app);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[512];
    struct db *db = NULL;

    signal(SIGPIPE, SIG_IGN);
    log_set_level(LOG_ERROR); /* no access log: millions of lines */
    if (!mkdtemp(db_dir))
        abort();
    atexit(remove_db_dir);
    memset(&app, 0, sizeof app);
    snprintf(app.db_path, sizeof app.db_path, "%s/fuzz.db", db_dir);
    snprintf(app.web_dir, sizeof app.web_dir, "%s", GPUPLAN_WEB_DIR);
    app.json_limit = 64u << 10;
    app.report_limit = 256u << 10;
    app.signup_open = 1;
    /* As `gpuplan serve` does: migrate, then load the planner's catalog once. */
    struct catalog *catalog = calloc(1, sizeof *catalog);
    if (!catalog || db_open(app.db_path, DB_OPEN_MIGRATE, &db, err, sizeof err) != ST_OK ||
        db_catalog_load(db, catalog, err, sizeof err) != ST_OK) {
        fprintf(stderr, "fuzz_http: %s\n", err);
        abort();
    }
    app.catalog = catalog;
    db_close(db);
    if (http_start(&app, "127.0.0.1", 0, 8, &port, err, sizeof err) != ST_OK) {
        fprintf(stderr, "fuzz_http: %s\n", err);
        abort();
    }
    atexit(stop_server);   /* runs before remove_db_dir, registered earlier */
    return 0;
}

/* Walks the answers in buf by their framing (status line, headers,
 * Content-Length body) and aborts on a 5xx other than 503 (the database busy,
 * not the client's fault). Bodies are skipped, not searched: a problem
 * detail may quote the client's bytes, "HTTP/1.1 500" included. */
static void check_statuses(const char *buf, size_t len)
{
    size_t pos = 0;
    while (pos + 12 <= len && strncmp(buf + pos, "HTTP/1.", 7) == 0) {
        long status = strtol(buf + pos + 9, NULL, 10);
        if (status >= 500 && status != 503) {
            fprintf(stderr, "fuzz_http: the server answered a client's bytes with %ld\n", status);
            abort();
        }
        const char *hend = strstr(buf + pos, "\r\n\r\n");
        if (!hend)
            return;
        long clen = 0;
        for (const char *h = buf + pos; h && h < hend; h = strstr(h, "\r\n")) {
            h += 2;
            if (strncasecmp(h, "Content-Length:", 15) == 0)
                clen = strtol(h + 15, NULL, 10);
        }
        pos = (size_t)(hend + 4 - buf) + (size_t)(clen > 0 ? clen : 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return 0;
    }
    size_t off = 0;
    while (off < size) {
        ssize_t w = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    /* Read every answer (keep-alive may carry several) until the server closes. */
    size_t cap = 1 << 16, got = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (got == cap) {
            if (cap >= (4u << 20))
                break; /* enough to judge; the rest is a big static file */
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, buf + got, cap - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (buf) {
        buf[got] = '\0';
        check_statuses(buf, got);
        free(buf);
    }
    close(fd);
    return 0;
}
