/* The explorer's problem is the matrix-multiplication lab's: the same inputs, CPU
 * reference and comparison (harness/labs/matmul/problem.c), compiled here so that
 * each configuration links as a step of its own lab, "explorer", and records its
 * rows in data/results/<gpu>/explorer.csv. */
#include "../matmul/problem.c"
