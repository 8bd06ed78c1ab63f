/*
 * artifact.h — internal view of a loaded artifact, for the runtime modules
 * and the command-line tools (the public API is in gcg.h).
 */
#ifndef GCG_ARTIFACT_H
#define GCG_ARTIFACT_H

#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "gcg.h"

/* The validated container behind an artifact (section table, sizes). */
const gcg_container *gcg_artifact_container(const gcg_artifact *art);

/* The value of `key` in the META section (not NUL-terminated; *len bytes),
 * or NULL when absent. */
const char *gcg_artifact_meta(const gcg_artifact *art, const char *key, size_t *len);

/* A printable name for a section id ("meta", "action", ...), or "unknown". */
const char *gcg_section_name(uint32_t id);

#endif /* GCG_ARTIFACT_H */
