/* http_core.c: the handlers every deployment needs: health, readiness and
 * the static web UI.
 *
 * Static files are served from app->web_dir with a fixed extension -> type
 * table (anything else is refused, so a stray file is never served with a
 * guessed type), an ETag from size and mtime, and revalidation for HTML so a
 * deploy shows up at once while scripts and styles may be cached briefly. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "server_int.h"

#define STATIC_FILE_MAX (8u << 20)

int http_healthz(struct http_req *req)
{
    struct db *db = http_db(req);
    if (!db || db_ping(db) != ST_OK) {
        http_problem(req, 503, NULL, "the database does not answer");
        return 0;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "status", "ok");
    http_json(req, 200, doc);
    return 0;
}

int http_readyz(struct http_req *req)
{
    char err[256] = "";
    struct db *db = http_db(req);
    if (!db) {
        http_problem(req, 503, NULL, "the database cannot be opened");
        return 0;
    }
    if (db_quick_check(db, err, sizeof err) != ST_OK) {
        log_msg(LOG_ERROR, "readiness: %s", err);
        http_problem(req, 503, NULL, "the database failed its quick_check");
        return 0;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "status", "ready");
    cJSON_AddNumberToObject(doc, "schema_version", db_schema_version(db));
    http_json(req, 200, doc);
    return 0;
}

static const char *content_type(const char *path, int *is_html)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".json", "application/json"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".woff2", "font/woff2"},
        {".map", "application/json"},
    };
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    *is_html = 0;
    if (!dot || (slash && dot < slash))
        return NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(dot, types[i].ext) == 0) {
            *is_html = i == 0;
            return types[i].type;
        }
    }
    return NULL;
}

/* A request path is safe when every segment is a plain name: no "..", no
 * hidden files, no backslashes or control bytes. */
static int path_is_safe(const char *p)
{
    if (p[0] != '/')
        return 0;
    for (const char *s = p; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || c == '\\')
            return 0;
        if (*s == '/' && s[1] == '.')
            return 0;
    }
    return strstr(p, "//") == NULL;
}

int http_static(struct http_req *req)
{
    char file[4200], etag[64], headers[256];
    const char *path = req->path;
    int fd = -1, is_html = 0;
    struct stat sb;
    char *buf = NULL;

    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
        http_problem(req, 405, NULL, "%s is not allowed on %s", req->method, path);
        return 0;
    }
    if (!path_is_safe(path)) {
        http_problem(req, 404, NULL, "no such file: %s", path);
        return 0;
    }
    if (strcmp(path, "/") == 0)
        path = "/index.html";
    const char *type = content_type(path, &is_html);
    if (!type || snprintf(file, sizeof file, "%s%s", req->app->web_dir, path) >= (int)sizeof file) {
        http_problem(req, 404, NULL, "no such file: %s", req->path);
        return 0;
    }
    fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > STATIC_FILE_MAX) {
        if (fd >= 0)
            close(fd);
        http_problem(req, 404, NULL, "no such file: %s", req->path);
        return 0;
    }
    snprintf(etag, sizeof etag, "\"%llx-%llx\"", (unsigned long long)sb.st_size,
             (unsigned long long)sb.st_mtime);
    snprintf(headers, sizeof headers, "ETag: %s\r\nCache-Control: %s\r\n", etag,
             is_html ? "no-cache" : "public, max-age=300");
    const char *inm = http_header(req, "If-None-Match");
    if (inm && strcmp(inm, etag) == 0) {
        close(fd);
        http_send(req, 304, type, headers, NULL, 0);
        return 0;
    }
    buf = malloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)sb.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf || got != (size_t)sb.st_size) {
        free(buf);
        http_problem(req, 500, NULL, "cannot read %s", req->path);
        return 0;
    }
    http_send(req, 200, type, headers, buf, got);
    free(buf);
    return 0;
}
