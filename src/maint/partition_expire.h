/*
 * maint/partition_expire.h - partition expiration as Java Paimon 1.4.2's
 * PartitionExpire does it (options partition.expiration-time,
 * partition.expiration-strategy, partition.timestamp-formatter,
 * partition.timestamp-pattern, partition.expiration-max-num,
 * partition.expiration-batch-size).
 *
 * Strategy values-time (the default): a partition's time is extracted from
 * its values (PartitionTimeExtractor): partition.timestamp-pattern with
 * "$key" replaced by the key's value (no pattern: the first key's value),
 * parsed with partition.timestamp-formatter (a java.time pattern: y M d H m
 * s S letters, literals, 'quoted text'; date-only patterns mean midnight)
 * or, without a formatter, as "yyyy-M-d[ H:m:s[.fraction]]". Values are the
 * partition's own text (Java's internal objects: DATE as epoch days, which
 * never parses, as in Java); a null value or one that does not parse never
 * expires. Strategy update-time: the partition's newest file creation time.
 * A partition expires when its time is before now - expiration-time (local
 * time, as Java's LocalDateTime.now()). At most expiration-max-num
 * partitions (in the order of their value strings), dropped in one
 * OVERWRITE snapshot per batch of expiration-batch-size (unset: one).
 */
#ifndef PM_MAINT_PARTITION_EXPIRE_H
#define PM_MAINT_PARTITION_EXPIRE_H

#include <stdint.h>

#include "core/strs.h"
#include "io/fileio.h"
#include "meta/schema.h"

typedef struct pm_partition_expire_config {
	int enabled;                 /* partition.expiration-time is set */
	int64_t expiration_ms;
	int64_t check_interval_ms;   /* partition.expiration-check-interval (1 h) */
	int update_time;             /* strategy update-time */
	const char *formatter;       /* borrowed from the options; may be NULL */
	const char *pattern;
	int32_t max_num;             /* 100 */
	int32_t batch_size;          /* 0: unset */
	int end_input_check;         /* end-input.check-partition-expire */
} pm_partition_expire_config;

/* From merged options (borrowed: the strings point into opts). Bad values
 * -> PAIMON_EINVAL naming the option. */
int pm_partition_expire_config_from_options(const pm_strmap *opts, pm_partition_expire_config *out);

/* The time Java extracts from partition values, as local-time millis
 * (epoch of the wall clock); 0 ok, 1 when it does not parse. Exposed for
 * tests. */
int pm_partition_time(const char *pattern, const char *formatter, const char *const *keys,
		      const char *const *values, size_t n, int64_t *local_ms);

/*
 * Expires the partitions of the latest snapshot of the table at table_path
 * (schema s, its options merged with the overrides of commit_opts, which
 * also go to the committer) older than now_local_ms - expiration.
 * *expired (may be NULL) gets "k=v/k2=v2" of each expired partition, in
 * order; *snapshot_id the last snapshot committed (-1: none). dry_run
 * commits nothing.
 */
int pm_table_expire_partitions(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			       const pm_strmap *commit_opts, const pm_partition_expire_config *cfg,
			       int64_t now_local_ms, int dry_run, pm_strlist *expired, int64_t *snapshot_id);

#endif
