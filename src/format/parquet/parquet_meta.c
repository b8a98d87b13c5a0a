/*
 * format/parquet/parquet_meta.c - decoding and encoding of Parquet's Thrift
 * metadata (see parquet_meta.h), written from parquet.thrift's field list.
 */
#include "format/parquet/parquet_meta.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "serde/thrift/thrift.h"

/* ---------------------------------------------------------------- arena */

typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	alignas(max_align_t) unsigned char data[];
} arena_chunk;

struct pm_pq_arena {
	arena_chunk *head;
	size_t total;
	size_t limit; /* bytes; a guard against allocation amplification */
};

static struct pm_pq_arena *arena_new(size_t limit)
{
	struct pm_pq_arena *a = pm_calloc(1, sizeof *a);
	if (a)
		a->limit = limit;
	return a;
}

static void arena_free(struct pm_pq_arena *a)
{
	arena_chunk *c, *nx;
	if (!a)
		return;
	for (c = a->head; c; c = nx) {
		nx = c->next;
		pm_free(c);
	}
	pm_free(a);
}

/* Zeroed, max-aligned memory; NULL with the error set on failure. */
static void *arena_alloc(struct pm_pq_arena *a, size_t n)
{
	arena_chunk *c = a->head;
	size_t al = alignof(max_align_t), need = (n + al - 1) & ~(al - 1);
	void *p;
	if (n == 0)
		need = al;
	if (need < n || need > a->limit - (a->total < a->limit ? a->total : a->limit) ||
	    a->total >= a->limit) {
		pm_err(PAIMON_ECORRUPT, "parquet: metadata needs more than %zu bytes of memory "
		       "(guard against corrupt counts)", a->limit);
		return NULL;
	}
	if (!c || c->cap - c->used < need) {
		size_t cap = need > 16384 ? need : 16384;
		c = pm_malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += need;
	a->total += need;
	memset(p, 0, need);
	return p;
}

static size_t arena_limit_for(size_t n)
{
	/* Decoded structs are at most a few hundred times their wire size. */
	size_t lim = (size_t)16 << 20;
	if (n > (SIZE_MAX - lim) / 512)
		return SIZE_MAX;
	return lim + n * 512;
}

/* ---------------------------------------------------------------- decoding */

/*
 * Every struct is decoded by one interpreter (read_struct) over a descriptor
 * table per struct: the table is indexed by Thrift field id and says, per
 * field, its kind (which also fixes the wire type), where the value goes in
 * the C struct, where its has_<name> flag is, whether it is required and,
 * for nested structs and lists of structs, the element's descriptor.
 *
 * Rules the interpreter applies, as parquet.thrift readers do:
 * - an id not in the table is skipped, and so is a value whose wire type is
 *   not the one its kind expects (a list may also arrive as a set); its
 *   has-flag stays false;
 * - list<i32>/list<i64> accept i16/i32/i64 elements (same varint encoding;
 *   Thrift's C++ runtime reads such lists whatever element type they declare,
 *   bad_data/ARROW-GH-41317 has an encodings list<i16>), range-checked; a
 *   list of another element type is skipped;
 * - a nested struct field is zeroed (and given its defaults) before each
 *   decode; list elements come zeroed from the arena;
 * - after a struct ends, the first required field (in id order, from the
 *   struct's req mask) that was not read is reported: "parquet: <Struct>
 *   lacks required field '<name>' (<id>), struct ending at offset <n>";
 *   then the struct's check runs;
 * - depth, counts and lengths are bounded by the Thrift reader; list memory
 *   by the arena's limit.
 */

typedef struct dec {
	pm_tc_reader r;
	struct pm_pq_arena *a; /* NULL for allocation-free decoders */
} dec;

enum fk {
	FK_SKIP = 0,  /* a gap in a table: the field is skipped */
	FK_I8, FK_I16, FK_I32, FK_I64,
	FK_BOOL,
	FK_BIN,       /* pm_pq_bin, a slice of the input */
	FK_STR,       /* const char *, a NUL-terminated arena copy */
	FK_STRUCT,    /* nested struct at off, decoded by sub (sub NULL: an empty struct, skipped) */
	FK_LIST,      /* list<elem>: items pointer at off, size_t count at cnt */
	FK_UNION_ID,  /* union of empty structs: int32 id of the first member, 0 if none */
	FK_ENCRYPTED  /* exists only in encrypted files: PAIMON_EUNSUPPORTED */
};

/* Wire type of a list element kind. */
static const uint8_t elem_wire[] = {
	[FK_I32] = PM_TC_I32, [FK_I64] = PM_TC_I64, [FK_BOOL] = PM_TC_BOOL, [FK_BIN] = PM_TC_BINARY,
	[FK_STR] = PM_TC_BINARY, [FK_STRUCT] = PM_TC_STRUCT, [FK_UNION_ID] = PM_TC_STRUCT
};

/* fdesc.flags */
#define F_NZ 1 /* FK_UNION_ID: stored, and counts as read, only when a member is set */

typedef struct sdesc sdesc;

typedef struct fdesc {
	const char *name;   /* parquet.thrift's name, for messages */
	uint8_t kind;       /* enum fk */
	uint8_t wire;       /* the kind's wire type (PM_TC_*; FK_LIST: PM_TC_LIST) */
	uint8_t elem;       /* FK_LIST: element kind */
	uint8_t flags;      /* F_NZ */
	uint16_t off;       /* value (FK_LIST: items pointer) */
	uint16_t has;       /* offset + 1 of a bool set when the value is read; 0 = none */
	uint16_t cnt;       /* FK_LIST: offset of the size_t count */
	const sdesc *sub;   /* FK_STRUCT, FK_LIST of FK_STRUCT */
} fdesc;

struct sdesc {
	const char *name;
	size_t size;        /* list element size; zeroed when a field. 0: union member writing
			     * into the union's own object */
	const fdesc *f;     /* indexed by field id; f[0] unused */
	uint16_t nf;        /* max field id + 1 (<= 64) */
	uint64_t req;       /* required fields: bit id set (ID(id)) */
	void (*init)(void *obj);            /* defaults after zeroing, or NULL */
	int (*check)(dec *d, const void *obj); /* after the required fields, or NULL */
	/* Non-NULL for a union of structs: only the first struct member with a
	 * positive id is decoded (later ones skipped); member() records its id,
	 * known = whether the table has it (unknown members are skipped). */
	void (*member)(void *obj, int16_t id, bool known);
};

/* Kind and wire type of a field. */
#define K_I8 .kind = FK_I8, .wire = PM_TC_I8
#define K_I16 .kind = FK_I16, .wire = PM_TC_I16
#define K_I32 .kind = FK_I32, .wire = PM_TC_I32
#define K_I64 .kind = FK_I64, .wire = PM_TC_I64
#define K_BOOL .kind = FK_BOOL, .wire = PM_TC_BOOL
#define K_BIN .kind = FK_BIN, .wire = PM_TC_BINARY
#define K_STR .kind = FK_STR, .wire = PM_TC_BINARY
#define K_STRUCT .kind = FK_STRUCT, .wire = PM_TC_STRUCT
#define K_UNION_ID .kind = FK_UNION_ID, .wire = PM_TC_STRUCT
#define K_ENCRYPTED .kind = FK_ENCRYPTED, .wire = 0xff /* matches no wire type */
#define K_LIST(elem_kind) .kind = FK_LIST, .wire = PM_TC_LIST, .elem = elem_kind
#define NF(tab) ((uint16_t)(sizeof(tab) / sizeof(tab)[0]))
#define SDESC(nm, sz, tab) .name = nm, .size = sz, .f = tab, .nf = NF(tab)
#define ID(id) ((uint64_t)1 << (id))
#define AT(T, m) .off = (uint16_t)offsetof(T, m)
#define HAS(T, m) .has = (uint16_t)(offsetof(T, m) + 1)
#define CNT(T, m) .cnt = (uint16_t)offsetof(T, m)

static int missing(dec *d, const char *st, const char *field, int id)
{
	return pm_err(PAIMON_ECORRUPT, "parquet: %s lacks required field '%s' (%d), struct ending at "
		      "offset %zu", st, field, id, d->r.pos);
}

static char *arena_str(dec *d, const uint8_t *p, size_t n)
{
	char *s;
	if (n == SIZE_MAX) {
		pm_err(PAIMON_ECORRUPT, "parquet: string too long");
		return NULL;
	}
	s = arena_alloc(d->a, n + 1);
	if (s && n)
		memcpy(s, p, n);
	return s;
}

static int read_str(dec *d, const char **out)
{
	const uint8_t *p;
	size_t n;
	int rc;
	char *s;
	if ((rc = pm_tc_read_binary(&d->r, &p, &n)) != 0)
		return rc;
	if (!(s = arena_str(d, p, n)))
		return pm_err_code();
	*out = s;
	return 0;
}

/* A union of empty structs (TimeUnit, ColumnOrder, bloom algorithm/hash/
 * compression): *id = the first member's id, 0 if none. */
static int read_union_id(dec *d, int32_t *id)
{
	int16_t last;
	pm_tc_field f;
	int rc;
	*id = 0;
	if ((rc = pm_tc_struct_begin(&d->r, &last)) != 0)
		return rc;
	while ((rc = pm_tc_read_field(&d->r, &last, &f)) == 0 && f.type != PM_TC_STOP) {
		if (f.type == PM_TC_STRUCT && *id == 0 && f.id > 0)
			*id = f.id;
		if ((rc = pm_tc_skip_field(&d->r, &f)) != 0)
			break;
	}
	pm_tc_struct_end(&d->r);
	return rc;
}

static int read_struct(dec *d, const sdesc *sd, void *obj);

static size_t elem_size(const fdesc *fd)
{
	switch (fd->elem) {
	case FK_I32: return sizeof(int32_t);
	case FK_I64: return sizeof(int64_t);
	case FK_BOOL: return sizeof(bool);
	case FK_BIN: return sizeof(pm_pq_bin);
	case FK_STR: return sizeof(char *);
	case FK_UNION_ID: return sizeof(int32_t);
	default: return fd->sub->size; /* FK_STRUCT */
	}
}

static int read_elem(dec *d, const fdesc *fd, void *it)
{
	switch (fd->elem) {
	case FK_I32: return pm_tc_read_i32(&d->r, it);
	case FK_I64: return pm_tc_read_i64(&d->r, it);
	case FK_BOOL: return pm_tc_read_bool(&d->r, it);
	case FK_STR: return read_str(d, it);
	case FK_UNION_ID: return read_union_id(d, it);
	case FK_BIN: {
		pm_pq_bin *b = it;
		b->set = true;
		return pm_tc_read_binary(&d->r, &b->p, &b->len);
	}
	default:
		if (fd->sub->init)
			fd->sub->init(it);
		return read_struct(d, fd->sub, it);
	}
}

/* A list field (wire type already checked): 1 when stored, 0 when its
 * element type did not match and it was skipped, or an error. */
static int read_list(dec *d, const fdesc *fd, unsigned char *obj)
{
	uint8_t et, want = elem_wire[fd->elem];
	uint32_t cnt, i;
	size_t sz = elem_size(fd), n;
	unsigned char *arr;
	int rc;
	if ((rc = pm_tc_read_list(&d->r, &et, &cnt)) != 0)
		return rc;
	if ((want == PM_TC_I32 || want == PM_TC_I64) &&
	    (et == PM_TC_I16 || et == PM_TC_I32 || et == PM_TC_I64))
		et = want;
	if (et != want) {
		for (i = 0; i < cnt && !rc; i++)
			rc = pm_tc_skip(&d->r, et);
		return rc;
	}
	arr = arena_alloc(d->a, cnt ? (size_t)cnt * sz : 1);
	if (!arr)
		return pm_err_code();
	for (i = 0; i < cnt; i++)
		if ((rc = read_elem(d, fd, arr + (size_t)i * sz)) != 0)
			return rc;
	n = cnt;
	memcpy(obj + fd->off, &arr, sizeof arr);
	memcpy(obj + fd->cnt, &n, sizeof n);
	return 1;
}

/* A nested struct field's value (sub NULL: an empty struct, skipped). */
static int read_sub(dec *d, const fdesc *fd, const pm_tc_field *f, void *v)
{
	if (!fd->sub)
		return pm_tc_skip_field(&d->r, f);
	if (fd->sub->size)
		memset(v, 0, fd->sub->size);
	if (fd->sub->init)
		fd->sub->init(v);
	return read_struct(d, fd->sub, v);
}

/* FK_UNION_ID: 1 when stored. */
static int read_union_field(dec *d, const fdesc *fd, void *v)
{
	int32_t id;
	int rc = read_union_id(d, &id);
	if (rc)
		return rc;
	if (!id && (fd->flags & F_NZ))
		return 0;
	memcpy(v, &id, sizeof id);
	return 1;
}

/* After the fields: the first required one missing, then sd's check. */
static int struct_done(dec *d, const sdesc *sd, uint64_t seen, void *obj)
{
	if ((seen & sd->req) != sd->req) {
		int i = 1;
		while (!(sd->req >> i & 1) || (seen >> i & 1))
			i++;
		return missing(d, sd->name, sd->f[i].name, i);
	}
	return sd->check ? sd->check(d, obj) : 0;
}

/* A union of structs (sd->member set): only the first struct member with a
 * positive id is decoded, later ones are skipped. */
static int read_union(dec *d, const sdesc *sd, void *obj)
{
	int16_t last;
	pm_tc_field f;
	int members = 0, rc;
	if ((rc = pm_tc_struct_begin(&d->r, &last)) != 0)
		return rc;
	while ((rc = pm_tc_read_field(&d->r, &last, &f)) == 0 && f.type != PM_TC_STOP) {
		const fdesc *fd = (uint16_t)f.id < sd->nf && sd->f[f.id].kind ? &sd->f[f.id] : NULL;
		if (f.type != PM_TC_STRUCT || f.id <= 0 || members++ > 0) {
			rc = pm_tc_skip_field(&d->r, &f);
		} else {
			sd->member(obj, f.id, fd != NULL);
			rc = fd ? read_sub(d, fd, &f, (unsigned char *)obj + fd->off)
				: pm_tc_skip_field(&d->r, &f);
		}
		if (rc)
			break;
	}
	pm_tc_struct_end(&d->r);
	return rc ? rc : struct_done(d, sd, 0, obj);
}

static int read_struct(dec *d, const sdesc *sd, void *obj)
{
	unsigned char *o = obj;
	uint64_t seen = 0;
	int16_t last;
	pm_tc_field f;
	int rc;
	if (sd->member)
		return read_union(d, sd, obj);
	if ((rc = pm_tc_struct_begin(&d->r, &last)) != 0)
		return rc;
	while ((rc = pm_tc_read_field(&d->r, &last, &f)) == 0 && f.type != PM_TC_STOP) {
		/* f[0] is a gap, and a negative id is far above nf (<= 64) */
		const fdesc *fd = (uint16_t)f.id < sd->nf ? &sd->f[f.id] : NULL;
		void *v;
		if (!fd || f.type != fd->wire) {
			if (fd && fd->kind == FK_LIST && f.type == PM_TC_SET)
				goto value;
			if (fd && fd->kind == FK_ENCRYPTED) {
				rc = pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (%s has %s) is "
					    "not supported", sd->name, fd->name);
				break;
			}
			/* unknown, or another wire type than described */
			if ((rc = pm_tc_skip_field(&d->r, &f)) != 0)
				break;
			continue;
		}
value:
		v = o + fd->off;
		switch (fd->kind) {
		case FK_I8: rc = pm_tc_read_i8(&d->r, v); break;
		case FK_I16: rc = pm_tc_read_i16(&d->r, v); break;
		case FK_I32: rc = pm_tc_read_i32(&d->r, v); break;
		case FK_I64: rc = pm_tc_read_i64(&d->r, v); break;
		case FK_BOOL: *(bool *)v = f.bool_value; rc = 0; break;
		case FK_STR: rc = read_str(d, v); break;
		case FK_BIN: {
			pm_pq_bin *b = v;
			if ((rc = pm_tc_read_binary(&d->r, &b->p, &b->len)) == 0)
				b->set = true;
			break;
		}
		case FK_LIST:
		case FK_UNION_ID:
			rc = fd->kind == FK_LIST ? read_list(d, fd, o) : read_union_field(d, fd, v);
			if (rc == 0) /* skipped: not stored */
				continue;
			if (rc > 0)
				rc = 0;
			break;
		default: rc = read_sub(d, fd, &f, v); break; /* FK_STRUCT */
		}
		if (rc)
			break;
		seen |= (uint64_t)1 << f.id;
		if (fd->has)
			o[fd->has - 1] = true;
	}
	pm_tc_struct_end(&d->r);
	return rc ? rc : struct_done(d, sd, seen, obj);
}

/* ---- the descriptor tables, from parquet.thrift */

#define S pm_pq_statistics
static const fdesc stats_f[] = {
	[1] = {"max", K_BIN, AT(S, max)},
	[2] = {"min", K_BIN, AT(S, min)},
	[3] = {"null_count", K_I64, AT(S, null_count), HAS(S, has_null_count)},
	[4] = {"distinct_count", K_I64, AT(S, distinct_count), HAS(S, has_distinct_count)},
	[5] = {"max_value", K_BIN, AT(S, max_value)},
	[6] = {"min_value", K_BIN, AT(S, min_value)},
	[7] = {"is_max_value_exact", K_BOOL, AT(S, is_max_value_exact), HAS(S, has_is_max_value_exact)},
	[8] = {"is_min_value_exact", K_BOOL, AT(S, is_min_value_exact), HAS(S, has_is_min_value_exact)},
	[9] = {"nan_count", K_I64, AT(S, nan_count), HAS(S, has_nan_count)},
};
static const sdesc stats_sd = {SDESC("Statistics", sizeof(S), stats_f)};
#undef S

/* LogicalType: a union whose members' fields all land in pm_pq_logical_type. */
#define S pm_pq_logical_type
static const fdesc decimal_f[] = {
	[1] = {"scale", K_I32, AT(S, scale)},
	[2] = {"precision", K_I32, AT(S, precision)},
};
static const fdesc time_f[] = {
	[1] = {"isAdjustedToUTC", K_BOOL, AT(S, is_adjusted_to_utc)},
	[2] = {"unit", K_UNION_ID, .flags = F_NZ, AT(S, unit)},
};
static const fdesc int_f[] = {
	[1] = {"bitWidth", K_I8, AT(S, bit_width)},
	[2] = {"isSigned", K_BOOL, AT(S, is_signed)},
};
static const fdesc variant_f[] = {
	[1] = {"specification_version", K_I8, AT(S, specification_version),
	       HAS(S, has_specification_version)},
};
static const fdesc geography_f[] = {
	[1] = {"crs", K_STR, AT(S, crs)},
	[2] = {"algorithm", K_I32, AT(S, algorithm), HAS(S, has_algorithm)},
};
static const sdesc decimal_sd = {SDESC("DecimalType", 0, decimal_f), .req = ID(1) | ID(2)};
static const sdesc time_sd = {SDESC("TimeType", 0, time_f), .req = ID(1) | ID(2)};
static const sdesc timestamp_sd = {SDESC("TimestampType", 0, time_f), .req = ID(1) | ID(2)};
static const sdesc int_sd = {SDESC("IntType", 0, int_f), .req = ID(1) | ID(2)};
static const sdesc variant_sd = {SDESC("VariantType", 0, variant_f)};
static const sdesc geometry_sd = {.name = "GeometryType", .f = geography_f, .nf = 2}; /* crs only */
static const sdesc geography_sd = {SDESC("GeographyType", 0, geography_f)};

_Static_assert(sizeof(int) == sizeof(int32_t), "kind and unit are stored as int32");

static void lt_member(void *obj, int16_t id, bool known)
{
	S *lt = obj;
	lt->kind = known ? id : PM_PQ_LT_UNRECOGNIZED;
	if (!known)
		lt->unrecognized_id = id;
}

#define LT_EMPTY(id, nm) [id] = {nm, K_STRUCT}
static const fdesc logical_f[] = {
	LT_EMPTY(PM_PQ_LT_STRING, "STRING"), LT_EMPTY(PM_PQ_LT_MAP, "MAP"),
	LT_EMPTY(PM_PQ_LT_LIST, "LIST"), LT_EMPTY(PM_PQ_LT_ENUM, "ENUM"),
	[PM_PQ_LT_DECIMAL] = {"DECIMAL", K_STRUCT, .sub = &decimal_sd},
	LT_EMPTY(PM_PQ_LT_DATE, "DATE"),
	[PM_PQ_LT_TIME] = {"TIME", K_STRUCT, .sub = &time_sd},
	[PM_PQ_LT_TIMESTAMP] = {"TIMESTAMP", K_STRUCT, .sub = &timestamp_sd},
	[PM_PQ_LT_INTEGER] = {"INTEGER", K_STRUCT, .sub = &int_sd},
	LT_EMPTY(PM_PQ_LT_UNKNOWN, "UNKNOWN"), LT_EMPTY(PM_PQ_LT_JSON, "JSON"),
	LT_EMPTY(PM_PQ_LT_BSON, "BSON"), LT_EMPTY(PM_PQ_LT_UUID, "UUID"),
	LT_EMPTY(PM_PQ_LT_FLOAT16, "FLOAT16"),
	[PM_PQ_LT_VARIANT] = {"VARIANT", K_STRUCT, .sub = &variant_sd},
	[PM_PQ_LT_GEOMETRY] = {"GEOMETRY", K_STRUCT, .sub = &geometry_sd},
	[PM_PQ_LT_GEOGRAPHY] = {"GEOGRAPHY", K_STRUCT, .sub = &geography_sd},
	LT_EMPTY(PM_PQ_LT_FILE, "FILE"),
};
#undef LT_EMPTY
static const sdesc logical_sd = {SDESC("LogicalType", sizeof(S), logical_f), .member = lt_member};
#undef S

static int schema_element_check(dec *d, const void *obj)
{
	const pm_pq_schema_element *e = obj;
	(void)d;
	if (e->has_type && (e->type < 0 || e->type > PM_PQ_FIXED_LEN_BYTE_ARRAY))
		return pm_err(PAIMON_ECORRUPT, "parquet: SchemaElement '%s' has invalid physical type %d",
			      e->name, e->type);
	if (e->has_repetition && (e->repetition < 0 || e->repetition > PM_PQ_REPEATED))
		return pm_err(PAIMON_ECORRUPT, "parquet: SchemaElement '%s' has invalid repetition %d",
			      e->name, e->repetition);
	if (e->has_num_children && e->num_children < 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: SchemaElement '%s' has negative num_children %d",
			      e->name, e->num_children);
	return 0;
}

#define S pm_pq_schema_element
static const fdesc schema_f[] = {
	[1] = {"type", K_I32, AT(S, type), HAS(S, has_type)},
	[2] = {"type_length", K_I32, AT(S, type_length), HAS(S, has_type_length)},
	[3] = {"repetition_type", K_I32, AT(S, repetition), HAS(S, has_repetition)},
	[4] = {"name", K_STR, AT(S, name)},
	[5] = {"num_children", K_I32, AT(S, num_children), HAS(S, has_num_children)},
	[6] = {"converted_type", K_I32, AT(S, converted_type), HAS(S, has_converted_type)},
	[7] = {"scale", K_I32, AT(S, scale), HAS(S, has_scale)},
	[8] = {"precision", K_I32, AT(S, precision), HAS(S, has_precision)},
	[9] = {"field_id", K_I32, AT(S, field_id), HAS(S, has_field_id)},
	[10] = {"logicalType", K_STRUCT, AT(S, logical), .sub = &logical_sd},
};
static const sdesc schema_sd = {SDESC("SchemaElement", sizeof(S), schema_f), .req = ID(4),
				.check = schema_element_check};
#undef S

#define S pm_pq_key_value
static const fdesc kv_f[] = {
	[1] = {"key", K_STR, AT(S, key)},
	[2] = {"value", K_BIN, AT(S, value)},
};
static const sdesc kv_sd = {SDESC("KeyValue", sizeof(S), kv_f), .req = ID(1)};
#undef S

#define S pm_pq_page_encoding_stats
static const fdesc pes_f[] = {
	[1] = {"page_type", K_I32, AT(S, page_type)},
	[2] = {"encoding", K_I32, AT(S, encoding)},
	[3] = {"count", K_I32, AT(S, count)},
};
static const sdesc pes_sd = {SDESC("PageEncodingStats", sizeof(S), pes_f),
				.req = ID(1) | ID(2) | ID(3)};
#undef S

#define S pm_pq_sorting_column
static const fdesc sc_f[] = {
	[1] = {"column_idx", K_I32, AT(S, column_idx)},
	[2] = {"descending", K_BOOL, AT(S, descending)},
	[3] = {"nulls_first", K_BOOL, AT(S, nulls_first)},
};
static const sdesc sc_sd = {SDESC("SortingColumn", sizeof(S), sc_f), .req = ID(1) | ID(2) | ID(3)};
#undef S

/* 16 size_statistics and 17 geospatial_statistics are skipped. */
#define S pm_pq_column_meta
static const fdesc cmd_f[] = {
	[1] = {"type", K_I32, AT(S, type)},
	[2] = {"encodings", K_LIST(FK_I32), AT(S, encodings), CNT(S, n_encodings)},
	[3] = {"path_in_schema", K_LIST(FK_STR), AT(S, path_in_schema), CNT(S, n_path)},
	[4] = {"codec", K_I32, AT(S, codec)},
	[5] = {"num_values", K_I64, AT(S, num_values)},
	[6] = {"total_uncompressed_size", K_I64, AT(S, total_uncompressed_size)},
	[7] = {"total_compressed_size", K_I64, AT(S, total_compressed_size)},
	[8] = {"key_value_metadata", K_LIST(FK_STRUCT), AT(S, key_value), CNT(S, n_key_value),
	       .sub = &kv_sd},
	[9] = {"data_page_offset", K_I64, AT(S, data_page_offset)},
	[10] = {"index_page_offset", K_I64, AT(S, index_page_offset), HAS(S, has_index_page_offset)},
	[11] = {"dictionary_page_offset", K_I64, AT(S, dictionary_page_offset),
		HAS(S, has_dictionary_page_offset)},
	[12] = {"statistics", K_STRUCT, AT(S, statistics), HAS(S, has_statistics), .sub = &stats_sd},
	[13] = {"encoding_stats", K_LIST(FK_STRUCT), AT(S, encoding_stats), CNT(S, n_encoding_stats),
		.sub = &pes_sd},
	[14] = {"bloom_filter_offset", K_I64, AT(S, bloom_filter_offset),
		HAS(S, has_bloom_filter_offset)},
	[15] = {"bloom_filter_length", K_I32, AT(S, bloom_filter_length),
		HAS(S, has_bloom_filter_length)},
};
static const sdesc cmd_sd = {SDESC("ColumnMetaData", sizeof(S), cmd_f),
				.req = ID(1) | ID(2) | ID(3) | ID(4) | ID(5) | ID(6) | ID(7) | ID(9)};
#undef S

#define S pm_pq_column_chunk
static const fdesc cc_f[] = {
	[1] = {"file_path", K_STR, AT(S, file_path)},
	[2] = {"file_offset", K_I64, AT(S, file_offset)},
	[3] = {"meta_data", K_STRUCT, AT(S, meta_data), HAS(S, has_meta_data), .sub = &cmd_sd},
	[4] = {"offset_index_offset", K_I64, AT(S, offset_index_offset),
	       HAS(S, has_offset_index_offset)},
	[5] = {"offset_index_length", K_I32, AT(S, offset_index_length),
	       HAS(S, has_offset_index_length)},
	[6] = {"column_index_offset", K_I64, AT(S, column_index_offset),
	       HAS(S, has_column_index_offset)},
	[7] = {"column_index_length", K_I32, AT(S, column_index_length),
	       HAS(S, has_column_index_length)},
	[8] = {"crypto_metadata", K_ENCRYPTED},
	[9] = {"encrypted_column_metadata", K_ENCRYPTED},
};
static const sdesc cc_sd = {SDESC("ColumnChunk", sizeof(S), cc_f), .req = ID(2)};
#undef S

#define S pm_pq_row_group
static const fdesc rg_f[] = {
	[1] = {"columns", K_LIST(FK_STRUCT), AT(S, columns), CNT(S, n_columns), .sub = &cc_sd},
	[2] = {"total_byte_size", K_I64, AT(S, total_byte_size)},
	[3] = {"num_rows", K_I64, AT(S, num_rows)},
	[4] = {"sorting_columns", K_LIST(FK_STRUCT), AT(S, sorting_columns), CNT(S, n_sorting_columns),
	       .sub = &sc_sd},
	[5] = {"file_offset", K_I64, AT(S, file_offset), HAS(S, has_file_offset)},
	[6] = {"total_compressed_size", K_I64, AT(S, total_compressed_size),
	       HAS(S, has_total_compressed_size)},
	[7] = {"ordinal", K_I16, AT(S, ordinal), HAS(S, has_ordinal)},
};
static const sdesc rg_sd = {SDESC("RowGroup", sizeof(S), rg_f), .req = ID(1) | ID(2) | ID(3)};
#undef S

_Static_assert(sizeof(pm_pq_column_order) == sizeof(int32_t), "a ColumnOrder is its member id");

#define S pm_pq_file_meta
static const fdesc fmd_f[] = {
	[1] = {"version", K_I32, AT(S, version)},
	[2] = {"schema", K_LIST(FK_STRUCT), AT(S, schema), CNT(S, n_schema), .sub = &schema_sd},
	[3] = {"num_rows", K_I64, AT(S, num_rows)},
	[4] = {"row_groups", K_LIST(FK_STRUCT), AT(S, row_groups), CNT(S, n_row_groups),
	       .sub = &rg_sd},
	[5] = {"key_value_metadata", K_LIST(FK_STRUCT), AT(S, key_value), CNT(S, n_key_value),
	       .sub = &kv_sd},
	[6] = {"created_by", K_STR, AT(S, created_by)},
	[7] = {"column_orders", K_LIST(FK_UNION_ID), AT(S, column_orders), CNT(S, n_column_orders)},
	[8] = {"encryption_algorithm", K_ENCRYPTED},
};
static const sdesc fmd_sd = {SDESC("FileMetaData", sizeof(S), fmd_f),
				.req = ID(1) | ID(2) | ID(3) | ID(4)};
#undef S

#define S pm_pq_data_page_header
static const fdesc dph_f[] = {
	[1] = {"num_values", K_I32, AT(S, num_values)},
	[2] = {"encoding", K_I32, AT(S, encoding)},
	[3] = {"definition_level_encoding", K_I32, AT(S, definition_level_encoding)},
	[4] = {"repetition_level_encoding", K_I32, AT(S, repetition_level_encoding)},
	[5] = {"statistics", K_STRUCT, AT(S, statistics), HAS(S, has_statistics), .sub = &stats_sd},
};
static const sdesc dph_sd = {SDESC("DataPageHeader", sizeof(S), dph_f),
				.req = ID(1) | ID(2) | ID(3) | ID(4)};
#undef S

#define S pm_pq_dictionary_page_header
static const fdesc dict_f[] = {
	[1] = {"num_values", K_I32, AT(S, num_values)},
	[2] = {"encoding", K_I32, AT(S, encoding)},
	[3] = {"is_sorted", K_BOOL, AT(S, is_sorted), HAS(S, has_is_sorted)},
};
static const sdesc dict_sd = {SDESC("DictionaryPageHeader", sizeof(S), dict_f),
				.req = ID(1) | ID(2)};
#undef S

static void v2_init(void *obj)
{
	((pm_pq_data_page_header_v2 *)obj)->is_compressed = true; /* the spec default */
}

#define S pm_pq_data_page_header_v2
static const fdesc v2_f[] = {
	[1] = {"num_values", K_I32, AT(S, num_values)},
	[2] = {"num_nulls", K_I32, AT(S, num_nulls)},
	[3] = {"num_rows", K_I32, AT(S, num_rows)},
	[4] = {"encoding", K_I32, AT(S, encoding)},
	[5] = {"definition_levels_byte_length", K_I32, AT(S, definition_levels_byte_length)},
	[6] = {"repetition_levels_byte_length", K_I32, AT(S, repetition_levels_byte_length)},
	[7] = {"is_compressed", K_BOOL, AT(S, is_compressed), HAS(S, has_is_compressed)},
	[8] = {"statistics", K_STRUCT, AT(S, statistics), HAS(S, has_statistics), .sub = &stats_sd},
};
static const sdesc v2_sd = {SDESC("DataPageHeaderV2", sizeof(S), v2_f),
				.req = ID(1) | ID(2) | ID(3) | ID(4) | ID(5) | ID(6), .init = v2_init};
#undef S

static int ph_check(dec *d, const void *obj)
{
	const pm_pq_page_header *h = obj;
	(void)d;
	if (h->uncompressed_page_size < 0 || h->compressed_page_size < 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: negative page size (compressed %d, "
			      "uncompressed %d)", h->compressed_page_size, h->uncompressed_page_size);
	return 0;
}

#define S pm_pq_page_header
static const fdesc ph_f[] = {
	[1] = {"type", K_I32, AT(S, type)},
	[2] = {"uncompressed_page_size", K_I32, AT(S, uncompressed_page_size)},
	[3] = {"compressed_page_size", K_I32, AT(S, compressed_page_size)},
	[4] = {"crc", K_I32, AT(S, crc), HAS(S, has_crc)},
	[5] = {"data_page_header", K_STRUCT, AT(S, data_page_header), HAS(S, has_data_page_header),
	       .sub = &dph_sd},
	[6] = {"index_page_header", K_STRUCT, HAS(S, has_index_page_header)},
	[7] = {"dictionary_page_header", K_STRUCT, AT(S, dictionary_page_header),
	       HAS(S, has_dictionary_page_header), .sub = &dict_sd},
	[8] = {"data_page_header_v2", K_STRUCT, AT(S, data_page_header_v2),
	       HAS(S, has_data_page_header_v2), .sub = &v2_sd},
};
static const sdesc ph_sd = {SDESC("PageHeader", sizeof(S), ph_f), .req = ID(1) | ID(2) | ID(3),
			    .check = ph_check};
#undef S

/* The ColumnIndex being decoded, with the bound lists' own lengths (checked
 * against n_pages afterwards). */
typedef struct ci_dec {
	pm_pq_column_index ci;
	size_t n_min, n_max;
} ci_dec;

static int ci_check(dec *d, const void *obj)
{
	const ci_dec *c = obj;
	const pm_pq_column_index *ci = &c->ci;
	(void)d;
	if (c->n_min != ci->n_pages || c->n_max != ci->n_pages ||
	    (ci->null_counts && ci->n_null_counts != ci->n_pages) ||
	    (ci->nan_counts && ci->n_nan_counts != ci->n_pages))
		return pm_err(PAIMON_ECORRUPT, "parquet: ColumnIndex list lengths disagree "
			      "(null_pages %zu, min_values %zu, max_values %zu, null_counts %zu, "
			      "nan_counts %zu)", ci->n_pages, c->n_min, c->n_max,
			      ci->n_null_counts, ci->n_nan_counts);
	return 0;
}

#define S ci_dec
static const fdesc ci_f[] = {
	[1] = {"null_pages", K_LIST(FK_BOOL), AT(S, ci.null_pages), CNT(S, ci.n_pages)},
	[2] = {"min_values", K_LIST(FK_BIN), AT(S, ci.min_values), CNT(S, n_min)},
	[3] = {"max_values", K_LIST(FK_BIN), AT(S, ci.max_values), CNT(S, n_max)},
	[4] = {"boundary_order", K_I32, AT(S, ci.boundary_order)},
	[5] = {"null_counts", K_LIST(FK_I64), AT(S, ci.null_counts), CNT(S, ci.n_null_counts)},
	[6] = {"repetition_level_histograms", K_LIST(FK_I64), AT(S, ci.repetition_level_histograms),
	       CNT(S, ci.n_repetition_level_histograms)},
	[7] = {"definition_level_histograms", K_LIST(FK_I64), AT(S, ci.definition_level_histograms),
	       CNT(S, ci.n_definition_level_histograms)},
	[8] = {"nan_counts", K_LIST(FK_I64), AT(S, ci.nan_counts), CNT(S, ci.n_nan_counts)},
};
static const sdesc ci_sd = {SDESC("ColumnIndex", sizeof(S), ci_f),
				.req = ID(1) | ID(2) | ID(3) | ID(4), .check = ci_check};
#undef S

#define S pm_pq_page_location
static const fdesc pl_f[] = {
	[1] = {"offset", K_I64, AT(S, offset)},
	[2] = {"compressed_page_size", K_I32, AT(S, compressed_page_size)},
	[3] = {"first_row_index", K_I64, AT(S, first_row_index)},
};
static const sdesc pl_sd = {SDESC("PageLocation", sizeof(S), pl_f), .req = ID(1) | ID(2) | ID(3)};
#undef S

static int oi_check(dec *d, const void *obj)
{
	const pm_pq_offset_index *oi = obj;
	(void)d;
	if (oi->unencoded_byte_array_data_bytes &&
	    oi->n_unencoded_byte_array_data_bytes != oi->n_page_locations)
		return pm_err(PAIMON_ECORRUPT, "parquet: OffsetIndex has %zu page locations but "
			      "%zu unencoded_byte_array_data_bytes", oi->n_page_locations,
			      oi->n_unencoded_byte_array_data_bytes);
	return 0;
}

#define S pm_pq_offset_index
static const fdesc oi_f[] = {
	[1] = {"page_locations", K_LIST(FK_STRUCT), AT(S, page_locations),
	       CNT(S, n_page_locations), .sub = &pl_sd},
	[2] = {"unencoded_byte_array_data_bytes", K_LIST(FK_I64),
	       AT(S, unencoded_byte_array_data_bytes), CNT(S, n_unencoded_byte_array_data_bytes)},
};
static const sdesc oi_sd = {SDESC("OffsetIndex", sizeof(S), oi_f), .req = ID(1), .check = oi_check};
#undef S

static int bf_check(dec *d, const void *obj)
{
	const pm_pq_bloom_filter_header *h = obj;
	(void)d;
	if (h->num_bytes < 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: BloomFilterHeader numBytes %d is negative",
			      h->num_bytes);
	return 0;
}

#define S pm_pq_bloom_filter_header
static const fdesc bf_f[] = {
	[1] = {"numBytes", K_I32, AT(S, num_bytes)},
	[2] = {"algorithm", K_UNION_ID, AT(S, algorithm)},
	[3] = {"hash", K_UNION_ID, AT(S, hash)},
	[4] = {"compression", K_UNION_ID, AT(S, compression)},
};
static const sdesc bf_sd = {SDESC("BloomFilterHeader", sizeof(S), bf_f),
				.req = ID(1) | ID(2) | ID(3) | ID(4), .check = bf_check};
#undef S

/* ---- top-level decoders */

static int trailing(dec *d, const char *what)
{
	if (d->r.pos != d->r.len)
		return pm_err(PAIMON_ECORRUPT, "parquet: %zu unexpected bytes after %s (at offset %zu)",
			      d->r.len - d->r.pos, what, d->r.pos);
	return 0;
}

/*
 * An object that owns its memory, decoded from exactly p[0..n): a new arena
 * holds a copy of the input and, as its first allocation, the zeroed object
 * (sd->size bytes) whose arena pointer is at arena_off. Decoding errors are
 * wrapped "parquet: <Struct>" (sized: "parquet: <Struct> of <n> bytes",
 * and not for PAIMON_EUNSUPPORTED / PAIMON_ENOMEM). On failure *out = NULL
 * and nothing is left allocated.
 */
static int decode_owned(const void *p, size_t n, const sdesc *sd, size_t arena_off, bool sized,
			void **out)
{
	struct pm_pq_arena *a = arena_new(arena_limit_for(n));
	uint8_t *copy;
	void *obj;
	dec d;
	int rc;
	*out = NULL;
	if (!a)
		return PAIMON_ENOMEM;
	if (!(copy = arena_alloc(a, n ? n : 1)) || !(obj = arena_alloc(a, sd->size))) {
		rc = pm_err_code();
		arena_free(a);
		return rc;
	}
	if (n)
		memcpy(copy, p, n);
	memcpy((unsigned char *)obj + arena_off, &a, sizeof a);
	d.a = a;
	pm_tc_reader_init(&d.r, copy, n);
	rc = read_struct(&d, sd, obj);
	if (!rc)
		rc = trailing(&d, sd->name);
	if (rc) {
		if (!sized)
			pm_err_wrap("parquet: %s", sd->name);
		else if (rc != PAIMON_EUNSUPPORTED && rc != PAIMON_ENOMEM)
			pm_err_wrap("parquet: %s of %zu bytes", sd->name, n);
		arena_free(a);
		return rc;
	}
	*out = obj;
	return 0;
}

/* A struct at the start of p[0..n) decoded into the caller's *out without
 * allocating (slices point into p); *consumed = its size. Errors are wrapped
 * "parquet: <Struct>". */
static int decode_in_place(const void *p, size_t n, const sdesc *sd, void *out, size_t *consumed)
{
	dec d;
	int rc;
	memset(out, 0, sd->size);
	d.a = NULL;
	pm_tc_reader_init(&d.r, p, n);
	if ((rc = read_struct(&d, sd, out)) != 0) {
		pm_err_wrap("parquet: %s", sd->name);
		return rc;
	}
	*consumed = d.r.pos;
	return 0;
}

int pm_pq_file_meta_decode(const void *p, size_t n, pm_pq_file_meta **out)
{
	return decode_owned(p, n, &fmd_sd, offsetof(pm_pq_file_meta, arena), true, (void **)out);
}

void pm_pq_file_meta_free(pm_pq_file_meta *fm)
{
	if (fm)
		arena_free(fm->arena);
}

int pm_pq_page_header_decode(const void *p, size_t n, pm_pq_page_header *out, size_t *consumed)
{
	return decode_in_place(p, n, &ph_sd, out, consumed);
}

_Static_assert(offsetof(ci_dec, ci) == 0, "a ColumnIndex is returned as its ci_dec");

int pm_pq_column_index_decode(const void *p, size_t n, pm_pq_column_index **out)
{
	return decode_owned(p, n, &ci_sd, offsetof(ci_dec, ci.arena), false, (void **)out);
}

void pm_pq_column_index_free(pm_pq_column_index *ci)
{
	if (ci)
		arena_free(ci->arena);
}

int pm_pq_offset_index_decode(const void *p, size_t n, pm_pq_offset_index **out)
{
	return decode_owned(p, n, &oi_sd, offsetof(pm_pq_offset_index, arena), false, (void **)out);
}

void pm_pq_offset_index_free(pm_pq_offset_index *oi)
{
	if (oi)
		arena_free(oi->arena);
}

int pm_pq_bloom_filter_header_decode(const void *p, size_t n, pm_pq_bloom_filter_header *out,
				     size_t *consumed)
{
	return decode_in_place(p, n, &bf_sd, out, consumed);
}

/* ---------------------------------------------------------------- footer */

static uint32_t rd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int check_head_magic(const uint8_t *p)
{
	if (memcmp(p, "PAR1", 4) != 0) {
		if (memcmp(p, "PARE", 4) == 0)
			return pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (leading magic PARE) "
				      "is not supported");
		return pm_err(PAIMON_ECORRUPT, "parquet: bad magic at start of file: %02x %02x %02x %02x "
			      "(want PAR1)", p[0], p[1], p[2], p[3]);
	}
	return 0;
}

int pm_parquet_parse_footer(const uint8_t *tail, size_t tail_len, uint64_t file_size,
			    pm_pq_file_meta **out, size_t *need)
{
	const uint8_t *end;
	uint32_t flen;
	int rc;
	*out = NULL;
	*need = 0;
	if (tail_len > file_size)
		return pm_err(PAIMON_EINVAL, "parquet: tail of %zu bytes is longer than the file (%llu)",
			      tail_len, (unsigned long long)file_size);
	if (file_size < 12)
		return pm_err(PAIMON_ECORRUPT, "parquet: file of %llu bytes is too small to be Parquet "
			      "(minimum 12)", (unsigned long long)file_size);
	if (tail_len < 8) {
		*need = 8;
		return 0;
	}
	end = tail + tail_len;
	if (memcmp(end - 4, "PAR1", 4) != 0) {
		if (memcmp(end - 4, "PARE", 4) == 0)
			return pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (footer magic PARE) is "
				      "not supported");
		return pm_err(PAIMON_ECORRUPT, "parquet: bad magic at end of file: %02x %02x %02x %02x "
			      "(want PAR1)", end[-4], end[-3], end[-2], end[-1]);
	}
	flen = rd_le32(end - 8);
	if (flen == 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: footer length is 0");
	if ((uint64_t)flen + 12 > file_size)
		return pm_err(PAIMON_ECORRUPT, "parquet: footer length %u exceeds the file size %llu "
			      "less 12 bytes of magic and length", flen, (unsigned long long)file_size);
	if ((uint64_t)flen + 8 > tail_len) {
		*need = (size_t)flen + 8;
		return 0;
	}
	if (tail_len == file_size && (rc = check_head_magic(tail)) != 0)
		return rc;
	if ((rc = pm_pq_file_meta_decode(end - 8 - flen, flen, out)) != 0)
		return rc;
	(*out)->file_size = file_size;
	(*out)->footer_offset = file_size - 8 - flen;
	(*out)->footer_len = flen;
	return 0;
}

int pm_parquet_read_footer_mem(const uint8_t *file, size_t len, pm_pq_file_meta **out)
{
	size_t need;
	int rc;
	if (len >= 4 && (rc = check_head_magic(file)) != 0)
		return rc;
	return pm_parquet_parse_footer(file, len, len, out, &need);
}

int pm_pq_read_footer_file(pm_in_file *f, const char *path, pm_pq_file_meta **out)
{
	uint64_t size = pm_in_length(f);
	uint8_t *buf = NULL, head[4];
	size_t tl, need = 0;
	int rc;
	*out = NULL;
	if (size < 12) {
		rc = pm_err(PAIMON_ECORRUPT, "parquet: file of %llu bytes is too small to be Parquet (minimum 12)",
			    (unsigned long long)size);
		goto fail;
	}
	tl = size < PM_PQ_FOOTER_READ_SIZE ? (size_t)size : PM_PQ_FOOTER_READ_SIZE;
	for (;;) {
		if (!(buf = pm_malloc(tl)))
			return PAIMON_ENOMEM;
		if ((rc = pm_in_pread(f, size - tl, tl, buf)) != 0)
			goto out;
		if ((rc = pm_parquet_parse_footer(buf, tl, size, out, &need)))
			goto fail;
		if (*out)
			break;
		if (need <= tl) { /* cannot happen: parse asks only for more */
			rc = pm_err(PAIMON_ERROR, "parquet: footer reader made no progress");
			goto fail;
		}
		pm_free(buf);
		buf = NULL;
		tl = need;
	}
	if (tl < size) {
		if ((rc = pm_in_pread(f, 0, 4, head)) != 0)
			goto out;
		if ((rc = check_head_magic(head)) != 0)
			goto fail;
	}
	pm_free(buf);
	return 0;
fail:
	if (rc != PAIMON_ENOMEM)
		pm_err_wrap("%s", path);
out:
	pm_pq_file_meta_free(*out);
	*out = NULL;
	pm_free(buf);
	return rc;
}

int pm_parquet_read_footer(pm_fileio *io, const char *path, pm_pq_file_meta **out)
{
	pm_in_file *f;
	int rc;
	*out = NULL;
	if ((rc = pm_fileio_open_read(io, path, &f)) != 0)
		return rc;
	rc = pm_pq_read_footer_file(f, path, out);
	pm_in_close(f);
	return rc;
}

/* ---------------------------------------------------------------- schema */

int pm_pq_schema_build(const pm_pq_schema_element *elems, size_t n, pm_pq_schema **out)
{
	struct pm_pq_arena *a;
	pm_pq_schema *s;
	struct { pm_pq_schema_node *node; int32_t left; } stack[PM_PQ_MAX_SCHEMA_DEPTH + 1];
	int sp = 0, rc = 0;
	size_t idx, li;
	*out = NULL;
	if (n == 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: schema is empty (no root element)");
	if (n > INT32_MAX)
		return pm_err(PAIMON_ECORRUPT, "parquet: schema of %zu elements is too large", n);
	if (!(a = arena_new(SIZE_MAX)))
		return PAIMON_ENOMEM;
	if (!(s = arena_alloc(a, sizeof *s)) || !(s->nodes = arena_alloc(a, n * sizeof *s->nodes)))
		goto oom;
	s->arena = a;
	s->n_nodes = n;
	/* Root. */
	{
		pm_pq_schema_node *r = &s->nodes[0];
		int32_t nc = elems[0].has_num_children ? elems[0].num_children : 0;
		r->elem = &elems[0];
		r->leaf_index = -1;
		if (nc < 0 || (size_t)nc > n - 1) {
			rc = pm_err(PAIMON_ECORRUPT, "parquet: schema root '%s' claims %d children but "
				    "only %zu elements follow", elems[0].name ? elems[0].name : "",
				    nc, n - 1);
			goto fail;
		}
		if (nc && !(r->children = arena_alloc(a, (size_t)nc * sizeof *r->children)))
			goto oom;
		stack[sp].node = r;
		stack[sp].left = nc;
		sp++;
	}
	idx = 1;
	while (sp > 0) {
		pm_pq_schema_node *p = stack[sp - 1].node, *c;
		const pm_pq_schema_element *e;
		int32_t nc;
		if (stack[sp - 1].left == 0) {
			sp--;
			continue;
		}
		if (idx >= n) {
			rc = pm_err(PAIMON_ECORRUPT, "parquet: schema ends after %zu elements but group "
				    "'%s' (element %d) expects %d more children", n,
				    p->elem->name ? p->elem->name : "", p->index, stack[sp - 1].left);
			goto fail;
		}
		e = &elems[idx];
		c = &s->nodes[idx];
		c->elem = e;
		c->index = (int)idx;
		c->parent = p;
		c->depth = p->depth + 1;
		c->leaf_index = -1;
		p->children[p->n_children++] = c;
		stack[sp - 1].left--;
		if (!e->has_repetition) {
			rc = pm_err(PAIMON_ECORRUPT, "parquet: schema element '%s' (element %zu) has no "
				    "repetition type", e->name ? e->name : "", idx);
			goto fail;
		}
		c->max_def_level = (int16_t)(p->max_def_level + (e->repetition != PM_PQ_REQUIRED));
		c->max_rep_level = (int16_t)(p->max_rep_level + (e->repetition == PM_PQ_REPEATED));
		if (!(c->path = arena_alloc(a, (size_t)c->depth * sizeof *c->path)))
			goto oom;
		if (c->depth > 1)
			memcpy(c->path, p->path, (size_t)(c->depth - 1) * sizeof *c->path);
		c->path[c->depth - 1] = e->name ? e->name : "";
		idx++;
		nc = e->has_num_children ? e->num_children : 0;
		if (nc > 0) {
			if ((size_t)nc > n - idx) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: schema group '%s' (element %zu) claims "
					    "%d children but only %zu elements follow", e->name, idx - 1,
					    nc, n - idx);
				goto fail;
			}
			if (c->depth >= PM_PQ_MAX_SCHEMA_DEPTH) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: schema nested deeper than %d at '%s'",
					    PM_PQ_MAX_SCHEMA_DEPTH, e->name);
				goto fail;
			}
			if (!(c->children = arena_alloc(a, (size_t)nc * sizeof *c->children)))
				goto oom;
			stack[sp].node = c;
			stack[sp].left = nc;
			sp++;
		} else {
			if (!e->has_type) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: schema leaf '%s' (element %zu) has no "
					    "physical type", e->name, idx - 1);
				goto fail;
			}
			if (e->type == PM_PQ_FIXED_LEN_BYTE_ARRAY &&
			    (!e->has_type_length || e->type_length <= 0)) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: FIXED_LEN_BYTE_ARRAY column '%s' has "
					    "no positive type_length", e->name);
				goto fail;
			}
			c->leaf_index = (int)s->n_leaves++;
		}
	}
	if (idx != n) {
		rc = pm_err(PAIMON_ECORRUPT, "parquet: schema has %zu elements but the root's tree "
			    "uses only %zu", n, idx);
		goto fail;
	}
	if (s->n_leaves && !(s->leaves = arena_alloc(a, s->n_leaves * sizeof *s->leaves)))
		goto oom;
	for (idx = 0, li = 0; idx < n; idx++)
		if (s->nodes[idx].leaf_index >= 0)
			s->leaves[li++] = &s->nodes[idx];
	*out = s;
	return 0;
oom:
	rc = pm_err_code();
	if (rc == 0)
		rc = PAIMON_ENOMEM;
fail:
	arena_free(a);
	return rc;
}

void pm_pq_schema_free(pm_pq_schema *s)
{
	if (s)
		arena_free(s->arena);
}

int pm_pq_file_meta_check(const pm_pq_file_meta *fm, const pm_pq_schema *s)
{
	size_t g, c, k;
	for (g = 0; g < fm->n_row_groups; g++) {
		const pm_pq_row_group *rg = &fm->row_groups[g];
		if (rg->n_columns != s->n_leaves)
			return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu has %zu column chunks but "
				      "the schema has %zu columns", g, rg->n_columns, s->n_leaves);
		if (rg->num_rows < 0 || rg->total_byte_size < 0)
			return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu has negative num_rows %lld "
				      "or total_byte_size %lld", g, (long long)rg->num_rows,
				      (long long)rg->total_byte_size);
		for (c = 0; c < rg->n_columns; c++) {
			const pm_pq_column_chunk *cc = &rg->columns[c];
			const pm_pq_column_meta *m = &cc->meta_data;
			const pm_pq_schema_node *leaf = s->leaves[c];
			if (!cc->has_meta_data)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu has no "
					      "meta_data", g, c);
			if (m->type != leaf->elem->type)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu has physical "
					      "type %d but the schema says %d", g, c, m->type,
					      leaf->elem->type);
			if (m->n_path != (size_t)leaf->depth)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu path has %zu "
					      "parts, schema leaf '%s' is at depth %d", g, c, m->n_path,
					      leaf->elem->name, leaf->depth);
			for (k = 0; k < m->n_path; k++)
				if (strcmp(m->path_in_schema[k], leaf->path[k]) != 0)
					return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu path "
						      "part %zu is '%s', schema says '%s'", g, c, k,
						      m->path_in_schema[k], leaf->path[k]);
			if (m->num_values < 0 || m->total_compressed_size < 0 ||
			    m->total_uncompressed_size < 0 || m->data_page_offset < 0)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu has a "
					      "negative count, size or offset", g, c);
		}
	}
	return 0;
}
