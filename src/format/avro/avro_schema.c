/* format/avro/avro_schema.c - Avro schema JSON -> pm_avro_node graph. */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "core/error.h"
#include "core/hash.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "paimonc/common.h"

struct pm_avro_schema {
	atomic_long refs;   /* owners: pm_avro_schema_free drops one */
	pm_avro_node *root;
	pm_avro_node **all; /* every node, owned */
	size_t nall, cap;
	pm_avro_node **named; /* named types, for references */
	size_t nnamed, named_cap;
};

const pm_avro_value pm_avro_null_value = {PM_AVRO_NULL, -1, NULL, {0}};

static const char *const kind_names[] = {"null", "boolean", "int", "long", "float", "double",
					 "bytes", "string", "record", "enum", "array", "map",
					 "union", "fixed"};

const char *pm_avro_kind_name(pm_avro_kind k)
{
	return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

static pm_avro_node *node_new(pm_avro_schema *s, pm_avro_kind kind)
{
	pm_avro_node *n;
	if (s->nall == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		pm_avro_node **a = pm_realloc(s->all, nc * sizeof *a);
		if (!a)
			return NULL;
		s->all = a;
		s->cap = nc;
	}
	n = pm_calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->kind = kind;
	s->all[s->nall++] = n;
	return n;
}

static void node_free(pm_avro_node *n)
{
	size_t i;
	if (n->names)
		for (i = 0; i < n->n; i++)
			pm_free(n->names[i]);
	pm_free(n->names);
	pm_free(n->children);
	pm_free(n->name);
	pm_free(n);
}

void pm_avro_schema_free(pm_avro_schema *s)
{
	size_t i;
	if (!s)
		return;
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
		return; /* still shared (schema cache or another reader) */
	for (i = 0; i < s->nall; i++)
		node_free(s->all[i]);
	pm_free(s->all);
	pm_free(s->named);
	pm_free(s);
}

const pm_avro_node *pm_avro_schema_root(const pm_avro_schema *s)
{
	return s->root;
}

int pm_avro_field_index(const pm_avro_node *rec, const char *name)
{
	size_t i;
	if (!rec || rec->kind != PM_AVRO_RECORD)
		return -1;
	for (i = 0; i < rec->n; i++)
		if (strcmp(rec->names[i], name) == 0)
			return (int)i;
	return -1;
}

static int prim_kind(const char *t, pm_avro_kind *k)
{
	size_t i;
	for (i = 0; i <= PM_AVRO_STRING; i++)
		if (strcmp(t, kind_names[i]) == 0) {
			*k = (pm_avro_kind)i;
			return 1;
		}
	return 0;
}

static pm_avro_node *lookup(pm_avro_schema *s, const char *name, const char *ns)
{
	size_t i;
	char full[1024];
	if (!strchr(name, '.') && ns && *ns) {
		snprintf(full, sizeof full, "%s.%s", ns, name);
		for (i = 0; i < s->nnamed; i++)
			if (strcmp(s->named[i]->name, full) == 0)
				return s->named[i];
	}
	for (i = 0; i < s->nnamed; i++)
		if (strcmp(s->named[i]->name, name) == 0)
			return s->named[i];
	/* Bare name of a type defined in another namespace. */
	if (!strchr(name, '.'))
		for (i = 0; i < s->nnamed; i++) {
			const char *dot = strrchr(s->named[i]->name, '.');
			if (dot && strcmp(dot + 1, name) == 0)
				return s->named[i];
		}
	return NULL;
}

/* Sets n->name (full name) from name/namespace and registers the type. */
static int set_name(pm_avro_schema *s, pm_avro_node *n, json_t *j, const char *ns)
{
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *nsv = json_string_value(json_object_get(j, "namespace"));
	char full[1024];
	if (!name || !*name)
		return pm_err(PAIMON_ECORRUPT, "avro schema: %s without a name", pm_avro_kind_name(n->kind));
	if (strchr(name, '.'))
		snprintf(full, sizeof full, "%s", name);
	else if (nsv && *nsv)
		snprintf(full, sizeof full, "%s.%s", nsv, name);
	else if (ns && *ns && !nsv)
		snprintf(full, sizeof full, "%s.%s", ns, name);
	else
		snprintf(full, sizeof full, "%s", name);
	if (lookup(s, full, NULL) && strcmp(lookup(s, full, NULL)->name, full) == 0)
		return pm_err(PAIMON_ECORRUPT, "avro schema: type %s defined twice", full);
	n->name = pm_strdup(full);
	if (!n->name)
		return PAIMON_ENOMEM;
	if (s->nnamed == s->named_cap) {
		size_t nc = s->named_cap ? s->named_cap * 2 : 8;
		pm_avro_node **a = pm_realloc(s->named, nc * sizeof *a);
		if (!a)
			return PAIMON_ENOMEM;
		s->named = a;
		s->named_cap = nc;
	}
	s->named[s->nnamed++] = n;
	return 0;
}

static int parse(pm_avro_schema *s, json_t *j, const char *ns, int depth, pm_avro_node **out);

static int parse_logical(pm_avro_node *n, json_t *j)
{
	const char *lt = json_string_value(json_object_get(j, "logicalType"));
	if (!lt)
		return 0;
	if (strcmp(lt, "date") == 0 && n->kind == PM_AVRO_INT)
		n->logical = PM_AVRO_LT_DATE;
	else if (strcmp(lt, "time-millis") == 0 && n->kind == PM_AVRO_INT)
		n->logical = PM_AVRO_LT_TIME_MILLIS;
	else if (strcmp(lt, "time-micros") == 0 && n->kind == PM_AVRO_LONG)
		n->logical = PM_AVRO_LT_TIME_MICROS;
	else if (strcmp(lt, "timestamp-millis") == 0 && n->kind == PM_AVRO_LONG)
		n->logical = PM_AVRO_LT_TIMESTAMP_MILLIS;
	else if (strcmp(lt, "timestamp-micros") == 0 && n->kind == PM_AVRO_LONG)
		n->logical = PM_AVRO_LT_TIMESTAMP_MICROS;
	else if (strcmp(lt, "local-timestamp-millis") == 0 && n->kind == PM_AVRO_LONG)
		n->logical = PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS;
	else if (strcmp(lt, "local-timestamp-micros") == 0 && n->kind == PM_AVRO_LONG)
		n->logical = PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS;
	else if (strcmp(lt, "uuid") == 0 && n->kind == PM_AVRO_STRING)
		n->logical = PM_AVRO_LT_UUID;
	else if (strcmp(lt, "decimal") == 0 && (n->kind == PM_AVRO_BYTES || n->kind == PM_AVRO_FIXED)) {
		json_t *p = json_object_get(j, "precision"), *sc = json_object_get(j, "scale");
		if (!json_is_integer(p) || json_integer_value(p) < 1 || json_integer_value(p) > 1000 ||
		    (sc && (!json_is_integer(sc) || json_integer_value(sc) < 0 ||
			    json_integer_value(sc) > json_integer_value(p))))
			return pm_err(PAIMON_ECORRUPT, "avro schema: bad decimal precision/scale");
		n->logical = PM_AVRO_LT_DECIMAL;
		n->precision = (int32_t)json_integer_value(p);
		n->scale = sc ? (int32_t)json_integer_value(sc) : 0;
	} else
		n->logical = PM_AVRO_LT_OTHER;
	return 0;
}

static int parse_object(pm_avro_schema *s, json_t *j, const char *ns, int depth, pm_avro_node **out)
{
	json_t *tj = json_object_get(j, "type");
	const char *t = json_string_value(tj);
	pm_avro_kind k;
	pm_avro_node *n;
	int rc;
	if (!tj)
		return pm_err(PAIMON_ECORRUPT, "avro schema: object without \"type\"");
	if (!t) /* {"type": {...}} or {"type": [...]} */
		return parse(s, tj, ns, depth + 1, out);
	if (prim_kind(t, &k)) {
		if (!(n = node_new(s, k)))
			return PAIMON_ENOMEM;
		*out = n;
		return parse_logical(n, j);
	}
	if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0) {
		json_t *fields = json_object_get(j, "fields");
		const char *cns;
		char nsbuf[1024];
		size_t i, nf;
		if (!json_is_array(fields))
			return pm_err(PAIMON_ECORRUPT, "avro schema: record without \"fields\" array");
		if (!(n = node_new(s, PM_AVRO_RECORD)))
			return PAIMON_ENOMEM;
		if ((rc = set_name(s, n, j, ns)))
			return rc;
		{
			const char *dot = strrchr(n->name, '.');
			size_t l = dot ? (size_t)(dot - n->name) : 0;
			if (l >= sizeof nsbuf)
				l = sizeof nsbuf - 1;
			memcpy(nsbuf, n->name, l);
			nsbuf[l] = 0;
			cns = nsbuf;
		}
		nf = json_array_size(fields);
		n->names = pm_calloc(nf ? nf : 1, sizeof *n->names);
		n->children = pm_calloc(nf ? nf : 1, sizeof *n->children);
		if (!n->names || !n->children)
			return PAIMON_ENOMEM;
		for (i = 0; i < nf; i++) {
			json_t *f = json_array_get(fields, i);
			const char *fname = json_string_value(json_object_get(f, "name"));
			size_t k2;
			if (!fname || !json_object_get(f, "type"))
				return pm_err(PAIMON_ECORRUPT, "avro schema: record %s field %zu lacks name or type",
					      n->name, i);
			for (k2 = 0; k2 < i; k2++)
				if (strcmp(n->names[k2], fname) == 0)
					return pm_err(PAIMON_ECORRUPT, "avro schema: record %s has field %s twice",
						      n->name, fname);
			if (!(n->names[i] = pm_strdup(fname)))
				return PAIMON_ENOMEM;
			n->n = i + 1;
			if ((rc = parse(s, json_object_get(f, "type"), cns, depth + 1, &n->children[i])))
				return pm_err_wrap("field %s", fname);
		}
		*out = n;
		return 0;
	}
	if (strcmp(t, "enum") == 0) {
		json_t *sym = json_object_get(j, "symbols");
		size_t i, ns2;
		if (!json_is_array(sym))
			return pm_err(PAIMON_ECORRUPT, "avro schema: enum without \"symbols\"");
		if (!(n = node_new(s, PM_AVRO_ENUM)))
			return PAIMON_ENOMEM;
		if ((rc = set_name(s, n, j, ns)))
			return rc;
		ns2 = json_array_size(sym);
		n->names = pm_calloc(ns2 ? ns2 : 1, sizeof *n->names);
		if (!n->names)
			return PAIMON_ENOMEM;
		for (i = 0; i < ns2; i++) {
			const char *v = json_string_value(json_array_get(sym, i));
			if (!v)
				return pm_err(PAIMON_ECORRUPT, "avro schema: enum %s symbol %zu not a string", n->name, i);
			if (!(n->names[i] = pm_strdup(v)))
				return PAIMON_ENOMEM;
			n->n = i + 1;
		}
		*out = n;
		return 0;
	}
	if (strcmp(t, "fixed") == 0) {
		json_t *sz = json_object_get(j, "size");
		if (!json_is_integer(sz) || json_integer_value(sz) < 0 || json_integer_value(sz) > (1 << 30))
			return pm_err(PAIMON_ECORRUPT, "avro schema: fixed without a valid size");
		if (!(n = node_new(s, PM_AVRO_FIXED)))
			return PAIMON_ENOMEM;
		n->fixed_size = (size_t)json_integer_value(sz);
		if ((rc = set_name(s, n, j, ns)))
			return rc;
		*out = n;
		return parse_logical(n, j);
	}
	if (strcmp(t, "array") == 0 || strcmp(t, "map") == 0) {
		int arr = t[0] == 'a';
		json_t *it = json_object_get(j, arr ? "items" : "values");
		if (!it)
			return pm_err(PAIMON_ECORRUPT, "avro schema: %s without \"%s\"", t, arr ? "items" : "values");
		if (!(n = node_new(s, arr ? PM_AVRO_ARRAY : PM_AVRO_MAP)))
			return PAIMON_ENOMEM;
		if (arr) {
			const char *lt = json_string_value(json_object_get(j, "logicalType"));
			if (lt)
				n->logical = strcmp(lt, "map") == 0 ? PM_AVRO_LT_MAP : PM_AVRO_LT_OTHER;
		}
		*out = n;
		return parse(s, it, ns, depth + 1, &n->items);
	}
	/* A named reference written as {"type": "Name"}. */
	return parse(s, tj, ns, depth + 1, out);
}

static int parse(pm_avro_schema *s, json_t *j, const char *ns, int depth, pm_avro_node **out)
{
	if (depth > PM_AVRO_MAX_DEPTH)
		return pm_err(PAIMON_ECORRUPT, "avro schema: nested deeper than %d", PM_AVRO_MAX_DEPTH);
	if (json_is_string(j)) {
		const char *t = json_string_value(j);
		pm_avro_kind k;
		if (prim_kind(t, &k)) {
			*out = node_new(s, k);
			return *out ? 0 : PAIMON_ENOMEM;
		}
		if (!(*out = lookup(s, t, ns)))
			return pm_err(PAIMON_ECORRUPT, "avro schema: unknown type \"%s\"", t);
		return 0;
	}
	if (json_is_array(j)) {
		size_t i, nb = json_array_size(j);
		pm_avro_node *n = node_new(s, PM_AVRO_UNION);
		int rc;
		if (!n)
			return PAIMON_ENOMEM;
		if (nb == 0)
			return pm_err(PAIMON_ECORRUPT, "avro schema: empty union");
		n->children = pm_calloc(nb, sizeof *n->children);
		if (!n->children)
			return PAIMON_ENOMEM;
		for (i = 0; i < nb; i++) {
			if ((rc = parse(s, json_array_get(j, i), ns, depth + 1, &n->children[i])))
				return rc;
			if (n->children[i]->kind == PM_AVRO_UNION)
				return pm_err(PAIMON_ECORRUPT, "avro schema: union directly inside a union");
			n->n = i + 1;
		}
		*out = n;
		return 0;
	}
	if (json_is_object(j))
		return parse_object(s, j, ns, depth, out);
	return pm_err(PAIMON_ECORRUPT, "avro schema: a schema must be a string, array or object");
}

int pm_avro_schema_parse(const char *text, size_t len, pm_avro_schema **out)
{
	json_error_t jerr;
	json_t *j;
	pm_avro_schema *s;
	int rc;
	*out = NULL;
	j = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
	if (!j)
		return pm_err(PAIMON_ECORRUPT, "avro schema: invalid JSON at line %d column %d: %s", jerr.line,
			      jerr.column, jerr.text);
	s = pm_calloc(1, sizeof *s);
	if (!s) {
		json_decref(j);
		return PAIMON_ENOMEM;
	}
	atomic_init(&s->refs, 1);
	rc = parse(s, j, "", 0, &s->root);
	json_decref(j);
	if (rc) {
		pm_avro_schema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/*
 * Schema cache. Every manifest file of a table carries the same writer
 * schema text, and parsing it (jansson + node graph) was about half of
 * reading a small manifest. Entries are keyed by the full text (a hash
 * only speeds up the comparison), hold one reference each, and are evicted
 * least-recently-used. The nodes are never modified after parsing, so one
 * graph can be shared by readers on any number of threads.
 */
#define SCHEMA_CACHE_SIZE 16
#define SCHEMA_CACHE_MAX_TEXT ((size_t)1 << 20) /* larger schemas are parsed, not cached */

typedef struct cache_entry {
	uint64_t hash;
	char *text;
	size_t len;
	pm_avro_schema *schema;
	uint64_t used; /* tick of the last hit */
} cache_entry;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_entry cache[SCHEMA_CACHE_SIZE];
static uint64_t cache_tick;

static uint64_t text_hash(const char *p, size_t n)
{
	return pm_fnv1a(p, n, PM_FNV1A_INIT) ^ n;
}

static pm_avro_schema *cache_lookup(uint64_t h, const char *text, size_t len)
{
	pm_avro_schema *s = NULL;
	size_t i;
	pthread_mutex_lock(&cache_mu);
	for (i = 0; i < SCHEMA_CACHE_SIZE; i++) {
		cache_entry *e = &cache[i];
		if (e->schema && e->hash == h && e->len == len && memcmp(e->text, text, len) == 0) {
			s = e->schema;
			atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
			e->used = ++cache_tick;
			break;
		}
	}
	pthread_mutex_unlock(&cache_mu);
	return s;
}

/* Adds s (the caller keeps its own reference). Failure to cache is not an error. */
static void cache_insert(uint64_t h, const char *text, size_t len, pm_avro_schema *s)
{
	cache_entry *victim = NULL;
	pm_avro_schema *old;
	pm_err_state st;
	char *copy;
	size_t i;
	pm_err_save(&st);
	copy = pm_malloc(len ? len : 1);
	if (!copy) {
		pm_err_restore(&st); /* not caching is fine */
		return;
	}
	memcpy(copy, text, len);
	pthread_mutex_lock(&cache_mu);
	for (i = 0; i < SCHEMA_CACHE_SIZE; i++) {
		cache_entry *e = &cache[i];
		if (e->schema && e->hash == h && e->len == len && memcmp(e->text, text, len) == 0) {
			pthread_mutex_unlock(&cache_mu); /* another thread cached it meanwhile */
			pm_free(copy);
			return;
		}
		if (!e->schema) {
			if (!victim || victim->schema)
				victim = e;
		} else if (!victim || (victim->schema && e->used < victim->used))
			victim = e;
	}
	old = victim->schema;
	pm_free(victim->text);
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	victim->hash = h;
	victim->text = copy;
	victim->len = len;
	victim->schema = s;
	victim->used = ++cache_tick;
	pthread_mutex_unlock(&cache_mu);
	pm_avro_schema_free(old);
}

int pm_avro_schema_parse_cached(const char *text, size_t len, pm_avro_schema **out)
{
	uint64_t h;
	int rc;
	*out = NULL;
	if (len > SCHEMA_CACHE_MAX_TEXT)
		return pm_avro_schema_parse(text, len, out);
	h = text_hash(text, len);
	if ((*out = cache_lookup(h, text, len)) != NULL)
		return 0;
	if ((rc = pm_avro_schema_parse(text, len, out)))
		return rc;
	cache_insert(h, text, len, *out);
	return 0;
}

void pm_avro_schema_cache_clear(void)
{
	pm_avro_schema *drop[SCHEMA_CACHE_SIZE];
	size_t i;
	pthread_mutex_lock(&cache_mu);
	for (i = 0; i < SCHEMA_CACHE_SIZE; i++) {
		drop[i] = cache[i].schema;
		pm_free(cache[i].text);
		memset(&cache[i], 0, sizeof cache[i]);
	}
	pthread_mutex_unlock(&cache_mu);
	for (i = 0; i < SCHEMA_CACHE_SIZE; i++)
		pm_avro_schema_free(drop[i]);
}

const pm_avro_value *pm_avro_value_field(const pm_avro_value *rec, size_t i)
{
	if (!rec || rec->kind != PM_AVRO_RECORD || i >= rec->u.c.n)
		return NULL;
	return &rec->u.c.items[i];
}

const pm_avro_value *pm_avro_value_get(const pm_avro_value *rec, const char *name)
{
	int i;
	if (!rec || rec->kind != PM_AVRO_RECORD)
		return &pm_avro_null_value;
	i = pm_avro_field_index(rec->schema, name);
	return i < 0 || (size_t)i >= rec->u.c.n ? &pm_avro_null_value : &rec->u.c.items[i];
}

int pm_avro_projection_init(pm_avro_projection *p, const pm_avro_node *writer, const char *const *names,
			    size_t n)
{
	size_t i;
	p->n = n;
	p->map = pm_calloc(n ? n : 1, sizeof *p->map);
	if (!p->map)
		return PAIMON_ENOMEM;
	if (!writer || writer->kind != PM_AVRO_RECORD) {
		pm_free(p->map);
		p->map = NULL;
		return pm_err(PAIMON_EINVAL, "avro projection: writer schema is not a record");
	}
	for (i = 0; i < n; i++)
		p->map[i] = pm_avro_field_index(writer, names[i]);
	return 0;
}

const pm_avro_value *pm_avro_projection_get(const pm_avro_projection *p, const pm_avro_value *rec,
					    size_t i)
{
	const pm_avro_value *v;
	if (i >= p->n || p->map[i] < 0)
		return &pm_avro_null_value;
	v = pm_avro_value_field(rec, (size_t)p->map[i]);
	return v ? v : &pm_avro_null_value;
}

void pm_avro_projection_dispose(pm_avro_projection *p)
{
	pm_free(p->map);
	p->map = NULL;
	p->n = 0;
}
