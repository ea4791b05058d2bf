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

    {"POST", "/api/v1/plans", http_plan_create},
    {"GET", "/api/v1/plans", http_plan_list},
    {"GET", "/api/v1/plans/{id}", http_plan_get},
    {"PUT", "/api/v1/plans/{id}", http_plan_update},
    {"DELETE", "/api/v1/plans/{id}", http_plan_delete},
    {"PUT", "/api/v1/plans/{id}/tier", http_plan_tier},
    {"GET", "/api/v1/plans/{id}/revisions", http_plan_revisions},
    {"GET", "/api/v1/plans/{id}/revisions/{rev}", http_plan_revision},
    {"GET", "/api/v1/plans/{id}/diff", http_plan_diff},
    {"POST", "/api/v1/plans/{id}/reports", http_report_create},
    {"GET", "/api/v1/plans/{id}/reports", http_report_list},
    {"GET", "/api/v1/plans/{id}/reports/{rid}", http_report_get},
    {"POST", "/api/v1/plans/{id}/recheck", http_report_recheck},
    {"POST", "/api/v1/plans/{id}/shares", http_share_create},
    {"GET", "/api/v1/plans/{id}/shares", http_share_list},
    {"DELETE", "/api/v1/shares/{sid}", http_share_delete},
    {"GET", "/s/{token}.json", http_share_json},
    {"GET", "/s/{token}.csv", http_share_csv},
    {"GET", "/s/{token}", http_share_page},

    {"POST", "/api/v1/webhooks", http_webhook_create},
    {"GET", "/api/v1/webhooks", http_webhook_list},
    {"DELETE", "/api/v1/webhooks/{wid}", http_webhook_delete},
    {"GET", "/api/v1/webhooks/{wid}/deliveries", http_webhook_deliveries},
    {"GET", "/api/v1/catalog", http_catalog},
    {"POST", "/api/v1/recommend", http_recommend},
    {"POST", "/api/v1/estimate", http_estimate},
    {NULL, NULL, NULL},
};
