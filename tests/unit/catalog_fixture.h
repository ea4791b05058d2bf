/* catalog_fixture.h: the Check fixture of the engine suites: the catalog as
 * the server sees it, loaded through the real migrations into an in-memory
 * database (so tests and server read one source), freed after each test.
 * Header-only and static: each suite that includes it gets its own `cat`. */
#ifndef GPUPLAN_CATALOG_FIXTURE_H
#define GPUPLAN_CATALOG_FIXTURE_H

#include <check.h>
#include <stdlib.h>

#include "db.h"
#include "engine.h"

static struct catalog *cat;

static void setup(void)
{
    struct db *db = NULL;
    char err[256];
    cat = calloc(1, sizeof *cat);
    ck_assert_ptr_nonnull(cat);
    ck_assert_int_eq(db_open(":memory:", DB_OPEN_MIGRATE, &db, err, sizeof err), ST_OK);
    ck_assert_msg(db_catalog_load(db, cat, err, sizeof err) == ST_OK, "%s", err);
    db_close(db);
}

static void teardown(void)
{
    free(cat);
    cat = NULL;
}

#endif
