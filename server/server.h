/* server.h: the server module's public face: the command-line entry point.
 * Everything else in server/ is internal (server_int.h). */
#ifndef GPUPLAN_SERVER_H
#define GPUPLAN_SERVER_H

/* Runs the gpuplan command line; returns the process exit status. */
int gpuplan_main(int argc, char **argv);

#endif
