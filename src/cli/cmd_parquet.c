/*
 * cmd_parquet.c - `paimonc parquet`: look into Parquet files with the
 * library's own reader (schema, footer metadata, rows).
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const cli_group cli_group_parquet;

/* ------------------------------------------------------------ values */

static int valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	int64_t k = a->offset + i;
	if (!v || a->null_count == 0)
		return 1;
	return (v[k >> 3] >> (k & 7)) & 1;
}

static json_t *hex_json(const uint8_t *p, size_t n)
{
	char *s = malloc(n * 2 + 3);
	json_t *j;
	size_t i;
	if (!s)
		return NULL;
	strcpy(s, "0x");
	for (i = 0; i < n; i++)
		snprintf(s + 2 + 2 * i, 3, "%02x", p[i]);
	j = json_string(s);
	free(s);
	return j;
}

static int utf8_ok(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		int k = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
		if (k < 0 || i + (size_t)k >= n + (k == 0))
			return 0;
		for (i++; k > 0; k--, i++)
			if (i >= n || (p[i] & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

static void fmt_epoch(char *buf, size_t size, int64_t v, int64_t per_sec, int date_only)
{
	int64_t secs = v / per_sec, frac = v % per_sec;
	struct tm tm;
	time_t t;
	if (frac < 0)
		frac += per_sec, secs--;
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, size, "%" PRId64, v);
		return;
	}
	if (date_only) {
		strftime(buf, size, "%Y-%m-%d", &tm);
		return;
	}
	{
		char base[40];
		strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
		if (per_sec == 1)
			snprintf(buf, size, "%s", base);
		else
			snprintf(buf, size, "%s.%0*" PRId64, base, per_sec == 1000 ? 3 : per_sec == 1000000 ? 6 : 9, frac);
	}
}

static json_t *decimal_json(const uint8_t *p, int width, int scale)
{
	/* two's complement little-endian -> decimal digits */
	uint32_t w[8];
	int n = width / 4, neg = (p[width - 1] & 0x80) != 0, i, nd = 0;
	char digits[100], out[110];
	size_t o = 0;
	memcpy(w, p, (size_t)width);
	if (neg) {
		uint64_t carry = 1;
		for (i = 0; i < n; i++) {
			uint64_t x = (uint64_t)(uint32_t)~w[i] + carry;
			w[i] = (uint32_t)x;
			carry = x >> 32;
		}
	}
	for (;;) {
		uint64_t rem = 0;
		int zero = 1;
		for (i = n - 1; i >= 0; i--) {
			uint64_t cur = (rem << 32) | w[i];
			w[i] = (uint32_t)(cur / 10);
			rem = cur % 10;
			if (w[i])
				zero = 0;
		}
		digits[nd++] = (char)('0' + rem);
		if (zero || nd >= 90)
			break;
	}
	while (nd <= scale)
		digits[nd++] = '0';
	if (neg)
		out[o++] = '-';
	for (i = nd - 1; i >= 0; i--) {
		out[o++] = digits[i];
		if (i == scale && scale > 0)
			out[o++] = '.';
	}
	out[o] = 0;
	return json_string(out);
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? m / 1024.0 * (1.0 / 16384) : e == 31 ? (m ? 0.0 / 0.0 : 1.0 / 0.0)
		: (1 + m / 1024.0) * ((e >= 15) ? (double)(1 << (e - 15)) : 1.0 / (double)(1 << (15 - e)));
	return (h & 0x8000) ? -v : v;
}

static json_t *value_json(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
	const char *f = s->format;
	int64_t k = a->offset + i;
	char buf[64];
	if (!valid_at(a, i))
		return json_null();
	if (!strcmp(f, "+s")) {
		json_t *o = json_object();
		int64_t c;
		for (c = 0; o && c < s->n_children; c++)
			json_object_set_new(o, s->children[c]->name ? s->children[c]->name : "",
					    value_json(s->children[c], a->children[c], k));
		return o;
	}
	if (!strcmp(f, "+l") || !strcmp(f, "+m")) {
		const int32_t *off = a->buffers[1];
		json_t *arr = json_array();
		int32_t j;
		for (j = off[k]; arr && j < off[k + 1]; j++)
			json_array_append_new(arr, value_json(s->children[0], a->children[0], j));
		return arr;
	}
	switch (f[0]) {
	case 'b': return json_boolean((((const uint8_t *)a->buffers[1])[k >> 3] >> (k & 7)) & 1);
	case 'c': return json_integer(((const int8_t *)a->buffers[1])[k]);
	case 'C': return json_integer(((const uint8_t *)a->buffers[1])[k]);
	case 's': return json_integer(((const int16_t *)a->buffers[1])[k]);
	case 'S': return json_integer(((const uint16_t *)a->buffers[1])[k]);
	case 'i': return json_integer(((const int32_t *)a->buffers[1])[k]);
	case 'I': return json_integer(((const uint32_t *)a->buffers[1])[k]);
	case 'l': return json_integer(((const int64_t *)a->buffers[1])[k]);
	case 'L': {
		uint64_t v = ((const uint64_t *)a->buffers[1])[k];
		if (v > INT64_MAX) {
			snprintf(buf, sizeof buf, "%" PRIu64, v);
			return json_string(buf);
		}
		return json_integer((json_int_t)v);
	}
	case 'e': return json_real(half_to_double(((const uint16_t *)a->buffers[1])[k]));
	case 'f': return json_real(((const float *)a->buffers[1])[k]);
	case 'g': return json_real(((const double *)a->buffers[1])[k]);
	case 'u':
	case 'z': {
		const int32_t *off = a->buffers[1];
		const uint8_t *d = (const uint8_t *)a->buffers[2] + off[k];
		size_t n = (size_t)(off[k + 1] - off[k]);
		if (f[0] == 'u' || utf8_ok(d, n))
			return json_stringn((const char *)d, n);
		return hex_json(d, n);
	}
	case 'w': {
		int w = atoi(f + 2);
		return hex_json((const uint8_t *)a->buffers[1] + (size_t)k * (size_t)w, (size_t)w);
	}
	case 'd': {
		int p = 0, sc = 0, bits = 128;
		sscanf(f, "d:%d,%d,%d", &p, &sc, &bits);
		return decimal_json((const uint8_t *)a->buffers[1] + (size_t)k * (size_t)(bits / 8), bits / 8, sc);
	}
	case 't':
		if (!strcmp(f, "tdD")) {
			fmt_epoch(buf, sizeof buf, (int64_t)((const int32_t *)a->buffers[1])[k] * 86400, 1, 1);
			return json_string(buf);
		}
		if (f[1] == 's') {
			int64_t v = ((const int64_t *)a->buffers[1])[k];
			int64_t per = f[2] == 's' ? 1 : f[2] == 'm' ? 1000 : f[2] == 'u' ? 1000000 : 1000000000;
			fmt_epoch(buf, sizeof buf, v, per, 0);
			if (f[4])
				strcat(buf, "Z");
			return json_string(buf);
		}
		if (f[1] == 't') {
			int64_t v = f[2] == 'm' || f[2] == 's' ? ((const int32_t *)a->buffers[1])[k]
							      : ((const int64_t *)a->buffers[1])[k];
			int64_t per = f[2] == 's' ? 1 : f[2] == 'm' ? 1000 : f[2] == 'u' ? 1000000 : 1000000000;
			fmt_epoch(buf, sizeof buf, v, per, 0);
			return json_string(strchr(buf, 'T') ? strchr(buf, 'T') + 1 : buf);
		}
		break;
	default:
		break;
	}
	snprintf(buf, sizeof buf, "<%s>", f);
	return json_string(buf);
}

/* A cell for table/csv output: scalars as text, nested values as JSON. */
static char *cell_text(json_t *v)
{
	char buf[64];
	if (json_is_null(v))
		return strdup("");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return strdup(buf);
	}
	if (json_is_real(v)) {
		snprintf(buf, sizeof buf, "%.17g", json_real_value(v));
		return strdup(buf);
	}
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
}

static void csv_field(const char *s)
{
	if (strpbrk(s, ",\"\n\r")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
}

/* ------------------------------------------------------------ commands */

static int pm_pq_open(const char *path, char **cols, size_t ncols, paimon_parquet_reader **r)
{
	if (paimon_parquet_reader_open(r, path, (const char *const *)cols, ncols, 0) < 0)
		return cli_fail();
	return CLI_CONTINUE;
}

static void schema_lines(const struct ArrowSchema *s, int indent)
{
	int64_t c;
	printf("%*s%s: %s%s\n", indent, "", s->name ? s->name : "", s->format,
	       (s->flags & ARROW_FLAG_NULLABLE) ? "" : " not null");
	for (c = 0; c < s->n_children; c++)
		schema_lines(s->children[c], indent + 2);
}

static int pm_pq_schema_cmd(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1];
	size_t npos;
	int rc;
	int64_t c;
	paimon_parquet_reader *r = NULL;
	struct ArrowSchema s;
	const cli_opt opts[] = {{0}};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (ctx->json) {
		char *js = NULL;
		json_t *doc;
		json_error_t err;
		if (paimon_parquet_file_meta_json(pos[0], 0, &js) < 0)
			return cli_fail();
		doc = json_loads(js, 0, &err);
		paimon_free(js);
		if (!doc)
			return cli_oom();
		rc = cli_print_json(json_incref(json_object_get(doc, "schema")));
		json_decref(doc);
		return rc;
	}
	if ((rc = pm_pq_open(pos[0], NULL, 0, &r)) != CLI_CONTINUE)
		return rc;
	if (paimon_parquet_reader_schema(r, &s) < 0) {
		paimon_parquet_reader_free(r);
		return cli_fail();
	}
	for (c = 0; c < s.n_children; c++)
		schema_lines(s.children[c], 0);
	s.release(&s);
	paimon_parquet_reader_free(r);
	return CLI_EXIT_OK;
}

static const char *jstr(json_t *o, const char *k, char *buf, size_t n)
{
	json_t *v = json_object_get(o, k);
	if (!v || json_is_null(v))
		return "";
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	{
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, n, "%s", d ? d : "");
		free(d);
		return buf;
	}
}

static int pm_pq_meta_cmd(cli_ctx *ctx, int argc, char **argv)
{
	static const char *const headers[] = {"COLUMN", "TYPE", "CODEC", "ENCODINGS", "VALUES", "COMPRESSED",
					      "UNCOMPRESSED", "NULLS", "MIN", "MAX", "PAGES"};
	const char *pos[1];
	size_t npos, g, c;
	int rc, json_out = 0, pages = 0;
	char *js = NULL;
	json_t *doc, *rgs;
	json_error_t err;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "print the metadata as one JSON document", &json_out, 0},
		{CLI_OPT_FLAG, 0, "pages", NULL, "include every page header (JSON) / page count (text)", &pages, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	json_out |= ctx->json;
	if (paimon_parquet_file_meta_json(pos[0], pages || !json_out, &js) < 0)
		return cli_fail();
	if (json_out) {
		fputs(js, stdout);
		putchar('\n');
		paimon_free(js);
		return CLI_EXIT_OK;
	}
	doc = json_loads(js, 0, &err);
	paimon_free(js);
	if (!doc)
		return cli_oom();
	{
		char b1[64], b2[64], b3[64];
		printf("file: %s\ncreated_by: %s\nversion: %s\nrows: %s\nrow groups: %s\n", pos[0],
		       jstr(doc, "created_by", b1, sizeof b1), jstr(doc, "version", b2, sizeof b2),
		       jstr(doc, "num_rows", b3, sizeof b3), jstr(doc, "num_row_groups", b1, sizeof b1));
	}
	rgs = json_object_get(doc, "row_groups");
	for (g = 0; g < json_array_size(rgs); g++) {
		json_t *rg = json_array_get(rgs, g), *cols = json_object_get(rg, "columns");
		cli_table t;
		char b[11][256];
		printf("\nrow group %zu: %s rows\n", g, jstr(rg, "num_rows", b[0], sizeof b[0]));
		cli_table_init(&t, 11, headers, "lllllrrrllr");
		for (c = 0; c < json_array_size(cols); c++) {
			json_t *col = json_array_get(cols, c), *st = json_object_get(col, "statistics");
			const char *row[11];
			row[0] = jstr(col, "path", b[0], sizeof b[0]);
			row[1] = jstr(col, "type", b[1], sizeof b[1]);
			row[2] = jstr(col, "codec", b[2], sizeof b[2]);
			row[3] = jstr(col, "encodings", b[3], sizeof b[3]);
			row[4] = jstr(col, "num_values", b[4], sizeof b[4]);
			row[5] = jstr(col, "total_compressed_size", b[5], sizeof b[5]);
			row[6] = jstr(col, "total_uncompressed_size", b[6], sizeof b[6]);
			row[7] = st ? jstr(st, "null_count", b[7], sizeof b[7]) : "";
			row[8] = st ? jstr(st, json_object_get(st, "min_value") ? "min_value" : "min", b[8], 40) : "";
			row[9] = st ? jstr(st, json_object_get(st, "max_value") ? "max_value" : "max", b[9], 40) : "";
			snprintf(b[10], sizeof b[10], "%zu", json_array_size(json_object_get(col, "pages")));
			row[10] = b[10];
			if (cli_table_add(&t, row) < 0) {
				cli_table_dispose(&t);
				json_decref(doc);
				return cli_oom();
			}
		}
		cli_table_print(&t, 2, 1);
		cli_table_dispose(&t);
	}
	json_decref(doc);
	return CLI_EXIT_OK;
}

static int pm_pq_cat_cmd(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *cols_arg = NULL, *limit_arg = NULL, *format = "table";
	size_t npos, ncols = 0;
	char **cols = NULL;
	int64_t limit = -1, done = 0;
	int rc, eof = 0, fmt;
	paimon_parquet_reader *r = NULL;
	struct ArrowSchema s;
	struct ArrowArray a;
	cli_table t;
	const char **hdr = NULL;
	int64_t c, i;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 'c', "columns", "A,B", "columns to print (names or dotted paths)", &cols_arg, 0},
		{CLI_OPT_VALUE, 'n', "limit", "N", "print at most N rows", &limit_arg, 0},
		{CLI_OPT_VALUE, 'f', "format", "FMT", "table (default), csv or jsonl", &format, 0},
		{0},
	};
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (limit_arg && (cli_parse_i64(limit_arg, &limit) < 0 || limit < 0))
		return cli_usage_error(ctx, "invalid --limit '%s': expected a number >= 0", limit_arg);
	if (!strcmp(format, "table"))
		fmt = 0;
	else if (!strcmp(format, "csv"))
		fmt = 1;
	else if (!strcmp(format, "jsonl"))
		fmt = 2;
	else
		return cli_usage_error(ctx, "invalid --format '%s': expected table, csv or jsonl", format);
	if (ctx->json)
		fmt = 2;
	if (cols_arg && (rc = cli_split_names(ctx, "--columns", cols_arg, &cols, &ncols)) != CLI_CONTINUE)
		return rc;
	rc = pm_pq_open(pos[0], cols, ncols, &r);
	cli_names_free(cols, ncols);
	if (rc != CLI_CONTINUE)
		return rc;
	if (paimon_parquet_reader_schema(r, &s) < 0) {
		paimon_parquet_reader_free(r);
		return cli_fail();
	}
	if (!(hdr = calloc((size_t)s.n_children + 1, sizeof *hdr))) {
		s.release(&s);
		paimon_parquet_reader_free(r);
		return cli_oom();
	}
	for (c = 0; c < s.n_children; c++)
		hdr[c] = s.children[c]->name;
	cli_table_init(&t, (size_t)s.n_children, hdr, NULL);
	if (fmt == 1) {
		for (c = 0; c < s.n_children; c++) {
			if (c)
				putchar(',');
			csv_field(hdr[c]);
		}
		putchar('\n');
	}
	rc = CLI_EXIT_OK;
	while ((limit < 0 || done < limit) && paimon_parquet_reader_next(r, &a, &eof) == 0 && !eof) {
		for (i = 0; i < a.length && (limit < 0 || done < limit); i++, done++) {
			json_t *row = value_json(&s, &a, i);
			if (!row) {
				rc = cli_oom();
				break;
			}
			if (fmt == 2) {
				char *line = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER);
				if (line)
					puts(line);
				free(line);
			} else {
				char **cells = calloc((size_t)s.n_children + 1, sizeof *cells);
				for (c = 0; cells && c < s.n_children; c++)
					cells[c] = cell_text(json_object_get(row, hdr[c]));
				if (fmt == 1) {
					for (c = 0; cells && c < s.n_children; c++) {
						if (c)
							putchar(',');
						csv_field(cells[c] ? cells[c] : "");
					}
					putchar('\n');
				} else if (!cells || cli_table_add(&t, (const char *const *)cells) < 0) {
					rc = cli_oom();
				}
				for (c = 0; cells && c < s.n_children; c++)
					free(cells[c]);
				free(cells);
			}
			json_decref(row);
		}
		a.release(&a);
		if (rc != CLI_EXIT_OK)
			break;
	}
	if (rc == CLI_EXIT_OK && paimon_error_code_last() != 0 && !eof && (limit < 0 || done < limit))
		rc = cli_fail();
	if (rc == CLI_EXIT_OK && fmt == 0)
		cli_table_print(&t, 0, 1);
	cli_table_dispose(&t);
	free(hdr);
	s.release(&s);
	paimon_parquet_reader_free(r);
	return rc;
}

static const cli_cmd parquet_cmds[] = {
	{"schema", pm_pq_schema_cmd, "FILE", "print the Arrow schema the reader produces",
	 "With the global --json, prints the Parquet schema elements instead.", 1, 1},
	{"meta", pm_pq_meta_cmd, "FILE [--json] [--pages]",
	 "print the footer: row groups, column chunks, codecs, encodings, sizes, statistics, pages", NULL, 1, 1},
	{"cat", pm_pq_cat_cmd, "FILE [--columns A,B] [--limit N] [--format table|csv|jsonl]", "print rows", NULL, 1, 1},
};

const cli_group cli_group_parquet = {
	"parquet", "inspect Parquet files", parquet_cmds, sizeof parquet_cmds / sizeof parquet_cmds[0],
};
