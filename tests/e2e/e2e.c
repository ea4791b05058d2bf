/* e2e.c: process and HTTP plumbing shared by the end-to-end tests. The
 * server runs as a real child process so the tests see exactly what a user
 * sees: the binary, its flags, its database file, its sockets. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#ifndef GPUPLAN_BIN
#define GPUPLAN_BIN "build/gpuplan"
#endif

const char *e2e_bin(void)
{
    const char *env = getenv("GPUPLAN_BIN");
    return env && *env ? env : GPUPLAN_BIN;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int e2e_start(struct e2e_server *srv, const char *db_path, const char *const *extra)
{
    char port_file[320], log_file[320];
    memset(srv, 0, sizeof *srv);
    snprintf(srv->dir, sizeof srv->dir, "/tmp/gpuplan-e2e-XXXXXX");
    if (!mkdtemp(srv->dir))
        return -1;
    snprintf(srv->db_path, sizeof srv->db_path, "%s", db_path ? db_path : "");
    if (!db_path)
        snprintf(srv->db_path, sizeof srv->db_path, "%s/test.db", srv->dir);
    snprintf(port_file, sizeof port_file, "%s/port", srv->dir);
    snprintf(log_file, sizeof log_file, "%s/server.log", srv->dir);

    const char *argv[64];
    int n = 0;
    argv[n++] = e2e_bin();
    argv[n++] = "serve";
    argv[n++] = "--port";
    argv[n++] = "0";
    argv[n++] = "--db";
    argv[n++] = srv->db_path;
    argv[n++] = "--port-file";
    argv[n++] = port_file;
    argv[n++] = "--threads";
    argv[n++] = "16";
    for (int i = 0; extra && extra[i] && n < 62; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;

    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log_file, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    srv->pid = pid;
    for (int i = 0; i < 1000; i++) { /* up to 10 s */
        FILE *f = fopen(port_file, "r");
        if (f) {
            int port = 0;
            if (fscanf(f, "%d", &port) == 1 && port > 0) {
                fclose(f);
                srv->port = port;
                snprintf(srv->base, sizeof srv->base, "http://127.0.0.1:%d", port);
                return 0;
            }
            fclose(f);
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            srv->pid = 0;
            return -1; /* exited before listening */
        }
        sleep_ms(10);
    }
    e2e_kill(srv);
    return -1;
}

int e2e_stop(struct e2e_server *srv)
{
    int status = 0;
    if (srv->pid <= 0)
        return -1;
    kill(srv->pid, SIGTERM);
    for (int i = 0; i < 1500; i++) { /* up to 15 s */
        pid_t r = waitpid(srv->pid, &status, WNOHANG);
        if (r == srv->pid) {
            srv->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        sleep_ms(10);
    }
    e2e_kill(srv);
    return -1;
}

void e2e_kill(struct e2e_server *srv)
{
    if (srv->pid > 0) {
        kill(srv->pid, SIGKILL);
        waitpid(srv->pid, NULL, 0);
        srv->pid = 0;
    }
}

struct buf {
    char *p;
    size_t n;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *ud)
{
    struct buf *b = ud;
    size_t add = size * nmemb;
    char *np = realloc(b->p, b->n + add + 1);
    if (!np)
        return 0;
    memcpy(np + b->n, data, add);
    b->p = np;
    b->n += add;
    b->p[b->n] = '\0';
    return add;
}

int e2e_request(const struct e2e_server *srv, const char *method, const char *path,
                const char *const *headers, const char *body, size_t body_len, struct e2e_resp *out)
{
    char url[2400];
    struct buf b = {0}, h = {0};
    struct curl_slist *hl = NULL;
    CURL *c = curl_easy_init();
    CURLcode rc;

    memset(out, 0, sizeof *out);
    if (!c)
        return -1;
    snprintf(url, sizeof url, "%s%s", srv->base, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    hl = curl_slist_append(hl, "Expect:");
    for (int i = 0; headers && headers[i]; i++)
        hl = curl_slist_append(hl, headers[i]);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    }
    rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    if (rc != CURLE_OK) {
        free(b.p);
        free(h.p);
        return -1;
    }
    out->body = b.p ? b.p : calloc(1, 1);
    out->len = b.n;
    out->headers = h.p ? h.p : calloc(1, 1);
    return 0;
}

const char *e2e_resp_header(const struct e2e_resp *r, const char *name, char *buf, size_t buflen)
{
    size_t nl = strlen(name);
    const char *line = r->headers;
    while (line && *line) {
        const char *eol = strstr(line, "\r\n");
        size_t ll = eol ? (size_t)(eol - line) : strlen(line);
        if (ll > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = ll - (size_t)(v - line);
            if (vl >= buflen)
                vl = buflen - 1;
            memcpy(buf, v, vl);
            buf[vl] = '\0';
            return buf;
        }
        line = eol ? eol + 2 : NULL;
    }
    return NULL;
}

void e2e_resp_release(struct e2e_resp *r)
{
    free(r->body);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

static char *slurp_fd(int fd)
{
    struct buf b = {0};
    char chunk[65536];
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        on_data(chunk, 1, (size_t)r, &b);
    }
    return b.p ? b.p : calloc(1, 1);
}

int e2e_run(const char *const *argv, const char *in_path, char **out, char **errout)
{
    char errfile[] = "/tmp/gpuplan-e2e-err-XXXXXX";
    int pout[2], status = 0;
    int efd = mkstemp(errfile);
    if (efd < 0 || pipe(pout) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(pout[1], 1);
        dup2(efd, 2);
        close(pout[0]);
        const char *args[64];
        int n = 0;
        args[n++] = e2e_bin();
        for (int i = 1; argv[i] && n < 63; i++)
            args[n++] = argv[i];
        args[n] = NULL;
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    close(pout[1]);
    char *o = slurp_fd(pout[0]);
    close(pout[0]);
    waitpid(pid, &status, 0);
    lseek(efd, 0, SEEK_SET);
    char *e = slurp_fd(efd);
    close(efd);
    unlink(errfile);
    if (out)
        *out = o;
    else
        free(o);
    if (errout)
        *errout = e;
    else
        free(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

char *e2e_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *buf;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}
