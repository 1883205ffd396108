/* bin/plotdata: results CSVs in, gnuplot data files out. The logic lives in
 * harness/plotdata.c, where the tests can reach it; `plotdata --help` says how to
 * call it. */
#include <stdio.h>

#include "plotdata.h"

int main(int argc, char **argv)
{
    return plotdata_main(argc, argv, stdout, stderr);
}
