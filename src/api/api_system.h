/*
 * api/api_system.h - metadata system tables ("db.t$snapshots", ...; see
 * api_system.c): their kinds, schemas, and the read.
 */
#ifndef PM_API_SYSTEM_H
#define PM_API_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "api/handles.h"
#include "core/strs.h"
#include "meta/schema.h"
#include "paimonc/arrow_c.h"
#include "table/predicate.h"

enum {
	PM_SYS_NONE = 0,
	PM_SYS_SNAPSHOTS,
	PM_SYS_SCHEMAS,
	PM_SYS_OPTIONS,
	PM_SYS_TAGS,
	PM_SYS_CONSUMERS,
	PM_SYS_BRANCHES,
	PM_SYS_MANIFESTS,
	PM_SYS_FILES,
	PM_SYS_PARTITIONS,
	PM_SYS_TABLE_INDEXES,
};

/* The kind of "$<suffix>" (case-insensitive), 0 when it is not one. */
int pm_api_system_kind(const char *suffix);
/* The names, for messages. */
const char *pm_api_system_names(void);
/* The columns of a kind (Java 1.4.2's), as a schema (pm_schema_free). */
int pm_api_system_schema(int kind, pm_table_schema **out);
/*
 * Reads system table t (t->sys_kind != 0): one batch of its rows when
 * nsplits > 0 (the plan's one split), none otherwise; rows matching pred
 * (bound to t's schema; may be NULL), at most limit (< 0: all), columns of
 * projection (NULL or empty: all). opts: read options (scan.snapshot-id /
 * scan.tag-name pick the snapshot $files, $manifests, $partitions and
 * $table_indexes show).
 */
int pm_api_system_read(paimon_table *t, const pm_strmap *opts, const pm_predicate *pred, const pm_strlist *projection,
		       int64_t limit, size_t nsplits, struct ArrowArrayStream *out);

#endif
