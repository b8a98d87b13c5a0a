/*
 * io/fileio_fault.h - a fault-injecting FileIO wrapper for tests, after
 * SQLite's test VFS: every operation goes to an inner FileIO, except that the
 * Nth counted operation (or every one from the Nth on) fails, writes short,
 * or kills the process on the spot (crash simulation, _exit: no clean-up,
 * no atexit handlers, no flushing).
 *
 * One pm_fault_ctl (the plan, the operation counter and a log of operations)
 * is shared by every wrapper made from it, so the catalog's and each table's
 * FileIO count in one sequence. pm_fault_install() makes every FileIO the
 * library creates (pm_fileio_default_new) a wrapper over the local one, so
 * tests can drive the public API. A dry run (at = 0) only logs: its log lists
 * the injection points of a workload, and a test then replays the workload
 * once per point.
 *
 * Thread-safe (the Parquet writer and reader do I/O from worker threads).
 */
#ifndef PM_IO_FILEIO_FAULT_H
#define PM_IO_FILEIO_FAULT_H

#include <stdint.h>
#include "io/fileio.h"

typedef enum pm_fault_op {
	PM_FOP_READ_ALL = 0,
	PM_FOP_READ_RANGE,
	PM_FOP_STAT,
	PM_FOP_WRITE_OVERWRITE,
	PM_FOP_WRITE_NEW_ATOMIC,
	PM_FOP_LIST,
	PM_FOP_EXISTS,
	PM_FOP_MKDIRS,
	PM_FOP_REMOVE,
	PM_FOP_REMOVE_ALL,
	PM_FOP_RENAME_NEW,
	PM_FOP_SYNC,         /* pm_fileio_sync */
	PM_FOP_OPEN_WRITE,   /* pm_fileio_open_write */
	PM_FOP_APPEND,       /* pm_out_append on a stream */
	PM_FOP_CLOSE_STREAM, /* pm_out_close on a stream */
	PM_FOP_OPEN_READ,    /* pm_fileio_open_read */
	PM_FOP_PREAD,        /* pm_in_pread on an input handle (closing one is not counted) */
	PM_FOP_COUNT_
} pm_fault_op;

#define PM_FOP_BIT(op) (1u << (op))
/* Operations that change storage. */
#define PM_FOP_WRITES                                                                       \
	(PM_FOP_BIT(PM_FOP_WRITE_OVERWRITE) | PM_FOP_BIT(PM_FOP_WRITE_NEW_ATOMIC) |         \
	 PM_FOP_BIT(PM_FOP_MKDIRS) | PM_FOP_BIT(PM_FOP_REMOVE) | PM_FOP_BIT(PM_FOP_REMOVE_ALL) | \
	 PM_FOP_BIT(PM_FOP_RENAME_NEW) | PM_FOP_BIT(PM_FOP_SYNC) | PM_FOP_BIT(PM_FOP_OPEN_WRITE) | PM_FOP_BIT(PM_FOP_APPEND) | \
	 PM_FOP_BIT(PM_FOP_CLOSE_STREAM))
/* Operations that only look. */
#define PM_FOP_READS                                                                      \
	(PM_FOP_BIT(PM_FOP_READ_ALL) | PM_FOP_BIT(PM_FOP_READ_RANGE) | PM_FOP_BIT(PM_FOP_STAT) | \
	 PM_FOP_BIT(PM_FOP_LIST) | PM_FOP_BIT(PM_FOP_EXISTS) | PM_FOP_BIT(PM_FOP_OPEN_READ) | PM_FOP_BIT(PM_FOP_PREAD))

/* "read_all", "append"... (static string). */
const char *pm_fault_op_name(pm_fault_op op);

typedef enum pm_fault_action {
	PM_FAULT_NONE = 0,
	/* The operation is not performed; it fails with errno `err` (EIO when 0),
	 * the message naming the path. A failing open_write or open_read opens nothing; a
	 * failing stream close leaves the bytes appended so far in the file. */
	PM_FAULT_FAIL,
	/* Writes: only the first half of the bytes land (write_overwrite: the
	 * file holds them; append: they are appended; write_new_atomic: nothing
	 * is published), then the call fails with ENOSPC. Other operations: as
	 * FAIL with ENOSPC. */
	PM_FAULT_SHORT,
	/* The process exits (_exit(crash_status)) before the operation. */
	PM_FAULT_CRASH_BEFORE,
	/* The operation is performed, then the process exits. */
	PM_FAULT_CRASH_AFTER,
	/* A crash in the middle of a write: write_overwrite leaves the file with
	 * the first half of the bytes; append appends half; write_new_atomic
	 * leaves a hidden temporary ".<name>.<random>.tmp" holding half the bytes
	 * next to the target (what the local FileIO would leave) and no target.
	 * Other operations: as CRASH_BEFORE. */
	PM_FAULT_CRASH_TORN,
	/* A power cut before the operation: as CRASH_BEFORE, but first every
	 * file written by write_overwrite or a stream since the last successful
	 * sync operation is truncated to zero length (what ext4 with delayed
	 * allocation can leave: the names survive, unsynced data does not).
	 * write_new_atomic files are durable when it returns (fsync + link +
	 * directory fsync); directory creation is assumed to be ordered before
	 * later metadata (a journaling file system). Local paths only. */
	PM_FAULT_POWER_LOSS
} pm_fault_action;

typedef struct pm_fault_plan {
	uint64_t at;             /* 1-based index among counted operations; 0: never fire */
	unsigned ops_mask;       /* counted operations (PM_FOP_BIT set); 0: all */
	const char *path_substr; /* counted only if the path (rename: source or target)
				  * contains this; NULL: any (copied) */
	pm_fault_action action;
	int err;                 /* errno for FAIL (0: EIO) */
	int persistent;          /* FAIL/SHORT: every counted operation from `at` on fails */
	int crash_status;        /* _exit status of crashes (0: 86) */
} pm_fault_plan;

/* One logged operation. */
typedef struct pm_fault_event {
	pm_fault_op op;
	char *path;      /* owned by the log (rename: the source) */
	uint64_t index;  /* 1-based counted index; 0 if not counted */
	uint64_t bytes;  /* bytes written (writes/appends) or requested (read_range, pread) */
	int fired;       /* the fault was injected here */
} pm_fault_event;

typedef struct pm_fault_ctl pm_fault_ctl;

/* A controller with plan (copied; NULL: a dry run). Free with pm_fault_ctl_free. */
int pm_fault_ctl_new(const pm_fault_plan *plan, pm_fault_ctl **out);
void pm_fault_ctl_free(pm_fault_ctl *ctl);
/* Replaces the plan and resets the counter, the fired flag and the log. */
int pm_fault_ctl_reset(pm_fault_ctl *ctl, const pm_fault_plan *plan);
/* Counted operations seen so far. */
uint64_t pm_fault_ctl_count(pm_fault_ctl *ctl);
/* How many times a fault was injected. */
uint64_t pm_fault_ctl_fired(pm_fault_ctl *ctl);
/* The log (borrowed; valid until the next operation or reset; the caller must
 * not run I/O through the controller's wrappers while reading it). */
size_t pm_fault_ctl_events(pm_fault_ctl *ctl, const pm_fault_event **events);
/* Turns logging off/on (on by default); counting goes on. */
void pm_fault_ctl_set_logging(pm_fault_ctl *ctl, int on);

/* Wraps inner (ownership passes to the wrapper, also on failure); ctl must
 * outlive the wrapper. Free with pm_fileio_close. */
int pm_fileio_fault_new(pm_fault_ctl *ctl, pm_fileio *inner, pm_fileio **out);

/* Makes pm_fileio_default_new() hand out fault wrappers over the local FileIO
 * sharing ctl (NULL: back to plain local FileIOs). Not thread-safe: call it
 * while no library call is running. */
void pm_fault_install(pm_fault_ctl *ctl);

#endif
