/*
 * cli_output.h — how gcgc's commands write an output file (-o).
 *
 * "-" is stdout. Otherwise the bytes go to a temporary file beside the
 * target and rename(2) puts them in place, so a reader never sees half a
 * file. A rename over a device, FIFO or socket would replace it by a
 * regular file (as root, `-o /dev/null` would destroy /dev/null), so only
 * regular files are written: a symlink is followed and its target
 * replaced, anything else that is not a regular file is refused, and so is
 * a path that names one of the command's inputs.
 */
#ifndef GCGC_CLI_OUTPUT_H
#define GCGC_CLI_OUTPUT_H

#include <stddef.h>

/* Writes n bytes of data to path; inputs (n_inputs paths, NULL entries
 * skipped) are the files the command read. Returns 0, or 1 after printing
 * why to stderr. */
int gcgc_cli_write(const char *path, const void *data, size_t n, const char *const *inputs, size_t n_inputs);

#endif /* GCGC_CLI_OUTPUT_H */
