/*
 * cmd_blob.c - `paimonc blob get DB.TABLE --row-id N`: the bytes of one
 * BLOB value, streamed to standard output or a file with bounded memory.
 *
 * The row is read alone (row range [N, N]) with the read option
 * blob-as-descriptor=true, so the library hands over the serialized
 * BlobDescriptor of the value instead of its bytes; the CLI decodes it
 * (blobio.h) and copies the referenced range of the local file in 1 MiB
 * chunks. When nothing comes back, the snapshot's row-id groups tell a
 * deleted row (its id lies in a group) from a row that never existed.
 */
#include "cli.h"
#include "blobio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Value k of a binary ("z") or large binary ("Z") array. */
static void bin_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t k, const uint8_t **p,
		      size_t *n)
{
	if (s->format[0] == 'Z') {
		const int64_t *off = a->buffers[1];
		*p = (const uint8_t *)a->buffers[2] + off[k];
		*n = (size_t)(off[k + 1] - off[k]);
	} else {
		const int32_t *off = a->buffers[1];
		*p = (const uint8_t *)a->buffers[2] + off[k];
		*n = (size_t)(off[k + 1] - off[k]);
	}
}

static int is_valid(const struct ArrowArray *a, int64_t k)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	return a->null_count == 0 || !v || (v[k >> 3] >> (k & 7) & 1);
}

static int has_nested_blob(const struct ArrowSchema *s)
{
	int64_t i;
	for (i = 0; i < s->n_children; i++)
		if (!strcmp(s->children[i]->format, "Z") || has_nested_blob(s->children[i]))
			return 1;
	return 0;
}

/* The BLOB column to read: --column, else the only one. */
static int pick_column(const char *ident, const struct ArrowSchema *rs, const char *want, const char **out)
{
	int64_t i, nblob = 0;
	char list[1024] = "";
	size_t used = 0;
	for (i = 0; i < rs->n_children; i++) {
		const struct ArrowSchema *f = rs->children[i];
		if (strcmp(f->format, "Z") != 0)
			continue;
		nblob++;
		if (used < sizeof list)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", nblob > 1 ? ", " : "", f->name);
		if (!want)
			*out = f->name;
	}
	if (want) {
		for (i = 0; i < rs->n_children; i++) {
			const struct ArrowSchema *f = rs->children[i];
			char *type = NULL;
			int rc;
			if (strcmp(f->name, want) != 0)
				continue;
			if (!strcmp(f->format, "Z")) {
				*out = f->name;
				return CLI_CONTINUE;
			}
			if (paimon_type_from_arrow(f, &type) < 0)
				type = NULL;
			rc = cli_error("column '%s' of table %s is not a BLOB column (it is %s)%s%s", want, ident,
				       type ? type : f->format, nblob ? "; BLOB columns: " : "", nblob ? list : "");
			paimon_free(type);
			return rc;
		}
		return cli_error("table %s has no column '%s'%s%s", ident, want, nblob ? "; BLOB columns: " : "",
				 nblob ? list : "");
	}
	if (nblob == 0) {
		/* nested BLOBs (ARRAY<BLOB>, MAP<K, BLOB>) are read as bytes
		 * by the library, never as descriptors: not served here */
		used = 0;
		for (i = 0; i < rs->n_children; i++)
			if (has_nested_blob(rs->children[i]) && used < sizeof list)
				used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
							 rs->children[i]->name);
		if (used)
			return cli_error("table %s has no BLOB column, only nested BLOB values (in %s), which 'blob get' "
					 "does not read (see 'paimonc read')", ident, list);
		return cli_error("table %s has no BLOB column", ident);
	}
	if (nblob > 1)
		return cli_error("table %s has %" PRId64 " BLOB columns (%s): choose one with --column", ident, nblob,
				 list);
	return CLI_CONTINUE;
}

/* No row came back: deleted (its id lies in a row-id group of the
 * snapshot) or absent. */
static int explain_missing(paimon_table *t, const char *ident, int64_t snap, int64_t row)
{
	paimon_row_id_plan *p = NULL;
	size_t i, n;
	int64_t lo = -1, hi = -1;
	int rc;
	if (paimon_table_list_data_files(t, snap > 0 ? snap : -1, &p) < 0)
		return cli_fail();
	if (paimon_row_id_plan_snapshot_id(p) < 0) {
		paimon_row_id_plan_free(p);
		return cli_error("table %s has no row %" PRId64 ": the table has no snapshot", ident, row);
	}
	n = paimon_row_id_plan_group_count(p);
	for (i = 0; i < n; i++) {
		int64_t from, to;
		if (paimon_row_id_plan_group(p, i, &from, &to, NULL, NULL) < 0)
			continue;
		if (row >= from && row <= to) {
			rc = cli_error("row %" PRId64 " of table %s (snapshot %" PRId64 ") is deleted", row, ident,
				       paimon_row_id_plan_snapshot_id(p));
			paimon_row_id_plan_free(p);
			return rc;
		}
		if (lo < 0 || from < lo)
			lo = from;
		if (to > hi)
			hi = to;
	}
	if (lo >= 0)
		rc = cli_error("table %s has no row %" PRId64 " (snapshot %" PRId64 " has row ids %" PRId64 "..%" PRId64 ")",
			       ident, row, paimon_row_id_plan_snapshot_id(p), lo, hi);
	else
		rc = cli_error("table %s has no row %" PRId64 " (snapshot %" PRId64 " has no rows)", ident, row,
			       paimon_row_id_plan_snapshot_id(p));
	paimon_row_id_plan_free(p);
	return rc;
}

/* Writes the value (a descriptor, or plain bytes) to out_arg or stdout. */
static int emit_value(cli_ctx *ctx, const char *ident, const char *col, int64_t row, const uint8_t *p, size_t n,
		      const char *out_arg, const char *prefixes)
{
	char err[1024];
	cli_blob_desc d;
	cli_blob_range r = {-1, 0, 0};
	char *path = NULL;
	FILE *f = stdout;
	const char *outname = "standard output";
	int rc, to_file = out_arg && strcmp(out_arg, "-") != 0, plain = !cli_blob_is_desc(p, n);

	memset(&d, 0, sizeof d);
	if (!plain) {
		if ((rc = cli_blob_desc_decode(p, n, &d, err, sizeof err)) < 0)
			return rc == -2 ? cli_oom()
					: cli_error("row %" PRId64 " of table %s, column '%s': %s", row, ident, col, err);
		if (!(path = cli_blob_local_file(d.uri, ctx->warehouse, prefixes, err, sizeof err))) {
			cli_blob_desc_dispose(&d);
			return err[0] ? cli_error("row %" PRId64 " of table %s, column '%s': %s", row, ident, col, err)
				      : cli_oom();
		}
		if (cli_blob_range_open(&d, path, &r, err, sizeof err) < 0) {
			rc = cli_error("row %" PRId64 " of table %s, column '%s': %s", row, ident, col, err);
			goto out;
		}
	}
	if (to_file) {
		if (!(f = fopen(out_arg, "wb"))) {
			rc = cli_error("cannot create %s: %s", out_arg, strerror(errno));
			goto out;
		}
		outname = out_arg;
	}
	if (plain) {
		rc = n && fwrite(p, 1, n, f) != n ? cli_error("writing %s: %s", outname, strerror(errno)) : CLI_EXIT_OK;
	} else {
		rc = cli_blob_range_copy(&r, path, f, outname, err, sizeof err) < 0
			     ? cli_error("row %" PRId64 " of table %s, column '%s': %s", row, ident, col, err)
			     : CLI_EXIT_OK;
	}
	if (to_file) {
		if (fclose(f) != 0 && rc == CLI_EXIT_OK)
			rc = cli_error("writing %s: %s", out_arg, strerror(errno));
		if (rc != CLI_EXIT_OK)
			unlink(out_arg);
	}
out:
	cli_blob_range_close(&r);
	free(path);
	cli_blob_desc_dispose(&d);
	return rc;
}

static int blob_get(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *row_arg = NULL, *col_arg = NULL, *snap_arg = NULL, *out_arg = NULL, *prefixes = NULL;
	const char *col = NULL;
	size_t npos, i, nsplits, one = 1;
	int64_t row = -1, snap = 0, pairs[2], seen = 0;
	int rc;
	paimon_table *t = NULL;
	paimon_read_builder *rb = NULL;
	paimon_plan *plan = NULL;
	const paimon_split **splits = NULL;
	struct ArrowArrayStream stream;
	struct ArrowSchema rs, s;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 'r', "row-id", "N", "the row's _ROW_ID (required)", &row_arg, 0},
		{CLI_OPT_VALUE, 'c', "column", "C", "the BLOB column (default: the table's only BLOB column)", &col_arg, 0},
		{CLI_OPT_VALUE, 0, "snapshot", "ID", "read this snapshot (time travel)", &snap_arg, 0},
		{CLI_OPT_VALUE, 'o', "output", "FILE", "write to FILE instead of standard output", &out_arg, 0},
		{CLI_OPT_VALUE, 0, "allowed-prefixes", "DIR,...",
		 "also read blobs whose descriptors point under these directories (default: the warehouse only)",
		 &prefixes, 0},
		{0},
	};

	memset(&stream, 0, sizeof stream);
	memset(&rs, 0, sizeof rs);
	memset(&s, 0, sizeof s);
	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if (!row_arg)
		return cli_usage_error(ctx, "--row-id N is required");
	if (cli_parse_i64(row_arg, &row) < 0 || row < 0)
		return cli_usage_error(ctx, "invalid --row-id '%s': expected a number >= 0", row_arg);
	if (snap_arg && (cli_parse_i64(snap_arg, &snap) < 0 || snap <= 0))
		return cli_usage_error(ctx, "invalid --snapshot '%s': expected an id >= 1", snap_arg);
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	if (paimon_read_builder_new(&rb, t) < 0) {
		rb = NULL;
		rc = cli_fail();
		goto out;
	}
	if ((snap_arg && paimon_read_builder_with_option(rb, "scan.snapshot-id", snap_arg) < 0) ||
	    (prefixes && paimon_read_builder_with_option(rb, "blob-descriptor.allowed-prefixes", prefixes) < 0) ||
	    paimon_read_builder_read_schema(rb, &rs) < 0) {
		memset(&rs, 0, sizeof rs);
		rc = cli_fail();
		goto out;
	}
	if ((rc = pick_column(pos[0], &rs, col_arg, &col)) != CLI_CONTINUE)
		goto out;
	{
		const char *rt = paimon_schema_option(paimon_table_schema(t), "row-tracking.enabled");
		if (!rt || strcmp(rt, "true") != 0) {
			rc = cli_error("table %s has no row tracking ('row-tracking.enabled'): its rows have no _ROW_ID",
				       pos[0]);
			goto out;
		}
	}
	pairs[0] = pairs[1] = row;
	if (paimon_read_builder_with_projection(rb, &col, one) < 0 ||
	    paimon_read_builder_with_row_ranges(rb, pairs, 1) < 0 ||
	    paimon_read_builder_with_option(rb, "blob-as-descriptor", "true") < 0 ||
	    paimon_read_builder_plan(rb, &plan) < 0) {
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
	if (stream.get_schema(&stream, &s) != 0) {
		const char *m = stream.get_last_error ? stream.get_last_error(&stream) : NULL;
		memset(&s, 0, sizeof s);
		rc = cli_error("%s", m && *m ? m : "cannot read the schema of the scan");
		goto out;
	}
	rc = CLI_CONTINUE;
	for (;;) {
		struct ArrowArray a;
		const struct ArrowArray *c;
		memset(&a, 0, sizeof a);
		if (stream.get_next(&stream, &a) != 0) {
			const char *m = stream.get_last_error ? stream.get_last_error(&stream) : NULL;
			rc = cli_error("%s", m && *m ? m : "reading the table failed");
			goto out;
		}
		if (!a.release)
			break;
		if (a.length == 0) {
			a.release(&a);
			continue;
		}
		if (seen + a.length > 1 || s.n_children != 1 ||
		    (strcmp(s.children[0]->format, "Z") != 0 && strcmp(s.children[0]->format, "z") != 0)) {
			a.release(&a);
			rc = cli_error("internal: reading row %" PRId64 " of table %s gave %s", row, pos[0],
				       seen + a.length > 1 ? "several rows" : "an unexpected column");
			goto out;
		}
		seen = 1;
		c = a.children[0];
		if (!is_valid(c, c->offset + a.offset)) {
			rc = cli_error("row %" PRId64 " of table %s: column '%s' is null (no blob)", row, pos[0], col);
		} else {
			const uint8_t *p;
			size_t n;
			bin_value(s.children[0], c, c->offset + a.offset, &p, &n);
			rc = emit_value(ctx, pos[0], col, row, p, n, out_arg, prefixes);
		}
		a.release(&a);
		if (rc != CLI_EXIT_OK)
			goto out;
	}
	if (!seen)
		rc = explain_missing(t, pos[0], snap, row);
out:
	if (s.release)
		s.release(&s);
	if (rs.release)
		rs.release(&rs);
	if (stream.release)
		stream.release(&stream);
	free(splits);
	if (plan)
		paimon_plan_free(plan);
	if (rb)
		paimon_read_builder_free(rb);
	if (t)
		paimon_table_free(t);
	return rc == CLI_CONTINUE ? CLI_EXIT_OK : rc;
}

static const cli_cmd blob_cmds[] = {
	{"get", blob_get, "DB.TABLE --row-id N [--column C] [--snapshot ID] [--output FILE]",
	 "Write the bytes of one BLOB value to standard output or a file.",
	 "The row is the one whose _ROW_ID is N (see 'paimonc read --select _ROW_ID,...'); the column defaults\n"
	 "to the table's only BLOB column. The bytes are streamed from the .blob file (or, for a\n"
	 "blob-descriptor-field column, from the file its descriptor names) in 1 MiB chunks, so blobs of any\n"
	 "size need little memory. Blobs outside the warehouse are read only under --allowed-prefixes.\n"
	 "Errors, each naming the table, row and column (exit status 1; nothing is written and --output is not\n"
	 "created): no such row, a deleted row, a null value, a column that is not a BLOB, a table without\n"
	 "BLOB columns, a blob file that is missing or shorter than its descriptor says. A read failing midway\n"
	 "removes --output (standard output keeps what was written).\n",
	 1, 1},
};

const cli_group cli_group_blob = {
	"blob", "Read BLOB values", blob_cmds, sizeof blob_cmds / sizeof blob_cmds[0],
};
