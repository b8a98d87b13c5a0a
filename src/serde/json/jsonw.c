#include "serde/json/jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void pm_jw_init(pm_jw *w, pm_buf *out, int compact)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->compact = compact;
}

static void put(pm_jw *w, const char *s, size_t n)
{
	if (w->rc == 0)
		w->rc = pm_buf_append(w->out, s, n);
}

static void puts_(pm_jw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void indent(pm_jw *w)
{
	int i;
	if (w->compact)
		return;
	put(w, "\n", 1);
	for (i = 0; i < w->nesting; i++)
		put(w, "  ", 2);
}

/* Called before any value: writes the separator required by the container. */
static void before_value(pm_jw *w)
{
	if (w->rc)
		return;
	if (w->depth == 0)
		return;
	if (w->kind[w->depth - 1] == 'o') {
		if (!w->after_key)
			w->rc = pm_err(PAIMON_ERROR, "json writer: value without key");
		w->after_key = 0;
		return;
	}
	if (w->count[w->depth - 1]++ > 0)
		put(w, ",", 1);
	if (!w->compact)
		put(w, " ", 1);
}

void pm_jw_key(pm_jw *w, const char *key)
{
	if (w->rc)
		return;
	if (w->depth == 0 || w->kind[w->depth - 1] != 'o' || w->after_key) {
		w->rc = pm_err(PAIMON_ERROR, "json writer: key outside object");
		return;
	}
	if (w->count[w->depth - 1]++ > 0)
		put(w, ",", 1);
	indent(w);
	pm_jw_strn(w, key, strlen(key)); /* writes the quoted key (after_key is 0) */
	puts_(w, w->compact ? ":" : " : ");
	w->after_key = 1;
}

static void open_container(pm_jw *w, char kind)
{
	before_value(w);
	if (w->rc)
		return;
	if (w->depth >= PM_JW_MAX_DEPTH) {
		w->rc = pm_err(PAIMON_ERROR, "json writer: nesting deeper than %d", PM_JW_MAX_DEPTH);
		return;
	}
	w->kind[w->depth] = kind;
	w->count[w->depth] = 0;
	w->depth++;
	if (kind == 'o') {
		w->nesting++;
		put(w, "{", 1);
	} else {
		put(w, "[", 1);
	}
}

static void close_container(pm_jw *w, char kind)
{
	long n;
	if (w->rc)
		return;
	if (w->depth == 0 || w->kind[w->depth - 1] != kind || w->after_key) {
		w->rc = pm_err(PAIMON_ERROR, "json writer: unbalanced close");
		return;
	}
	n = w->count[--w->depth];
	if (kind == 'o') {
		w->nesting--;
		if (n > 0)
			indent(w);
		else if (!w->compact)
			put(w, " ", 1);
		put(w, "}", 1);
	} else {
		if (!w->compact)
			put(w, " ", 1);
		put(w, "]", 1);
	}
}

void pm_jw_obj_begin(pm_jw *w) { open_container(w, 'o'); }
void pm_jw_obj_end(pm_jw *w) { close_container(w, 'o'); }
void pm_jw_arr_begin(pm_jw *w) { open_container(w, 'a'); }
void pm_jw_arr_end(pm_jw *w) { close_container(w, 'a'); }

void pm_jw_strn(pm_jw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, start = 0;
	/* Keys come through here with after_key == 0 and must not count as values. */
	int is_key = w->depth > 0 && w->kind[w->depth - 1] == 'o' && !w->after_key;
	if (!is_key)
		before_value(w);
	put(w, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];
		if (c == '"')
			esc = "\\\"";
		else if (c == '\\')
			esc = "\\\\";
		else if (c < 0x20) {
			switch (c) {
			case '\n': esc = "\\n"; break;
			case '\r': esc = "\\r"; break;
			case '\t': esc = "\\t"; break;
			case '\b': esc = "\\b"; break;
			case '\f': esc = "\\f"; break;
			default:
				u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
				u[4] = hex[c >> 4]; u[5] = hex[c & 15]; u[6] = '\0';
				esc = u;
			}
		}
		if (esc) {
			put(w, s + start, i - start);
			puts_(w, esc);
			start = i + 1;
		}
	}
	put(w, s + start, n - start);
	put(w, "\"", 1);
}

void pm_jw_str(pm_jw *w, const char *s)
{
	if (!s)
		pm_jw_null(w);
	else
		pm_jw_strn(w, s, strlen(s));
}

void pm_jw_i64(pm_jw *w, int64_t v)
{
	char tmp[32];
	before_value(w);
	snprintf(tmp, sizeof tmp, "%" PRId64, v);
	puts_(w, tmp);
}

void pm_jw_bool(pm_jw *w, int v)
{
	before_value(w);
	puts_(w, v ? "true" : "false");
}

void pm_jw_null(pm_jw *w)
{
	before_value(w);
	puts_(w, "null");
}

void pm_jw_raw(pm_jw *w, const char *json)
{
	before_value(w);
	puts_(w, json);
}

void pm_jw_kstr(pm_jw *w, const char *key, const char *s)
{
	pm_jw_key(w, key);
	pm_jw_str(w, s);
}

void pm_jw_ki64(pm_jw *w, const char *key, int64_t v)
{
	pm_jw_key(w, key);
	pm_jw_i64(w, v);
}

int pm_jw_finish(pm_jw *w)
{
	if (w->rc == 0 && (w->depth != 0 || w->after_key))
		w->rc = pm_err(PAIMON_ERROR, "json writer: %d containers left open", w->depth);
	return w->rc;
}
