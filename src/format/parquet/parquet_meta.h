/*
 * format/parquet/parquet_meta.h - Parquet metadata structures (parquet.thrift)
 * as C structs, their Thrift compact decoding and encoding, the footer
 * reader and the schema tree.
 *
 * Memory and ownership
 * --------------------
 * Top-level objects that own memory (pm_pq_file_meta, pm_pq_column_index,
 * pm_pq_offset_index, pm_pq_schema) are allocated from a private arena and
 * released with ONE call to their free function; nothing inside is freed
 * separately. Decoding first copies the input bytes into that arena, so
 * every pm_pq_bin slice (statistics, key/value values, column-index bounds)
 * points into memory owned by the object, and strings (names, keys,
 * created_by, path_in_schema, file_path, crs) are NUL-terminated arena
 * copies. The caller's input buffer may be released right after decoding.
 *
 * Page headers and bloom filter headers are decoded into caller-provided
 * structs WITHOUT allocating (they sit in the page loop): their pm_pq_bin
 * slices (page statistics) point into the caller's input buffer and are
 * valid only while it is.
 *
 * For encoding, callers build the structs in memory of their own choosing
 * (stack, arena, malloc); encoders only read them.
 *
 * Optional fields have a has_<name> flag (or NULL pointer / .set flag for
 * strings and binaries); required fields are checked after each struct is
 * decoded and PAIMON_ECORRUPT names the struct and field missing. Enum-like
 * fields are kept as raw int32 values (unknown values survive), except the
 * SchemaElement physical type and repetition, which must be valid.
 * Encrypted files are rejected with PAIMON_EUNSUPPORTED.
 */
#ifndef PM_FORMAT_PARQUET_META_H
#define PM_FORMAT_PARQUET_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "io/fileio.h"

/* ---------------------------------------------------------------- enums */

enum pm_pq_type {
	PM_PQ_BOOLEAN = 0, PM_PQ_INT32 = 1, PM_PQ_INT64 = 2, PM_PQ_INT96 = 3, PM_PQ_FLOAT = 4,
	PM_PQ_DOUBLE = 5, PM_PQ_BYTE_ARRAY = 6, PM_PQ_FIXED_LEN_BYTE_ARRAY = 7
};
enum pm_pq_repetition { PM_PQ_REQUIRED = 0, PM_PQ_OPTIONAL = 1, PM_PQ_REPEATED = 2 };
enum pm_pq_converted_type {
	PM_PQ_CT_UTF8 = 0, PM_PQ_CT_MAP = 1, PM_PQ_CT_MAP_KEY_VALUE = 2, PM_PQ_CT_LIST = 3,
	PM_PQ_CT_ENUM = 4, PM_PQ_CT_DECIMAL = 5, PM_PQ_CT_DATE = 6, PM_PQ_CT_TIME_MILLIS = 7,
	PM_PQ_CT_TIME_MICROS = 8, PM_PQ_CT_TIMESTAMP_MILLIS = 9, PM_PQ_CT_TIMESTAMP_MICROS = 10,
	PM_PQ_CT_UINT_8 = 11, PM_PQ_CT_UINT_16 = 12, PM_PQ_CT_UINT_32 = 13, PM_PQ_CT_UINT_64 = 14,
	PM_PQ_CT_INT_8 = 15, PM_PQ_CT_INT_16 = 16, PM_PQ_CT_INT_32 = 17, PM_PQ_CT_INT_64 = 18,
	PM_PQ_CT_JSON = 19, PM_PQ_CT_BSON = 20, PM_PQ_CT_INTERVAL = 21
};
enum pm_pq_encoding {
	PM_PQ_ENC_PLAIN = 0, PM_PQ_ENC_PLAIN_DICTIONARY = 2, PM_PQ_ENC_RLE = 3,
	PM_PQ_ENC_BIT_PACKED = 4, PM_PQ_ENC_DELTA_BINARY_PACKED = 5,
	PM_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6, PM_PQ_ENC_DELTA_BYTE_ARRAY = 7,
	PM_PQ_ENC_RLE_DICTIONARY = 8, PM_PQ_ENC_BYTE_STREAM_SPLIT = 9, PM_PQ_ENC_ALP = 10
};
enum pm_pq_page_type {
	PM_PQ_DATA_PAGE = 0, PM_PQ_INDEX_PAGE = 1, PM_PQ_DICTIONARY_PAGE = 2, PM_PQ_DATA_PAGE_V2 = 3
};
enum pm_pq_boundary_order { PM_PQ_UNORDERED = 0, PM_PQ_ASCENDING = 1, PM_PQ_DESCENDING = 2 };

/* LogicalType union member ids (the Thrift field ids). */
enum pm_pq_logical_kind {
	PM_PQ_LT_NONE = 0, /* no logicalType field (or an empty union) */
	PM_PQ_LT_STRING = 1, PM_PQ_LT_MAP = 2, PM_PQ_LT_LIST = 3, PM_PQ_LT_ENUM = 4,
	PM_PQ_LT_DECIMAL = 5, PM_PQ_LT_DATE = 6, PM_PQ_LT_TIME = 7, PM_PQ_LT_TIMESTAMP = 8,
	PM_PQ_LT_INTEGER = 10, PM_PQ_LT_UNKNOWN = 11 /* "NULL" type */, PM_PQ_LT_JSON = 12,
	PM_PQ_LT_BSON = 13, PM_PQ_LT_UUID = 14, PM_PQ_LT_FLOAT16 = 15, PM_PQ_LT_VARIANT = 16,
	PM_PQ_LT_GEOMETRY = 17, PM_PQ_LT_GEOGRAPHY = 18, PM_PQ_LT_FILE = 19,
	/* A member id this code does not know: treat the column as unannotated. */
	PM_PQ_LT_UNRECOGNIZED = -1
};
/* TimeUnit union member ids. */
enum pm_pq_time_unit { PM_PQ_MILLIS = 1, PM_PQ_MICROS = 2, PM_PQ_NANOS = 3 };
/* ColumnOrder union member ids. */
enum pm_pq_column_order_kind {
	PM_PQ_ORDER_TYPE_DEFINED = 1, PM_PQ_ORDER_IEEE_754_TOTAL = 2, PM_PQ_ORDER_INT96_TIMESTAMP = 3
};

/* ---------------------------------------------------------------- structs */

/* Bytes that may be absent (set == false). p may be NULL when len == 0. */
typedef struct pm_pq_bin {
	const uint8_t *p;
	size_t len;
	bool set;
} pm_pq_bin;

typedef struct pm_pq_logical_type {
	int kind;                 /* pm_pq_logical_kind */
	int16_t unrecognized_id;  /* member id when kind == PM_PQ_LT_UNRECOGNIZED */
	int32_t scale, precision; /* DECIMAL */
	bool is_adjusted_to_utc;  /* TIME, TIMESTAMP */
	int unit;                 /* TIME, TIMESTAMP: pm_pq_time_unit */
	int8_t bit_width;         /* INTEGER */
	bool is_signed;           /* INTEGER */
	bool has_specification_version; /* VARIANT */
	int8_t specification_version;
	const char *crs;          /* GEOMETRY, GEOGRAPHY; NULL = absent */
	bool has_algorithm;       /* GEOGRAPHY */
	int32_t algorithm;
} pm_pq_logical_type;

typedef struct pm_pq_schema_element {
	bool has_type;
	int32_t type;             /* pm_pq_type, validated */
	bool has_type_length;
	int32_t type_length;
	bool has_repetition;
	int32_t repetition;       /* pm_pq_repetition, validated */
	const char *name;         /* required */
	bool has_num_children;
	int32_t num_children;
	bool has_converted_type;
	int32_t converted_type;
	bool has_scale;
	int32_t scale;
	bool has_precision;
	int32_t precision;
	bool has_field_id;
	int32_t field_id;
	pm_pq_logical_type logical; /* kind PM_PQ_LT_NONE when absent */
} pm_pq_schema_element;

typedef struct pm_pq_statistics {
	pm_pq_bin max, min;             /* legacy, signed order */
	bool has_null_count;
	int64_t null_count;
	bool has_distinct_count;
	int64_t distinct_count;
	pm_pq_bin max_value, min_value; /* type-defined order */
	bool has_is_max_value_exact;
	bool is_max_value_exact;
	bool has_is_min_value_exact;
	bool is_min_value_exact;
	bool has_nan_count;
	int64_t nan_count;
} pm_pq_statistics;

typedef struct pm_pq_key_value {
	const char *key;  /* required */
	pm_pq_bin value;  /* may be absent */
} pm_pq_key_value;

typedef struct pm_pq_page_encoding_stats {
	int32_t page_type, encoding, count;
} pm_pq_page_encoding_stats;

typedef struct pm_pq_sorting_column {
	int32_t column_idx;
	bool descending;
	bool nulls_first;
} pm_pq_sorting_column;

typedef struct pm_pq_column_meta {
	int32_t type;
	int32_t *encodings;
	size_t n_encodings;
	const char **path_in_schema;
	size_t n_path;
	int32_t codec;
	int64_t num_values;
	int64_t total_uncompressed_size;
	int64_t total_compressed_size;
	pm_pq_key_value *key_value;
	size_t n_key_value;
	int64_t data_page_offset;
	bool has_index_page_offset;
	int64_t index_page_offset;
	bool has_dictionary_page_offset;
	int64_t dictionary_page_offset;
	bool has_statistics;
	pm_pq_statistics statistics;
	pm_pq_page_encoding_stats *encoding_stats;
	size_t n_encoding_stats;
	bool has_bloom_filter_offset;
	int64_t bloom_filter_offset;
	bool has_bloom_filter_length;
	int32_t bloom_filter_length;
	/* 16 size_statistics and 17 geospatial_statistics are skipped on read. */
} pm_pq_column_meta;

typedef struct pm_pq_column_chunk {
	const char *file_path;  /* NULL = same file */
	int64_t file_offset;
	bool has_meta_data;
	pm_pq_column_meta meta_data;
	bool has_offset_index_offset;
	int64_t offset_index_offset;
	bool has_offset_index_length;
	int32_t offset_index_length;
	bool has_column_index_offset;
	int64_t column_index_offset;
	bool has_column_index_length;
	int32_t column_index_length;
} pm_pq_column_chunk;

typedef struct pm_pq_row_group {
	pm_pq_column_chunk *columns;
	size_t n_columns;
	int64_t total_byte_size;
	int64_t num_rows;
	pm_pq_sorting_column *sorting_columns;
	size_t n_sorting_columns;
	bool has_file_offset;
	int64_t file_offset;
	bool has_total_compressed_size;
	int64_t total_compressed_size;
	bool has_ordinal;
	int16_t ordinal;
} pm_pq_row_group;

typedef struct pm_pq_column_order {
	int32_t kind; /* pm_pq_column_order_kind, or the unknown member's id */
} pm_pq_column_order;

struct pm_pq_arena;

typedef struct pm_pq_file_meta {
	int32_t version;
	pm_pq_schema_element *schema;
	size_t n_schema;
	int64_t num_rows;
	pm_pq_row_group *row_groups;
	size_t n_row_groups;
	pm_pq_key_value *key_value;
	size_t n_key_value;
	const char *created_by;    /* NULL = absent */
	pm_pq_column_order *column_orders;
	size_t n_column_orders;
	/* Filled by the footer readers (0 when decoded from bare bytes). */
	uint64_t file_size;
	uint64_t footer_offset;    /* where the FileMetaData bytes start */
	uint32_t footer_len;
	struct pm_pq_arena *arena; /* owner of everything above */
} pm_pq_file_meta;

typedef struct pm_pq_data_page_header {
	int32_t num_values, encoding, definition_level_encoding, repetition_level_encoding;
	bool has_statistics;
	pm_pq_statistics statistics;
} pm_pq_data_page_header;

typedef struct pm_pq_dictionary_page_header {
	int32_t num_values, encoding;
	bool has_is_sorted;
	bool is_sorted;
} pm_pq_dictionary_page_header;

typedef struct pm_pq_data_page_header_v2 {
	int32_t num_values, num_nulls, num_rows, encoding;
	int32_t definition_levels_byte_length, repetition_levels_byte_length;
	bool has_is_compressed;
	bool is_compressed;   /* true when absent (the spec default) */
	bool has_statistics;
	pm_pq_statistics statistics;
} pm_pq_data_page_header_v2;

typedef struct pm_pq_page_header {
	int32_t type;         /* pm_pq_page_type (raw: unknown types are the reader's call) */
	int32_t uncompressed_page_size;
	int32_t compressed_page_size;
	bool has_crc;
	int32_t crc;
	bool has_data_page_header;
	pm_pq_data_page_header data_page_header;
	bool has_index_page_header;
	bool has_dictionary_page_header;
	pm_pq_dictionary_page_header dictionary_page_header;
	bool has_data_page_header_v2;
	pm_pq_data_page_header_v2 data_page_header_v2;
} pm_pq_page_header;

typedef struct pm_pq_column_index {
	bool *null_pages;
	size_t n_pages;           /* length of null_pages, min_values, max_values */
	pm_pq_bin *min_values;
	pm_pq_bin *max_values;
	int32_t boundary_order;
	int64_t *null_counts;     /* NULL when absent; else n_null_counts entries */
	size_t n_null_counts;
	int64_t *repetition_level_histograms;
	size_t n_repetition_level_histograms;
	int64_t *definition_level_histograms;
	size_t n_definition_level_histograms;
	int64_t *nan_counts;
	size_t n_nan_counts;
	struct pm_pq_arena *arena;
} pm_pq_column_index;

typedef struct pm_pq_page_location {
	int64_t offset;
	int32_t compressed_page_size;
	int64_t first_row_index;
} pm_pq_page_location;

typedef struct pm_pq_offset_index {
	pm_pq_page_location *page_locations;
	size_t n_page_locations;
	int64_t *unencoded_byte_array_data_bytes; /* NULL when absent */
	size_t n_unencoded_byte_array_data_bytes;
	struct pm_pq_arena *arena;
} pm_pq_offset_index;

typedef struct pm_pq_bloom_filter_header {
	int32_t num_bytes;
	int32_t algorithm;    /* union member id: 1 = BLOCK */
	int32_t hash;         /* 1 = XXHASH */
	int32_t compression;  /* 1 = UNCOMPRESSED */
} pm_pq_bloom_filter_header;

/* ---------------------------------------------------------------- decode */

/* Decodes a FileMetaData from exactly n bytes (trailing bytes are an error). */
int pm_pq_file_meta_decode(const void *p, size_t n, pm_pq_file_meta **out);
void pm_pq_file_meta_free(pm_pq_file_meta *fm);

/* Decodes one PageHeader at the start of p[0..n); *consumed = its size.
 * No allocation; statistics slices point into p. */
int pm_pq_page_header_decode(const void *p, size_t n, pm_pq_page_header *out, size_t *consumed);

int pm_pq_column_index_decode(const void *p, size_t n, pm_pq_column_index **out);
void pm_pq_column_index_free(pm_pq_column_index *ci);
int pm_pq_offset_index_decode(const void *p, size_t n, pm_pq_offset_index **out);
void pm_pq_offset_index_free(pm_pq_offset_index *oi);

/* BloomFilterHeader at the start of p[0..n); *consumed = its size. */
int pm_pq_bloom_filter_header_decode(const void *p, size_t n, pm_pq_bloom_filter_header *out,
				     size_t *consumed);

/* ---------------------------------------------------------------- encode */
/* Each appends the Thrift compact encoding to out. PAIMON_EINVAL when a
 * required pointer is NULL (a name, a key), PAIMON_ENOMEM. */

int pm_pq_file_meta_encode(const pm_pq_file_meta *fm, pm_buf *out);
int pm_pq_page_header_encode(const pm_pq_page_header *ph, pm_buf *out);
int pm_pq_column_index_encode(const pm_pq_column_index *ci, pm_buf *out);
int pm_pq_offset_index_encode(const pm_pq_offset_index *oi, pm_buf *out);
int pm_pq_bloom_filter_header_encode(const pm_pq_bloom_filter_header *bh, pm_buf *out);

/* ---------------------------------------------------------------- footer */

#define PM_PQ_FOOTER_READ_SIZE (64 * 1024)

/*
 * Parses the footer from the last tail_len bytes of a file of file_size
 * bytes (tail_len <= file_size). Checks the trailing magic (PARE ->
 * PAIMON_EUNSUPPORTED "encrypted"), the footer length against the file size
 * and, when the tail covers the whole file, the leading magic. If the tail
 * is too short for the footer, returns 0 with *out = NULL and *need = the
 * tail length required; otherwise *need = 0.
 */
int pm_parquet_parse_footer(const uint8_t *tail, size_t tail_len, uint64_t file_size,
			    pm_pq_file_meta **out, size_t *need);

/* Whole file in memory. */
int pm_parquet_read_footer_mem(const uint8_t *file, size_t len, pm_pq_file_meta **out);

/*
 * The footer through an open file: the length comes from the handle (no
 * stat); one read of the last min(64 KiB, size) bytes, a 4-byte read of the
 * leading magic when the tail does not cover it, and a second tail read only
 * when the footer is larger. Errors are wrapped with path. *out is freed
 * with pm_pq_file_meta_free.
 */
int pm_pq_read_footer_file(pm_in_file *f, const char *path, pm_pq_file_meta **out);
/* The same by path: opens a handle, reads the footer, closes it. */
int pm_parquet_read_footer(pm_fileio *io, const char *path, pm_pq_file_meta **out);

/* ---------------------------------------------------------------- schema */

#define PM_PQ_MAX_SCHEMA_DEPTH 100

typedef struct pm_pq_schema_node {
	const pm_pq_schema_element *elem;
	int index;                        /* position in the flat SchemaElement list */
	struct pm_pq_schema_node *parent; /* NULL for the root */
	struct pm_pq_schema_node **children;
	int n_children;
	int depth;                        /* root 0 */
	int16_t max_def_level;            /* cumulative, this node included */
	int16_t max_rep_level;
	int leaf_index;                   /* column index for leaves, -1 for groups */
	const char **path;                /* names below the root, depth entries */
} pm_pq_schema_node;

typedef struct pm_pq_schema {
	pm_pq_schema_node *nodes;         /* n_nodes, nodes[0] is the root */
	size_t n_nodes;
	pm_pq_schema_node **leaves;       /* in column order */
	size_t n_leaves;
	struct pm_pq_arena *arena;
} pm_pq_schema;

/*
 * Builds the tree from the flattened depth-first list (num_children).
 * Validates: a root exists; children counts fit the list exactly; depth <=
 * PM_PQ_MAX_SCHEMA_DEPTH; non-root elements have a repetition; leaves have
 * a physical type; FIXED_LEN_BYTE_ARRAY leaves a positive type_length.
 * The elements must outlive the schema (nodes point at them).
 */
int pm_pq_schema_build(const pm_pq_schema_element *elems, size_t n, pm_pq_schema **out);
void pm_pq_schema_free(pm_pq_schema *s);

/*
 * Consistency of a footer with its schema: every row group has one column
 * chunk per leaf, with meta_data, the leaf's physical type and path, and
 * non-negative sizes/counts.
 */
int pm_pq_file_meta_check(const pm_pq_file_meta *fm, const pm_pq_schema *s);

#endif
