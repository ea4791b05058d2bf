/* http_ops.c: what operators and tools read: Prometheus metrics and the
 * OpenAPI description. Both are public (no secrets in either), cheap, and
 * never touch the database. */
#include <stdlib.h>

#include "server_int.h"

int http_metrics(struct http_req *req)
{
    size_t len = 0;
    char *text = metrics_render(&len);
    if (!text) {
        http_problem(req, 500, NULL, "cannot render metrics");
        return 0;
    }
    http_send(req, 200, "text/plain; version=0.0.4; charset=utf-8", "Cache-Control: no-store\r\n", text, len);
    free(text);
    return 0;
}

int http_openapi(struct http_req *req)
{
    http_send(req, 200, "application/json", "Cache-Control: no-cache\r\n", openapi_json, openapi_json_len);
    return 0;
}
