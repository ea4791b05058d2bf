/* cli_serve.c: `gpuplan serve`: migrate the database, start the HTTP
 * server, wait for SIGINT/SIGTERM, then stop cleanly.
 *
 * Signals are blocked before civetweb starts its threads, so every thread
 * inherits the mask and only the main thread, in sigwait(), ever sees them:
 * no async-signal-safety puzzles, and shutdown runs as ordinary code that
 * lets in-flight requests finish (mg_stop) before the process exits. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "db.h"
#include "engine.h"
#include "server_int.h"
#include "search_memo.h"

#ifndef GPUPLAN_WEB_DIR
#define GPUPLAN_WEB_DIR "web"
#endif

static void serve_help(FILE *out)
{
    fprintf(out,
            "usage: gpuplan serve [options]\n"
            "\n"
            "Runs the web UI and REST API. The database file is created and migrated on start.\n"
            "\n"
            "  --port N          TCP port (default 8080; 0 picks a free one)\n"
            "  --listen ADDR     address to bind (default 127.0.0.1)\n"
            "  --db PATH         SQLite database file (default var/gpuplan.db)\n"
            "  --web DIR         static UI files (default %s)\n"
            "  --threads N       worker threads (default 32)\n"
            "  --max-body BYTES  largest JSON request body (default 1048576)\n"
            "  --max-report BYTES largest report upload (default 16777216)\n"
            "  --no-signup       refuse team sign-up without an invite\n"
            "  --secure-cookies  mark session cookies Secure (when served behind TLS)\n"
            "  --webhook-allow-private\n"
            "                    let webhooks reach loopback, private, link-local and other\n"
            "                    non-public addresses (refused by default: SSRF guard)\n"
            "  --login-limit-account N\n"
            "                    failed sign-ins per account in 15 minutes before 429 (default 5)\n"
            "  --login-limit-address N\n"
            "                    failed sign-ins per client address in 15 minutes before 429 (default 30)\n"
            "  --port-file PATH  write the bound port to PATH once listening\n"
            "  --quiet           log warnings and errors only (no access log)\n"
            "  --help            this text\n",
            GPUPLAN_WEB_DIR);
}

static int write_port_file(const char *path, int port)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path); /* readers never see a half-written file */
}

/* Each request worker holds its SQLite connection (the database and its
 * WAL: two descriptors) from its start, and each open connection a socket:
 * with 512 workers that is past a soft limit of 1,024 open files. So the
 * soft limit goes up to the hard one (as servers do), and a limit still too
 * low for the workers is said at start rather than met as failed opens. */
static void files_limit_raise(int threads)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)threads * 3 + 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rlim_t was = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            log_msg(LOG_INFO, "open files limit raised from %llu to %llu for %d workers", (unsigned long long)was,
                    (unsigned long long)rl.rlim_cur, threads);
        else
            rl.rlim_cur = was;
    }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
        log_msg(LOG_WARN, "open files limit %llu is low for %d workers (about %llu wanted): raise it (ulimit -n)",
                (unsigned long long)rl.rlim_cur, threads, (unsigned long long)need);
}

int cli_serve(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},     {"listen", required_argument, NULL, 'l'},
        {"db", required_argument, NULL, 'd'},       {"web", required_argument, NULL, 'w'},
        {"threads", required_argument, NULL, 't'},  {"max-body", required_argument, NULL, 'b'},
        {"max-report", required_argument, NULL, 'r'}, {"no-signup", no_argument, NULL, 'n'},
        {"secure-cookies", no_argument, NULL, 's'}, {"port-file", required_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {"webhook-allow-private", no_argument, NULL, 'P'},
        {"login-limit-account", required_argument, NULL, 'A'},
        {"login-limit-address", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    struct app app;
    const char *listen = "127.0.0.1", *port_file = NULL;
    long port = 8080, threads = 32, v;
    char err[512];
    struct db *db = NULL;
    struct catalog *catalog = NULL;
    int c, bound = 0;

    memset(&app, 0, sizeof app);
    snprintf(app.db_path, sizeof app.db_path, "%s", "var/gpuplan.db");
    snprintf(app.web_dir, sizeof app.web_dir, "%s", GPUPLAN_WEB_DIR);
    app.json_limit = 1u << 20;
    app.report_limit = 16u << 20;
    app.signup_open = 1;
    app.login_max_account = 5;
    app.login_max_address = 30;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (parse_long(optarg, 0, 65535, &port) != ST_OK) {
                cli_error("serve", "--port: expected a number from 0 to 65535, got '%s'", optarg);
                return 2;
            }
            break;
        case 'l': listen = optarg; break;
        case 'd':
            if (snprintf(app.db_path, sizeof app.db_path, "%s", optarg) >= (int)sizeof app.db_path) {
                cli_error("serve", "--db: path too long");
                return 2;
            }
            break;
        case 'w':
            if (snprintf(app.web_dir, sizeof app.web_dir, "%s", optarg) >= (int)sizeof app.web_dir) {
                cli_error("serve", "--web: path too long");
                return 2;
            }
            break;
        case 't':
            if (parse_long(optarg, 1, 512, &threads) != ST_OK) {
                cli_error("serve", "--threads: expected a number from 1 to 512, got '%s'", optarg);
                return 2;
            }
            break;
        case 'b':
        case 'r':
            if (parse_long(optarg, 1024, 1L << 30, &v) != ST_OK) {
                cli_error("serve", "--%s: expected bytes from 1024 to 1073741824, got '%s'",
                          c == 'b' ? "max-body" : "max-report", optarg);
                return 2;
            }
            if (c == 'b')
                app.json_limit = (size_t)v;
            else
                app.report_limit = (size_t)v;
            break;
        case 'n': app.signup_open = 0; break;
        case 's': app.secure_cookies = 1; break;
        case 'P': app.webhook_allow_private = 1; break;
        case 'A':
        case 'I':
            if (parse_long(optarg, 1, 1000000, &v) != ST_OK) {
                cli_error("serve", "--%s: expected a number from 1 to 1000000, got '%s'",
                          c == 'A' ? "login-limit-account" : "login-limit-address", optarg);
                return 2;
            }
            if (c == 'A')
                app.login_max_account = (int)v;
            else
                app.login_max_address = (int)v;
            break;
        case 'f': port_file = optarg; break;
        case 'q': log_set_level(LOG_WARN); break;
        case 'h': serve_help(stdout); return 0;
        default: serve_help(stderr); return 2;
        }
    }
    if (optind < argc) {
        cli_error("serve", "unexpected argument '%s' (see gpuplan serve --help)", argv[optind]);
        return 2;
    }

    /* Migrate once, here, before any worker opens its own connection. */
    if (db_open(app.db_path, DB_OPEN_MIGRATE, &db, err, sizeof err) != ST_OK) {
        cli_error("serve", "%s", err);
        return 1;
    }
    log_msg(LOG_INFO, "database %s at schema version %d", app.db_path, db_schema_version(db));
    /* The planner's catalog: read once, shared read-only by every worker. */
    catalog = calloc(1, sizeof *catalog);
    if (!catalog || db_catalog_load(db, catalog, err, sizeof err) != ST_OK) {
        cli_error("serve", "cannot load the catalog: %s", catalog ? err : "out of memory");
        free(catalog);
        db_close(db);
        return 1;
    }
    app.catalog = catalog;
    app.plan_cache = resp_cache_new();
    app.search_memo = search_memo_new();
    app.rec_pool = rec_pool_new(0);
    db_close(db);
    db = NULL;

    files_limit_raise((int)threads);

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    int rc = 0;
    if (http_start(&app, listen, (int)port, (int)threads, &bound, err, sizeof err) != ST_OK) {
        cli_error("serve", "%s", err);
        rc = 1;
        goto out;
    }
    if (webhook_start(&app, err, sizeof err) != ST_OK) {
        cli_error("serve", "%s", err);
        http_stop(&app);
        rc = 1;
        goto out;
    }
    log_msg(LOG_INFO, "listening on http://%s:%d/", listen, bound);
    if (port_file && write_port_file(port_file, bound) != 0)
        log_msg(LOG_WARN, "cannot write port file %s", port_file);

    int sig = 0;
    sigwait(&set, &sig);
    log_msg(LOG_INFO, "received %s, finishing in-flight requests", sig == SIGINT ? "SIGINT" : "SIGTERM");
    http_stop(&app);
    webhook_stop();
    log_msg(LOG_INFO, "stopped");
out:
    /* also when the server could not start: nothing of it is left behind */
    app.catalog = NULL;
    free(catalog);
    resp_cache_free(app.plan_cache);
    search_memo_free(app.search_memo);
    rec_pool_free(app.rec_pool);
    return rc;
}
