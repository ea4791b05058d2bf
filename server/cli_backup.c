/* cli_backup.c: `gpuplan backup --db PATH OUT`: a consistent copy of the
 * database while the server keeps running.
 *
 * The copy uses SQLite's online backup API (db_backup_to) rather than cp:
 * a file copy of a WAL database taken while the server writes can tear
 * between the main file and the -wal file. The copy is written beside OUT
 * under a temporary name, checked with PRAGMA integrity_check, and only then
 * renamed over OUT, so OUT is always either the old backup or a complete,
 * verified new one. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "server_int.h"

static void backup_help(FILE *out)
{
    fprintf(out,
            "usage: gpuplan backup [--db PATH] OUT\n"
            "\n"
            "Copies the database to OUT with SQLite's online backup API. Safe while\n"
            "`gpuplan serve` runs on the same file: the server keeps answering and the\n"
            "copy is one consistent snapshot. The copy is verified with PRAGMA\n"
            "integrity_check before it replaces OUT; OUT is a single self-contained\n"
            "file (no -wal or -shm beside it). Restore by stopping the server and\n"
            "moving the copy over the database file.\n"
            "\n"
            "  --db PATH   database to copy (default var/gpuplan.db)\n"
            "  --help      this text\n"
            "\n"
            "exit status: 0 copied and verified, 1 failed, 2 usage\n");
}

/* Makes a completed rename durable: the directory entry itself must reach the disk. */
static void sync_dir_of(const char *path)
{
    char copy[4096];
    if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy)
        return;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int cli_backup(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *src = "var/gpuplan.db", *dest = NULL;
    char tmp[4200], err[512];
    struct db *db = NULL, *copy = NULL;
    struct stat sb;
    int c, rc = 1, made_tmp = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': src = optarg; break;
        case 'h': backup_help(stdout); return 0;
        default: backup_help(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error("backup", "expected one output file (see gpuplan backup --help)");
        return 2;
    }
    dest = argv[optind];
    /* Opening a missing file would create an empty database and "back it up". */
    if (stat(src, &sb) != 0) {
        cli_error("backup", "cannot open database %s: %s", src, strerror(errno));
        return 1;
    }
    if (!S_ISREG(sb.st_mode)) {
        cli_error("backup", "cannot open database %s: not a regular file", src);
        return 1;
    }
    if (strcmp(src, dest) == 0) {
        cli_error("backup", "the output file must differ from the database");
        return 2;
    }
    if (snprintf(tmp, sizeof tmp, "%s.partial-%ld", dest, (long)getpid()) >= (int)sizeof tmp) {
        cli_error("backup", "output path too long");
        return 2;
    }

    if (db_open(src, DB_OPEN_READONLY | DB_OPEN_ANY_VERSION, &db, err, sizeof err) != ST_OK) {
        cli_error("backup", "%s", err);
        goto out;
    }
    unlink(tmp); /* a leftover of a killed earlier run with the same pid */
    made_tmp = 1;
    if (db_backup_to(db, tmp, err, sizeof err) != ST_OK) {
        cli_error("backup", "%s", err);
        goto out;
    }
    if (db_open(tmp, DB_OPEN_READONLY | DB_OPEN_ANY_VERSION, &copy, err, sizeof err) != ST_OK) {
        cli_error("backup", "cannot reopen the copy: %s", err);
        goto out;
    }
    if (db_integrity_check(copy, err, sizeof err) != ST_OK) {
        cli_error("backup", "the copy failed its integrity check: %s", err);
        goto out;
    }
    int version = db_schema_version(copy);
    db_close(copy);
    copy = NULL;
    if (rename(tmp, dest) != 0) {
        cli_error("backup", "cannot move the copy to %s: %s", dest, strerror(errno));
        goto out;
    }
    made_tmp = 0;
    sync_dir_of(dest);
    if (stat(dest, &sb) == 0)
        printf("backed up %s to %s: %lld bytes, schema version %d, integrity ok\n", src, dest,
               (long long)sb.st_size, version);
    rc = 0;
out:
    db_close(copy);
    db_close(db);
    if (made_tmp)
        unlink(tmp);
    return rc;
}
