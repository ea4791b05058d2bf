/* http_routes.c: every REST and page route in one table, so the whole
 * surface of the server can be read in one place (and checked against
 * openapi.json). Order matters only where two patterns could both match:
 * the first wins. Paths that no route claims are static files under web/. */
#include <stddef.h>

#include "server_int.h"

const struct http_route http_routes[] = {
    {"GET", "/healthz", http_healthz},
    {"GET", "/readyz", http_readyz},
    {"GET", "/metrics", http_metrics},
    {"GET", "/openapi.json", http_openapi},

    {"POST", "/api/v1/teams", http_team_create},
    {"GET", "/api/v1/team", http_team_get},
    {"DELETE", "/api/v1/team/members/{uid}", http_member_delete},
    {"POST", "/api/v1/session", http_session_create},
    {"GET", "/api/v1/session", http_session_get},
    {"DELETE", "/api/v1/session", http_session_delete},
    {"POST", "/api/v1/invites/accept", http_invite_accept},
    {"POST", "/api/v1/invites", http_invite_create},
    {"GET", "/api/v1/invites", http_invite_list},
    {"DELETE", "/api/v1/invites/{iid}", http_invite_delete},
    {"POST", "/api/v1/tokens", http_token_create},
    {"GET", "/api/v1/tokens", http_token_list},
    {"DELETE", "/api/v1/tokens/{tid}", http_token_delete},

    {"POST", "/api/v1/webhooks", http_webhook_create},
    {"GET", "/api/v1/webhooks", http_webhook_list},
    {"DELETE", "/api/v1/webhooks/{wid}", http_webhook_delete},
    {"GET", "/api/v1/webhooks/{wid}/deliveries", http_webhook_deliveries},
    {NULL, NULL, NULL},
};
