/* main.c: the gpuplan command line: one binary, one command per job.
 *
 * The command table is the only place a command is wired in; each command
 * lives in its cli_*.c file, parses its own options and prints its own help. */
#include <stdio.h>
#include <string.h>

#include "server.h"
#include "server_int.h"

static const struct command commands[] = {
    {"serve", cli_serve, "run the web UI and REST API on an embedded SQLite file"},
    {"submit", cli_submit, "upload benchmark output to a gpuplan server and print the verdict"},
    {"recommend", cli_recommend, "workload JSON in, three hardware plans (JSON) out"},
    {"estimate", cli_estimate, "workload + fixed cluster JSON in, one evaluation (JSON) out"},
    {"parse", cli_parse, "read preflight/benchmark tool output into facts (JSON)"},
    {"check", cli_check, "judge tool output against a saved plan's expectations"},
    {NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(out,
            "gpuplan %s: plan GPU clusters for model training, then check the real cluster against the plan.\n"
            "\n"
            "usage: gpuplan <command> [options]\n"
            "\n"
            "commands:\n",
            GPUPLAN_VERSION);
    for (const struct command *c = commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\n'gpuplan <command> --help' describes a command's options.\n");
}

int gpuplan_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("gpuplan %s\n", GPUPLAN_VERSION);
        return 0;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        name = argv[2];
        for (const struct command *c = commands; c->name; c++) {
            if (strcmp(c->name, name) == 0) {
                char *hargv[] = {argv[2], "--help", NULL};
                return c->run(2, hargv);
            }
        }
        cli_error("help", "unknown command '%s' (see gpuplan --help)", name);
        return 2;
    }
    for (const struct command *c = commands; c->name; c++) {
        if (strcmp(c->name, name) == 0)
            return c->run(argc - 1, argv + 1);
    }
    cli_error(name, "unknown command (see gpuplan --help)");
    return 2;
}

