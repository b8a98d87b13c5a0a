/*
 * arrow/arrow_schema.c - ArrowSchema construction, metadata encoding and
 * the ArrowArrayStream adapter over a pull callback.
 */
#include <errno.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"

typedef struct schema_priv {
	char *format;
	char *name;
	char *metadata;
	struct ArrowSchema **children;
	int64_t n;
} schema_priv;

static void release_schema(struct ArrowSchema *s)
{
	schema_priv *pd;
	int64_t i;
	if (!s || !s->release)
		return;
	pd = s->private_data;
	if (pd) {
		for (i = 0; i < pd->n; i++) {
			struct ArrowSchema *c = pd->children[i];
			if (c && c->release) /* NULL release: moved out by a consumer */
				c->release(c);
			pm_free(c);
		}
		pm_free(pd->children);
		pm_free(pd->format);
		pm_free(pd->name);
		pm_free(pd->metadata);
		pm_free(pd);
	}
	s->release = NULL;
	s->private_data = NULL;
}

int pm_aschema_init(struct ArrowSchema *out, const char *format, const char *name, int64_t flags,
	int64_t n_children)
{
	schema_priv *pd;
	int64_t i;
	memset(out, 0, sizeof *out);
	if (!format || n_children < 0)
		return pm_err(PAIMON_EINVAL, "ArrowSchema needs a format and a non-negative child count");
	if (!(pd = pm_calloc(1, sizeof *pd)))
		return PAIMON_ENOMEM;
	out->private_data = pd;
	out->release = release_schema;
	out->flags = flags;
	if (!(pd->format = pm_strdup(format)))
		return PAIMON_ENOMEM;
	out->format = pd->format;
	if (name) {
		if (!(pd->name = pm_strdup(name)))
			return PAIMON_ENOMEM;
		out->name = pd->name;
	}
	if (n_children > 0) {
		if (!(pd->children = pm_calloc((size_t)n_children, sizeof *pd->children)))
			return PAIMON_ENOMEM;
		for (i = 0; i < n_children; i++) {
			if (!(pd->children[i] = pm_calloc(1, sizeof **pd->children)))
				return PAIMON_ENOMEM;
			pd->n = i + 1;
		}
		out->children = pd->children;
		out->n_children = n_children;
	}
	return 0;
}

static void put_i32(char *p, int32_t v)
{
	memcpy(p, &v, 4); /* native endianness, as the spec says */
}

int pm_aschema_set_metadata(struct ArrowSchema *s, const char *const *keys, const char *const *values,
	int32_t n)
{
	schema_priv *pd = s->private_data;
	size_t total = 4, k;
	int32_t i;
	char *m, *p;
	if (!pd || s->release != release_schema || n < 0)
		return pm_err(PAIMON_EINVAL, "metadata can only be set on a schema from pm_aschema_init");
	for (i = 0; i < n; i++) {
		size_t kl = strlen(keys[i]), vl = strlen(values[i]);
		if (kl > INT32_MAX || vl > INT32_MAX || total > (size_t)INT32_MAX)
			return pm_err(PAIMON_EINVAL, "Arrow metadata too large");
		total += 8 + kl + vl;
	}
	if (!(m = pm_malloc(total)))
		return PAIMON_ENOMEM;
	p = m;
	put_i32(p, n);
	p += 4;
	for (i = 0; i < n; i++) {
		k = strlen(keys[i]);
		put_i32(p, (int32_t)k);
		memcpy(p + 4, keys[i], k);
		p += 4 + k;
		k = strlen(values[i]);
		put_i32(p, (int32_t)k);
		memcpy(p + 4, values[i], k);
		p += 4 + k;
	}
	pm_free(pd->metadata);
	pd->metadata = m;
	s->metadata = n ? m : NULL;
	if (!n) {
		pm_free(m);
		pd->metadata = NULL;
	}
	return 0;
}

int pm_aschema_metadata_get(const char *metadata, const char *key, const char **val, int32_t *val_len)
{
	int32_t n, i, kl, vl;
	const char *p = metadata;
	size_t klen = strlen(key);
	if (!metadata)
		return 0;
	memcpy(&n, p, 4);
	p += 4;
	if (n < 0)
		return pm_err(PAIMON_EINVAL, "Arrow metadata: negative pair count %d", (int)n);
	for (i = 0; i < n; i++) {
		memcpy(&kl, p, 4);
		if (kl < 0)
			return pm_err(PAIMON_EINVAL, "Arrow metadata: negative key length");
		p += 4;
		memcpy(&vl, p + kl, 4);
		if (vl < 0)
			return pm_err(PAIMON_EINVAL, "Arrow metadata: negative value length");
		if ((size_t)kl == klen && memcmp(p, key, klen) == 0) {
			*val = p + kl + 4;
			*val_len = vl;
			return 1;
		}
		p += kl + 4 + vl;
	}
	return 0;
}

/* ---------------------------------------------------------------- stream */

typedef struct stream_priv {
	pm_astream_schema_fn schema;
	pm_astream_next_fn next;
	void (*state_free)(void *);
	void *state;
	char *last_error;
} stream_priv;

static int to_errno(int code)
{
	switch (code) {
	case PAIMON_ENOMEM:
		return ENOMEM;
	case PAIMON_EINVAL:
		return EINVAL;
	case PAIMON_EUNSUPPORTED:
		return ENOSYS;
	default:
		return EIO;
	}
}

static int record(stream_priv *sp, int rc)
{
	pm_free(sp->last_error);
	sp->last_error = pm_strdup(paimon_error_message()); /* NULL on OOM: get_last_error says so */
	return to_errno(rc);
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
	stream_priv *sp = s->private_data;
	int rc;
	memset(out, 0, sizeof *out);
	if (!sp->schema)
		return record(sp, pm_err(PAIMON_EUNSUPPORTED, "this stream has no schema"));
	rc = sp->schema(sp->state, out);
	if (rc) {
		if (out->release)
			out->release(out);
		return record(sp, rc);
	}
	return 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
	stream_priv *sp = s->private_data;
	int rc;
	memset(out, 0, sizeof *out);
	rc = sp->next(sp->state, out);
	if (rc) {
		if (out->release)
			out->release(out);
		memset(out, 0, sizeof *out);
		return record(sp, rc);
	}
	return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
	stream_priv *sp = s->private_data;
	return sp->last_error;
}

static void stream_release(struct ArrowArrayStream *s)
{
	stream_priv *sp;
	if (!s || !s->release)
		return;
	sp = s->private_data;
	if (sp->state_free)
		sp->state_free(sp->state);
	pm_free(sp->last_error);
	pm_free(sp);
	s->release = NULL;
	s->private_data = NULL;
}

int pm_astream_init(struct ArrowArrayStream *out, pm_astream_schema_fn schema, pm_astream_next_fn next,
	void (*state_free)(void *state), void *state)
{
	stream_priv *sp;
	memset(out, 0, sizeof *out);
	if (!next)
		return pm_err(PAIMON_EINVAL, "stream needs a next callback");
	if (!(sp = pm_calloc(1, sizeof *sp))) {
		if (state_free)
			state_free(state);
		return PAIMON_ENOMEM;
	}
	sp->schema = schema;
	sp->next = next;
	sp->state_free = state_free;
	sp->state = state;
	out->get_schema = stream_get_schema;
	out->get_next = stream_get_next;
	out->get_last_error = stream_last_error;
	out->release = stream_release;
	out->private_data = sp;
	return 0;
}
