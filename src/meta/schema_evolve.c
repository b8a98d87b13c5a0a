/*
 * meta/schema_evolve.c - ALTER TABLE: applying schema changes the way Java's
 * SchemaManager.generateTableSchema does (top-level columns only).
 *
 * UPDATE COLUMN TYPE is restricted to changes that never lose information
 * (integer/float widening, integer to DECIMAL/floating point, DECIMAL
 * widening, longer CHAR/VARCHAR/BINARY/VARBINARY, higher TIMESTAMP/TIME
 * precision, atomic types to STRING, nullability changes); Java also allows
 * explicit lossy casts such as STRING -> INT.
 */
#include "meta/schema.h"
#include "meta/meta_internal.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void pm_schema_change_dispose(pm_schema_change *c)
{
	if (!c)
		return;
	pm_free(c->name);
	pm_free(c->new_name);
	pm_type_free(c->type);
	pm_free(c->text);
	pm_free(c->reference);
	memset(c, 0, sizeof *c);
}

/* Options that cannot change once the table has snapshots (fields of Java's
 * CoreOptions annotated @Immutable). */
static const char *const immutable_options[] = {
	"type", "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
	"sequence.snapshot-ordering", "aggregation.remove-record-on-delete",
	"partial-update.remove-record-on-delete", "partial-update.remove-record-on-sequence-group",
	"rowkind.field", "primary-key", "primary-key.nullable", "partition", "dynamic-bucket.initial-buckets",
	"force-lookup", "row-tracking.enabled", "data-evolution.enabled", "index-file-in-data-file-dir",
	"blob-field", "blob-descriptor-field", "blob-view-field", "pk-clustering-override",
};

int pm_schema_option_is_immutable(const char *key)
{
	size_t i;
	for (i = 0; i < sizeof immutable_options / sizeof immutable_options[0]; i++)
		if (strcmp(key, immutable_options[i]) == 0)
			return 1;
	return 0;
}

/* Java Boolean.parseBoolean: "true" ignoring case, anything else false. */
static int java_bool(const char *v, int def)
{
	return v ? strcasecmp(v, "true") == 0 : def;
}

static int parse_bucket(const char *v, long long *out)
{
	if (pm_parse_i64(v, out) || *out < INT32_MIN || *out > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "option 'bucket' must be an integer, got '%s'", v);
	return 0;
}

/* SchemaManager.checkAlterTableOption (only called when the table has snapshots). */
static int check_alter_option(const pm_strmap *old, const char *key, const char *old_value, const char *new_value)
{
	if (pm_schema_option_is_immutable(key))
		return pm_err(PAIMON_EINVAL, "Change '%s' is not supported yet.", key);
	if (strcmp(key, "bucket") == 0) {
		long long ob = -1, nb;
		int rc;
		if (old_value && (rc = parse_bucket(old_value, &ob)))
			return rc;
		if ((rc = parse_bucket(new_value, &nb)))
			return rc;
		if (ob == -1)
			return pm_err(PAIMON_EINVAL, "Cannot change bucket when it is -1.");
		if (nb == -1)
			return pm_err(PAIMON_EINVAL, "Cannot change bucket to -1.");
	}
	if (strcmp(key, "deletion-vectors.enabled") == 0 &&
	    !java_bool(pm_strmap_get(old, "deletion-vectors.modifiable"), 0)) {
		int o = java_bool(old_value, 0), n = java_bool(new_value, 0);
		if (o != n)
			return pm_err(PAIMON_EINVAL,
				      "Cannot change deletion vectors mode from %s to %s. If modifying table deletion-vectors mode without full-compaction, this may result in data duplication. If you are confident, you can set table option 'deletion-vectors.modifiable' = 'true' to allow deletion vectors modification.",
				      o ? "true" : "false", n ? "true" : "false");
	}
	if ((strcmp(key, "ignore-delete") == 0 || strcmp(key, "ignore-update-before") == 0) &&
	    java_bool(old_value, 0) && !java_bool(new_value, 0))
		return pm_err(PAIMON_EINVAL, "Cannot change %s from true to false.", key);
	if (strcmp(key, "clustering.columns") == 0 && pm_strmap_get(old, "pk-clustering-override"))
		return pm_err(PAIMON_EINVAL, "Cannot change clustering.columns when pk-clustering-override enabled.");
	return 0;
}

static int check_reset_option(const pm_strmap *old, const char *key)
{
	if (pm_schema_option_is_immutable(key))
		return pm_err(PAIMON_EINVAL, "Change '%s' is not supported yet.", key);
	if (strcmp(key, "bucket") == 0)
		return pm_err(PAIMON_EINVAL, "Cannot reset %s.", key);
	if (strcmp(key, "deletion-vectors.enabled") == 0) {
		int rc = check_alter_option(old, key, pm_strmap_get(old, key), "false");
		if (rc)
			return rc;
	}
	if (strcmp(key, "clustering.columns") == 0 && pm_strmap_get(old, "pk-clustering-override"))
		return pm_err(PAIMON_EINVAL, "Cannot reset clustering.columns when pk-clustering-override enabled.");
	return 0;
}

static int key_list_equals(const char *value, const pm_strlist *keys, int *eq)
{
	pm_strlist l = {0};
	size_t i;
	if (pm_meta_split_keys(value, &l))
		return PAIMON_ENOMEM;
	*eq = l.len == keys->len;
	for (i = 0; *eq && i < l.len; i++)
		if (strcmp(l.items[i], keys->items[i]) != 0)
			*eq = 0;
	pm_strlist_dispose(&l);
	return 0;
}

/* SchemaManager.isUnchangedNormalizedKey */
static int unchanged_normalized(const pm_table_schema *old, const char *key, const char *ov, const char *nv, int *out)
{
	*out = 0;
	if (!nv)
		return 0;
	if (strcmp(key, "type") == 0) {
		*out = strcasecmp(nv, ov ? ov : "table") == 0;
		return 0;
	}
	if (ov)
		return 0;
	if (strcmp(key, "primary-key") == 0)
		return key_list_equals(nv, &old->primary_keys, out);
	if (strcmp(key, "partition") == 0)
		return key_list_equals(nv, &old->partition_keys, out);
	return 0;
}

/* ------------------------------------------------------------ type change */

static int is_int_root(pm_type_root r)
{
	return r == PM_TINYINT || r == PM_SMALLINT || r == PM_INT || r == PM_BIGINT;
}

static int int_rank(pm_type_root r)
{
	return r == PM_TINYINT ? 1 : r == PM_SMALLINT ? 2 : r == PM_INT ? 3 : 4;
}

static int int_digits(pm_type_root r)
{
	return r == PM_TINYINT ? 3 : r == PM_SMALLINT ? 5 : r == PM_INT ? 10 : 19;
}

/* Copies the nested field ids of `src` into `dst` where the shapes agree, so a
 * type written by the user (ids -1) can be compared with the stored one. */
static void copy_nested_ids(pm_type *dst, const pm_type *src)
{
	size_t i;
	if (!dst || !src || dst->root != src->root)
		return;
	copy_nested_ids(dst->element, src->element);
	copy_nested_ids(dst->key, src->key);
	copy_nested_ids(dst->value, src->value);
	if (dst->nfields != src->nfields)
		return;
	for (i = 0; i < dst->nfields; i++) {
		dst->fields[i].id = src->fields[i].id;
		copy_nested_ids(dst->fields[i].type, src->fields[i].type);
	}
}

/* Same type apart from the top-level nullability (and nested ids)? */
static int same_but_nullability(const pm_type *from, const pm_type *to)
{
	pm_type *x = pm_type_copy(to);
	int eq;
	if (!x)
		return 0;
	copy_nested_ids(x, from);
	x->nullable = from->nullable;
	eq = pm_type_equal(x, from);
	pm_type_free(x);
	return eq;
}

/* 1 if every value of `from` converts to `to` without loss (nullability aside). */
static int safe_cast(const pm_type *from, const pm_type *to)
{
	pm_type_root a = from->root, b = to->root;
	/* nested types may only change their own nullability */
	if (pm_type_is_nested(from) || pm_type_is_nested(to))
		return a == b && same_but_nullability(from, to);
	if (b == PM_VARCHAR && to->length == PM_MAX_LENGTH)
		return a != PM_BINARY && a != PM_VARBINARY && a != PM_BLOB && a != PM_VARIANT &&
		       a != PM_GEOMETRY && a != PM_GEOGRAPHY;
	if (is_int_root(a) && is_int_root(b))
		return int_rank(b) >= int_rank(a);
	if (is_int_root(a) && b == PM_DECIMAL)
		return to->precision - to->scale >= int_digits(a);
	if ((a == PM_TINYINT || a == PM_SMALLINT) && (b == PM_FLOAT || b == PM_DOUBLE))
		return 1;
	if (a == PM_INT && b == PM_DOUBLE)
		return 1;
	if (a == PM_FLOAT && (b == PM_FLOAT || b == PM_DOUBLE))
		return 1;
	if (a == PM_DOUBLE && b == PM_DOUBLE)
		return 1;
	if (a == PM_DECIMAL && b == PM_DECIMAL)
		return to->scale >= from->scale && to->precision - to->scale >= from->precision - from->scale;
	if ((a == PM_CHAR || a == PM_VARCHAR) && b == PM_VARCHAR)
		return to->length >= from->length;
	if (a == PM_CHAR && b == PM_CHAR)
		return to->length == from->length;
	if ((a == PM_BINARY || a == PM_VARBINARY) && b == PM_VARBINARY)
		return to->length >= from->length;
	if (a == PM_BINARY && b == PM_BINARY)
		return to->length == from->length;
	if ((a == PM_TIMESTAMP && b == PM_TIMESTAMP) || (a == PM_TIMESTAMP_LTZ && b == PM_TIMESTAMP_LTZ) ||
	    (a == PM_TIME && b == PM_TIME))
		return to->precision >= from->precision;
	if (a == PM_DATE && b == PM_TIMESTAMP)
		return 1;
	if (a == b && (a == PM_BOOLEAN || a == PM_DATE || a == PM_VARIANT || a == PM_BLOB))
		return 1;
	if (a == b && (a == PM_GEOMETRY || a == PM_GEOGRAPHY))
		return same_but_nullability(from, to);
	return 0;
}

static int type_str(const pm_type *t, pm_buf *b)
{
	pm_buf_clear(b);
	return pm_type_to_string(t, b);
}

/* -------------------------------------------------------------- helpers */

typedef struct fields_vec {
	pm_field *v;
	size_t n, cap;
} fields_vec;

static long vec_find(const fields_vec *f, const char *name)
{
	size_t i;
	for (i = 0; i < f->n; i++)
		if (strcmp(f->v[i].name, name) == 0)
			return (long)i;
	return -1;
}

static int vec_insert(fields_vec *f, size_t at, pm_field *field)
{
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 8;
		pm_field *nv = pm_realloc(f->v, ncap * sizeof *nv);
		if (!nv)
			return PAIMON_ENOMEM;
		f->v = nv;
		f->cap = ncap;
	}
	memmove(&f->v[at + 1], &f->v[at], (f->n - at) * sizeof *f->v);
	f->v[at] = *field;
	f->n++;
	return 0;
}

static void vec_remove(fields_vec *f, size_t at, pm_field *removed)
{
	*removed = f->v[at];
	memmove(&f->v[at], &f->v[at + 1], (f->n - at - 1) * sizeof *f->v);
	f->n--;
}

static int set_str(char **dst, const char *src)
{
	char *n = NULL;
	if (src && !(n = pm_strdup(src)))
		return PAIMON_ENOMEM;
	pm_free(*dst);
	*dst = n;
	return 0;
}

static int rename_in_list(pm_strlist *l, const char *from, const char *to)
{
	size_t i;
	for (i = 0; i < l->len; i++)
		if (strcmp(l->items[i], from) == 0 && set_str(&l->items[i], to))
			return PAIMON_ENOMEM;
	return 0;
}

/* Rewrites a comma-separated column list replacing `from` by `to` (no trimming, as Java). */
static int rename_csv(const char *value, const char *from, const char *to, char **out)
{
	pm_buf b = PM_BUF_INIT;
	const char *p = value;
	int first = 1;
	while (1) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (!first && pm_buf_putc(&b, ','))
			goto oom;
		first = 0;
		if (n == strlen(from) && strncmp(p, from, n) == 0) {
			if (pm_buf_puts(&b, to))
				goto oom;
		} else if (pm_buf_append(&b, p, n))
			goto oom;
		if (!e)
			break;
		p = e + 1;
	}
	if (b.len == 0 && pm_buf_puts(&b, ""))
		goto oom;
	*out = b.data ? pm_buf_detach(&b) : pm_strdup("");
	return *out ? 0 : PAIMON_ENOMEM;
oom:
	pm_buf_dispose(&b);
	return PAIMON_ENOMEM;
}

/* SchemaManager.applyRenameColumnsToOptions for one rename. */
static int rename_in_options(pm_strmap *o, const char *from, const char *to)
{
	static const char *const suffixes[] = {
		"aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter",
		"map.storage-layout", "map.shared-shredding.max-columns",
		"map.shared-shredding.column-placement-policy",
	};
	static const char *const csv_keys[] = {"bucket-key", "sequence.field"};
	pm_strmap nm = {0};
	size_t i;
	char *tmp = NULL;
	pm_buf k = PM_BUF_INIT;
	int rc = 0;

	for (i = 0; i < o->len && rc == 0; i++) {
		const char *key = o->keys[i], *val = o->vals[i];
		size_t j, kl = strlen(key);
		pm_buf_clear(&k);
		tmp = NULL;
		/* case 1: fixed keys whose value lists columns */
		for (j = 0; j < 2; j++)
			if (strcmp(key, csv_keys[j]) == 0)
				break;
		if (j < 2) {
			if ((rc = rename_csv(val, from, to, &tmp)))
				break;
			rc = pm_strmap_set(&nm, key, tmp);
			pm_free(tmp);
			continue;
		}
		if (strncmp(key, "fields.", 7) == 0) {
			/* case 2: fields.<col>.<suffix> */
			for (j = 0; j < sizeof suffixes / sizeof suffixes[0]; j++) {
				size_t sl = strlen(suffixes[j]), fl = strlen(from);
				if (kl == 7 + fl + 1 + sl && strncmp(key + 7, from, fl) == 0 && key[7 + fl] == '.' &&
				    strcmp(key + 8 + fl, suffixes[j]) == 0)
					break;
			}
			if (j < sizeof suffixes / sizeof suffixes[0]) {
				if (pm_buf_printf(&k, "fields.%s.%s", to, suffixes[j]) ||
				    pm_strmap_set(&nm, pm_buf_cstr(&k), val))
					rc = PAIMON_ENOMEM;
				continue;
			}
			/* case 3: fields.<cols>.sequence-group / .nested-key */
			{
				const char *suf = NULL;
				if (kl > 7 + 15 && strcmp(key + kl - 14, "sequence-group") == 0 && key[kl - 15] == '.')
					suf = "sequence-group";
				else if (kl > 7 + 11 && strcmp(key + kl - 10, "nested-key") == 0 && key[kl - 11] == '.')
					suf = "nested-key";
				if (suf) {
					char *cols = pm_strndup(key + 7, kl - 7 - strlen(suf) - 1), *ncols = NULL;
					if (!cols || rename_csv(cols, from, to, &ncols) || rename_csv(val, from, to, &tmp) ||
					    pm_buf_printf(&k, "fields.%s.%s", ncols, suf) ||
					    pm_strmap_set(&nm, pm_buf_cstr(&k), tmp))
						rc = PAIMON_ENOMEM;
					pm_free(cols);
					pm_free(ncols);
					pm_free(tmp);
					continue;
				}
			}
		}
		rc = pm_strmap_set(&nm, key, val);
	}
	pm_buf_dispose(&k);
	if (rc) {
		pm_strmap_dispose(&nm);
		return rc;
	}
	pm_strmap_dispose(o);
	*o = nm;
	return 0;
}

static const char *move_ref_or_empty(const pm_schema_change *c)
{
	return c->reference ? c->reference : "";
}

/* ---------------------------------------------------------------- apply */

int pm_schema_apply(const pm_table_schema *old, const pm_schema_change *changes, size_t n,
		    int has_snapshots, pm_table_schema **out)
{
	pm_table_schema *s = NULL;
	fields_vec fv = {NULL, 0, 0};
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	int32_t highest = old->highest_field_id;
	size_t i;
	int rc;

	if ((rc = pm_schema_copy(old, &s)))
		return rc;
	fv.v = s->fields;
	fv.n = fv.cap = s->nfields;
	s->fields = NULL;
	s->nfields = 0;

	for (i = 0; i < n; i++) {
		const pm_schema_change *c = &changes[i];
		const char *name = c->name;
		long pos;
		if (!name && c->kind != PM_SC_UPDATE_COMMENT) {
			rc = pm_err(PAIMON_EINVAL, "schema change %zu has no column or option name", i + 1);
			goto fail;
		}
		switch (c->kind) {
		case PM_SC_SET_OPTION: {
			const char *ov = pm_strmap_get(&old->options, name);
			int unchanged;
			if (!c->text) {
				rc = pm_err(PAIMON_EINVAL, "SET option '%s': no value given", name);
				goto fail;
			}
			if ((rc = unchanged_normalized(old, name, ov, c->text, &unchanged)))
				goto fail;
			unchanged = unchanged || (ov && strcmp(ov, c->text) == 0);
			if (!unchanged && strcmp(name, "type") == 0) {
				rc = pm_err(PAIMON_EINVAL, "Change 'type' is not supported yet.");
				goto fail;
			}
			if (!unchanged && strcasecmp(name, "path") == 0) {
				rc = pm_err(PAIMON_EINVAL, "Change path is not supported yet.");
				goto fail;
			}
			if (has_snapshots && !unchanged && (rc = check_alter_option(&old->options, name, ov, c->text)))
				goto fail;
			if (!unchanged && pm_strmap_set(&s->options, name, c->text)) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			break;
		}
		case PM_SC_REMOVE_OPTION:
			if (strcmp(name, "type") == 0) {
				rc = pm_err(PAIMON_EINVAL, "Change 'type' is not supported yet.");
				goto fail;
			}
			if (has_snapshots && (rc = check_reset_option(&old->options, name)))
				goto fail;
			pm_strmap_remove(&s->options, name);
			break;
		case PM_SC_UPDATE_COMMENT:
			if (set_str(&s->comment, c->text)) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			break;
		case PM_SC_ADD_COLUMN: {
			pm_field f;
			size_t at = fv.n;
			if (!c->type) {
				rc = pm_err(PAIMON_EINVAL, "ADD COLUMN %s: no type given", name);
				goto fail;
			}
			if (!c->type->nullable) {
				rc = pm_err(PAIMON_EINVAL, "Column %s cannot specify NOT NULL in the table.", name);
				goto fail;
			}
			if (!*name) {
				rc = pm_err(PAIMON_EINVAL, "ADD COLUMN: empty column name");
				goto fail;
			}
			if (vec_find(&fv, name) >= 0) {
				rc = pm_err(PAIMON_EINVAL, "Column %s already exists in the table.", name);
				goto fail;
			}
			if (c->move == PM_MOVE_FIRST) {
				at = 0;
			} else if (c->move == PM_MOVE_AFTER || c->move == PM_MOVE_BEFORE) {
				long r = c->reference ? vec_find(&fv, c->reference) : -1;
				if (r < 0) {
					rc = pm_err(PAIMON_EINVAL, "ADD COLUMN %s: Column %s does not exist in the table.", name,
						    move_ref_or_empty(c));
					goto fail;
				}
				at = c->move == PM_MOVE_AFTER ? (size_t)r + 1 : (size_t)r;
			} else if (c->move == PM_MOVE_NONE &&
				   java_bool(pm_strmap_get(&old->options, "add-column-before-partition"), 0) &&
				   old->partition_keys.len) {
				size_t k;
				for (k = 0; k < fv.n; k++)
					if (pm_strlist_find(&old->partition_keys, fv.v[k].name) >= 0) {
						at = k;
						break;
					}
			}
			if (highest >= PM_SYSTEM_FIELD_ID_START - 1) {
				rc = pm_err(PAIMON_EINVAL, "ADD COLUMN %s: field ids exhausted", name);
				goto fail;
			}
			memset(&f, 0, sizeof f);
			f.id = ++highest;
			f.name = pm_strdup(name);
			f.type = pm_type_copy(c->type);
			if (c->text)
				f.description = pm_strdup(c->text);
			if (!f.name || !f.type || (c->text && !f.description)) {
				pm_field_dispose(&f);
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			pm_meta_reset_nested_ids(f.type);
			pm_type_assign_ids(f.type, &highest);
			if ((rc = vec_insert(&fv, at, &f))) {
				pm_field_dispose(&f);
				goto fail;
			}
			break;
		}
		case PM_SC_RENAME_COLUMN:
			if (pm_strlist_find(&old->partition_keys, name) >= 0) {
				rc = pm_err(PAIMON_EINVAL, "Cannot rename partition column: [%s]", name);
				goto fail;
			}
			pos = vec_find(&fv, name);
			if (pos >= 0 && fv.v[pos].type->root == PM_BLOB) {
				rc = pm_err(PAIMON_EINVAL, "Cannot rename BLOB column: [%s]", name);
				goto fail;
			}
			if (pos < 0) {
				rc = pm_err(PAIMON_EINVAL, "Column %s does not exist in the table.", name);
				goto fail;
			}
			if (!c->new_name || !*c->new_name) {
				rc = pm_err(PAIMON_EINVAL, "RENAME COLUMN %s: no new name given", name);
				goto fail;
			}
			if (vec_find(&fv, c->new_name) >= 0) {
				rc = pm_err(PAIMON_EINVAL, "Column %s already exists in the table.", c->new_name);
				goto fail;
			}
			if (set_str(&fv.v[pos].name, c->new_name) ||
			    rename_in_list(&s->primary_keys, name, c->new_name) ||
			    rename_in_options(&s->options, name, c->new_name)) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			break;
		case PM_SC_DROP_COLUMN: {
			pm_field gone;
			if (pm_strlist_find(&old->partition_keys, name) >= 0 || pm_strlist_find(&old->primary_keys, name) >= 0) {
				rc = pm_err(PAIMON_EINVAL, "Cannot drop partition key or primary key: [%s]", name);
				goto fail;
			}
			pos = vec_find(&fv, name);
			if (pos < 0) {
				rc = pm_err(PAIMON_EINVAL, "Column %s does not exist in the table.", name);
				goto fail;
			}
			if (fv.n == 1) {
				rc = pm_err(PAIMON_EINVAL, "Cannot drop all fields in table (column %s is the last one)", name);
				goto fail;
			}
			vec_remove(&fv, (size_t)pos, &gone);
			pm_field_dispose(&gone);
			break;
		}
		case PM_SC_UPDATE_COLUMN_COMMENT:
			pos = vec_find(&fv, name);
			if (pos < 0) {
				rc = pm_err(PAIMON_EINVAL, "Column %s does not exist in the table.", name);
				goto fail;
			}
			if (set_str(&fv.v[pos].description, c->text)) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			break;
		case PM_SC_UPDATE_COLUMN_TYPE: {
			pm_type *nt;
			pm_field *f;
			if (!c->type) {
				rc = pm_err(PAIMON_EINVAL, "UPDATE COLUMN TYPE %s: no type given", name);
				goto fail;
			}
			if (pm_strlist_find(&old->partition_keys, name) >= 0) {
				rc = pm_err(PAIMON_EINVAL, "Cannot update partition column: [%s]", name);
				goto fail;
			}
			if (pm_strlist_find(&old->primary_keys, name) >= 0) {
				rc = pm_err(PAIMON_EINVAL, "Cannot update primary key (column %s)", name);
				goto fail;
			}
			pos = vec_find(&fv, name);
			if (pos < 0) {
				rc = pm_err(PAIMON_EINVAL, "Column %s does not exist in the table.", name);
				goto fail;
			}
			f = &fv.v[pos];
			if ((f->type->root == PM_BLOB) != (c->type->root == PM_BLOB)) {
				type_str(f->type, &b1);
				type_str(c->type, &b2);
				rc = pm_err(PAIMON_EINVAL, "Cannot change column type involving BLOB: [%s] %s -> %s", name,
					    pm_buf_cstr(&b1), pm_buf_cstr(&b2));
				goto fail;
			}
			if (f->type->nullable && !c->type->nullable &&
			    java_bool(pm_strmap_get(&old->options, "alter-column-null-to-not-null.disabled"), 1)) {
				rc = pm_err(PAIMON_EINVAL,
					    "Cannot update column type from nullable to non nullable for %s. You can set table configuration option 'alter-column-null-to-not-null.disabled' = 'false' to allow converting null columns to not null",
					    name);
				goto fail;
			}
			if (!safe_cast(f->type, c->type)) {
				type_str(f->type, &b1);
				type_str(c->type, &b2);
				rc = pm_err(PAIMON_EINVAL,
					    "Column type %s[%s] cannot be converted to %s without losing information.", name,
					    pm_buf_cstr(&b1), pm_buf_cstr(&b2));
				goto fail;
			}
			nt = pm_type_copy(c->type);
			if (!nt) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			copy_nested_ids(nt, f->type); /* the column keeps its nested ids */
			pm_type_free(f->type);
			f->type = nt;
			break;
		}
		default:
			rc = pm_err(PAIMON_EINVAL, "schema change %zu: unknown kind %d", i + 1, (int)c->kind);
			goto fail;
		}
	}

	s->fields = fv.v;
	s->nfields = fv.n;
	fv.v = NULL;
	fv.n = 0;
	/* new Schema(...) in generateTableSchema: key options moved, PK nullability */
	if ((rc = pm_schema_normalize(s->fields, s->nfields, &s->partition_keys, &s->primary_keys, &s->options)))
		goto fail;
	s->version = PM_SCHEMA_VERSION;
	s->id = old->id + 1;
	s->highest_field_id = highest > old->highest_field_id ? highest : old->highest_field_id;
	s->time_millis = pm_meta_now_millis();
	if ((rc = pm_schema_validate(s)))
		goto fail;
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
	*out = s;
	return 0;
fail:
	for (i = 0; i < fv.n; i++)
		pm_field_dispose(&fv.v[i]);
	pm_free(fv.v);
	pm_schema_free(s);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
	return rc;
}

int pm_schema_option_true(const pm_table_schema *s, const pm_strmap *override, const char *key)
{
	const char *v = override ? pm_strmap_get(override, key) : NULL;
	if (!v || !*v)
		v = pm_strmap_get(&s->options, key);
	return java_bool(v, 0);
}

int pm_options_is_descriptor_field(const pm_strmap *opts, const char *name)
{
	const char *v = opts ? pm_strmap_get(opts, "blob-descriptor-field") : NULL;
	if (!v && opts)
		v = pm_strmap_get(opts, "blob.stored-descriptor-fields");
	return pm_csv_contains(v, name);
}

int pm_schema_is_descriptor_field(const pm_table_schema *s, const char *name)
{
	return pm_options_is_descriptor_field(&s->options, name);
}
