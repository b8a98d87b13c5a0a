/*
 * cmd_read.c - `paimonc read DB.TABLE`: scan a table (projection, filter,
 * limit, time travel) and print the rows as an aligned table, CSV, JSON
 * Lines, or write them to a Parquet file. Value conventions: textio.h.
 */
#include "cli.h"
#include "blobio.h"
#include "textio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum out_format { OUT_TABLE, OUT_CSV, OUT_JSONL, OUT_PARQUET };
enum blob_mode { BLOB_SUMMARY, BLOB_DESCRIPTOR, BLOB_BASE64 };

/* ------------------------------------------------------------ BLOB values */

/* How BLOB values print (the textio printer): read with
 * blob-as-descriptor=true, each value is a BlobDescriptor; summary mode
 * hashes the range it references in chunks ("<size> bytes
 * sha256:<16 hex digits>"), descriptor mode prints it as JSON. */
typedef struct blob_print {
	enum blob_mode mode;
	const char *warehouse, *prefixes;
	int64_t row; /* output row, for messages */
	char err[1200];
} blob_print;

#define SHA_PREFIX 16

static int put_summary(tio_str *o, uint64_t size, const char *hex, int json)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%" PRIu64 " bytes sha256:%.*s", size, SHA_PREFIX, hex);
	return json ? tio_json_string(o, buf, strlen(buf)) : tio_str_puts(o, buf);
}

static int print_blob(void *ud, tio_str *o, const uint8_t *p, size_t n, int json)
{
	blob_print *bp = ud;
	cli_blob_desc d;
	cli_blob_range r = {-1, 0, 0};
	char err[1024], hex[65], *path;
	int rc;
	if (!cli_blob_is_desc(p, n)) {
		/* bytes (a reader that returned them inline) */
		cli_sha256 sh;
		cli_sha256_init(&sh);
		cli_sha256_update(&sh, p, n);
		cli_sha256_hex(&sh, hex);
		return put_summary(o, n, hex, json) < 0 ? TIO_ENOMEM : TIO_OK;
	}
	if ((rc = cli_blob_desc_decode(p, n, &d, err, sizeof err)) < 0) {
		if (rc == -2)
			return TIO_ENOMEM;
		snprintf(bp->err, sizeof bp->err, "BLOB value of output row %" PRId64 ": %s", bp->row + 1, err);
		return TIO_EVALUE;
	}
	if (bp->mode == BLOB_DESCRIPTOR) {
		char num[64];
		/* a JSON object in every format (CSV quotes it, as other nested values) */
		snprintf(num, sizeof num, ",\"offset\":%" PRId64 ",\"length\":%" PRId64 "}", d.offset, d.length);
		rc = tio_str_puts(o, "{\"uri\":") < 0 || tio_json_string(o, d.uri, strlen(d.uri)) < 0 ||
		     tio_str_puts(o, num) < 0;
		cli_blob_desc_dispose(&d);
		return rc ? TIO_ENOMEM : TIO_OK;
	}
	if (!(path = cli_blob_local_file(d.uri, bp->warehouse, bp->prefixes, err, sizeof err))) {
		cli_blob_desc_dispose(&d);
		if (!err[0])
			return TIO_ENOMEM;
		snprintf(bp->err, sizeof bp->err, "BLOB value of output row %" PRId64 ": %s", bp->row + 1, err);
		return TIO_EVALUE;
	}
	rc = cli_blob_range_open(&d, path, &r, err, sizeof err) < 0 || cli_blob_range_sha256(&r, path, hex, err, sizeof err) < 0;
	cli_blob_range_close(&r);
	free(path);
	cli_blob_desc_dispose(&d);
	if (rc) {
		snprintf(bp->err, sizeof bp->err, "BLOB value of output row %" PRId64 ": %s", bp->row + 1, err);
		return TIO_EVALUE;
	}
	return put_summary(o, r.length, hex, json) < 0 ? TIO_ENOMEM : TIO_OK;
}

static blob_print the_blob_print;

/* A failed tio_value_*: out of memory, or the BLOB printer's error. */
static int value_fail(int r)
{
	if (r == TIO_EVALUE && the_blob_print.err[0])
		return cli_error("%s", the_blob_print.err);
	return cli_oom();
}

/* Whether a field holds BLOB values (large binary at any depth). */
static int has_blob(const struct ArrowSchema *s)
{
	int64_t i;
	if (!strcmp(s->format, "Z"))
		return 1;
	for (i = 0; i < s->n_children; i++)
		if (has_blob(s->children[i]))
			return 1;
	return 0;
}

/* ------------------------------------------------------------ table view */

typedef struct view {
	size_t ncols;
	char **headers;
	int *right;
	size_t *widths;
	char **cells; /* nrows * ncols, NULL = null */
	size_t nrows, cap;
	size_t max_width; /* 0: no truncation */
} view;


/* A table cell: control characters escaped, cut to max_width code points. */
static char *cell_of(const char *s, size_t n, size_t max_width)
{
	tio_str o = {0};
	size_t i, w = 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		char hex[8];
		if ((c & 0xC0) != 0x80) {
			if (max_width && w + 1 > max_width - 1 && i < n) {
				/* does the rest fit exactly? */
				size_t rest = 0, j;
				for (j = i; j < n; j++)
					if (((unsigned char)s[j] & 0xC0) != 0x80)
						rest += (unsigned char)s[j] < 0x20 ? 2 : 1;
				if (w + rest > max_width) {
					if (tio_str_puts(&o, "\xe2\x80\xa6") < 0) /* ellipsis */
						goto oom;
					break;
				}
			}
			w++;
		}
		if (c == '\n')
			rep = "\\n";
		else if (c == '\r')
			rep = "\\r";
		else if (c == '\t')
			rep = "\\t";
		else if (c < 0x20) {
			snprintf(hex, sizeof hex, "\\x%02x", c);
			rep = hex;
		}
		if (rep) {
			w += strlen(rep) - 1;
			if (tio_str_puts(&o, rep) < 0)
				goto oom;
		} else if (tio_str_put(&o, (const char *)s + i, 1) < 0) {
			goto oom;
		}
	}
	if (!o.p && tio_str_put(&o, "", 0) < 0)
		goto oom;
	return o.p;
oom:
	tio_str_dispose(&o);
	return NULL;
}

static int view_add(view *v, char **row)
{
	if (v->nrows == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 64;
		char **c = realloc(v->cells, nc * v->ncols * sizeof *c);
		if (!c)
			return -1;
		v->cells = c;
		v->cap = nc;
	}
	memcpy(v->cells + v->nrows * v->ncols, row, v->ncols * sizeof *row);
	v->nrows++;
	return 0;
}

static void view_print(const view *v, FILE *out, int color)
{
	size_t r, c;
	const char *null_text = "NULL";
	for (c = 0; c < v->ncols; c++) {
		v->widths[c] = cli_text_width(v->headers[c]);
		for (r = 0; r < v->nrows; r++) {
			const char *s = v->cells[r * v->ncols + c];
			size_t w = s ? cli_text_width(s) : strlen(null_text);
			if (w > v->widths[c])
				v->widths[c] = w;
		}
	}
	for (r = 0; r <= v->nrows; r++) {
		for (c = 0; c < v->ncols; c++) {
			const char *s = r == 0 ? v->headers[c] : v->cells[(r - 1) * v->ncols + c];
			int is_null = r > 0 && !s;
			size_t w, pad;
			if (is_null)
				s = null_text;
			w = cli_text_width(s);
			pad = v->widths[c] > w ? v->widths[c] - w : 0;
			if (c)
				fputs("  ", out);
			if (v->right[c])
				fprintf(out, "%*s", (int)pad, "");
			if (color && (r == 0 || is_null))
				fputs(r == 0 ? "\033[1m" : "\033[2m", out);
			fputs(s, out);
			if (color && (r == 0 || is_null))
				fputs("\033[0m", out);
			if (!v->right[c] && c + 1 < v->ncols)
				fprintf(out, "%*s", (int)pad, "");
		}
		fputc('\n', out);
	}
}

static void view_dispose(view *v)
{
	size_t i;
	for (i = 0; i < v->nrows * v->ncols; i++)
		free(v->cells[i]);
	free(v->cells);
	free(v->right);
	free(v->widths);
	free(v->headers);
}

/* ---------------------------------------------------------------- output */

typedef struct out_ctx {
	enum out_format fmt;
	FILE *f;
	char delim;
	view v;
	tio_str line;
	int64_t rows;
} out_ctx;

static int emit_header(out_ctx *o, const struct ArrowSchema *s)
{
	int64_t c;
	if (o->fmt == OUT_TABLE) {
		o->v.ncols = (size_t)s->n_children;
		o->v.headers = calloc(o->v.ncols + 1, sizeof *o->v.headers);
		o->v.right = calloc(o->v.ncols + 1, sizeof *o->v.right);
		o->v.widths = calloc(o->v.ncols + 1, sizeof *o->v.widths);
		if (!o->v.headers || !o->v.right || !o->v.widths)
			return cli_oom();
		for (c = 0; c < s->n_children; c++) {
			o->v.headers[c] = (char *)s->children[c]->name;
			o->v.right[c] = tio_is_numeric(s->children[c]);
		}
		return CLI_CONTINUE;
	}
	if (o->fmt == OUT_CSV) {
		o->line.len = 0;
		for (c = 0; c < s->n_children; c++) {
			const char *nm = s->children[c]->name;
			if ((c && tio_str_put(&o->line, &o->delim, 1) < 0) || tio_csv_quote(&o->line, nm, strlen(nm), o->delim) < 0 ||
			    0)
				return cli_oom();
		}
		if (tio_str_put(&o->line, "\n", 1) < 0)
			return cli_oom();
		fwrite(o->line.p, 1, o->line.len, o->f);
	}
	return CLI_CONTINUE;
}

static int emit_batch(out_ctx *o, const struct ArrowSchema *s, const struct ArrowArray *a)
{
	int64_t i, c;
	tio_str cell = {0};
	int rc = CLI_CONTINUE;
	for (i = 0; i < a->length; i++) {
		o->line.len = 0;
		int vr = 0;
		the_blob_print.row = o->rows;
		if (o->fmt == OUT_JSONL) {
			if ((vr = tio_value_json(&o->line, s, a, i)) < 0 || tio_str_put(&o->line, "\n", 1) < 0) {
				rc = value_fail(vr);
				break;
			}
		} else if (o->fmt == OUT_CSV) {
			for (c = 0; c < s->n_children; c++) {
				int is_null;
				cell.len = 0;
				if ((c && tio_str_put(&o->line, &o->delim, 1) < 0) ||
				    (vr = tio_value_text(&cell, s->children[c], a->children[c], a->offset + i, &is_null)) < 0 ||
				    (!is_null && tio_csv_quote(&o->line, cell.p ? cell.p : "", cell.len, o->delim) < 0)) {
					rc = value_fail(vr);
					goto out;
				}
			}
			if (tio_str_put(&o->line, "\n", 1) < 0) {
				rc = cli_oom();
				break;
			}
		} else {
			char **row = calloc((size_t)s->n_children + 1, sizeof *row);
			if (!row) {
				rc = cli_oom();
				break;
			}
			for (c = 0; c < s->n_children; c++) {
				int is_null;
				cell.len = 0;
				if ((vr = tio_value_text(&cell, s->children[c], a->children[c], a->offset + i, &is_null)) < 0 ||
				    (!is_null && !(row[c] = cell_of(cell.p ? cell.p : "", cell.len, o->v.max_width)))) {
					while (c-- > 0)
						free(row[c]);
					free(row);
					rc = value_fail(vr);
					goto out;
				}
			}
			if (view_add(&o->v, row) < 0) {
				for (c = 0; c < s->n_children; c++)
					free(row[c]);
				free(row);
				rc = cli_oom();
				break;
			}
			free(row);
		}
		if (o->line.len && fwrite(o->line.p, 1, o->line.len, o->f) != o->line.len) {
			rc = cli_error("cannot write output: %s", strerror(errno));
			break;
		}
		o->rows++;
	}
out:
	tio_str_dispose(&cell);
	return rc;
}

/* ---------------------------------------------------------------- command */

static int read_main(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *select_arg = NULL, *where_arg = NULL, *limit_arg = NULL, *snap_arg = NULL,
			   *tag_arg = NULL, *fmt_arg = NULL, *out_arg = NULL, *width_arg = NULL, *delim_arg = NULL,
			   *blob_arg = NULL, *prefixes = NULL;
	enum blob_mode bmode = BLOB_SUMMARY;
	size_t npos, ncols = 0, i, nsplits;
	char **cols = NULL;
	int64_t limit = -1, snap = 0, width = 40;
	int rc, stream_ok = 0, out_opened = 0;
	enum out_format fmt = OUT_TABLE;
	paimon_table *t = NULL;
	paimon_read_builder *rb = NULL;
	paimon_predicate *pred = NULL;
	paimon_plan *plan = NULL;
	const paimon_split **splits = NULL;
	struct ArrowArrayStream stream;
	struct ArrowSchema s;
	out_ctx o;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 's', "select", "A,B", "columns to read, in this order (default: all)", &select_arg, 0},
		{CLI_OPT_VALUE, 0, "where", "PREDICATE",
		 "only rows matching, e.g. \"a > 3 AND (s = 'x' OR d IS NULL)\", IN (...), LIKE 'p%', BETWEEN", &where_arg,
		 0},
		{CLI_OPT_VALUE, 'n', "limit", "N", "at most N rows", &limit_arg, 0},
		{CLI_OPT_VALUE, 0, "snapshot", "ID", "read this snapshot (time travel)", &snap_arg, 0},
		{CLI_OPT_VALUE, 0, "tag", "NAME", "read the snapshot of this tag", &tag_arg, 0},
		{CLI_OPT_VALUE, 'f', "format", "FMT", "table (default), csv, tsv, jsonl or parquet (needs --output)", &fmt_arg,
		 0},
		{CLI_OPT_VALUE, 'o', "output", "FILE", "write to FILE instead of standard output", &out_arg, 0},
		{CLI_OPT_VALUE, 0, "max-width", "N", "table format: cut cells to N characters (default 40, 0: no limit)",
		 &width_arg, 0},
		{CLI_OPT_VALUE, 'd', "delimiter", "C", "CSV field delimiter (default ',')", &delim_arg, 0},
		{CLI_OPT_VALUE, 0, "blob", "MODE",
		 "BLOB values: summary (default: '<size> bytes sha256:<16 hex>'), descriptor ({\"uri\", \"offset\", "
		 "\"length\"}) or base64 (the bytes, as 'paimonc write' reads them)",
		 &blob_arg, 0},
		{CLI_OPT_VALUE, 0, "allowed-prefixes", "DIR,...",
		 "summary of blobs whose descriptors point outside the warehouse: only under these directories", &prefixes,
		 0},
		{0},
	};

	memset(&o, 0, sizeof o);
	memset(&stream, 0, sizeof stream);
	memset(&s, 0, sizeof s);
	o.delim = ',';
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (limit_arg && (cli_parse_i64(limit_arg, &limit) < 0 || limit < 0))
		return cli_usage_error(ctx, "invalid --limit '%s': expected a number >= 0", limit_arg);
	if (snap_arg && (cli_parse_i64(snap_arg, &snap) < 0 || snap <= 0))
		return cli_usage_error(ctx, "invalid --snapshot '%s': expected an id >= 1", snap_arg);
	if (snap_arg && tag_arg)
		return cli_usage_error(ctx, "--snapshot and --tag exclude each other");
	if (width_arg && (cli_parse_i64(width_arg, &width) < 0 || width < 0 || (width > 0 && width < 4)))
		return cli_usage_error(ctx, "invalid --max-width '%s': expected 0 or a number >= 4", width_arg);
	if (fmt_arg) {
		if (!strcmp(fmt_arg, "table"))
			fmt = OUT_TABLE;
		else if (!strcmp(fmt_arg, "csv"))
			fmt = OUT_CSV;
		else if (!strcmp(fmt_arg, "tsv"))
			fmt = OUT_CSV, o.delim = '\t';
		else if (!strcmp(fmt_arg, "jsonl") || !strcmp(fmt_arg, "json"))
			fmt = OUT_JSONL;
		else if (!strcmp(fmt_arg, "parquet"))
			fmt = OUT_PARQUET;
		else
			return cli_usage_error(ctx, "invalid --format '%s': expected table, csv, tsv, jsonl or parquet", fmt_arg);
	} else if (ctx->json) {
		fmt = OUT_JSONL;
	}
	if (delim_arg) {
		if (fmt != OUT_CSV)
			return cli_usage_error(ctx, "--delimiter applies to CSV output only");
		if (!strcmp(delim_arg, "\\t") || !strcmp(delim_arg, "tab"))
			o.delim = '\t';
		else if (strlen(delim_arg) == 1 && delim_arg[0] != '"' && delim_arg[0] != '\n')
			o.delim = delim_arg[0];
		else
			return cli_usage_error(ctx, "invalid --delimiter '%s': expected one character", delim_arg);
	}
	if (blob_arg) {
		if (!strcmp(blob_arg, "summary"))
			bmode = BLOB_SUMMARY;
		else if (!strcmp(blob_arg, "descriptor"))
			bmode = BLOB_DESCRIPTOR;
		else if (!strcmp(blob_arg, "base64"))
			bmode = BLOB_BASE64;
		else
			return cli_usage_error(ctx, "invalid --blob '%s': expected summary, descriptor or base64", blob_arg);
	}
	if (fmt == OUT_PARQUET && (!out_arg || !strcmp(out_arg, "-")))
		return cli_usage_error(ctx, "--format parquet needs --output FILE");
	o.fmt = fmt;
	o.v.max_width = (size_t)width;
	if (select_arg && (rc = cli_split_names(ctx, "--select", select_arg, &cols, &ncols)) != CLI_CONTINUE)
		return rc;
	if (where_arg && paimon_predicate_parse(&pred, where_arg) < 0) {
		/* a malformed predicate is a bad argument: usage error */
		pred = NULL;
		rc = cli_usage_error(ctx, "invalid --where: %s", paimon_error_message());
		goto out;
	}
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		goto out;
	if (paimon_read_builder_new(&rb, t) < 0) {
		rb = NULL;
		rc = cli_fail();
		goto out;
	}
	if ((cols && paimon_read_builder_with_projection(rb, (const char *const *)cols, ncols) < 0) ||
	    (pred && paimon_read_builder_with_filter(rb, pred) < 0) ||
	    (limit >= 0 && paimon_read_builder_with_limit(rb, limit) < 0) ||
	    (snap_arg && paimon_read_builder_with_option(rb, "scan.snapshot-id", snap_arg) < 0) ||
	    (tag_arg && paimon_read_builder_with_option(rb, "scan.tag-name", tag_arg) < 0)) {
		rc = cli_fail();
		goto out;
	}
	{
		/* BLOB columns: descriptors from the library, printed by
		 * print_blob (Parquet output keeps the bytes unless
		 * --blob descriptor asks for the descriptors) */
		struct ArrowSchema rs;
		int any;
		memset(&rs, 0, sizeof rs);
		if (paimon_read_builder_read_schema(rb, &rs) < 0) {
			rc = cli_fail();
			goto out;
		}
		any = has_blob(&rs);
		rs.release(&rs);
		if (any && bmode != BLOB_BASE64 && (fmt != OUT_PARQUET || bmode == BLOB_DESCRIPTOR)) {
			if (paimon_read_builder_with_option(rb, "blob-as-descriptor", "true") < 0 ||
			    (prefixes && paimon_read_builder_with_option(rb, "blob-descriptor.allowed-prefixes", prefixes) < 0)) {
				rc = cli_fail();
				goto out;
			}
			memset(&the_blob_print, 0, sizeof the_blob_print);
			the_blob_print.mode = bmode;
			the_blob_print.warehouse = ctx->warehouse;
			the_blob_print.prefixes = prefixes;
			tio_set_blob_printer(print_blob, &the_blob_print);
		}
	}
	if (paimon_read_builder_plan(rb, &plan) < 0) {
		plan = NULL;
		rc = cli_fail();
		goto out;
	}
	nsplits = paimon_plan_split_count(plan);
	if (!(splits = calloc(nsplits + 1, sizeof *splits))) {
		rc = cli_oom();
		goto out;
	}
	for (i = 0; i < nsplits; i++)
		splits[i] = paimon_plan_split(plan, i);
	if (paimon_read_builder_read(rb, splits, nsplits, &stream) < 0) {
		memset(&stream, 0, sizeof stream);
		rc = cli_fail();
		goto out;
	}
	if (fmt == OUT_PARQUET) {
		if (paimon_parquet_write_stream(out_arg, &stream, NULL) < 0)
			rc = cli_fail();
		else
			rc = CLI_EXIT_OK;
		goto out;
	}
	if (stream.get_schema(&stream, &s) != 0) {
		const char *m = stream.get_last_error ? stream.get_last_error(&stream) : NULL;
		memset(&s, 0, sizeof s);
		rc = cli_error("%s", m && *m ? m : "cannot read the schema of the scan");
		goto out;
	}
	if (out_arg && strcmp(out_arg, "-") != 0) {
		if (!(o.f = fopen(out_arg, "w"))) {
			rc = cli_error("cannot create %s: %s", out_arg, strerror(errno));
			goto out;
		}
		out_opened = 1;
	} else {
		o.f = stdout;
	}
	if ((rc = emit_header(&o, &s)) != CLI_CONTINUE)
		goto out;
	for (;;) {
		struct ArrowArray a;
		memset(&a, 0, sizeof a);
		if (stream.get_next(&stream, &a) != 0) {
			const char *m = stream.get_last_error ? stream.get_last_error(&stream) : NULL;
			rc = cli_error("%s", m && *m ? m : "reading the table failed");
			goto out;
		}
		if (!a.release)
			break;
		rc = emit_batch(&o, &s, &a);
		a.release(&a);
		if (rc != CLI_CONTINUE)
			goto out;
	}
	if (fmt == OUT_TABLE)
		view_print(&o.v, o.f, o.f == stdout && cli_color());
	stream_ok = 1;
	rc = CLI_EXIT_OK;
out:
	tio_set_blob_printer(NULL, NULL);
	if (out_opened) {
		if (fclose(o.f) != 0 && rc == CLI_EXIT_OK)
			rc = cli_error("cannot write %s: %s", out_arg, strerror(errno));
		if (!stream_ok || rc != CLI_EXIT_OK)
			unlink(out_arg);
	}
	tio_str_dispose(&o.line);
	view_dispose(&o.v);
	if (s.release)
		s.release(&s);
	if (stream.release)
		stream.release(&stream);
	free(splits);
	if (plan)
		paimon_plan_free(plan);
	if (rb)
		paimon_read_builder_free(rb);
	if (pred)
		paimon_predicate_free(pred);
	if (t)
		paimon_table_free(t);
	cli_names_free(cols, ncols);
	return rc;
}

const cli_cmd cli_cmd_read = {
	"read", read_main,
	"DB.TABLE [--select A,B] [--where PREDICATE] [--limit N] [--snapshot ID | --tag NAME] "
	"[--format table|csv|jsonl|parquet] [--output FILE] [--blob summary|descriptor|base64]",
	"Read a table's rows (the latest snapshot, or one chosen by --snapshot or --tag).",
	"Formats: table (aligned columns, cells cut to --max-width, NULL for nulls), csv/tsv (a header row,\n"
	"an empty unquoted field for null), jsonl (one object per row), parquet (to --output FILE).\n"
	"Values are printed as 'paimonc write' reads them, so written files read back the same:\n"
	"DECIMAL, DATE, TIME and TIMESTAMP as text (JSON strings), BINARY as base64, nested values as JSON.\n"
	"BLOB values are not printed: by default each shows as '<size> bytes sha256:<first 16 hex digits>'\n"
	"(hashed from the .blob file in chunks, never loaded whole), --blob descriptor shows where it lies\n"
	"({\"uri\", \"offset\", \"length\"}; length -1: to the end of the file), --blob base64 prints the bytes\n"
	"(round-trips through 'paimonc write'). Parquet output holds the bytes (descriptors with --blob\n"
	"descriptor). 'paimonc blob get' writes one blob's bytes.\n"
	"The global --json selects jsonl.\n",
	1, 1,
};
