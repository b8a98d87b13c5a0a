/*
 * api/handles.h - internals of the filesystem catalog (spec core-format §1.1):
 * <warehouse>/<db>.db/<table>/ with schema/, snapshot/, tag/ ...
 * The public face is include/paimonc/catalog.h; these structs back its
 * opaque handles.
 */
#ifndef PM_TABLE_CATALOG_H
#define PM_TABLE_CATALOG_H

#include "paimonc/catalog.h"
#include "paimonc/table.h"
#include "paimonc/sys/fileio.h"
#include "paimonc/table.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"

struct paimon_options {
	pm_strmap map;
};

struct paimon_catalog {
	pm_fileio *io;
	char *warehouse;      /* absolute (or a URI with a user FileIO), no trailing slash */
	pm_strmap options;
	paimon_fileio_methods *user_io; /* owned copy; NULL: the default FileIO (api_fileio.c) */
	void *user_ctx;       /* borrowed, for user_io */
};

/* A read-only view over a schema version with the strings the API hands out. */
struct paimon_schema {
	pm_table_schema *schema;
	char **type_strings;  /* per top-level field: SQL form */
	char **type_jsons;    /* per top-level field: compact JSON form */
};

struct paimon_table {
	pm_fileio *io;        /* owned: tables outlive the catalog that opened them */
	char *database;
	char *name;
	char *identifier;     /* "db.table" */
	char *path;
	paimon_schema *schema;
	/* 1: the read-only system table <table>$row_tracking (reads give the
	 * columns and _ROW_ID, _SEQUENCE_NUMBER by default). */
	int row_tracking_view;
	/* != 0: a metadata system table <table>$snapshots, $files, ...
	 * (api/api_system.h kinds); schema is then the system table's and
	 * path the data table's. */
	int sys_kind;
	/* the branch (NULL: main); io is then a branch FileIO
	 * (io/fileio.h pm_fileio_branch_new) and path the table's */
	char *branch;
};

/* api_table.c: PAIMON_EINVAL naming the key and the table when a dynamic
 * option (opts may be NULL) changes an immutable table option (Java
 * AbstractFileStoreTable.checkImmutability): row-tracking.enabled,
 * data-evolution.enabled, bucket-key, ... */
int pm_api_check_dynamic_options(const struct paimon_table *t, const pm_strmap *opts);
int pm_api_check_dynamic_option(const struct paimon_table *t, const char *key, const char *value);

/* PAIMON_EINVAL for a write-side call (what) on a read-only system table. */
static inline int pm_api_refuse_system(const struct paimon_table *t, const char *what)
{
	return t->row_tracking_view || t->sys_kind
		       ? pm_err(PAIMON_EINVAL, "%s: table '%s' is a read-only system table", what, t->identifier)
		       : 0;
}

struct paimon_schema_spec {
	pm_schema_spec spec;
};

struct paimon_schema_change {
	pm_schema_change change;
};

struct paimon_snapshot {
	pm_snapshot *snapshot;
};

/*
 * A commit message (api_write.c): new data files, index-file changes and the
 * snapshot an update/delete was planned on (see commit/commit.h
 * pm_commit_batch). Owns its lists.
 */
struct paimon_commit_message {
	pm_manifest_entry_list entries;        /* ADD entries of new data files */
	pm_index_manifest_entry_list index;    /* index-file changes (ADD / DELETE) */
	int64_t check_from_snapshot;           /* -1: none */
};

/*
 * A new commit message taking over the contents of entries and index (both
 * may be NULL; on success they are left empty, on failure untouched).
 * entries: ADD entries of new data files (a preset first_row_id is kept at
 * commit); index: index-file changes (kind ADD or DELETE); check_from_snapshot:
 * the snapshot the update/delete was planned on, -1 for none.
 * PAIMON_EINVAL for another entry kind or check_from_snapshot < -1.
 */
int pm_commit_message_new(paimon_commit_message **out, pm_manifest_entry_list *entries,
			  pm_index_manifest_entry_list *index, int64_t check_from_snapshot);

/* api_update.c: paimon_table_delete_by_row_id planned on snapshot
 * snapshot_id (-1: the latest); n = 0 only checks the table. */
int pm_api_delete_at(paimon_table *t, int64_t snapshot_id, const int64_t *row_ids, size_t n,
		     const paimon_options *opts, paimon_commit_message **out);

/* Feeds every batch of an Arrow C stream to sink (which takes the batch:
 * it releases it, also on failure) until the end or the first error; the
 * stream is released on every path. Errors name the stream step. */
typedef int (*pm_api_batch_sink)(void *ctx, struct ArrowArray *batch, const struct ArrowSchema *schema);
int pm_api_drain_stream(struct ArrowArrayStream *stream, pm_api_batch_sink sink, void *ctx);

/* Opens a catalog whose FileIO calls user_io with user_ctx (NULL: the
 * default FileIO); paimon_catalog_open and paimon_catalog_open_with_fileio. */
int pm_catalog_open(paimon_catalog **out, const paimon_options *opts, const paimon_fileio_methods *user_io,
		    void *user_ctx);
/* api_fileio.c: records (a checked copy of) user_io in c; NULL: nothing. */
int pm_catalog_set_fileio(paimon_catalog *c, const paimon_fileio_methods *user_io, void *user_ctx);
/* api_fileio.c: a new FileIO for c or a table of it (tables own theirs). */
int pm_catalog_fileio_new(const paimon_catalog *c, pm_fileio **out);
/* api_fileio.c: a URI warehouse without trailing slashes (new string, NULL on OOM). */
char *pm_catalog_uri_warehouse(const char *wh);

/* Validates a database or table name (non-empty, no '/', no "..", not ".",
 * no control characters; `kind` is "database" or "table" for messages). */
int pm_catalog_validate_name(const char *kind, const char *name);
/* Splits "db.table" into owned parts after validating both. */
int pm_catalog_parse_identifier(const char *identifier, char **db, char **table);
/* Hands a finished buffer to an API caller (see api_schema.c). */
int pm_api_buf_out(int rc, pm_buf *b, char **out);
/* Wraps a schema (takes ownership on success). */
int pm_schema_handle_new(pm_table_schema *s, paimon_schema **out);
/* Wraps a snapshot (takes ownership on success). */
int pm_snapshot_handle_new(pm_snapshot *s, paimon_snapshot **out);

#endif
