/* test_server.c: the foundation end to end: the real binary, a temporary
 * database, real HTTP over loopback. */
#include <check.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

static struct e2e_server srv;

static void start_default(void)
{
    ck_assert_int_eq(e2e_start(&srv, NULL, NULL), 0);
}

static void stop_default(void)
{
    ck_assert_int_eq(e2e_stop(&srv), 0);
}

START_TEST(healthz_answers_ok_with_security_headers)
{
    struct e2e_resp r;
    char h[512];
    ck_assert_int_eq(e2e_request(&srv, "GET", "/healthz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    cJSON *doc = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "status")->valuestring, "ok");
    cJSON_Delete(doc);
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", h, sizeof h));
    ck_assert_str_eq(h, "application/json");
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Security-Policy", h, sizeof h));
    ck_assert_ptr_nonnull(strstr(h, "script-src 'self'"));
    ck_assert_ptr_null(strstr(h, "unsafe-inline"));
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "X-Content-Type-Options", h, sizeof h));
    ck_assert_str_eq(h, "nosniff");
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Referrer-Policy", h, sizeof h));
    e2e_resp_release(&r);
}
END_TEST

START_TEST(readyz_reports_the_schema_version)
{
    struct e2e_resp r;
    ck_assert_int_eq(e2e_request(&srv, "GET", "/readyz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    cJSON *doc = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(doc);
    ck_assert(cJSON_GetObjectItem(doc, "schema_version")->valueint >= 1);
    cJSON_Delete(doc);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(static_index_is_html_with_an_etag_and_revalidates)
{
    struct e2e_resp r;
    char type[128], etag[128], hdr[200];
    ck_assert_int_eq(e2e_request(&srv, "GET", "/", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", type, sizeof type));
    ck_assert_str_eq(type, "text/html; charset=utf-8");
    ck_assert_ptr_nonnull(strstr(r.body, "<html"));
    ck_assert_ptr_nonnull(e2e_resp_header(&r, "ETag", etag, sizeof etag));
    e2e_resp_release(&r);

    snprintf(hdr, sizeof hdr, "If-None-Match: %s", etag);
    const char *headers[] = {hdr, NULL};
    ck_assert_int_eq(e2e_request(&srv, "GET", "/", headers, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 304);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(static_files_carry_their_content_types)
{
    static const struct {
        const char *path, *type;
    } cases[] = {
        {"/style.css", "text/css; charset=utf-8"},
        {"/js/planner.js", "text/javascript; charset=utf-8"},
        {"/share.css", "text/css; charset=utf-8"},
        {"/favicon.svg", "image/svg+xml"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct e2e_resp r;
        char type[128];
        ck_assert_int_eq(e2e_request(&srv, "GET", cases[i].path, NULL, NULL, 0, &r), 0);
        ck_assert_msg(r.status == 200, "%s answered %ld", cases[i].path, r.status);
        ck_assert_ptr_nonnull(e2e_resp_header(&r, "Content-Type", type, sizeof type));
        ck_assert_str_eq(type, cases[i].type);
        e2e_resp_release(&r);
    }
}
END_TEST

static void assert_problem(struct e2e_resp *r, long status)
{
    char type[128];
    ck_assert_int_eq(r->status, status);
    ck_assert_ptr_nonnull(e2e_resp_header(r, "Content-Type", type, sizeof type));
    ck_assert_str_eq(type, "application/problem+json");
    cJSON *doc = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetObjectItem(doc, "status")->valueint, status);
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(doc, "title")));
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(doc, "detail")));
    cJSON_Delete(doc);
}

START_TEST(unknown_api_path_is_a_404_problem)
{
    struct e2e_resp r;
    ck_assert_int_eq(e2e_request(&srv, "GET", "/api/v1/no-such-thing", NULL, NULL, 0, &r), 0);
    assert_problem(&r, 404);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_request(&srv, "GET", "/no-such-page.html", NULL, NULL, 0, &r), 0);
    assert_problem(&r, 404);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(path_traversal_never_leaves_the_web_folder)
{
    static const char *const paths[] = {"/../CMakeLists.txt", "/%2e%2e/CMakeLists.txt",
                                        "/.git/config", "/..%2fCMakeLists.txt", "/web/../../etc/passwd"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct e2e_resp r;
        ck_assert_int_eq(e2e_request(&srv, "GET", paths[i], NULL, NULL, 0, &r), 0);
        ck_assert_msg(r.status == 404 || r.status == 400, "%s answered %ld", paths[i], r.status);
        ck_assert_ptr_null(strstr(r.body, "cmake_minimum_required"));
        e2e_resp_release(&r);
    }
}
END_TEST

START_TEST(wrong_method_on_a_route_is_405)
{
    struct e2e_resp r;
    ck_assert_int_eq(e2e_request(&srv, "DELETE", "/healthz", NULL, NULL, 0, &r), 0);
    assert_problem(&r, 405);
    e2e_resp_release(&r);
}
END_TEST

START_TEST(oversize_body_is_a_413_problem)
{
    struct e2e_server small;
    static const char *const extra[] = {"--max-body", "1024", "--max-report", "2048", NULL};
    ck_assert_int_eq(e2e_start(&small, NULL, extra), 0);
    size_t n = 64 * 1024;
    char *body = malloc(n);
    memset(body, 'x', n);
    struct e2e_resp r;
    const char *headers[] = {"Content-Type: text/plain", NULL};
    ck_assert_int_eq(e2e_request(&small, "POST", "/healthz", headers, body, n, &r), 0);
    assert_problem(&r, 413);
    e2e_resp_release(&r);
    free(body);
    /* and the server goes on serving */
    ck_assert_int_eq(e2e_request(&small, "GET", "/healthz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&small), 0);
}
END_TEST

START_TEST(access_log_has_one_line_per_request)
{
    struct e2e_server s;
    struct e2e_resp r;
    char path[400], line[1024];
    int hits = 0;
    ck_assert_int_eq(e2e_start(&s, NULL, NULL), 0);
    ck_assert_int_eq(e2e_request(&s, "GET", "/healthz?probe=1", NULL, NULL, 0, &r), 0);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&s), 0);
    snprintf(path, sizeof path, "%s/server.log", s.dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "GET /healthz 200 ") && strstr(line, "B ") && strstr(line, "ms"))
            hits++;
    }
    fclose(f);
    ck_assert_int_eq(hits, 1);
}
END_TEST

START_TEST(restart_on_the_same_database_keeps_the_schema)
{
    struct e2e_server a, b;
    struct e2e_resp r;
    char path[300];
    ck_assert_int_eq(e2e_start(&a, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s", a.db_path);
    ck_assert_int_eq(e2e_stop(&a), 0);
    ck_assert_int_eq(e2e_start(&b, path, NULL), 0); /* migrations run again: a no-op */
    ck_assert_int_eq(e2e_request(&b, "GET", "/readyz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);
    ck_assert_int_eq(e2e_stop(&b), 0);
}
END_TEST

START_TEST(a_database_newer_than_the_binary_is_refused)
{
    char path[] = "/tmp/gpuplan-newer-XXXXXX.db";
    int fd = mkstemps(path, 3);
    ck_assert_int_ge(fd, 0);
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE keep(x); INSERT INTO keep VALUES (42); PRAGMA user_version = 9999;",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    char *out = NULL, *err = NULL;
    const char *argv[] = {"gpuplan", "serve", "--port", "0", "--db", path, NULL};
    int rc = e2e_run(argv, NULL, &out, &err);
    ck_assert_int_eq(rc, 1);
    ck_assert_ptr_nonnull(strstr(err, "newer"));
    free(out);
    free(err);

    /* the data is untouched */
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT x FROM keep", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), 42);
    sqlite3_finalize(st);
    sqlite3_close(db);
    unlink(path);
}
END_TEST

START_TEST(help_is_printed_for_the_program_and_each_command)
{
    char *out = NULL, *err = NULL;
    const char *a1[] = {"gpuplan", "--help", NULL};
    ck_assert_int_eq(e2e_run(a1, NULL, &out, &err), 0);
    ck_assert_ptr_nonnull(strstr(out, "serve"));
    free(out);
    free(err);
    const char *a2[] = {"gpuplan", "serve", "--help", NULL};
    ck_assert_int_eq(e2e_run(a2, NULL, &out, &err), 0);
    ck_assert_ptr_nonnull(strstr(out, "--port"));
    free(out);
    free(err);
    const char *a3[] = {"gpuplan", "frobnicate", NULL};
    ck_assert_int_eq(e2e_run(a3, NULL, &out, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "gpuplan: frobnicate: "));
    free(out);
    free(err);
    const char *a4[] = {"gpuplan", "serve", "--port", "99999", NULL};
    ck_assert_int_eq(e2e_run(a4, NULL, &out, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "--port"));
    free(out);
    free(err);
}
END_TEST


START_TEST(handlers_have_stack_enough_for_the_planner_and_deep_json)
{
    /* Debian's civetweb gives its threads 100 KiB stacks; both of these used to crash the server. */
    static const char big[] = "{\"model\":{\"preset\":\"llama-3.1-405b\"},\"task\":\"pretrain\","
                              "\"tokens_b\":15000,\"max_gpus\":16384}";
    struct e2e_resp r;
    const char *json[] = {"Content-Type: application/json", NULL};
    ck_assert_int_eq(e2e_request(&srv, "POST", "/api/v1/recommend", json, big, sizeof big - 1, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);

    size_t depth = 990, n = 2 * depth;
    char *nested = malloc(n + 1);
    memset(nested, '[', depth);
    memset(nested + depth, ']', depth);
    nested[n] = '\0';
    ck_assert_int_eq(e2e_request(&srv, "POST", "/api/v1/estimate", json, nested, n, &r), 0);
    ck_assert_int_eq(r.status, 400);
    e2e_resp_release(&r);
    free(nested);
    ck_assert_int_eq(e2e_request(&srv, "GET", "/healthz", NULL, NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    e2e_resp_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server");
    TCase *tc = tcase_create("running");
    tcase_add_unchecked_fixture(tc, start_default, stop_default); /* one server for the whole case */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, healthz_answers_ok_with_security_headers);
    tcase_add_test(tc, readyz_reports_the_schema_version);
    tcase_add_test(tc, static_index_is_html_with_an_etag_and_revalidates);
    tcase_add_test(tc, static_files_carry_their_content_types);
    tcase_add_test(tc, unknown_api_path_is_a_404_problem);
    tcase_add_test(tc, path_traversal_never_leaves_the_web_folder);
    tcase_add_test(tc, wrong_method_on_a_route_is_405);
    tcase_add_test(tc, handlers_have_stack_enough_for_the_planner_and_deep_json);
    suite_add_tcase(s, tc);

    TCase *life = tcase_create("lifecycle");
    tcase_set_timeout(life, 60);
    tcase_add_test(life, oversize_body_is_a_413_problem);
    tcase_add_test(life, access_log_has_one_line_per_request);
    tcase_add_test(life, restart_on_the_same_database_keeps_the_schema);
    tcase_add_test(life, a_database_newer_than_the_binary_is_refused);
    tcase_add_test(life, help_is_printed_for_the_program_and_each_command);
    suite_add_tcase(s, life);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
