/*
 * read/split_reader.c - the split reader of a split's kind (see
 * split_reader.h).
 */
#include "read/split_reader.h"

#include "core/error.h"

int pm_split_reader_check(const pm_split *split)
{
	const char *first = split->entries.len ? split->entries.items[0].file.file_name : NULL;
	switch (split->kind) {
	case PM_SPLIT_APPEND:
	case PM_SPLIT_DATA_EVOLUTION:
		return 0;
	case PM_SPLIT_PRIMARY_KEY:
		return pm_err(PAIMON_EUNSUPPORTED,
			      "primary-key splits are not supported yet (snapshot %lld, bucket %d, first file '%s')",
			      (long long)split->snapshot_id, (int)split->bucket, first ? first : "");
	default:
		return pm_err(PAIMON_ECORRUPT, "split of unknown kind %d (snapshot %lld)", split->kind,
			      (long long)split->snapshot_id);
	}
}

int pm_split_reader_open(const pm_read_ctx *ctx, const pm_split *split, pm_split_reader **out)
{
	int rc;
	*out = NULL;
	switch (split->kind) {
	case PM_SPLIT_APPEND:
		return pm_append_reader_open(ctx, split, out);
	case PM_SPLIT_DATA_EVOLUTION:
		return pm_de_reader_open(ctx, split, out);
	default:
		rc = pm_split_reader_check(split);
		return rc ? rc : pm_err(PAIMON_ERROR, "no reader for %s splits", pm_split_kind_name(split->kind));
	}
}
