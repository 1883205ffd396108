/* Helpers shared by the suites that run the lab's binaries. */
#ifndef LAB_TEST_UTIL_H
#define LAB_TEST_UTIL_H

#include <stddef.h>

/* Runs argv[0] with argv, with extra environment assignments ("NAME=value", NULL
 * ended, may be NULL), capturing stdout and stderr (truncated to the buffers).
 * Returns the exit code, 128 + signal when killed, -1 when it could not start. */
int run_capture(char *const argv[], const char *const extra_env[], char *out, size_t out_len,
                char *err, size_t err_len);

/* The folder of the built binaries (LAB_BIN_DIR, default "bin"), and a path in it. */
const char *bin_dir(void);
const char *bin_path(const char *relative, char *buf, size_t len);

/* Lines of text (counting a last line without '\n'). */
int count_lines(const char *text);

#endif
