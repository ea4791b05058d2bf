/* test_server_units.c: the server's self-contained pieces: crypto (known
 * vectors from RFC 6070-style PBKDF2-HMAC-SHA256 tables and RFC 4231),
 * constant-time comparison, CSV escaping, the webhook address classifier,
 * the OpenAPI document against the route table, and the JSON writer (numbers,
 * strings, the recommendation frontier, recorded parts against the plain
 * writer). */
#include <check.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "server_int.h"
#include "search_memo.h"

static void hex_of(const unsigned char *in, size_t n, char *out)
{
    crypto_hex(in, n, out);
}

START_TEST(pbkdf2_sha256_matches_the_published_vectors)
{
    static const struct {
        const char *pw, *salt;
        unsigned iter;
        const char *hex;
    } v[] = {
        {"password", "salt", 1, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"},
        {"password", "salt", 2, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"},
        {"password", "salt", 4096, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned char out[32];
        char hex[65];
        ck_assert_int_eq(crypto_pbkdf2_sha256(v[i].pw, strlen(v[i].pw), (const unsigned char *)v[i].salt,
                                              strlen(v[i].salt), v[i].iter, out, sizeof out),
                         ST_OK);
        hex_of(out, sizeof out, hex);
        ck_assert_str_eq(hex, v[i].hex);
    }
}
END_TEST

START_TEST(hmac_sha256_matches_rfc_4231)
{
    unsigned char out[32];
    char hex[65];
    static const char data[] = "what do ya want for nothing?";
    crypto_hmac_sha256("Jefe", 4, data, strlen(data), out);
    hex_of(out, sizeof out, hex);
    ck_assert_str_eq(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}
END_TEST

START_TEST(sha256_of_abc_is_the_fips_vector)
{
    char hex[65];
    crypto_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(password_hashes_are_salted_and_verify_only_the_right_password)
{
    char a[CRYPTO_PASSWORD_HASH_MAX], b[CRYPTO_PASSWORD_HASH_MAX];
    /* Few iterations keep the test fast; the format carries the count. */
    ck_assert_int_eq(crypto_password_hash("correct horse battery", 1000, a, sizeof a), ST_OK);
    ck_assert_int_eq(crypto_password_hash("correct horse battery", 1000, b, sizeof b), ST_OK);
    ck_assert_str_ne(a, b); /* per-user salt */
    ck_assert_ptr_nonnull(strstr(a, "pbkdf2-sha256$1000$"));
    ck_assert_ptr_null(strstr(a, "correct"));
    ck_assert_int_eq(crypto_password_verify("correct horse battery", a), 1);
    ck_assert_int_eq(crypto_password_verify("correct horse batterz", a), 0);
    ck_assert_int_eq(crypto_password_verify("correct horse battery", "pbkdf2-sha256$1000$zz$zz"), 0);
    ck_assert_int_eq(crypto_password_verify("x", ""), 0);
}
END_TEST

START_TEST(the_server_hashes_passwords_with_at_least_600000_iterations)
{
    ck_assert_int_ge(CRYPTO_PBKDF2_ITERATIONS, 600000);
}
END_TEST

START_TEST(constant_time_compare_tells_equal_from_different)
{
    ck_assert_int_eq(crypto_equal("abcdef", "abcdef", 6), 1);
    ck_assert_int_eq(crypto_equal("abcdef", "abcdeg", 6), 0);
    ck_assert_int_eq(crypto_equal("xbcdef", "abcdef", 6), 0);
    ck_assert_int_eq(crypto_equal_str("token", "token"), 1);
    ck_assert_int_eq(crypto_equal_str("token", "tokens"), 0);
    ck_assert_int_eq(crypto_equal_str("", ""), 1);
}
END_TEST

START_TEST(tokens_carry_their_prefix_and_256_random_bits)
{
    char a[80], b[80];
    ck_assert_int_eq(crypto_token("gpp_", 32, a, sizeof a), ST_OK);
    ck_assert_int_eq(crypto_token("gpp_", 32, b, sizeof b), ST_OK);
    ck_assert_int_eq((int)strlen(a), 4 + 64);
    ck_assert(strncmp(a, "gpp_", 4) == 0);
    ck_assert_str_ne(a, b);
    for (size_t i = 4; i < strlen(a); i++)
        ck_assert(isxdigit((unsigned char)a[i]));
    ck_assert_int_eq(crypto_token("gpp_", 32, a, 20), ST_INVALID);
}
END_TEST

START_TEST(wipe_zeroes_the_buffer)
{
    char s[] = "secret";
    crypto_wipe(s, sizeof s);
    for (size_t i = 0; i < sizeof s; i++)
        ck_assert_int_eq(s[i], 0);
}
END_TEST

static char *csv_of(const char *cell)
{
    struct sbuf b = {0};
    sbuf_add_csv(&b, cell);
    return sbuf_detach(&b, NULL);
}

START_TEST(csv_cells_follow_rfc_4180_and_defuse_formulas)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "plain"},
        {"", ""},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        {"=1+2", "\"'=1+2\""},
        {"+1", "\"'+1\""},
        {"-2", "\"'-2\""},
        {"@SUM(A1)", "\"'@SUM(A1)\""},
        {"=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""},
        {"\tcmd", "\"'\tcmd\""},
        {"a=b", "a=b"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = csv_of(cases[i].in);
        ck_assert_ptr_nonnull(got);
        ck_assert_msg(strcmp(got, cases[i].out) == 0, "csv(%s) = %s, want %s", cases[i].in, got, cases[i].out);
        free(got);
    }
}
END_TEST

START_TEST(html_and_xml_escaping_cover_markup_characters)
{
    struct sbuf b = {0};
    sbuf_add_html(&b, "<a href=\"x\">'&'</a>");
    char *s = sbuf_detach(&b, NULL);
    ck_assert_str_eq(s, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    free(s);
    sbuf_add_xml(&b, "a<b\x01&");
    s = sbuf_detach(&b, NULL);
    ck_assert_str_eq(s, "a&lt;b&amp;");
    free(s);
}
END_TEST

static void lower(const char *in, char *out, size_t n)
{
    size_t i = 0;
    for (; in[i] && i + 1 < n; i++)
        out[i] = (char)tolower((unsigned char)in[i]);
    out[i] = '\0';
}

START_TEST(every_route_in_the_table_is_described_in_openapi)
{
    cJSON *doc = cJSON_ParseWithLength(openapi_json, openapi_json_len);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "openapi")->valuestring, "3.1.0");
    const cJSON *paths = cJSON_GetObjectItem(doc, "paths");
    ck_assert_ptr_nonnull(paths);
    int n = 0;
    for (const struct http_route *r = http_routes; r->method; r++, n++) {
        char m[16];
        lower(r->method, m, sizeof m);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(paths, r->pattern);
        ck_assert_msg(p != NULL, "openapi.json lacks the path %s", r->pattern);
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(p, m);
        ck_assert_msg(op != NULL, "openapi.json lacks %s %s", r->method, r->pattern);
        ck_assert_msg(cJSON_GetObjectItem(op, "responses") != NULL, "%s %s has no responses", r->method, r->pattern);
    }
    ck_assert_int_gt(n, 30);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(every_path_in_openapi_is_served_by_a_route)
{
    cJSON *doc = cJSON_ParseWithLength(openapi_json, openapi_json_len);
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "paths"))
    {
        const cJSON *op;
        cJSON_ArrayForEach(op, p)
        {
            int found = 0;
            for (const struct http_route *r = http_routes; r->method && !found; r++) {
                char m[16];
                lower(r->method, m, sizeof m);
                found = strcmp(r->pattern, p->string) == 0 && strcmp(m, op->string) == 0;
            }
            ck_assert_msg(found, "openapi.json describes %s %s, which no route serves", op->string, p->string);
        }
    }
    cJSON_Delete(doc);
}
END_TEST

/* ---- the webhook SSRF guard's address classes ---- */

static enum addr_class class_of(const char *text)
{
    enum addr_class c = ADDR_PUBLIC;
    ck_assert_msg(addr_literal_class(text, &c), "not an address: %s", text);
    return c;
}

START_TEST(address_classes_refuse_loopback_private_link_local_and_their_ipv6_forms)
{
    static const struct {
        const char *addr;
        enum addr_class want;
    } cases[] = {
        {"127.0.0.1", ADDR_LOOPBACK},       {"127.255.255.254", ADDR_LOOPBACK}, {"::1", ADDR_LOOPBACK},
        {"10.1.2.3", ADDR_PRIVATE},         {"172.16.0.1", ADDR_PRIVATE},       {"172.31.255.255", ADDR_PRIVATE},
        {"192.168.1.1", ADDR_PRIVATE},      {"100.64.0.1", ADDR_PRIVATE},       {"198.18.0.1", ADDR_PRIVATE},
        {"fd00::1", ADDR_PRIVATE},          {"fc12::5", ADDR_PRIVATE},          {"fec0::1", ADDR_PRIVATE},
        {"169.254.169.254", ADDR_LINK_LOCAL}, {"fe80::1", ADDR_LINK_LOCAL},     {"febf::1", ADDR_LINK_LOCAL},
        {"224.0.0.1", ADDR_MULTICAST},      {"239.255.255.250", ADDR_MULTICAST}, {"ff02::1", ADDR_MULTICAST},
        {"0.0.0.0", ADDR_UNSPECIFIED},      {"0.1.2.3", ADDR_UNSPECIFIED},      {"::", ADDR_UNSPECIFIED},
        {"255.255.255.255", ADDR_RESERVED}, {"240.0.0.1", ADDR_RESERVED},       {"192.0.2.7", ADDR_RESERVED},
        {"2001:db8::1", ADDR_RESERVED},
        /* IPv6 spellings of IPv4 addresses are judged by the IPv4 address. */
        {"::ffff:127.0.0.1", ADDR_LOOPBACK}, {"::ffff:169.254.169.254", ADDR_LINK_LOCAL},
        {"64:ff9b::10.0.0.1", ADDR_PRIVATE}, {"2002:c0a8:0101::1", ADDR_PRIVATE}, {"::127.0.0.1", ADDR_LOOPBACK},
        {"::ffff:8.8.8.8", ADDR_PUBLIC},
        /* Next to the edges of the ranges, and ordinary public addresses. */
        {"172.15.255.255", ADDR_PUBLIC},    {"172.32.0.0", ADDR_PUBLIC},        {"100.63.255.255", ADDR_PUBLIC},
        {"100.128.0.0", ADDR_PUBLIC},       {"169.253.255.255", ADDR_PUBLIC},   {"223.255.255.255", ADDR_PUBLIC},
        {"1.1.1.1", ADDR_PUBLIC},           {"2606:4700::1111", ADDR_PUBLIC},   {"fe00::1", ADDR_PUBLIC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(class_of(cases[i].addr) == cases[i].want, "%s: got %s, want %s", cases[i].addr,
                      addr_class_str(class_of(cases[i].addr)), addr_class_str(cases[i].want));
}
END_TEST

START_TEST(url_host_literals_are_found_behind_userinfo_ports_and_brackets)
{
    enum addr_class c;
    char host[64];
    ck_assert_int_eq(url_host_literal_class("http://127.0.0.1:8080/hook", &c, host, sizeof host), 1);
    ck_assert_int_eq(c, ADDR_LOOPBACK);
    ck_assert_str_eq(host, "127.0.0.1");
    ck_assert_int_eq(url_host_literal_class("https://user:pw@169.254.169.254/latest/meta-data", &c, host, sizeof host), 1);
    ck_assert_int_eq(c, ADDR_LINK_LOCAL);
    ck_assert_int_eq(url_host_literal_class("http://[::1]:9/x", &c, host, sizeof host), 1);
    ck_assert_int_eq(c, ADDR_LOOPBACK);
    ck_assert_str_eq(host, "::1");
    ck_assert_int_eq(url_host_literal_class("http://[fe80::1%25eth0]/x", &c, host, sizeof host), 1);
    ck_assert_int_eq(c, ADDR_LINK_LOCAL);
    ck_assert_int_eq(url_host_literal_class("https://1.1.1.1?x=127.0.0.1", &c, host, sizeof host), 1);
    ck_assert_int_eq(c, ADDR_PUBLIC);
    /* Names are judged at delivery, on what they resolve to. */
    ck_assert_int_eq(url_host_literal_class("http://localhost:8080/", &c, host, sizeof host), 0);
    ck_assert_int_eq(url_host_literal_class("https://hooks.example.test/x", &c, host, sizeof host), 0);
}
END_TEST

/* json_write_number: every double reads back as itself, in its shortest
 * fixed form when it has few decimals. */
START_TEST(json_numbers_read_back_as_the_same_double)
{
    static const double fixed[] = {0, 1, -1, 0.5, -0.25, 0.1, 0.3, 12.3, 1234.56, 1e-7, 123456789.123, 2.5e-9,
                                   9007199254740991.0, 9007199254740993.0, 1e15, 1e16, 1e20, 1.7976931348623157e308,
                                   4.9e-324, 2.2250738585072014e-308, 0.30000000000000004, 1.0 / 3.0, 2147483648.0,
                                   -2147483649.0, 4503599627370495.5};
    static const struct { double d; const char *text; } forms[] = {
        {0.1, "0.1"}, {12.3, "12.3"}, {-0.25, "-0.25"}, {5000000, "5000000"}, {3e9, "3000000000"},
        {1234.56, "1234.56"}, {0.05, "0.05"}, {1e-7, "0.0000001"},
    };
    char out[32];
    unsigned long long st = 88172645463325252ULL;

    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        json_write_number(out, fixed[i]);
        ck_assert_msg(strtod(out, NULL) == fixed[i], "%.17g printed as %s", fixed[i], out);
        json_write_number(out, -fixed[i]);
        ck_assert_msg(strtod(out, NULL) == -fixed[i], "%.17g printed as %s", -fixed[i], out);
    }
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        json_write_number(out, forms[i].d);
        ck_assert_str_eq(out, forms[i].text);
    }
    json_write_number(out, NAN);
    ck_assert_str_eq(out, "null");
    json_write_number(out, -INFINITY);
    ck_assert_str_eq(out, "null");
    for (int i = 0; i < 200000; i++) {   /* random bit patterns and random rounded values */
        double d;
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        if (i % 2) {
            memcpy(&d, &st, sizeof d);
            if (!isfinite(d))
                continue;
        } else {
            d = round((double)(st % 100000000000ULL) / 7.0) / pow(10.0, (double)(st % 7));
        }
        json_write_number(out, d);
        ck_assert_msg(strtod(out, NULL) == d, "%.17g printed as %s", d, out);
    }
}
END_TEST

/* json_write_number_dec, given a count of decimals, prints what
 * json_write_number prints, for values rounded to that many decimals (its
 * fast form), to other counts, and for any double at all (the hint is
 * only a hint): whole numbers, trailing zeros, negative zero, both sides
 * of 2^50, NaN and infinities. */
START_TEST(json_numbers_with_a_decimals_hint_print_as_without_it)
{
    static const double edge[] = {0, -0.0, 1, -1, 0.5, 0.1, 0.30000000000000004, 123.65, 60.004, 82430.1, 1e15,
                                  1125899906842623.0, 1125899906842624.5, 0x1p50, 0x1p53, 1e-9, 1.5e-9, 4.9e-324,
                                  NAN, INFINITY, -INFINITY, 1e300};
    unsigned long long st = 0x3c6ef372fe94f82bULL;
    for (int i = 0; i < 400000; i++) {
        char mine[32], want[32];
        double d;
        int dec = i % 11;   /* 0 and 10: no fast form */
        if (i < (int)(sizeof edge / sizeof edge[0]) * 11) {
            d = edge[i / 11];
        } else {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            if (i % 4 == 0) {
                memcpy(&d, &st, sizeof d);
            } else {   /* rounded to some count of decimals, around 10^-3 .. 10^16 */
                double scale = pow(10.0, (double)(st % 10)), m = (double)(st >> 20) / pow(10.0, (double)(st % 17));
                d = round(m * scale) / scale;
                if (st & 1)
                    d = -d;
            }
        }
        json_write_number(want, d);
        json_write_number_dec(mine, d, dec);
        ck_assert_msg(strcmp(mine, want) == 0, "%a with %d decimals: %s, without the hint %s", d, dec, mine, want);
    }
}
END_TEST

/* Above 2^53 json_write_number formats on 128-bit integers instead of
 * snprintf/strtod: the same text as the first of %.15g, %.16g, %.17g that
 * reads back, over random doubles of that range and round decimal values
 * (ties, carries into a new digit, powers of two). */
START_TEST(json_numbers_above_2_53_print_as_the_c_library_does)
{
    static const double edge[] = {9007199254740992.0, 9007199254740994.0, 1e16, 1e17, 1e20, 1e22, 1e23, 4.334e24,
                                  9.9999999999999999e22, 0x1p64, 0x1p100, 0x1p119, 123456789012345678.0,
                                  999999999999999950000.0, 2.5e17, 3.5e17};
    unsigned long long st = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 300000; i++) {
        char mine[32], want[32];
        double d;
        if (i < (int)(sizeof edge / sizeof edge[0])) {
            d = edge[i];
        } else {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            if (i % 3 == 0) {   /* any bit pattern in [2^53, 2^120) */
                d = ldexp(1.0 + (double)(st >> 12) / 4503599627370496.0, 53 + (int)(st % 67));
            } else {            /* few significant digits: ties and carries */
                d = (double)(st % 100000 + 1) * pow(10.0, 12 + (double)(st % 23));
                if (!(d >= 9007199254740992.0) || d >= 0x1p120)
                    continue;
            }
        }
        if (i % 2)
            d = -d;
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(want, sizeof want, "%.*g", prec, d);
            if (prec == 17 || strtod(want, NULL) == d)
                break;
        }
        json_write_number(mine, d);
        ck_assert_msg(strcmp(mine, want) == 0, "%a: %s, the C library %s", d, mine, want);
    }
}
END_TEST

/* json_write: the same JSON value as cJSON's printer, strings escaped alike. */
START_TEST(json_write_prints_the_same_document_as_cjson)
{
    static const char doc_text[] =
        "{\"a\":[1,2.5,-3,1e300,0.1,null,true,false],\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u001f\u00e9\","
        "\"o\":{\"\":{},\"e\":[],\"x\\\"y\":123456789012}}";
    cJSON *doc = cJSON_Parse(doc_text), *back;
    size_t len = 0;
    char *mine, *theirs;

    ck_assert_ptr_nonnull(doc);
    mine = json_write(doc, &len);
    theirs = cJSON_PrintUnformatted(doc);
    ck_assert_ptr_nonnull(mine);
    ck_assert_uint_eq(len, strlen(mine));
    ck_assert_str_eq(mine, theirs);   /* this document has only short numbers: byte for byte */
    back = cJSON_Parse(mine);
    ck_assert(cJSON_Compare(doc, back, 1));
    cJSON_Delete(back);
    cJSON_Delete(doc);
    free(mine);
    cJSON_free(theirs);
}
END_TEST

/* json_write_cjson must write exactly what cJSON_PrintUnformatted writes:
 * report sections and findings are stored with it, and stored text keeps
 * cJSON's form. Numbers of every kind (whole and not, either side of 2^31,
 * 10^15 and 10^-4, few and many digits, negative zero, random bit
 * patterns; cJSON 1.7.15 reads valuedouble alone), then the documents the
 * report parsers and checker make of every report fixture. And settled
 * (json_write_cjson_settle), a tree answers as the stored text's parse would. */
static void same_as_cjson(const cJSON *doc, const char *what)
{
    size_t len = 0;
    char *mine = json_write_cjson(doc, &len), *theirs = cJSON_PrintUnformatted(doc);
    ck_assert_ptr_nonnull(mine);
    ck_assert_ptr_nonnull(theirs);
    ck_assert_uint_eq(len, strlen(mine));
    ck_assert_msg(strcmp(mine, theirs) == 0, "%s: cJSON wrote %.300s, json_write_cjson %.300s", what, theirs, mine);
    /* Settled, a copy writes the same text and is then the document a
     * reader of that text parses: json_write prints both alike. */
    cJSON *copy = cJSON_Duplicate(doc, 1), *read = cJSON_Parse(theirs);
    char *settled = json_write_cjson_settle(copy, NULL);
    ck_assert_str_eq(settled, theirs);
    char *a = json_write(copy, NULL), *b = json_write(read, NULL);
    ck_assert_msg(a && b && strcmp(a, b) == 0, "%s: settled %.300s, parsed %.300s", what, a, b);
    free(a);
    free(b);
    free(settled);
    cJSON_Delete(copy);
    cJSON_Delete(read);
    free(mine);
    cJSON_free(theirs);
}

static void number_as_cjson(double d)
{
    char what[64];
    cJSON *n = cJSON_CreateNumber(d);
    snprintf(what, sizeof what, "%.17g", d);
    same_as_cjson(n, what);
    cJSON_Delete(n);
}

static void reports_as_cjson(const char *dir, int *files)
{
    char path[1024];
    DIR *d = opendir(dir);
    struct dirent *e;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        struct stat sb;
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            reports_as_cjson(path, files);
            continue;
        }
        if ((n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) || (n > 3 && strcmp(e->d_name + n - 3, ".md") == 0) ||
            strcmp(e->d_name, "COMMAND") == 0 || sb.st_size <= 0 || sb.st_size > (1 << 22))
            continue;
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        char *text = malloc((size_t)sb.st_size + 1);
        size_t got = fread(text, 1, (size_t)sb.st_size, f);
        fclose(f);
        text[got] = '\0';
        cJSON *sections = NULL, *verdict = NULL;
        char err[256];
        if (report_analyze(text, got, NULL, NULL, NULL, &sections, &verdict, err, sizeof err) == ST_OK) {
            same_as_cjson(sections, path);
            same_as_cjson(verdict, path);
            (*files)++;
        }
        cJSON_Delete(sections);
        cJSON_Delete(verdict);
        free(text);
    }
    closedir(d);
}

START_TEST(json_write_cjson_writes_the_bytes_cjson_prints)
{
    static const double fixed[] = {0, 1, 0.5, 0.25, 0.1, 0.3, 12.3, 1234.5, 1234.56, 1e-4, 1.5e-4, 9.99e-5, 1e-5,
                                   5e-5, 0.00012345, 1e-7, 123456789.123, 2.5e-9, 2147483647.0, 2147483648.0,
                                   2147483647.5, 4294967296.0, 1e14, 99999999999999.9, 999999999999999.0, 1e15,
                                   1e15 + 2, 1e16, 1e20, 123456789012345.6, 12345678901234.56, 1.234567890123456,
                                   9007199254740991.0, 9007199254740993.0, 1.7976931348623157e308, 4.9e-324,
                                   2.2250738585072014e-308, 0.30000000000000004, 0.1 + 0.7, 1.0 / 3.0, 2.0 / 3.0,
                                   100.19999999999999, 404.04, 175.00000000000003, 4503599627370495.5};
    unsigned long long st = 88172645463325252ULL;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        number_as_cjson(fixed[i]);
        number_as_cjson(-fixed[i]);
        number_as_cjson(nextafter(fixed[i], 1e308));
        number_as_cjson(nextafter(fixed[i], -1e308));
    }
    number_as_cjson(NAN);
    number_as_cjson(INFINITY);
    number_as_cjson(-0.0);
    for (int i = 0; i < 300000; i++) {
        double d;
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        if (i % 3 == 0) {
            memcpy(&d, &st, sizeof d);
            if (!isfinite(d))
                continue;
        } else if (i % 3 == 1) {   /* few decimals at every scale: the fast forms and their edges */
            d = (double)(st % 100000000000000000ULL) / pow(10.0, (double)(st % 23));
        } else {                   /* sums that miss a short decimal by an ulp or two */
            d = (double)(st % 100000) / 10.0 + (double)((st >> 20) % 1000) / 100.0;
        }
        number_as_cjson(d);
    }
    /* valueint plays no part in how 1.7.15 prints a number. */
    cJSON *n = cJSON_CreateNumber(0);
    n->valuedouble = 5.0;
    same_as_cjson(n, "valuedouble 5, valueint 0");
    n->valuedouble = 2.5;
    n->valueint = 2;
    same_as_cjson(n, "valuedouble 2.5, valueint 2");
    cJSON_Delete(n);

    int files = 0;
    reports_as_cjson(TESTDATA "/reports", &files);
    ck_assert_int_gt(files, 50); /* 83 fixtures parse to sections today */
}
END_TEST

/* json_write scans strings eight bytes at a time: every byte that must be
 * escaped, at every place in a long string among plain and UTF-8 bytes,
 * comes out as cJSON writes it. */
START_TEST(json_write_escapes_long_strings_as_cjson_does)
{
    static const unsigned char special[] = {1, 8, 9, 10, 12, 13, 0x1f, '"', '\\', ' ', '!', '#', '[', ']',
                                            0x7f, 0x80, 0xc3, 0xe9, 0xff, 0x20, 0x21, 0x5b, 0x5d, 0x3c};
    char str[40];
    for (size_t k = 0; k < sizeof special; k++)
        for (size_t at = 0; at < 30; at++) {
            cJSON *it;
            char *mine, *theirs;
            for (size_t i = 0; i < 30; i++)
                str[i] = (char)(i % 3 == 0 ? 'a' + (int)i : (i % 3 == 1 ? 0xc3 : 0xa9));
            str[at] = (char)special[k];
            str[30 + at % 8] = '\0';
            memset(str + 30, 'z', at % 8);
            str[30 + at % 8] = '\0';
            it = cJSON_CreateString(str);
            ck_assert_ptr_nonnull(it);
            mine = json_write(it, NULL);
            theirs = cJSON_PrintUnformatted(it);
            ck_assert_str_eq(mine, theirs);
            free(mine);
            cJSON_free(theirs);
            cJSON_Delete(it);
        }
}
END_TEST

/* put_string's whole-run copies (16 at a time, the last 16 read again
 * from the string's end, two overlapping words below 16 bytes), and
 * put_string_in's (the end found while escaping, in arrays of every size
 * from the string's own on, junk after its NUL), against cJSON's printer,
 * over random strings of every length from 0 to 100:
 * clean ones, and ones with escaped bytes (controls, quote, backslash) at
 * random places, at the ends and just inside the 4, 8 and 16-byte edges. */
START_TEST(json_strings_of_every_length_are_escaped_as_cjson_does)
{
    static const unsigned char special[] = {1, 8, 9, 10, 12, 13, 0x1f, '"', '\\'};
    static const unsigned char plain[] = {' ', 'a', 'Z', '0', '!', '#', '[', ']', 0x7f, 0x80, 0xc3, 0xe9, 0xff, 0x21,
                                          0x5b, 0x5d, 0x3c, 0x20};
    unsigned long long st = 0x6a09e667f3bcc909ULL;
    char str[128];
    for (int it = 0; it < 120000; it++) {
        size_t n;
        int specials;
        cJSON *doc;
        char *mine, *theirs;
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        n = (size_t)(st % 101);
        for (size_t i = 0; i < n; i++)
            str[i] = (char)plain[((st >> (i % 50)) ^ i) % sizeof plain];
        specials = (int)((st >> 8) % 4);   /* 0: a clean string */
        for (int k = 0; k < specials && n > 0; k++) {
            static const size_t edges[] = {0, 3, 4, 7, 8, 15, 16, 17};
            size_t at = (st >> (16 + 6 * k)) % 3 == 0 ? edges[(st >> (20 + 3 * k)) % 8] % n
                        : (st >> (16 + 6 * k)) % 3 == 1  ? n - 1 - edges[(st >> (20 + 3 * k)) % 8] % n
                                                        : (size_t)((st >> (24 + 5 * k)) % n);
            str[at] = (char)special[(st >> (40 + 4 * k)) % sizeof special];
        }
        str[n] = '\0';
        doc = cJSON_CreateString(str);
        ck_assert_ptr_nonnull(doc);
        mine = json_write(doc, NULL);
        theirs = cJSON_PrintUnformatted(doc);
        if (!mine || !theirs || strcmp(mine, theirs) != 0)
            ck_abort_msg("a string of %zu bytes: %s, cJSON %s", n, mine ? mine : "(null)", theirs ? theirs : "(null)");
        {
            /* the same string held in an array (jw_str_in: its end found in
             * the escaping pass), the bytes after its NUL junk, escapes
             * among them: the array's size from n + 1 on */
            struct jw j;
            char arr[160], *text;
            size_t cap = n + 1 + (size_t)((st >> 50) % 40), len = 0;
            memcpy(arr, str, n + 1);
            for (size_t i = n + 1; i < cap; i++)
                arr[i] = (char)(i % 5 == 0 ? '"' : i % 5 == 1 ? '\n' : 'x');
            jw_init(&j);
            jw_arr(&j, NULL);
            jw_str_in(&j, NULL, arr, cap);
            jw_end(&j);
            text = jw_finish(&j, &len);
            ck_assert_ptr_nonnull(text);
            if (len != strlen(theirs) + 2 || text[0] != '[' || memcmp(text + 1, theirs, len - 2) != 0)
                ck_abort_msg("a string of %zu bytes in %zu: %s, cJSON %s", n, cap, text, theirs);
            free(text);
        }
        free(mine);
        cJSON_free(theirs);
        cJSON_Delete(doc);
    }
}
END_TEST

/* The answer's frontier (json_recommendation_text) is the walk over the
 * candidates sorted by days, then cost, then place, keeping each one
 * cheaper than all before it, at most 64: checked against that walk done
 * here with qsort, on random candidates with many ties in days and cost,
 * on a frontier longer than 64 and on infinite costs. */
struct ref_cand {
    double days, cost;
    int i;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct ref_cand *x = a, *y = b;
    if (x->days != y->days)
        return x->days < y->days ? -1 : 1;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* json_write_number's fast forms against the forms as they were first
 * written (digits one at a time, the decimal search, %.15g..%.17g with a
 * read-back for the rest), over 2M random doubles: integers of every
 * length, few-decimal values, neighbours of 2^53, random bit patterns. */
static void ref_number(char out[32], double d)
{
    static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    char tmp[32], *end = tmp + sizeof tmp, *q;
    double a = fabs(d);
    size_t n = 0;
    if (!isfinite(d)) {
        snprintf(out, 32, "null");
        return;
    }
    if (a < 9007199254740992.0 && (double)(long long)d == d) {
        unsigned long long u = (unsigned long long)a;
        q = end;
        do {
            *--q = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        goto copy;
    }
    for (int k = 1; k <= 9; k++) {
        double v = a * p10[k];
        if (v >= 9007199254740992.0)
            break;
        double r = nearbyint(v);
        if (r / p10[k] == a) {
            unsigned long long u = (unsigned long long)r;
            q = end;
            for (int i = 0; i < k; i++) {
                *--q = (char)('0' + u % 10);
                u /= 10;
            }
            *--q = '.';
            do {
                *--q = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            goto copy;
        }
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, 32, "%.*g", prec, d);
        if (prec == 17 || strtod(out, NULL) == d)
            return;
    }
copy:
    if (d < 0)
        out[n++] = '-';
    while (q < end)
        out[n++] = *q++;
    out[n] = '\0';
}

START_TEST(json_number_fast_forms_equal_the_first_forms)
{
    unsigned long long st = 0x853c49e6748fea9bULL;
    for (int i = 0; i < 2000000; i++) {
        char mine[32], want[32];
        double d;
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned long long x = st >> 11;
        switch (i % 10) {
        case 0:   /* any bit pattern */
            memcpy(&d, &st, sizeof d);
            break;
        case 1:
        case 2:
        case 3:   /* an integer of 1 to 16 digits */
            d = (double)(x % (unsigned long long)pow(10.0, 1 + (double)(st % 16)));
            break;
        case 4:   /* just around 2^53 */
            d = 9007199254740992.0 + (double)((long long)(x % 64) - 32);
            break;
        default: {   /* r / 10^k, as the encoder rounds */
            int k = (int)(st % 10);
            d = round((double)(x % 100000000000ULL) / (double)(1 + st % 97)) / pow(10.0, k);
            break;
        }
        }
        if (st & 1)
            d = -d;
        json_write_number(mine, d);
        ref_number(want, d);
        if (strcmp(mine, want) != 0)   /* (ck_assert_msg writes to Check's pipe each time: 2M writes) */
            ck_abort_msg("%a: %s, first written as %s", d, mine, want);
    }
}
END_TEST

/* json_write_number_dec's decimal form (the digits of r / 10^dec placed
 * by their end, zero-padded, trailing zeros dropped) against the first
 * forms, for every count of decimals 0..10 over values r / 10^k of every
 * length and k: below 1 with leading zeros ("0.000123"), whole numbers,
 * trailing zeros, both signs, both sides of 2^50 * 10^-dec. */
START_TEST(json_numbers_with_a_decimals_hint_equal_the_first_forms)
{
    unsigned long long st = 0x2545f4914f6cdd1dULL;
    for (int i = 0; i < 1200000; i++) {
        char mine[32], want[32];
        double d;
        int dec = i % 11;
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        switch ((st >> 60) % 4) {
        case 0: {   /* r / 10^k with r of 1 to 17 digits */
            unsigned long long m = (st >> 4) % (unsigned long long)pow(10.0, 1 + (double)(st % 17));
            d = (double)m / pow(10.0, (double)((st >> 8) % 11));
            break;
        }
        case 1:   /* small: few digits, many leading zeros */
            d = (double)((st >> 4) % 1000) / pow(10.0, (double)((st >> 16) % 10));
            break;
        case 2: {   /* around 2^50 / 10^dec */
            double edge = 0x1p50 / pow(10.0, dec <= 9 ? dec : 9);
            d = nextafter(edge, (st & 2) ? INFINITY : 0);
            for (unsigned k = (unsigned)((st >> 8) % 4); k > 0; k--)
                d = nextafter(d, (st & 2) ? INFINITY : 0);
            d = round(d * pow(10.0, dec <= 9 ? dec : 0)) / pow(10.0, dec <= 9 ? dec : 0);
            break;
        }
        default:   /* any bit pattern */
            memcpy(&d, &st, sizeof d);
            if (!isfinite(d))
                d = 0.5;
            break;
        }
        if (st & 1)
            d = -d;
        json_write_number_dec(mine, d, dec);
        ref_number(want, d);
        if (strcmp(mine, want) != 0)
            ck_abort_msg("%a with %d decimals: %s, first written as %s", d, dec, mine, want);
    }
}
END_TEST

/* put_u64 counts digits from the bit length: every power of ten below
 * 2^53 and its neighbours, and every power of two and its neighbours,
 * print as the C library prints them. */
START_TEST(json_integers_at_digit_and_bit_boundaries_print_as_the_c_library_does)
{
    for (int k = 0; k <= 15; k++) {
        double p = pow(10.0, k);
        for (int dlt = -1; dlt <= 1; dlt++) {
            char mine[32], want[32];
            double d = p + dlt;
            json_write_number(mine, d);
            snprintf(want, sizeof want, "%.0f", d);
            ck_assert_msg(strcmp(mine, want) == 0, "%.0f printed as %s", d, mine);
        }
    }
    for (int b = 0; b < 53; b++) {
        for (int dlt = -1; dlt <= 1; dlt++) {
            char mine[32], want[32];
            double d = ldexp(1.0, b) + dlt;
            json_write_number(mine, d);
            snprintf(want, sizeof want, "%.0f", d);
            ck_assert_msg(strcmp(mine, want) == 0, "%.0f printed as %s", d, mine);
        }
    }
}
END_TEST

/* jw_round (the plan writers' rounding, no libm call) against round over
 * 4M doubles: random bit patterns, values near halves (x.5 and its
 * neighbours), scaled decimals as the writers round them, around 2^52. */
START_TEST(jw_round_rounds_as_libm_round)
{
    unsigned long long st = 0x9e3779b97f4a7c15ULL;
    static const double edge[] = {0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 0.49999999999999994, -0.49999999999999994,
                                  4503599627370495.5, 4503599627370496.0, 9007199254740991.0, NAN, INFINITY,
                                  -INFINITY, 1e300, -1e-300, 5e-324};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        double a = jw_round(edge[i]), b = round(edge[i]);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)), "%a: %a, round gives %a", edge[i], a,
                      b);
    }
    for (int i = 0; i < 4000000; i++) {
        double d, a, b;
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned long long x = st >> 11;
        switch (i % 5) {
        case 0:
            memcpy(&d, &st, sizeof d);
            break;
        case 1:   /* a half, or one ulp either side of it */
            d = nextafter((double)(x % 100000000ULL) + 0.5, (st & 2) ? INFINITY : -INFINITY);
            if (st & 4)
                d = (double)(x % 100000000ULL) + 0.5;
            break;
        case 2:   /* a value times 10^k, as rnd rounds */
            d = (double)(x % 1000000000000ULL) / 997.0 * pow(10.0, (double)(st % 7));
            break;
        case 3:   /* around 2^52 */
            d = 4503599627370496.0 + ((double)(x % 4096) - 2048.0) * 0.25;
            break;
        default:
            d = ldexp((double)x, (int)(st % 80) - 70);
            break;
        }
        if (st & 8)
            d = -d;
        a = jw_round(d);
        b = round(d);
        if (memcmp(&a, &b, sizeof a) != 0 && !(isnan(a) && isnan(b)))
            ck_abort_msg("%a: %a, round gives %a", d, a, b);
    }
}
END_TEST

/* json_plan.c rounds with a table of 10^0..10^22 where it called pow. */
START_TEST(powers_of_ten_from_pow_are_the_exact_literals)
{
    for (int k = 0; k <= 22; k++) {
        char lit[8];
        snprintf(lit, sizeof lit, "1e%d", k);
        ck_assert_msg(pow(10.0, k) == strtod(lit, NULL), "pow(10, %d) is not %s", k, lit);
    }
    /* the negative powers json_plan.c's rnd takes from its table */
    for (int k = 1; k <= 30; k++) {
        char lit[8];
        volatile int d = -k;   /* pow called, not folded by the compiler */
        snprintf(lit, sizeof lit, "1e-%d", k);
        ck_assert_msg(pow(10.0, d) == strtod(lit, NULL), "pow(10, -%d) is not %s", k, lit);
    }
}
END_TEST

/* json_floor_log10 against floor(log10(a)): random positive doubles of
 * every exponent, and the doubles nearest each power of ten and its
 * margins (where the answer is libm's rounding). */
START_TEST(floor_log10_is_what_libm_gives)
{
    unsigned long long st = 0x2545f4914f6cdd1dULL;
    for (int n = 0; n < 2000000; n++) {
        uint64_t bits;
        double a;
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        bits = st & 0x7fffffffffffffffULL;
        if (n % 2)   /* the exponents of the values answers hold, more densely */
            bits = (bits & 0x800fffffffffffffULL) | (uint64_t)(1023 - 120 + (int)((st >> 52) % 240)) << 52;
        memcpy(&a, &bits, sizeof a);
        if (!isfinite(a) || !(a > 0))
            continue;
        ck_assert_msg(json_floor_log10(a) == (int)floor(log10(a)), "%.17g: %d, not %d", a, json_floor_log10(a),
                      (int)floor(log10(a)));
    }
    for (int m = -40; m <= 40; m++) {
        char lit[8];
        double p;
        snprintf(lit, sizeof lit, "1e%d", m);
        p = strtod(lit, NULL);
        const double around[] = {p, p * (1 + 1e-9), p * (1 - 1e-9), p * (1 + 2e-9), p * (1 - 2e-9), p * 1.5, p * 9.99};
        for (size_t i = 0; i < sizeof around / sizeof around[0]; i++) {
            double a = around[i];
            for (int u = 0; u < 8; u++) {
                ck_assert_msg(json_floor_log10(a) == (int)floor(log10(a)), "%.17g: %d, not %d", a,
                              json_floor_log10(a), (int)floor(log10(a)));
                a = nextafter(a, u < 4 ? INFINITY : 0);
                if (u == 3)
                    a = nextafter(nextafter(nextafter(nextafter(a, 0), 0), 0), 0);
            }
        }
    }
}
END_TEST

/* Whether two cJSON trees are the same in every member a reader can see:
 * type, valueint, valuedouble's bits, key and string text, and the links
 * (next, and prev as cJSON sets it: the one before, the first's the last). */
static int small_tree_same(const cJSON *a, const cJSON *b)
{
    const cJSON *x, *y;
    if (a->type != b->type || a->valueint != b->valueint ||
        memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) != 0)
        return 0;
    if ((a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string) != 0))
        return 0;
    if ((a->valuestring == NULL) != (b->valuestring == NULL) ||
        (a->valuestring && strcmp(a->valuestring, b->valuestring) != 0))
        return 0;
    if ((a->child == NULL) != (b->child == NULL))
        return 0;
    for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
        if (!small_tree_same(x, y))
            return 0;
        if ((x->next == NULL) != (y->next == NULL) || (x->next && (x->next->prev != x || y->next->prev != y)))
            return 0;
        if (!x->next && (a->child->prev != x || b->child->prev != y))
            return 0;
    }
    return !x && !y;
}

/* The small reader's numbers are the doubles cJSON reads (strtod), also
 * where it computes them itself (M x 10^e, M of up to 15 digits, |e| <=
 * 22): 120,000 random strict JSON numbers (signs, leading and trailing
 * zeros, 1 to 18 digits, fractions, exponents of either sign and case,
 * values at 2^53 and beyond, tiny and huge), compared bit for bit. */
START_TEST(small_body_numbers_are_the_doubles_cjson_reads)
{
    unsigned long long rng = 0x2545f4914f6cdd1dULL;
    static struct json_small sm;
    for (int it = 0; it < 120000; it++) {
        char buf[96], err[256];
        int n = 0, intd, fracd, expd;
        cJSON *a = NULL, *b = NULL;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        intd = 1 + (int)(rng % 18);
        fracd = (int)((rng >> 8) % 4) ? (int)((rng >> 12) % 19) : 0;
        expd = (int)((rng >> 20) % 3) ? 0 : 1 + (int)((rng >> 24) % 3);
        buf[n++] = '[';
        if ((rng >> 28) & 1)
            buf[n++] = '-';
        for (int i = 0; i < intd; i++) {
            unsigned long long r = (rng >> (i % 40)) * 0x9e3779b97f4a7c15ULL >> 40;
            buf[n++] = (char)('0' + (i == 0 && intd > 1 ? 1 + r % 9 : r % 10));
        }
        if (intd == 1 && ((rng >> 40) & 3) == 0)
            buf[n - 1] = '0';
        if (fracd) {
            buf[n++] = '.';
            for (int i = 0; i < fracd; i++)
                buf[n++] = (char)('0' + ((rng >> (i % 40)) * 0xbf58476d1ce4e5b9ULL >> 40) % 10);
        }
        if (expd) {
            buf[n++] = (rng >> 45) & 1 ? 'e' : 'E';
            if ((rng >> 46) % 3 == 1)
                buf[n++] = '-';
            else if ((rng >> 46) % 3 == 2)
                buf[n++] = '+';
            for (int i = 0; i < expd; i++)
                buf[n++] = (char)('0' + (rng >> (50 + i * 4)) % 10);
        }
        buf[n++] = ']';
        ck_assert_msg(json_parse_small(buf, (size_t)n, &sm, &a), "not taken: %.*s", n, buf);
        ck_assert_int_eq(json_parse(buf, (size_t)n, &b, err, sizeof err), ST_OK);
        ck_assert_msg(small_tree_same(a, b), "%.*s: %.17g instead of %.17g", n, buf, a->child->valuedouble,
                      b->child->valuedouble);
        cJSON_Delete(b);
    }
}
END_TEST

/* Exponents of many digits (leading zeros, or far out of range) are left
 * to strtod, read without overflowing the exponent on the way: the
 * sanitizer build fails on the overflow (fuzz_plan_json found
 * "11111111111111E1111111111..."). */
START_TEST(small_body_numbers_with_long_exponents_are_read_as_cjson_reads_them)
{
    static const char *const bodies[] = {
        "[11111111111111E1111111111111111]", "[1e-0000000000000000000001]", "[2E0000000000000000000003]",
        "[-5e+99999999999999999999]",        "[1E2147483648]",
    };
    struct json_small sm;
    cJSON *a = NULL, *b = NULL;
    char err[256];
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        size_t n = strlen(bodies[i]);
        if (!json_parse_small(bodies[i], n, &sm, &a))
            continue; /* left to cJSON whole */
        ck_assert_int_eq(json_parse(bodies[i], n, &b, err, sizeof err), ST_OK);
        ck_assert_msg(small_tree_same(a, b), "%s: %.17g instead of %.17g", bodies[i], a->child->valuedouble,
                      b->child->valuedouble);
        cJSON_Delete(b);
    }
}
END_TEST

/* json_parse_small against json_parse on the workload fixtures and on
 * 25,000 mutations of them (bytes changed to JSON's own characters,
 * escapes, control bytes and a BOM's first byte, dropped, inserted,
 * repeated, the body cut): wherever the small reader takes a body, cJSON
 * takes it too and builds the same tree, and the workload decoder says
 * the same of both (status, field, message). Every fixture but the ones
 * that are not JSON, and a good share of the mutations, must be taken, so
 * the comparison is not empty. */
START_TEST(small_bodies_parse_to_the_tree_cjson_builds)
{
    static const char charset[] = "{}[],:\"\\ \t\n\r0123456789.eE+-truefalsnl\x01\x1f\xef\x80xA";
    char seeds[40][2048];
    size_t seed_len[40];
    int n_seeds = 0, taken = 0, tried = 0, refused = 0;
    unsigned long long rng = 88172645463325252ULL;
    DIR *dir = opendir(TESTDATA "/workloads");
    struct dirent *de;
    static struct json_small sm;

    ck_assert_ptr_nonnull(dir);
    while ((de = readdir(dir)) != NULL && n_seeds < 40) {
        char path[512];
        size_t nlen = strlen(de->d_name), got;
        FILE *f;
        if (nlen < 6 || strcmp(de->d_name + nlen - 5, ".json") != 0 || strstr(de->d_name, ".expected."))
            continue;
        snprintf(path, sizeof path, "%s/workloads/%s", TESTDATA, de->d_name);
        f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        got = fread(seeds[n_seeds], 1, sizeof seeds[0] - 1, f);
        fclose(f);
        if (got == 0 || got >= sizeof sm.text - 64)
            continue;
        seed_len[n_seeds++] = got;
    }
    closedir(dir);
    ck_assert_int_ge(n_seeds, 10);
    for (int it = 0; it < 25000 + n_seeds; it++) {
        char buf[2100], err_a[512] = "", err_b[512] = "", field_a[96] = "", field_b[96] = "";
        size_t len;
        int k = it < n_seeds ? it : (int)((rng >> 33) % (unsigned)n_seeds);
        cJSON *a = NULL, *b = NULL;
        struct engine_workload wa, wb;
        enum status sa, sb;
        memcpy(buf, seeds[k], seed_len[k]);
        len = seed_len[k];
        for (int m = it < n_seeds ? 0 : 1 + (int)((rng >> 20) % 3); m > 0; m--) {
            size_t at;
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            at = len ? (size_t)(rng >> 35) % len : 0;
            switch ((rng >> 29) % 6) {
            case 0:
            case 1:   /* a byte becomes one of JSON's characters (or a stray) */
                if (len)
                    buf[at] = charset[(rng >> 13) % (sizeof charset - 1)];
                break;
            case 2:   /* a digit changes: mostly still valid */
                while (at < len && !(buf[at] >= '0' && buf[at] <= '9'))
                    at++;
                if (at < len)
                    buf[at] = (char)('0' + (rng >> 7) % 10);
                break;
            case 3:   /* a byte goes */
                if (len) {
                    memmove(buf + at, buf + at + 1, len - at - 1);
                    len--;
                }
                break;
            case 4:   /* a byte comes in */
                if (len + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = charset[(rng >> 13) % (sizeof charset - 1)];
                    len++;
                }
                break;
            default:   /* cut, or a run repeated */
                if ((rng >> 9) & 1) {
                    len = at;
                } else {
                    size_t n = (rng >> 40) % 16;
                    if (at + n <= len && len + n < sizeof buf) {
                        memmove(buf + at + n, buf + at, len - at);
                        len += n;
                    }
                }
                break;
            }
        }
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        tried++;
        if (!json_parse_small(buf, len, &sm, &a)) {
            /* a fixture is left to cJSON only when it is not JSON at all */
            if (it < n_seeds) {
                ck_assert_msg(json_parse(buf, len, &b, err_b, sizeof err_b) != ST_OK,
                              "fixture %d not taken by the small reader", it);
                refused++;
            }
            continue;
        }
        taken++;
        ck_assert_msg(json_parse(buf, len, &b, err_b, sizeof err_b) == ST_OK, "cJSON refuses what the small reader took: %.*s",
                      (int)len, buf);
        ck_assert_msg(small_tree_same(a, b), "trees differ for %.*s", (int)len, buf);
        sa = json_workload_decode(a, &wa, field_a, sizeof field_a, err_a, sizeof err_a);
        sb = json_workload_decode(b, &wb, field_b, sizeof field_b, err_b, sizeof err_b);
        ck_assert_int_eq(sa, sb);
        ck_assert_str_eq(err_a, err_b);
        ck_assert_str_eq(field_a, field_b);
        cJSON_Delete(b);
    }
    ck_assert_int_le(refused, 2);
    ck_assert_int_ge(taken, tried / 10);
}
END_TEST

/* search_memo_lookup tries the slot found or filled last by comparing the
 * workload with its key where the two must be equal (no key built): it
 * must find the entry of exactly the workload it is given, whatever its
 * four pricing inputs, and miss (with the workload's key built) for one
 * never kept. Workloads one byte apart in each run of bytes between and
 * around the four blanked fields (its first and last byte) and in random
 * places, asked in runs (so the last slot is tried and is right) and
 * interleaved (so it is tried and wrong). */
static unsigned long long lk_next(unsigned long long *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

START_TEST(a_search_memo_lookup_finds_the_entry_of_exactly_its_workload)
{
    enum { NW = 24, KEPT = 20 };
    static const size_t blank[] = {offsetof(struct engine_workload, tokens_b),
                                   offsetof(struct engine_workload, deadline_days),
                                   offsetof(struct engine_workload, budget_usd),
                                   offsetof(struct engine_workload, dataset_tb)};
    struct search_memo *m = search_memo_new();
    struct engine_recommendation *rec = calloc(1, sizeof *rec), *put = calloc(1, sizeof *put);
    struct engine_workload *w = calloc(NW, sizeof *w);
    size_t offs[NW];
    int n_offs = 0, runs = 0;
    unsigned long long st = 0xbb67ae8584caa73bULL;
    ck_assert(m && rec && put && w);
    /* the runs' first and last bytes */
    for (size_t i = 0, from = 0; i <= 4 && n_offs + 2 <= NW; i++) {
        size_t to = i < 4 ? blank[i] : sizeof *w;
        if (to > from) {
            offs[n_offs++] = from;
            offs[n_offs++] = to - 1;
        }
        from = i < 4 ? blank[i] + sizeof(double) : from;
    }
    while (n_offs < NW) {
        size_t o = (size_t)(lk_next(&st) % sizeof *w);
        int in_blank = 0;
        for (int b = 0; b < 4; b++)
            in_blank |= o >= blank[b] && o < blank[b] + sizeof(double);
        if (!in_blank)
            offs[n_offs++] = o;
    }
    engine_workload_init(&w[0]);
    w[0].model.layers = 80;
    for (int i = 1; i < NW; i++) {
        w[i] = w[0];
        ((unsigned char *)&w[i])[offs[i]] ^= (unsigned char)(1u << (i % 8));
    }
    for (int i = 0; i < KEPT; i++) {
        struct search_memo_key key;
        put->n_candidates = 1;
        put->candidates[0].n = 1000 + i;
        put->params_b = i;
        search_memo_key(&w[i], &key);
        ck_assert_uint_ne(search_memo_put(m, &key, put), 0);
    }
    for (int it = 0; it < 4000; it++) {
        int i = (int)(lk_next(&st) % NW), reps = 1 + (int)(lk_next(&st) % 4);
        for (int r = 0; r < reps; r++, runs++) {
            struct engine_workload q = w[i];
            struct search_memo_key key, want;
            unsigned long long bits[4];
            for (int b = 0; b < 4; b++) {
                bits[b] = lk_next(&st);
                memcpy((char *)&q + blank[b], &bits[b], sizeof bits[b]);
            }
            if (search_memo_lookup(m, &q, &key, rec)) {
                ck_assert_msg(i < KEPT, "workload %d (byte %zu) found, never kept", i, offs[i]);
                ck_assert_msg(rec->params_b == i && rec->candidates[0].n == 1000 + i,
                              "workload %d (byte %zu) found entry %g", i, offs[i], rec->params_b);
            } else {
                ck_assert_msg(i >= KEPT, "workload %d (byte %zu) not found", i, offs[i]);
                search_memo_key(&q, &want);
                ck_assert(key.hash == want.hash && memcmp(&key.w, &want.w, sizeof want.w) == 0);
            }
        }
    }
    ck_assert_int_gt(runs, 4000);
    search_memo_free(m);
    free(w);
    free(put);
    free(rec);
}
END_TEST

/* json_workload_decode finds each member in the slot check_keys left it
 * in (one pass over the members) instead of a walk over them per name: the
 * member it names is the one a walk names (the first unknown, or the first
 * to repeat an earlier member's name, in order), and a body it takes has
 * each value where the walk found it, over random bodies of the workload's
 * members in any order and subset, some repeated, some unknown. The walk
 * is done here. */
START_TEST(workload_members_are_found_as_a_walk_over_the_members_finds_them)
{
    static const char *const names[] = {"model", "task", "tokens_b", "seq_len", "precision", "deadline_days",
                                        "budget_usd", "pricing", "dataset_tb", "max_gpus", "global_batch_tokens",
                                        "optimizer", "lora_rank", "attention", "bogus", "Model", "tokens"};
    static const char *const values[] = {"{\"preset\":\"llama-3-8b\"}", "\"finetune\"", "123.5", "4096", "\"fp8\"",
                                         "45.5", "2500000", "\"buy\"", "7.25", "256", "4000000", "\"adamw-8bit\"",
                                         "32", "\"standard\"", "1", "2", "3"};
    unsigned long long st = 0x510e527fade682d1ULL;
    for (int it = 0; it < 20000; it++) {
        char body[1024], field[64], err[256], want[64];
        size_t len = 0;
        int idx[24], n, known_only = 1, seen_model = 0, seen_tokens = 0;
        cJSON *doc;
        struct engine_workload w;
        enum status s;
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        n = (int)(st % 18);
        for (int i = 0; i < n; i++) {
            unsigned long long r = st >> (i % 40) ^ (unsigned long long)i * 0x9e3779b97f4a7c15ULL;
            /* mostly known names; some unknown (14..16) */
            idx[i] = (int)(r % 23 < 20 ? r % 14 : 14 + r % 3);
        }
        body[len++] = '{';
        for (int i = 0; i < n; i++)
            len += (size_t)snprintf(body + len, sizeof body - len, "%s\"%s\":%s", i ? "," : "", names[idx[i]],
                                    values[idx[i]]);
        body[len++] = '}';
        body[len] = '\0';
        /* the walk: the first member that is unknown or repeats an earlier one */
        want[0] = '\0';
        for (int i = 0; i < n && !want[0]; i++) {
            if (idx[i] >= 14) {
                snprintf(want, sizeof want, "%s", names[idx[i]]);
                break;
            }
            for (int k = 0; k < i; k++)
                if (idx[k] == idx[i]) {
                    snprintf(want, sizeof want, "%s", names[idx[i]]);
                    break;
                }
        }
        for (int i = 0; i < n; i++) {
            seen_model |= idx[i] == 0;
            seen_tokens |= idx[i] == 2;
            known_only &= idx[i] < 14;
        }
        doc = cJSON_Parse(body);
        ck_assert_ptr_nonnull(doc);
        field[0] = err[0] = '\0';
        s = json_workload_decode(doc, &w, field, sizeof field, err, sizeof err);
        if (want[0]) {
            ck_assert_msg(s == ST_INVALID && strcmp(field, want) == 0, "%s: field %s (%s), the walk names %s", body,
                          field, err, want);
        } else if (!seen_model || !seen_tokens) {
            ck_assert_msg(s == ST_INVALID && strcmp(field, seen_model ? "tokens_b" : "model") == 0, "%s: %s", body,
                          err);
        } else {
            ck_assert_msg(s == ST_OK && known_only, "%s: %s", body, err);
            ck_assert_str_eq(w.preset, "llama-3-8b");
            ck_assert(w.tokens_b == 123.5);
            for (int i = 0; i < n; i++) {
                switch (idx[i]) {
                case 1: ck_assert_int_eq(w.task, TASK_FINETUNE); break;
                case 3: ck_assert_int_eq(w.seq_len, 4096); break;
                case 4: ck_assert_int_eq(w.precision, PREC_FP8); break;
                case 5: ck_assert(w.deadline_days == 45.5); break;
                case 6: ck_assert(w.budget_usd == 2500000); break;
                case 7: ck_assert_int_eq(w.pricing, PRICING_BUY); break;
                case 8: ck_assert(w.dataset_tb == 7.25); break;
                case 9: ck_assert_int_eq(w.max_gpus, 256); break;
                case 10: ck_assert(w.global_batch_tokens == 4000000); break;
                case 11: ck_assert_int_eq(w.optimizer, OPT_ADAMW_8BIT); break;
                case 12: ck_assert_int_eq(w.lora_rank, 32); break;
                case 13: ck_assert_int_eq(w.standard_attention, 1); break;
                default: break;
                }
            }
        }
        cJSON_Delete(doc);
    }
}
END_TEST

/* The plan cache keeps a body's answer the second time it is offered (the
 * doorkeeper, resp_cache.c), so a stream of bodies that each come once
 * neither fills it nor evicts an answer that is asked again and again:
 * after 2,000 one-off answers (128 slots) the repeated one still hits, and
 * the counters say what was kept and declined. */
START_TEST(the_plan_cache_keeps_answers_asked_twice_and_one_off_bodies_do_not_evict_them)
{
    struct resp_cache *c = resp_cache_new();
    struct resp_key kp, ko;
    const char *popular = "{\"model\":{\"preset\":\"llama-3-70b\"},\"tokens_b\":15000}";
    char body[64], *got = NULL;
    size_t len = 0;
    unsigned long long kept, declined, hits, misses;

    ck_assert_ptr_nonnull(c);
    resp_cache_key("recommend", popular, strlen(popular), &kp);
    ck_assert(!resp_cache_get(c, &kp, &got, &len));
    resp_cache_put(c, &kp, strdup("popular answer"), 14);
    ck_assert_msg(!resp_cache_get(c, &kp, &got, &len), "an answer was kept the first time its body came");
    resp_cache_put(c, &kp, strdup("popular answer"), 14);
    ck_assert(resp_cache_get(c, &kp, &got, &len));
    ck_assert_str_eq(got, "popular answer");
    free(got);
    for (int i = 0; i < 2000; i++) {
        int n = snprintf(body, sizeof body, "{\"tokens_b\":%d}", 20000 + i);
        resp_cache_key("recommend", body, (size_t)n, &ko);
        ck_assert(!resp_cache_get(c, &ko, &got, &len));
        resp_cache_put(c, &ko, strdup("one-off answer"), 14);
    }
    ck_assert_msg(resp_cache_get(c, &kp, &got, &len), "one-off bodies evicted the answer asked for again");
    ck_assert_str_eq(got, "popular answer");
    free(got);
    /* a one-off body that does come back is kept then */
    resp_cache_key("recommend", body, strlen(body), &ko);
    resp_cache_put(c, &ko, strdup("one-off answer"), 14);
    ck_assert(resp_cache_get(c, &ko, &got, &len));
    free(got);
    resp_cache_admissions(c, &kept, &declined);
    ck_assert_uint_eq(kept, 2);
    ck_assert_uint_eq(declined, 2001);
    resp_cache_stats(c, &hits, &misses);
    ck_assert_uint_eq(hits, 3);
    ck_assert_uint_eq(misses, 2002);
    resp_cache_free(c);
}
END_TEST

/* The plan cache keeps each answer under its route and the body itself
 * (or the SHA-256 of a body over RESP_BODY_KEEP) and compares them byte
 * for byte: a body that differs in one byte, the same body on the other
 * route, and a key whose hash was made to equal a kept one's all miss. */
START_TEST(the_plan_cache_tells_bodies_apart_byte_for_byte)
{
    struct resp_cache *c = resp_cache_new();
    struct resp_key ka, kb, kr, kl, kl2;
    static char big[3 * RESP_BODY_KEEP], big2[3 * RESP_BODY_KEEP];
    const char *a = "{\"tokens_b\":15000}", *b = "{\"tokens_b\":15001}";
    char *got = NULL;
    size_t len = 0;

    ck_assert_ptr_nonnull(c);
    memset(big, 'x', sizeof big);
    memcpy(big2, big, sizeof big2);
    big2[sizeof big2 - 1] = 'y';
    /* each put twice: the first of a body is declined (the doorkeeper) */
    resp_cache_key("recommend", a, strlen(a), &ka);
    resp_cache_put(c, &ka, strdup("answer a"), 8);
    resp_cache_put(c, &ka, strdup("answer a"), 8);
    resp_cache_key("recommend", big, sizeof big, &kl);
    ck_assert(kl.digest);
    resp_cache_put(c, &kl, strdup("answer big"), 10);
    resp_cache_put(c, &kl, strdup("answer big"), 10);

    resp_cache_key("recommend", a, strlen(a), &ka);
    ck_assert(resp_cache_get(c, &ka, &got, &len));
    ck_assert_str_eq(got, "answer a");
    free(got);
    resp_cache_key("recommend", b, strlen(b), &kb);
    ck_assert(!resp_cache_get(c, &kb, &got, &len));
    kb.hash = ka.hash;   /* the same hash, another body: still a miss */
    ck_assert(!resp_cache_get(c, &kb, &got, &len));
    resp_cache_key("estimate", a, strlen(a), &kr);
    ck_assert(!resp_cache_get(c, &kr, &got, &len));
    kr.hash = ka.hash;
    ck_assert(!resp_cache_get(c, &kr, &got, &len));

    resp_cache_key("recommend", big, sizeof big, &kl);
    ck_assert(resp_cache_get(c, &kl, &got, &len));
    ck_assert_str_eq(got, "answer big");
    free(got);
    resp_cache_key("recommend", big2, sizeof big2, &kl2);
    kl2.hash = kl.hash;
    ck_assert(!resp_cache_get(c, &kl2, &got, &len));
    resp_cache_free(c);
}
END_TEST

/* ---- recorded parts (jw_rec): random documents written twice over
 *
 * A document is written from a stream of random draws: members of random
 * kinds, keys and values, nested objects and arrays, spliced members, a
 * part recorded at a random level (sometimes closing the level it began
 * in). Between one writing and the next each draw is drawn again with a
 * small chance, so the next document has mostly the same calls with some
 * values changed and now and then another shape from some point on.
 * Strings are passed in the same buffers each time, their content changed,
 * so a recording that compared where a string lies, not what it says,
 * would show. Every writing with the recording must give the very bytes
 * the plain writer gives. */
enum { GEN_DRAWS = 240 };

struct gen {
    const unsigned *r;
    int pos, nstr;
    char (*bufs)[200];
    int lim;   /* draws it may take (0: GEN_DRAWS) */
};

static unsigned gen_next(struct gen *g)
{
    return g->pos < (g->lim ? g->lim : GEN_DRAWS) ? g->r[g->pos++] : 0;
}

static const char *const GEN_KEYS[] = {"a", "bb", "key", "x_y", "n", "days", "cost_usd", "why"};
static const double GEN_NUMS[] = {0, -0.0, 1, 2.5, 1e300, NAN, INFINITY, 123456789, 0.1, -7, 9007199254740993.0,
                                  1e21, 0.30000000000000004, 42};
static const char *const GEN_STRS[] = {"", "abc", "with \"quote\"", "tab\there", "\x01" "ctl", "abd", NULL,
    "a long rationale text that cites 123 days, 4567 tokens and $8446659 of cost, long enough for several blocks",
    "a long rationale text that cites 123 days, 4567 tokens and $8446660 of cost, long enough for several blocks"};
static const char *const GEN_RAW_OBJ[] = {"", "\"r\":1", "\"q\":[1,2],\"z\":null"};
static const char *const GEN_RAW_ARR[] = {"", "1", "\"s\",{}"};

static void gen_members(struct jw *j, struct gen *g, int depth, int obj);

static void gen_value(struct jw *j, struct gen *g, const char *key, int depth)
{
    unsigned c = gen_next(g);
    switch (c % 8) {
    case 0:
    case 1:
        jw_num(j, key, GEN_NUMS[(c >> 3) % (sizeof GEN_NUMS / sizeof GEN_NUMS[0])]);
        break;
    case 2:
    case 3: {
        const char *t = GEN_STRS[(c >> 3) % (sizeof GEN_STRS / sizeof GEN_STRS[0])];
        char *buf = g->bufs[g->nstr++ % 64];
        if (t)
            snprintf(buf, 200, "%s", t);
        if (t && (c >> 20) % 2)   /* the array form, compared by length and memcmp */
            jw_str_in(j, key, buf, 200);
        else
            jw_str(j, key, t ? buf : NULL);
        break;
    }
    case 4:
        if ((c >> 3) % 2)
            jw_bool(j, key, (c >> 4) % 2);
        else
            jw_null(j, key);
        break;
    case 5:
    case 6:
        if (depth < 6) {
            if (c % 8 == 5)
                jw_obj(j, key);
            else
                jw_arr(j, key);
            gen_members(j, g, depth + 1, c % 8 == 5);
            jw_end(j);
            break;
        }
        /* fall through */
    default:
        jw_num(j, key, (double)(c >> 3));
        break;
    }
}

/* A block (jw_block, jw_block_str) written from the next BLOCK_DRAWS draws
 * alone (and its level and kind of level, part of its key): a value, then
 * members, from a generator limited to those draws; every second one also
 * keyed by a string it writes (fixed bytes, then the string to its NUL, in
 * an array with stale bytes after the NUL). A block whose key missed
 * something it writes would repeat old bytes. */
enum { BLOCK_DRAWS = 6 };

static void gen_block(struct jw *j, struct gen *g, const char *key, int depth, int obj, unsigned c)
{
    struct {
        unsigned d[BLOCK_DRAWS], c;
        int depth, obj;
        char s[120];
    } k;
    struct gen sub;
    int with_str = (c >> 5) % 2, got;
    memset(&k, 0x5a, sizeof k);
    for (int i = 0; i < BLOCK_DRAWS; i++)
        k.d[i] = gen_next(g);
    k.c = c;   /* the member's key is chosen by c */
    k.depth = depth;
    k.obj = obj;
    sub = (struct gen){k.d, 0, g->nstr, g->bufs, BLOCK_DRAWS};
    if (with_str) {   /* a draw of its own: only the string's bytes key it */
        const char *t = GEN_STRS[gen_next(g) % (sizeof GEN_STRS / sizeof GEN_STRS[0])];
        snprintf(k.s, sizeof k.s, "%s", t ? t : "");
        got = jw_block_str(j, "gen block", &k, offsetof(__typeof__(k), s), sizeof k);
    } else {
        got = jw_block(j, "gen block", &k, offsetof(__typeof__(k), s));
    }
    if (!got) {
        if (with_str)
            jw_str(j, key, k.s);
        else
            gen_value(j, &sub, key, depth);
        gen_members(j, &sub, depth, obj);
        jw_block_end(j);
    }
    g->nstr = sub.nstr;
}

static void gen_members(struct jw *j, struct gen *g, int depth, int obj)
{
    unsigned n = gen_next(g) % 5;
    for (unsigned i = 0; i < n; i++) {
        unsigned c = gen_next(g);
        if (c % 9 == 1 && c % 7 < 3) {
            gen_block(j, g, obj ? GEN_KEYS[(c / 9) % (sizeof GEN_KEYS / sizeof GEN_KEYS[0])] : NULL, depth, obj, c);
        } else if (c % 9 == 0) {
            const char *t = obj ? GEN_RAW_OBJ[(c / 9) % 3] : GEN_RAW_ARR[(c / 9) % 3];
            jw_raw_members(j, t, strlen(t));
        } else {
            gen_value(j, g, obj ? GEN_KEYS[(c / 9) % (sizeof GEN_KEYS / sizeof GEN_KEYS[0])] : NULL, depth);
        }
    }
}

/* One document from draws r; recorded into rec when rec is not NULL. */
static char *gen_write(const unsigned *r, char (*bufs)[200], struct jw_rec *rec, size_t *len)
{
    struct gen g = {r, 0, 0, bufs, 0};
    struct jw j;
    unsigned shape = gen_next(&g);
    int closes = shape % 7 == 0;   /* the part closes the level it began in */

    jw_init(&j);
    jw_obj(&j, NULL);
    gen_members(&j, &g, 1, 1);
    if (shape % 3 == 0) {
        jw_arr(&j, "part");
        gen_members(&j, &g, 2, 0);
    } else {
        jw_obj(&j, "part");
        gen_members(&j, &g, 2, 1);
    }
    if (rec)
        jw_rec_begin(&j, rec);
    for (int k = 0; k < 6; k++)
        gen_members(&j, &g, 2, shape % 3 != 0);
    if (closes)
        jw_end(&j);
    if (rec)
        jw_rec_end(&j);
    if (!closes)
        jw_end(&j);
    gen_members(&j, &g, 1, 1);
    jw_end(&j);
    return jw_finish(&j, len);
}

START_TEST(recorded_parts_write_the_bytes_the_plain_writer_writes)
{
    unsigned r[GEN_DRAWS];
    static char bufs_plain[64][200], bufs_rec[64][200];
    struct jw_rec *rec = jw_rec_new();
    unsigned long long st = 0x2545f4914f6cdd1dULL, taken = 0, written = 0;

    ck_assert_ptr_nonnull(rec);
    for (int i = 0; i < GEN_DRAWS; i++)
        r[i] = (unsigned)(st = st * 6364136223846793005ULL + 1442695040888963407ULL) >> 1;
    for (int n = 0; n < 60000; n++) {
        size_t la = 0, lb = 0;
        char *a, *b;
        /* a new draw here and there: changed values, and from some point on another shape */
        int rate = n % 1000 == 0 ? 1 : n % 3 == 0 ? 20 : 200;
        for (int i = 0; i < GEN_DRAWS; i++) {
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            if ((st >> 33) % (unsigned)rate == 0)
                r[i] = (unsigned)(st >> 8);
        }
        a = gen_write(r, bufs_plain, NULL, &la);
        b = gen_write(r, bufs_rec, rec, &lb);
        if (!a || !b || la != lb || memcmp(a, b, la) != 0)
            ck_abort_msg("writing %d: the recorded writer wrote\n%s\ninstead of\n%s", n, b ? b : "NULL",
                         a ? a : "NULL");
        free(a);
        free(b);
    }
    jw_rec_stats(rec, &taken, &written);
    /* Both paths ran, many times: recorded bytes taken and calls written anew. */
    ck_assert_msg(taken > 500000 && written > 100000, "taken %llu, written %llu", taken, written);
    jw_rec_free(rec);
}
END_TEST

/* The strings and block keys of a recording lie in one buffer: a changed
 * one is written over its old bytes when it is no longer, else appended,
 * and the buffer is packed when stale bytes outgrow it. Texts that grow
 * and shrink by a few bytes, in the same buffers each time (a shorter text
 * written over a longer one leaves the longer one's tail after its NUL),
 * must always give the plain writer's bytes, and the buffer must stay
 * bounded over thousands of writings. */
static char *keys_write(const char (*txt)[160], int n, struct jw_rec *rec, size_t *len)
{
    struct jw j;
    jw_init(&j);
    jw_obj(&j, NULL);
    if (rec)
        jw_rec_begin(&j, rec);
    for (int i = 0; i < n; i++) {
        struct {
            int i;
            char s[160];
        } k;
        memset(&k, 0x5a, sizeof k);   /* stale bytes after the NUL, as in a reused struct */
        k.i = i;
        memcpy(k.s, txt[i], strlen(txt[i]) + 1);
        if (i % 3 == 0)
            jw_str(&j, "s", txt[i]);
        else if (i % 3 == 1)
            jw_str_in(&j, "t", txt[i], 160);
        else if (!jw_block_str(&j, "keys block", &k, offsetof(__typeof__(k), s), sizeof k)) {
            jw_str(&j, "b", k.s);
            jw_block_end(&j);
        }
        jw_num(&j, "n", i);
    }
    if (rec)
        jw_rec_end(&j);
    jw_end(&j);
    return jw_finish(&j, len);
}

START_TEST(recorded_strings_that_grow_and_shrink_are_written_as_the_plain_writer_writes)
{
    enum { N = 24 };
    static char txt[N][160];
    struct jw_rec *rec = jw_rec_new();
    unsigned long long st = 0x9e3779b97f4a7c15ULL, taken = 0, written = 0;
    size_t most = 0;
    ck_assert_ptr_nonnull(rec);
    for (int i = 0; i < N; i++)
        snprintf(txt[i], sizeof txt[i], "text %d", i);
    for (int n = 0; n < 4000; n++) {
        size_t la = 0, lb = 0;
        char *a, *b;
        /* a few texts a writing: one a step longer or shorter than it was
         * (its head kept, so a match on the old bytes' prefix would show),
         * or another length altogether */
        for (int c = 0; c < 3; c++) {
            int i, len;
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            i = (int)(st % N);
            len = (int)strlen(txt[i]);
            if ((st >> 8) % 4 == 0)
                len = (int)((st >> 12) % 150);
            else
                len += (st >> 10) % 2 ? 1 : -1;
            if (len < 0)
                len = 1;
            if (len > 150)
                len = 150;
            for (int x = 0; x < len; x++)
                txt[i][x] = (char)('a' + (x * 7 + i) % 26);
            txt[i][len] = '\0';
        }
        a = keys_write(txt, N, NULL, &la);
        b = keys_write(txt, N, rec, &lb);
        if (!a || !b || la != lb || memcmp(a, b, la) != 0)
            ck_abort_msg("writing %d: the recorded writer wrote\n%s\ninstead of\n%s", n, b ? b : "NULL",
                         a ? a : "NULL");
        free(a);
        free(b);
        if (rec->kused > most)
            most = rec->kused;
    }
    jw_rec_stats(rec, &taken, &written);
    ck_assert_msg(taken > 100000, "taken %llu", taken);
    /* packed as it goes: at most the live texts twice over and the slack */
    ck_assert_msg(most <= 2 * N * 180 + 4096 + 160, "keys grew to %zu bytes", most);
    jw_rec_free(rec);
}
END_TEST

/* Two blocks at the same place of a part, from two sites (other code),
 * keyed by the same bytes: the second must be written by its own code, not
 * taken as the first's recorded text. */
START_TEST(a_block_of_another_site_with_the_same_key_is_written_anew)
{
    static const double key[2] = {1, 2};
    struct jw_rec *rec = jw_rec_new();
    ck_assert_ptr_nonnull(rec);
    for (int n = 0; n < 3; n++) {
        struct jw j;
        size_t len = 0;
        char *text;
        int other = n == 2;
        jw_init(&j);
        jw_obj(&j, NULL);
        jw_rec_begin(&j, rec);
        if (!jw_block(&j, other ? "site b" : "site a", key, sizeof key)) {
            jw_num(&j, other ? "b" : "a", key[other]);
            jw_block_end(&j);
        }
        jw_rec_end(&j);
        jw_end(&j);
        text = jw_finish(&j, &len);
        ck_assert_str_eq(text, (other ? "{\"b\":2}" : "{\"a\":1}"));
        free(text);
    }
    jw_rec_free(rec);
}
END_TEST

#ifndef NDEBUG
/* Keys in a recorded part are compared by address (they are the writers'
 * literals). A key held in a buffer whose text changes between writings
 * would take the old key's bytes; debug builds (the sanitizer runs) check
 * each key taken against the recorded bytes and abort. Only where asserts
 * are compiled in. */
START_TEST(a_recorded_key_whose_text_changed_under_its_address_is_caught)
{
    static char key[8];
    struct jw_rec *rec = jw_rec_new();
    ck_assert_ptr_nonnull(rec);
    for (int n = 0; n < 2; n++) {
        struct jw j;
        size_t len = 0;
        snprintf(key, sizeof key, n ? "cost" : "days");   /* same address and length, other text */
        jw_init(&j);
        jw_obj(&j, NULL);
        jw_rec_begin(&j, rec);
        jw_num(&j, key, 1.0);
        jw_rec_end(&j);
        jw_end(&j);
        free(jw_finish(&j, &len));
    }
    jw_rec_free(rec);
}
END_TEST
#endif

START_TEST(frontier_keeps_what_the_sorted_walk_keeps)
{
    struct catalog *cat = calloc(1, sizeof *cat);
    struct engine_recommendation *r = calloc(1, sizeof *r);
    struct ref_cand *ref = calloc(ENGINE_CANDIDATES_MAX, sizeof *ref);
    struct engine_workload w;
    /* with a writer's cache too: the last answer's frontier goes first
     * (its hints), and the scan skips those */
    struct json_plan_cache *cache = json_plan_cache_new();
    unsigned long long st = 0x2545f4914f6cdd1dULL;
    ck_assert(cat && r && ref && cache);
    cat->n_gpus = 1;
    snprintf(cat->gpus[0].id, sizeof cat->gpus[0].id, "gpu-a");
    engine_workload_init(&w);
    for (int round = 0; round < 400; round++) {
        int n = round == 0 ? 0 : 1 + (int)(st % (round % 5 == 0 ? 2048 : 300)), kept = 0;
        double best = INFINITY;
        size_t len = 0;
        char *text;
        cJSON *doc, *fr;
        r->n_candidates = n;
        for (int i = 0; i < n; i++) {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            struct engine_candidate *k = &r->candidates[i];
            memset(k, 0, sizeof *k);
            k->n = i;   /* names the candidate in the answer */
            if (round % 7 == 3) {       /* anti-correlated: a frontier of hundreds */
                k->days = (double)(st % 1000);
                k->cost = 5000.0 - k->days + (double)(st % 3);
            } else {
                k->days = (double)(st % (round % 3 == 0 ? 10 : 500));
                k->cost = (double)((st >> 20) % (round % 2 ? 8 : 400));
            }
            if (st % 97 == 0)
                k->cost = INFINITY;
            ref[i] = (struct ref_cand){k->days, k->cost, i};
        }
        qsort(ref, (size_t)n, sizeof *ref, ref_cmp);
        text = json_recommendation_text(cat, &w, r, &len);
        ck_assert_ptr_nonnull(text);
        doc = cJSON_Parse(text);
        ck_assert_ptr_nonnull(doc);
        fr = cJSON_GetObjectItemCaseSensitive(doc, "frontier");
        ck_assert(cJSON_IsArray(fr));
        for (int i = 0; i < n && kept < 64; i++) {
            cJSON *it;
            if (ref[i].cost >= best)
                continue;
            best = ref[i].cost;
            it = cJSON_GetArrayItem(fr, kept);
            ck_assert_msg(it != NULL, "round %d: frontier ends at %d", round, kept);
            ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(it, "count")->valueint, ref[i].i);
            kept++;
        }
        ck_assert_int_eq(cJSON_GetArraySize(fr), kept);
        cJSON_Delete(doc);
        /* the same text through the cache, twice (the second time with
         * this very frontier as its hints), and again after the costs of
         * some candidates moved (hints that are no longer the frontier) */
        for (int pass = 0; pass < 3; pass++) {
            size_t clen = 0;
            char *ctext;
            if (pass == 2) {
                free(text);
                for (int i = 0; i < n; i += 3)
                    r->candidates[i].cost *= 0.999;
                text = json_recommendation_text(cat, &w, r, &len);
                ck_assert_ptr_nonnull(text);
            }
            ctext = json_recommendation_text_cached(cat, &w, r, cache, &clen);
            ck_assert_ptr_nonnull(ctext);
            ck_assert_msg(clen == len && memcmp(ctext, text, len) == 0, "round %d pass %d: cached text differs",
                          round, pass);
            free(ctext);
        }
        free(text);
    }
    json_plan_cache_free(cache);
    free(ref);
    free(r);
    free(cat);
}
END_TEST

/* ---- tier templates (json_plan.c, json_write.c): a memo hit's tier is its
 * last text with the values that changed written anew. */

static unsigned long long tpl_next(unsigned long long *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

static double tpl_u(unsigned long long *st)
{
    return (double)(tpl_next(st) >> 11) / 9007199254740992.0;
}

/* A text of 0 to cap - 1 bytes: words, digits, and now and then a quote,
 * a backslash or a newline (escaped in the answer). */
static void tpl_text(char *s, size_t cap, unsigned long long *st)
{
    static const char chars[] = "abcdefghij klmnop 0123456789 $.,:()\"\\\n";
    size_t n = (size_t)(tpl_u(st) * (double)(cap < 120 ? cap - 1 : 120));
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned)(tpl_next(st) % (sizeof chars - 1));
        s[i] = (c >= sizeof chars - 5 && tpl_u(st) < 0.7) ? 'x' : chars[c];
    }
    s[n] = '\0';
}

/* A number whose text has another length now and then: whole, or with up
 * to 4 decimals, from 0.001 to 10^10; NaN and infinities (null) once in a
 * while, and now and then a huge or negative one (a rounding hole's factor
 * times it at 2^52 and beyond, where rounding leaves it as it is). */
static double tpl_num(unsigned long long *st)
{
    double u = tpl_u(st), x = pow(10.0, -3.0 + 13.0 * tpl_u(st));
    if (u < 0.02)
        return NAN;
    if (u < 0.03)
        return tpl_u(st) < 0.5 ? INFINITY : -INFINITY;
    if (u < 0.05)
        return pow(10.0, 11.0 + 10.0 * tpl_u(st)) * (tpl_u(st) < 0.5 ? -1.0 : 1.0);
    if (u < 0.07)
        return -round(x * 1e4) / 1e4;
    if (u < 0.4)
        return floor(x);
    return round(x * 1e4) / 1e4;
}

static void tpl_fill(struct engine_plan *p, unsigned long long *st)
{
    static const char *const recompute[] = {"none", "selective", "full"};
    memset(p, 0, sizeof *p);
    p->feasible = tpl_u(st) < 0.6;
    tpl_text(p->why, 80, st);
    p->need_budget_usd = tpl_num(st);
    p->need_deadline_days = tpl_num(st);
    p->gpu_index = tpl_u(st) < 0.8 ? 3 : -1;
    snprintf(p->gpu_id, sizeof p->gpu_id, "gpu-%d", (int)(tpl_u(st) * 4));
    snprintf(p->gpu_name, sizeof p->gpu_name, "GPU %d", (int)(tpl_u(st) * 4));
    p->count = 8 << (int)(tpl_u(st) * 6);
    p->per_node = 8;
    p->nodes = p->count / 8;
    p->par = (struct engine_parallel){8, 2, p->count / 16 ? p->count / 16 : 1, 1, 1, 1, 0, 1, 512, 1, 0};
    if (!p->feasible && tpl_u(st) < 0.3)
        p->par.tp = 0;   /* a plan that does not fit (engine_plan_fits): written with nulls */
    p->recompute_name = recompute[(int)(tpl_u(st) * 3)];
    p->mem_per_gpu_gib = tpl_num(st);
    p->intra_node = "nvswitch";
    p->fabric_kind = FABRIC_INFINIBAND;
    p->topology = "leaf-spine";
    p->oversubscription = "1:1";
    p->n_storage = 1 + (int)(tpl_u(st) * PLAN_STORAGE_TIERS_MAX);
    for (int i = 0; i < p->n_storage; i++) {
        p->storage[i].tier[0] = 't';
        p->storage[i].tier[1] = (char)('0' + i);   /* below PLAN_STORAGE_TIERS_MAX */
        snprintf(p->storage[i].kind, sizeof p->storage[i].kind, "kind-%d", (int)(tpl_u(st) * 3));
        p->storage[i].capacity_tb = tpl_num(st);
        p->storage[i].read_gbs = tpl_num(st);
        p->storage[i].write_gbs = tpl_num(st);
        p->storage[i].usd = tpl_num(st);
    }
    p->ckpt_size_gb = tpl_num(st);
    p->ckpt_keep = 3;
    p->dataset_tb = tpl_num(st);
    p->read_gbs = tpl_num(st);
    p->days = tpl_num(st);
    p->days_low = tpl_num(st);
    p->days_high = tpl_num(st);
    p->gpu_hours = tpl_num(st);
    p->tokens_per_s = tpl_num(st);
    p->flops_total = tpl_num(st) * 1e15;
    p->startup_s = tpl_num(st);
    p->billed_hours = tpl_num(st);
    p->cost_usd = tpl_num(st);
    p->cost_low_usd = tpl_num(st);
    p->cost_high_usd = tpl_num(st);
    p->basis = tpl_u(st) < 0.5 ? PRICING_CLOUD : PRICING_BUY;
    p->n_expectations = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(p->expectations[i].id, sizeof p->expectations[i].id, "exp-%d", i);
        p->expectations[i].min = i ? NAN : 1.5;
        p->expectations[i].max = 9.5;
        snprintf(p->expectations[i].why, sizeof p->expectations[i].why, "T%d", i);
    }
    p->n_rationale = (int)(tpl_u(st) * (PLAN_RATIONALE_MAX + 1));
    for (int i = 0; i < p->n_rationale; i++) {
        snprintf(p->rationale[i].rule, sizeof p->rationale[i].rule, "R%d", (int)(tpl_u(st) * 40));
        tpl_text(p->rationale[i].text, sizeof p->rationale[i].text, st);
    }
    p->n_warnings = (int)(tpl_u(st) * (PLAN_WARNINGS_MAX + 1));
    for (int i = 0; i < p->n_warnings; i++)
        tpl_text(p->warnings[i], PLAN_TEXT_MAX, st);
    p->n_bom = (int)(tpl_u(st) * (PLAN_BOM_MAX + 1));
    for (int i = 0; i < p->n_bom; i++) {
        snprintf(p->bom[i].item, sizeof p->bom[i].item, "item-%d", (int)(tpl_u(st) * 5));
        tpl_text(p->bom[i].description, sizeof p->bom[i].description, st);
        p->bom[i].quantity = tpl_num(st);
        p->bom[i].unit_usd = tpl_num(st);
        p->bom[i].total_usd = tpl_num(st);
        snprintf(p->bom[i].as_of, sizeof p->bom[i].as_of, "2026-0%u", 1u + (unsigned)(tpl_next(st) % 9));
    }
    p->bom_total_usd = tpl_num(st);
}

/* A repricing: what a memo hit changes (days, costs, the texts citing
 * them), a few values at a time; now and then a value the tier's key holds
 * instead (a rule, a count, the checkpoint, the basis, the cluster). */
static void tpl_reprice(struct engine_plan *p, const struct engine_plan *orig, unsigned long long *st)
{
    int n = 1 + (int)(tpl_u(st) * 6);
    if (tpl_u(st) < 0.08) {
        switch ((int)(tpl_u(st) * 8)) {
        case 0:
            if (p->n_rationale > 0) {   /* any rule (tier_key compares them 16 bytes a step) */
                int r = (int)(tpl_u(st) * p->n_rationale);
                snprintf(p->rationale[r].rule, sizeof p->rationale[r].rule, "T%d", (int)(tpl_u(st) * 9));
            }
            break;
        case 1:
            p->n_rationale = (int)(tpl_u(st) * (orig->n_rationale + 1));
            break;
        case 2:
            p->ckpt_size_gb = tpl_num(st);
            break;
        case 3:
            p->basis = p->basis == PRICING_BUY ? PRICING_CLOUD : PRICING_BUY;
            break;
        case 4:
            p->feasible = !p->feasible;
            break;
        case 5:
            p->startup_s = tpl_num(st);
            break;
        case 6:
            p->n_bom = (int)(tpl_u(st) * (orig->n_bom + 1));
            break;
        default:
            snprintf(p->gpu_id, sizeof p->gpu_id, "gpu-%d", (int)(tpl_u(st) * 4));
            break;
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        double *nums[] = {&p->days,         &p->days_low,         &p->days_high,    &p->gpu_hours,
                          &p->cost_usd,     &p->cost_low_usd,     &p->cost_high_usd, &p->billed_hours,
                          &p->flops_total,  &p->dataset_tb,       &p->read_gbs,     &p->need_budget_usd,
                          &p->need_deadline_days, &p->bom_total_usd};
        double u = tpl_u(st);
        if (u < 0.5) {
            *nums[(int)(tpl_u(st) * (sizeof nums / sizeof nums[0]))] = tpl_num(st);
        } else if (u < 0.6) {
            struct plan_storage_tier *s = &p->storage[(int)(tpl_u(st) * p->n_storage)];
            double *f[] = {&s->capacity_tb, &s->read_gbs, &s->write_gbs, &s->usd};
            *f[(int)(tpl_u(st) * 4)] = tpl_num(st);
        } else if (u < 0.75 && p->n_bom > 0) {
            struct plan_bom_line *b = &p->bom[(int)(tpl_u(st) * p->n_bom)];
            double *f[] = {&b->quantity, &b->unit_usd, &b->total_usd};
            if (tpl_u(st) < 0.3)
                tpl_text(b->description, sizeof b->description, st);
            else
                *f[(int)(tpl_u(st) * 3)] = tpl_num(st);
        } else if (u < 0.9 && p->n_rationale > 0) {
            tpl_text(p->rationale[(int)(tpl_u(st) * p->n_rationale)].text, PLAN_TEXT_MAX, st);
        } else if (u < 0.95 && p->n_warnings > 0) {
            tpl_text(p->warnings[(int)(tpl_u(st) * p->n_warnings)], PLAN_TEXT_MAX, st);
        } else {
            tpl_text(p->why, 80, st);
        }
    }
}


/* The answer written plainly and through the plan cache's templates: the
 * same bytes, else the step and where they part. */
static void tpl_same_answer(const struct catalog *cat, const struct engine_workload *w,
                            const struct engine_recommendation *r, struct json_plan_cache *cache, int step)
{
    size_t la = 0, lb = 0;
    char *a = json_recommendation_text(cat, w, r, &la);
    char *b = json_recommendation_text_cached(cat, w, r, cache, &lb);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    if (la != lb || memcmp(a, b, la) != 0) {
        size_t d = 0;
        while (d < la && d < lb && a[d] == b[d])
            d++;
        ck_abort_msg("step %d: the patched answer differs at byte %zu: ...%.60s... for ...%.60s...", step, d,
                     b + (d > 20 ? d - 20 : 0), a + (d > 20 ? d - 20 : 0));
    }
    free(a);
    free(b);
}

START_TEST(tiers_patched_from_their_templates_are_written_as_the_plain_writer_writes_them)
{
    enum { STEPS = 6000 };
    struct catalog *cat = calloc(1, sizeof *cat);
    struct engine_recommendation *r = calloc(1, sizeof *r), *orig = calloc(1, sizeof *orig);
    struct json_plan_cache *cache = json_plan_cache_new();
    struct engine_workload w;
    unsigned long long st = 0x6a09e667f3bcc908ULL, taken0 = 0, taken = 0, written = 0;
    ck_assert(cat && r && orig && cache);
    engine_workload_init(&w);
    for (int step = 0; step < STEPS; step++) {
        if (step % 300 == 0) {   /* now and then other plans */
            for (int t = 0; t < TIER_COUNT; t++)
                tpl_fill(&r->tiers[t], &st);
            memcpy(orig->tiers, r->tiers, sizeof r->tiers);
        } else {
            tpl_reprice(&r->tiers[(int)(tpl_u(&st) * TIER_COUNT)], &orig->tiers[0], &st);
        }
        if (step == STEPS / 2)
            json_plan_cache_replay_stats(cache, &taken0, &written);
        tpl_same_answer(cat, &w, r, cache, step);
    }
    /* the second half was mostly patched: a tier of ~100 members, three of
     * them an answer, most answers a repricing */
    json_plan_cache_replay_stats(cache, &taken, &written);
    ck_assert_msg(taken - taken0 > (unsigned long long)STEPS / 2 * 100, "tiers were barely patched: %llu calls taken",
                  taken - taken0);
    json_plan_cache_free(cache);
    free(orig);
    free(r);
    free(cat);
}
END_TEST

/* A value near a power of ten: 10^k (times r) moved by a relative d that
 * is now and then right at json_floor_log10's margins (1e-9), or beyond. */
static double tpl_near_decade(unsigned long long *st, double r)
{
    static const double d[] = {0, 1e-12, 9.9e-10, 1e-9, 1.01e-9, 2e-9, 1e-6, 4.9e-4, 5e-4, 5.1e-4, 3e-3, 0.2};
    double x = pow(10.0, (double)(int)(tpl_u(st) * 30) - 4) * r;
    double e = d[tpl_next(st) % (sizeof d / sizeof d[0])] * (tpl_u(st) < 0.5 ? -1 : 1);
    if (tpl_u(st) < 0.2)
        e = (tpl_u(st) - 0.5) * 0.9;
    x *= 1 + e;
    if (tpl_u(st) < 0.1)
        x = nextafter(x, tpl_u(st) < 0.5 ? 0 : INFINITY);
    return tpl_u(st) < 0.05 ? -x : x;
}

/* The significant-figure holes (hours = 24 days, flops_total,
 * need_budget_usd) are rounded by the patch itself within the decade its
 * template's value was in (sig_range); values that cross into the next or
 * the last decade, or sit at its bounds, must still be written as sig
 * writes them. */
START_TEST(sig_holes_patched_across_decade_bounds_are_written_as_the_plain_writer_writes_them)
{
    enum { STEPS = 20000 };
    struct catalog *cat = calloc(1, sizeof *cat);
    struct engine_recommendation *r = calloc(1, sizeof *r);
    struct json_plan_cache *cache = json_plan_cache_new();
    struct engine_workload w;
    unsigned long long st = 0xbb67ae8584caa73bULL, taken = 0, written = 0, taken0 = 0, written0 = 0;
    ck_assert(cat && r && cache);
    engine_workload_init(&w);
    for (int t = 0; t < TIER_COUNT; t++) {
        tpl_fill(&r->tiers[t], &st);
        r->tiers[t].feasible = t != 1;   /* need_budget_usd is written for tier 1 */
    }
    for (int step = 0; step < STEPS; step++) {
        struct engine_plan *p = &r->tiers[step % TIER_COUNT];
        /* one decade from the last value, or a new one now and then */
        p->days = tpl_u(&st) < 0.9 ? tpl_near_decade(&st, 1.0 / 24.0) : tpl_num(&st);
        p->flops_total = tpl_near_decade(&st, 1e6);
        p->need_budget_usd = tpl_near_decade(&st, 1.0);
        tpl_same_answer(cat, &w, r, cache, step);
        if (step == 0)
            json_plan_cache_replay_stats(cache, &taken0, &written0);
    }
    /* patched: a few values written a step (the three holes changed), the
     * rest of each tier taken from its template */
    json_plan_cache_replay_stats(cache, &taken, &written);
    ck_assert_msg(written - written0 < (unsigned long long)STEPS * 4 && taken - taken0 > (unsigned long long)STEPS * 20,
                  "tiers were barely patched: %llu calls taken, %llu written", taken - taken0, written - written0);
    json_plan_cache_free(cache);
    free(r);
    free(cat);
}
END_TEST

/* The infeasible tiers' need_budget_usd and need_deadline_days are what a
 * second request should ask for: rounded up to 4 figures and to 0.1 day,
 * never down (a budget of 2117000 for a plan of $2117371 left the tier
 * infeasible). Values rounded to figures above the units are the doubles
 * their short form reads as (104500000, not 1045 / 1e-5 =
 * 104499999.99999999; 1.055e+21, not 1.0549999999999999e+21), plainly and
 * through the templates. */
START_TEST(needed_budgets_and_deadlines_round_up_and_rounded_figures_are_their_short_doubles)
{
    static const struct { double budget, want_budget, days, want_days, flops, want_flops; } cases[] = {
        {2117371, 2118000, 157.64, 157.7, 1.055e21 * (1 + 1e-12), 1.055e21},
        {43292917, 43300000, 72.61, 72.7, 2.889e20 * (1 - 1e-13), 2.889e20},
        {104471130, 104500000, 35.71, 35.8, 8.687e23, 8.687e23},
        {2110000, 2110000, 35.7, 35.7, 4.5869999e21, 4.587e21},
        {99995000.5, 100000000, 0.01, 0.1, 6.501e24, 6.501e24},
        {999.2, 999.2, 586.67, 586.7, 1.1429999e21, 1.143e21},
    };
    struct catalog *cat = calloc(1, sizeof *cat);
    struct engine_recommendation *r = calloc(1, sizeof *r);
    struct json_plan_cache *cache = json_plan_cache_new();
    struct engine_workload w;
    unsigned long long st = 0x510e527fade682d1ULL;
    ck_assert(cat && r && cache);
    engine_workload_init(&w);
    for (int t = 0; t < TIER_COUNT; t++)
        tpl_fill(&r->tiers[t], &st);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = 0;
        char *text, err[256] = "";
        cJSON *doc = NULL, *tiers;
        for (int t = 0; t < TIER_COUNT; t++) {
            r->tiers[t].feasible = 0;
            r->tiers[t].par.tp = 8;   /* a plan that fits, missing its budget and deadline */
            r->tiers[t].need_budget_usd = cases[i].budget;
            r->tiers[t].need_deadline_days = cases[i].days;
            r->tiers[t].flops_total = cases[i].flops;
        }
        tpl_same_answer(cat, &w, r, cache, (int)i);   /* the templates' patches write what the plain writer writes */
        text = json_recommendation_text(cat, &w, r, &len);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(json_parse(text, len, &doc, err, sizeof err), ST_OK);
        tiers = cJSON_GetObjectItemCaseSensitive(doc, "tiers");
        ck_assert_int_eq(cJSON_GetArraySize(tiers), TIER_COUNT);
        for (int t = 0; t < TIER_COUNT; t++) {
            const cJSON *tier = cJSON_GetArrayItem(tiers, t);
            double b = cJSON_GetObjectItemCaseSensitive(tier, "need_budget_usd")->valuedouble;
            double d = cJSON_GetObjectItemCaseSensitive(tier, "need_deadline_days")->valuedouble;
            double f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tier, "time"),
                                                        "flops_total")->valuedouble;
            ck_assert_msg(b == cases[i].want_budget && b >= cases[i].budget, "case %zu: need_budget_usd %.17g for %.17g",
                          i, b, cases[i].budget);
            ck_assert_msg(d == cases[i].want_days && d >= cases[i].days, "case %zu: need_deadline_days %.17g for %.17g",
                          i, d, cases[i].days);
            ck_assert_msg(f == cases[i].want_flops, "case %zu: flops_total %.17g, not %.17g", i, f, cases[i].want_flops);
        }
        ck_assert_msg(strstr(text, "99999999") == NULL && strstr(text, "00000001e") == NULL,
                      "case %zu: a rounded figure written with 17 digits: %s", i, text);
        cJSON_Delete(doc);
        free(text);
    }
    json_plan_cache_free(cache);
    free(r);
    free(cat);
}
END_TEST

/* The recommend scratch pool admits at most max requests to the planner:
 * a take with every scratch out waits (asleep) until one comes back, and
 * gets that one; a free scratch is the one given back last. */
struct pool_taker {
    struct rec_pool *p;
    struct thread_scratch *got;
    volatile int done;
};

static void *pool_take_run(void *arg)
{
    struct pool_taker *t = arg;
    t->got = rec_pool_take(t->p);
    t->done = 1;
    return NULL;
}

/* A figure that is not 0 is never written as 0: a LoRA job's checkpoint
 * write rate (0.0003 GB/s), its read rate, a few cents of storage, a
 * fraction of a day, a sliver of communication. Rates are written to three
 * significant figures; the other figures keep their decimals unless those
 * would make them 0, plainly and through the templates. */
START_TEST(small_figures_that_are_not_0_are_never_written_as_0)
{
    static const char *const paths[][3] = {
        {"storage", "checkpoint", "write_gbs"}, {"storage", "checkpoint", "size_gb"},
        {"storage", "checkpoint", "interval_min"}, {"storage", "checkpoint", "stall_s"},
        {"storage", "read_gbs", NULL}, {"storage", "dataset_tb", NULL},
        {"memory", "weights_gib", NULL}, {"memory", "gradients_gib", NULL}, {"memory", "optimizer_gib", NULL},
        {"memory", "per_gpu_gib", NULL}, {"power_kw", NULL, NULL},
        {"time", "days", NULL}, {"time", "days_low", NULL}, {"time", "days_high", NULL},
        {"time", "gpu_hours", NULL}, {"time", "startup_min", NULL}, {"time", "mfu", NULL},
        {"time", "comm_fraction", NULL}, {"time", "bubble_fraction", NULL},
        {"cost", "usd", NULL}, {"cost", "usd_low", NULL}, {"cost", "usd_high", NULL}, {"bom_total_usd", NULL, NULL},
    };
    struct catalog *cat = calloc(1, sizeof *cat);
    struct engine_recommendation *r = calloc(1, sizeof *r);
    struct json_plan_cache *cache = json_plan_cache_new();
    struct engine_workload w;
    unsigned long long st = 0x9b05688c2b3e6c1fULL;
    ck_assert(cat && r && cache);
    engine_workload_init(&w);
    for (int pass = 0; pass < 3; pass++) {
        size_t len = 0;
        char *text, err[256] = "";
        cJSON *doc = NULL;
        double tiny = 3.14159e-4 * (pass + 1);
        for (int t = 0; t < TIER_COUNT; t++) {
            struct engine_plan *p = &r->tiers[t];
            if (pass == 0)
                tpl_fill(p, &st);
            p->feasible = 1;
            p->par.tp = 8;
            p->ckpt_write_gbs = p->ckpt_size_gb = p->ckpt_interval_min = p->ckpt_stall_s = tiny;
            p->read_gbs = p->dataset_tb = p->power_kw = tiny;
            p->mem_weights_gib = p->mem_gradients_gib = p->mem_optimizer_gib = p->mem_per_gpu_gib = tiny;
            p->days = p->days_low = p->days_high = p->gpu_hours = p->startup_s = tiny;
            p->mfu = p->comm_fraction = p->bubble_fraction = tiny;
            p->cost_usd = p->cost_low_usd = p->cost_high_usd = p->bom_total_usd = tiny * 1000;   /* $0.31 and up */
            for (int i = 0; i < p->n_storage; i++)
                p->storage[i].capacity_tb = p->storage[i].read_gbs = p->storage[i].write_gbs = p->storage[i].usd = tiny;
            for (int i = 0; i < p->n_bom; i++)
                p->bom[i].quantity = p->bom[i].unit_usd = p->bom[i].total_usd = tiny;
        }
        tpl_same_answer(cat, &w, r, cache, pass);   /* the templates write what the plain writer writes */
        text = json_recommendation_text(cat, &w, r, &len);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(json_parse(text, len, &doc, err, sizeof err), ST_OK);
        for (int t = 0; t < TIER_COUNT; t++) {
            const cJSON *tier = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "tiers"), t), *v, *it;
            for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
                v = tier;
                for (int d = 0; d < 3 && paths[k][d]; d++)
                    v = cJSON_GetObjectItemCaseSensitive(v, paths[k][d]);
                ck_assert_msg(cJSON_IsNumber(v) && v->valuedouble > 0, "pass %d tier %d: %s.%s written as 0", pass,
                              t, paths[k][0], paths[k][1] ? paths[k][1] : "");
            }
            /* a rate: three significant figures */
            v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
                                                     cJSON_GetObjectItemCaseSensitive(tier, "storage"), "checkpoint"),
                                                 "write_gbs");
            ck_assert_msg(fabs(v->valuedouble - round(tiny * 1e6) / 1e6) < 1e-15, "write_gbs %.17g for %.17g",
                          v->valuedouble, tiny);
            cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tier, "storage"),
                                                                     "tiers"))
            {
                static const char *const k[] = {"capacity_tb", "read_gbs", "write_gbs", "usd"};
                for (size_t i = 0; i < 4; i++)
                    ck_assert_msg(cJSON_GetObjectItemCaseSensitive(it, k[i])->valuedouble > 0, "storage %s is 0", k[i]);
            }
            cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(tier, "bom"))
            {
                static const char *const k[] = {"quantity", "unit_usd", "total_usd"};
                for (size_t i = 0; i < 3; i++)
                    ck_assert_msg(cJSON_GetObjectItemCaseSensitive(it, k[i])->valuedouble > 0, "bom %s is 0", k[i]);
            }
        }
        cJSON_Delete(doc);
        free(text);
    }
    json_plan_cache_free(cache);
    free(r);
    free(cat);
}
END_TEST

START_TEST(the_scratch_pool_makes_at_most_max_and_a_take_waits_for_a_give)
{
    struct rec_pool *p = rec_pool_new(2);
    ck_assert_ptr_nonnull(p);
    struct thread_scratch *a = rec_pool_take(p), *b = rec_pool_take(p);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_ne(a, b);
    struct pool_taker t = {p, NULL, 0};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, pool_take_run, &t), 0);
    usleep(200 * 1000);
    ck_assert_msg(!t.done, "a third scratch was handed out while two were taken");
    rec_pool_give(p, b);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_ptr_eq(t.got, b);
    rec_pool_give(p, t.got);
    rec_pool_give(p, a);
    ck_assert_ptr_eq(rec_pool_take(p), a);   /* the one given back last */
    rec_pool_give(p, a);
    rec_pool_free(p);
}
END_TEST

/* Waits (up to 10 s) until n requests wait in the pool. */
static void pool_await_waiting(struct rec_pool *p, int n)
{
    int taken = 0, waiting = 0;
    for (int i = 0; i < 10000; i++) {
        rec_pool_stats(p, &taken, &waiting);
        if (waiting >= n)
            return;
        usleep(1000);
    }
    ck_abort_msg("%d requests wait in the pool, not %d", waiting, n);
}

static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;
static int order_next;

static int order_stamp(void)
{
    pthread_mutex_lock(&order_mu);
    int n = order_next++;
    pthread_mutex_unlock(&order_mu);
    return n;
}

struct pool_turn {
    struct rec_pool *p;
    struct thread_scratch *got;
    int order;   /* when it got its scratch, by order_stamp */
};

static void *pool_turn_run(void *arg)
{
    struct pool_turn *t = arg;
    t->got = rec_pool_take(t->p);
    t->order = order_stamp();
    usleep(20 * 1000);
    rec_pool_give(t->p, t->got);
    return NULL;
}

/* The pool serves waiting requests in the order they came, and a request
 * arriving as a scratch comes back does not take it from one that waits:
 * with one scratch out, A waits, then B, then the scratch comes back and
 * the main thread asks at once; A gets it, then B, then the main thread.
 * Before, whoever took the lock first after the give got it: the main
 * thread, before A had woken. */
START_TEST(the_scratch_pool_serves_waiting_requests_first_come_first_served)
{
    struct rec_pool *p = rec_pool_new(1);
    ck_assert_ptr_nonnull(p);
    int taken, waiting;
    struct thread_scratch *s = rec_pool_take(p);
    ck_assert_ptr_nonnull(s);
    rec_pool_stats(p, &taken, &waiting);
    ck_assert_int_eq(taken, 1);
    ck_assert_int_eq(waiting, 0);
    order_next = 0;
    struct pool_turn a = {p, NULL, -1}, b = {p, NULL, -1};
    pthread_t ta, tb;
    ck_assert_int_eq(pthread_create(&ta, NULL, pool_turn_run, &a), 0);
    pool_await_waiting(p, 1);
    ck_assert_int_eq(pthread_create(&tb, NULL, pool_turn_run, &b), 0);
    pool_await_waiting(p, 2);
    rec_pool_give(p, s);
    struct thread_scratch *mine = rec_pool_take(p);
    int my_order = order_stamp();
    rec_pool_stats(p, &taken, &waiting);
    rec_pool_give(p, mine);
    ck_assert_int_eq(pthread_join(ta, NULL), 0);
    ck_assert_int_eq(pthread_join(tb, NULL), 0);
    ck_assert_ptr_eq(mine, s);
    ck_assert_ptr_eq(a.got, s);
    ck_assert_ptr_eq(b.got, s);
    ck_assert_int_eq(a.order, 0);
    ck_assert_int_eq(b.order, 1);
    ck_assert_int_eq(my_order, 2);
    ck_assert_int_eq(taken, 1);     /* as the main thread held it, last */
    ck_assert_int_eq(waiting, 0);
    rec_pool_free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server units");
    TCase *tc = tcase_create("crypto");
    tcase_add_test(tc, pbkdf2_sha256_matches_the_published_vectors);
    tcase_add_test(tc, hmac_sha256_matches_rfc_4231);
    tcase_add_test(tc, sha256_of_abc_is_the_fips_vector);
    tcase_add_test(tc, password_hashes_are_salted_and_verify_only_the_right_password);
    tcase_add_test(tc, the_server_hashes_passwords_with_at_least_600000_iterations);
    tcase_add_test(tc, constant_time_compare_tells_equal_from_different);
    tcase_add_test(tc, tokens_carry_their_prefix_and_256_random_bits);
    tcase_add_test(tc, wipe_zeroes_the_buffer);
    suite_add_tcase(s, tc);
    TCase *text = tcase_create("text");
    tcase_add_test(text, csv_cells_follow_rfc_4180_and_defuse_formulas);
    tcase_add_test(text, html_and_xml_escaping_cover_markup_characters);
    tcase_add_test(text, json_write_escapes_long_strings_as_cjson_does);
    tcase_add_test(text, json_write_cjson_writes_the_bytes_cjson_prints);
    suite_add_tcase(s, text);
    TCase *net = tcase_create("webhook addresses");
    tcase_add_test(net, address_classes_refuse_loopback_private_link_local_and_their_ipv6_forms);
    tcase_add_test(net, url_host_literals_are_found_behind_userinfo_ports_and_brackets);
    suite_add_tcase(s, net);
    TCase *api = tcase_create("openapi");
    tcase_add_test(api, every_route_in_the_table_is_described_in_openapi);
    tcase_add_test(api, every_path_in_openapi_is_served_by_a_route);
    tcase_add_test(api, json_numbers_read_back_as_the_same_double);
    tcase_add_test(api, json_numbers_above_2_53_print_as_the_c_library_does);
    tcase_add_test(api, json_numbers_with_a_decimals_hint_print_as_without_it);
    tcase_add_test(api, frontier_keeps_what_the_sorted_walk_keeps);
    tcase_add_test(api, a_search_memo_lookup_finds_the_entry_of_exactly_its_workload);
    tcase_add_test(api, the_scratch_pool_serves_waiting_requests_first_come_first_served);
    tcase_add_test(api, json_write_prints_the_same_document_as_cjson);
    suite_add_tcase(s, api);
    TCase *wr = tcase_create("json writer");
    tcase_set_timeout(wr, 120);   /* millions of writer calls; slower under the sanitizers */
    tcase_add_test(wr, recorded_parts_write_the_bytes_the_plain_writer_writes);
    tcase_add_test(wr, a_block_of_another_site_with_the_same_key_is_written_anew);
    tcase_add_test(wr, recorded_strings_that_grow_and_shrink_are_written_as_the_plain_writer_writes);
    tcase_add_test(wr, tiers_patched_from_their_templates_are_written_as_the_plain_writer_writes_them);
    tcase_add_test(wr, sig_holes_patched_across_decade_bounds_are_written_as_the_plain_writer_writes_them);
    tcase_add_test(wr, needed_budgets_and_deadlines_round_up_and_rounded_figures_are_their_short_doubles);
    tcase_add_test(wr, small_figures_that_are_not_0_are_never_written_as_0);
#ifndef NDEBUG
    tcase_add_test_raise_signal(wr, a_recorded_key_whose_text_changed_under_its_address_is_caught, SIGABRT);
#endif
    tcase_add_test(wr, json_number_fast_forms_equal_the_first_forms);
    tcase_add_test(wr, json_numbers_with_a_decimals_hint_equal_the_first_forms);
    tcase_add_test(wr, json_strings_of_every_length_are_escaped_as_cjson_does);
    tcase_add_test(wr, workload_members_are_found_as_a_walk_over_the_members_finds_them);
    tcase_add_test(wr, powers_of_ten_from_pow_are_the_exact_literals);
    tcase_add_test(wr, floor_log10_is_what_libm_gives);
    tcase_add_test(wr, json_integers_at_digit_and_bit_boundaries_print_as_the_c_library_does);
    tcase_add_test(wr, jw_round_rounds_as_libm_round);
    tcase_add_test(wr, the_plan_cache_tells_bodies_apart_byte_for_byte);
    tcase_add_test(wr, the_plan_cache_keeps_answers_asked_twice_and_one_off_bodies_do_not_evict_them);
    tcase_add_test(wr, small_bodies_parse_to_the_tree_cjson_builds);
    tcase_add_test(wr, small_body_numbers_are_the_doubles_cjson_reads);
    tcase_add_test(wr, small_body_numbers_with_long_exponents_are_read_as_cjson_reads_them);
    tcase_add_test(wr, the_scratch_pool_makes_at_most_max_and_a_take_waits_for_a_give);
    suite_add_tcase(s, wr);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
