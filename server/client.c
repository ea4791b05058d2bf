/* client.c: every use of libcurl: one blocking HTTP exchange, used by
 * `gpuplan submit` and by the webhook sender.
 *
 * Only http and https are allowed, redirects are not followed (a webhook
 * URL or a --server answer cannot bounce a request, and its credentials,
 * elsewhere), and the response kept in memory is capped. With public_only
 * (webhooks) every socket libcurl opens goes through guard_socket first,
 * which refuses non-public addresses (netaddr.c): the check runs on the
 * address actually connected to, after DNS, so a name that resolves to a
 * public address at registration and to 127.0.0.1 later is still refused. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server_int.h"

#define RESPONSE_MAX (16u << 20)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct sink {
    struct sbuf b;
    int over;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *ud)
{
    struct sink *s = ud;
    size_t n = size * nmemb;
    if (s->b.len + n > RESPONSE_MAX) {
        s->over = 1;
        return 0;
    }
    sbuf_add(&s->b, data, n);
    return s->b.failed ? 0 : n;
}

struct guard {
    int refused, opened;         /* addresses refused / sockets opened */
    enum addr_class cls;         /* the class of the last one */
    char addr[64];
};

static curl_socket_t guard_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct guard *g = ud;
    enum addr_class cls = addr_classify(&a->addr);
    if (purpose != CURLSOCKTYPE_IPCXN || cls != ADDR_PUBLIC) {
        g->refused++;
        g->cls = cls;
        addr_text(&a->addr, g->addr, sizeof g->addr);
        return CURL_SOCKET_BAD;
    }
    g->opened++;
    return socket(a->family, a->socktype, a->protocol);
}

enum status client_send(const struct client_request *rq, struct client_response *out, char *err, size_t errlen)
{
    struct sink sink;
    struct guard guard;
    struct curl_slist *hl = NULL;
    curl_mime *mime = NULL;
    char curl_err[CURL_ERROR_SIZE] = "";
    enum status st = ST_OK;
    CURL *c;

    memset(out, 0, sizeof *out);
    memset(&sink, 0, sizeof sink);
    memset(&guard, 0, sizeof guard);
    pthread_once(&once, global_init);
    if (!(c = curl_easy_init())) {
        snprintf(err, errlen, "cannot start an HTTP client");
        return ST_NOMEM;
    }
    curl_easy_setopt(c, CURLOPT_URL, rq->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, rq->timeout_s > 0 ? rq->timeout_s : 30L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuplan/" GPUPLAN_VERSION);
    if (rq->public_only) {
        curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, guard_socket);
        curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &guard);
        curl_easy_setopt(c, CURLOPT_PROXY, ""); /* the guard must see the destination, not a proxy */
    }
    hl = curl_slist_append(hl, "Expect:");
    for (int i = 0; rq->headers && rq->headers[i]; i++)
        hl = curl_slist_append(hl, rq->headers[i]);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    if (rq->parts && rq->nparts > 0) {
        mime = curl_mime_init(c);
        for (int i = 0; i < rq->nparts; i++) {
            curl_mimepart *part = curl_mime_addpart(mime);
            curl_mime_name(part, rq->parts[i].name);
            curl_mime_data(part, rq->parts[i].data, rq->parts[i].len);
            if (rq->parts[i].filename) {
                curl_mime_filename(part, rq->parts[i].filename);
                curl_mime_type(part, "text/plain");
            }
        }
        curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
    } else if (rq->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
    }
    if (rq->method)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);

    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK && guard.refused && !guard.opened) {
        snprintf(err, errlen, "refused to connect to %s, a %s address: webhooks reach only public addresses "
                 "unless the server runs with --webhook-allow-private", guard.addr, addr_class_str(guard.cls));
        st = ST_FORBIDDEN;
        sbuf_release(&sink.b);
    } else if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s", sink.over ? "the response is larger than 16 MiB"
                                   : curl_err[0] ? curl_err : curl_easy_strerror(rc));
        st = ST_IO;
        sbuf_release(&sink.b);
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
        out->body = sbuf_detach(&sink.b, &out->len);
        if (!out->body)
            st = ST_NOMEM;
    }
    curl_mime_free(mime);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    return st;
}

void client_response_release(struct client_response *r)
{
    if (!r)
        return;
    free(r->body);
    memset(r, 0, sizeof *r);
}
