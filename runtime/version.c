/* version.c — the library version and the artifact format versions it reads,
 * so a host can check at run time what it loaded (the header's
 * GCG_VERSION_* macros say only what it was compiled against). */
#include "container.h"
#include "gcg.h"

const char *gcg_version(void)
{
    return GCG_VERSION_STRING;
}

void gcg_artifact_format_versions(uint32_t *oldest, uint32_t *newest)
{
    if (oldest)
        *oldest = GCG_FORMAT_OLDEST;
    if (newest)
        *newest = GCG_FORMAT_VERSION;
}
