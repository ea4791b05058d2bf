/* gpuplan.c: the executable's entry point; everything else is in the server library
 * so tests can link the same code. */
#include "server.h"

int main(int argc, char **argv)
{
    return gpuplan_main(argc, argv);
}
