/* \brief Files in folders that sandboxed code may have changed, opened safely.
 *
 * A student's slot is writable inside the sandbox (sandbox.h), so by the time the
 * grader reads a log or a CSV from it, any folder on the way may have become a symbolic
 * link to somewhere the student could not read (the reference solutions, another
 * student's slot), and any file a FIFO that blocks. Grading registers each slot here;
 * every open of a file for reading (read_text, csv_read_file) or of a sandboxed
 * process's log goes through untrusted_open, which resolves a path inside a registered
 * folder beneath it and through no symbolic link at all (openat2 RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS), and accepts a regular file only. The slot folder itself is the
 * grader's (its parent is out of the sandbox's reach), so it is trusted as a start. */
#ifndef UNTRUSTED_H
#define UNTRUSTED_H

/* Registers dir (as given, and its real path) as changed by untrusted code; 0, or -1 with
 * errno (ENOMEM; ENAMETOOLONG). Registering a folder twice is harmless. */
int untrusted_add(const char *dir);

/* Whether path lies inside a registered folder. */
int untrusted_contains(const char *path);

/* open(2) of path with flags (O_RDONLY or O_WRONLY | O_CREAT | O_TRUNC, ...), always
 * non-blocking and close-on-exec, then switched back to blocking; a regular file only
 * (EINVAL otherwise). Inside a registered folder: through no symbolic link beneath it
 * (ELOOP, EXDEV); elsewhere as flags say (O_NOFOLLOW) when no_links is 0, and through
 * no link at all when it is 1. Returns the descriptor or -1 with errno. */
int untrusted_open(const char *path, int flags, int no_links);

#endif
