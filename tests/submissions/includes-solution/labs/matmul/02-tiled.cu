/* tests/submissions/includes-solution: a deliberately wrong step 02 for the grading
 * tests (tests/test_grading.c, harness/labs/matmul/tests/test_matmul_grading_gpu.c).
 *
 * Hands in the instructor's solution: the harness's include path (-Iharness) makes
 * "../solutions/..." the grading tree's solutions/ folder. It builds, and its numbers
 * would be right.
 * Expect: verdict "refused", the build check naming solutions/matmul/02-tiled.cu;
 * nothing else runs.
 */
#include "../solutions/matmul/02-tiled.cu"
