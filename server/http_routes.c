/* http_routes.c: every REST and page route in one table, so the whole
 * surface of the server can be read in one place (and checked against
 * openapi.json). Order matters only where two patterns could both match:
 * the first wins. Paths that no route claims are static files under web/. */
#include <stddef.h>

#include "server_int.h"

const struct http_route http_routes[] = {
    {"GET", "/healthz", http_healthz},
    {"GET", "/readyz", http_readyz},
    {"GET", "/api/v1/catalog", http_catalog},
    {"POST", "/api/v1/recommend", http_recommend},
    {"POST", "/api/v1/estimate", http_estimate},
    {NULL, NULL, NULL},
};
