/*
 * format/avro/avro.h - Avro schemas, binary encoding and object container
 * files (manifests, manifest lists, index manifests).
 *
 * Schema: pm_avro_schema_parse turns the JSON text (avro.schema) into a
 * graph of pm_avro_node; named types may be referenced by name (and so may
 * be recursive), so nodes are owned by the pm_avro_schema, not by parents.
 *
 * Values: a small generic tree (pm_avro_value). A union value is stored as
 * its chosen branch (kind/schema of the branch, `branch` = index), so a null
 * reads as PM_AVRO_NULL whatever the branch order. Strings, bytes and fixed
 * values point into the reader's block buffer (not NUL-terminated).
 *
 * Reader: pm_avro_reader_next yields one record at a time; the record and
 * everything it points to stay valid until the next call (values live in an
 * arena that is reset per record, the bytes in the current block's buffer).
 * Errors are PAIMON_ECORRUPT naming the block number and file offset.
 *
 * Writer: schema JSON in, records appended, blocks flushed when their
 * encoded size reaches the sync interval (64000 bytes, as Java), codecs
 * null/deflate/snappy/zstandard; the file ends up in a pm_buf or is written
 * with pm_fileio_write_new_atomic.
 */
#ifndef PM_FORMAT_AVRO_AVRO_H
#define PM_FORMAT_AVRO_AVRO_H
#include <stddef.h>
#include <stdint.h>
#include "core/buf.h"
#include "io/fileio.h"

#define PM_AVRO_MAX_DEPTH 64
#define PM_AVRO_SYNC_INTERVAL 64000

typedef enum pm_avro_kind {
	PM_AVRO_NULL,
	PM_AVRO_BOOLEAN,
	PM_AVRO_INT,
	PM_AVRO_LONG,
	PM_AVRO_FLOAT,
	PM_AVRO_DOUBLE,
	PM_AVRO_BYTES,
	PM_AVRO_STRING,
	PM_AVRO_RECORD,
	PM_AVRO_ENUM,
	PM_AVRO_ARRAY,
	PM_AVRO_MAP,
	PM_AVRO_UNION,
	PM_AVRO_FIXED
} pm_avro_kind;

typedef enum pm_avro_logical {
	PM_AVRO_LT_NONE,
	PM_AVRO_LT_DATE,
	PM_AVRO_LT_TIME_MILLIS,
	PM_AVRO_LT_TIME_MICROS,
	PM_AVRO_LT_TIMESTAMP_MILLIS,
	PM_AVRO_LT_TIMESTAMP_MICROS,
	PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS,
	PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS,
	PM_AVRO_LT_DECIMAL,
	PM_AVRO_LT_UUID,
	PM_AVRO_LT_MAP,   /* "map" on an array of key/value records (Paimon, Iceberg) */
	PM_AVRO_LT_OTHER /* an unknown logicalType: the underlying type is used */
} pm_avro_logical;

typedef struct pm_avro_node pm_avro_node;
struct pm_avro_node {
	pm_avro_kind kind;
	pm_avro_logical logical;
	int32_t precision, scale;  /* decimal */
	char *name;                /* full name of record/enum/fixed, else NULL */
	size_t n;                  /* record fields, enum symbols, union branches */
	char **names;              /* field names / enum symbols */
	pm_avro_node **children;   /* field types / union branches */
	pm_avro_node *items;       /* array items, map values */
	size_t fixed_size;
};

typedef struct pm_avro_schema pm_avro_schema;

int pm_avro_schema_parse(const char *json, size_t len, pm_avro_schema **out);
const pm_avro_node *pm_avro_schema_root(const pm_avro_schema *s);
/* Drops one reference; the schema is freed with its last reference. */
void pm_avro_schema_free(pm_avro_schema *s);
/*
 * Like pm_avro_schema_parse, but schemas are shared through a small
 * process-wide cache keyed by the exact text (16 entries, LRU, thread-safe).
 * The result is a reference: release it with pm_avro_schema_free. Nodes must
 * not be modified. The readers use this for the writer schema.
 */
int pm_avro_schema_parse_cached(const char *json, size_t len, pm_avro_schema **out);
/* Empties the cache (tests; schemas still referenced stay alive). */
void pm_avro_schema_cache_clear(void);
/* Index of the record field named name, or -1. */
int pm_avro_field_index(const pm_avro_node *record, const char *name);
const char *pm_avro_kind_name(pm_avro_kind k);

typedef struct pm_avro_bytes {
	const uint8_t *p;
	size_t n;
} pm_avro_bytes;

typedef struct pm_avro_value pm_avro_value;
struct pm_avro_value {
	pm_avro_kind kind;            /* never PM_AVRO_UNION: the chosen branch's kind */
	int32_t branch;               /* union branch index, -1 when not in a union */
	const pm_avro_node *schema;   /* reader: the (branch) schema; writer: ignored */
	union {
		int boolean;
		int32_t i;                /* int, enum index */
		int64_t l;
		float f;
		double d;
		pm_avro_bytes bytes;      /* bytes, string, fixed */
		struct {
			pm_avro_value *items; /* record fields (schema order), array items, map values */
			pm_avro_bytes *keys;  /* map keys */
			size_t n;
		} c;
	} u;
};

/* A shared null value (kind PM_AVRO_NULL). */
extern const pm_avro_value pm_avro_null_value;

/* Field i of a record value (NULL if out of range or not a record). */
const pm_avro_value *pm_avro_value_field(const pm_avro_value *rec, size_t i);
/* Field named name, or pm_avro_null_value when the writer schema lacks it. */
const pm_avro_value *pm_avro_value_get(const pm_avro_value *rec, const char *name);

/*
 * Projection: map the reader's wanted field names to writer fields by name.
 * map[i] = writer field index or -1 (missing: reads as null; extra writer
 * fields are simply not looked at).
 */
typedef struct pm_avro_projection {
	size_t n;
	int *map;
} pm_avro_projection;
int pm_avro_projection_init(pm_avro_projection *p, const pm_avro_node *writer_record,
			    const char *const *names, size_t n);
/* The value for wanted field i (pm_avro_null_value when missing). */
const pm_avro_value *pm_avro_projection_get(const pm_avro_projection *p,
					    const pm_avro_value *rec, size_t i);
void pm_avro_projection_dispose(pm_avro_projection *p);

/* ------------------------------------------------------------ primitives */
/* Zig-zag varint encoding (appends to out). */
int pm_avro_put_long(pm_buf *out, int64_t v);
/* Decodes a zig-zag varint from [*p, end); advances *p. 0 or PAIMON_ECORRUPT. */
int pm_avro_get_long(const uint8_t **p, const uint8_t *end, int64_t *v);

/* ---------------------------------------------------------------- reader */
typedef struct pm_avro_reader pm_avro_reader;
/* data must outlive the reader. */
int pm_avro_reader_open_mem(const void *data, size_t len, pm_avro_reader **out);
/* Reads the whole file into memory owned by the reader. */
int pm_avro_reader_open(pm_fileio *io, const char *path, pm_avro_reader **out);
const pm_avro_schema *pm_avro_reader_schema(const pm_avro_reader *r);
/* "null", "deflate", "snappy", "zstandard". */
const char *pm_avro_reader_codec(const pm_avro_reader *r);
/* Header metadata value for key; 0, or PAIMON_ENOTFOUND. */
int pm_avro_reader_meta(const pm_avro_reader *r, const char *key, pm_avro_bytes *out);
/* 1 and *rec set, 0 at the end, or a negative code. */
int pm_avro_reader_next(pm_avro_reader *r, const pm_avro_value **rec);
/* Records from the current position to the end, from the block headers
 * (sync markers checked, nothing decompressed). PAIMON_ECORRUPT names the
 * block at fault. */
int pm_avro_reader_count(const pm_avro_reader *r, int64_t *out);
/* Skips up to n records (whole blocks by their headers, without
 * decompressing them); *skipped (may be NULL) < n only at the end. */
int pm_avro_reader_skip(pm_avro_reader *r, int64_t n, int64_t *skipped);
void pm_avro_reader_free(pm_avro_reader *r);

/* ---------------------------------------------------------------- writer */
typedef struct pm_avro_writer pm_avro_writer;
/* codec: "null", "deflate", "snappy", "zstandard" (or "zstd"); level
 * PM_CODEC_LEVEL_DEFAULT or the codec's level. */
int pm_avro_writer_new(const char *schema_json, const char *codec, int level,
		       pm_avro_writer **out);
/* Optional before the first append: block size target, sync marker. */
void pm_avro_writer_set_sync_interval(pm_avro_writer *w, size_t bytes);
void pm_avro_writer_set_sync_marker(pm_avro_writer *w, const uint8_t marker[16]);
int pm_avro_writer_set_meta(pm_avro_writer *w, const char *key, const void *v, size_t n);
/*
 * Appends one record. Union values pick the branch in `branch` when >= 0,
 * else the first branch whose kind equals the value's kind.
 */
int pm_avro_writer_append(pm_avro_writer *w, const pm_avro_value *rec);
/* Bytes of the file so far: header and flushed blocks, plus the open
 * block's encoded (uncompressed) records; the exact length after finish. */
size_t pm_avro_writer_size(const pm_avro_writer *w);
/* Flushes and appends the whole file to out. The writer stays usable only for free. */
int pm_avro_writer_finish(pm_avro_writer *w, pm_buf *out);
/* Finishes and writes the file with pm_fileio_write_new_atomic. */
int pm_avro_writer_finish_to(pm_avro_writer *w, pm_fileio *io, const char *path);
void pm_avro_writer_free(pm_avro_writer *w);
/* Encodes one datum of the given schema (appends to out). */
int pm_avro_encode(const pm_avro_node *schema, const pm_avro_value *v, pm_buf *out);

#endif
