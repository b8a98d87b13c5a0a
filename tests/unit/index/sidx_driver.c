/*
 * tests/unit/index/sidx_driver.c - drives the sorted global-index code and
 * the 64-bit Roaring bitmaps from tests/interop/test_sidx_interop.py.
 * Keys travel as hex of their KeySerializer bytes ("N" = null, "E" = empty).
 *
 *   sidx_driver write <btree|bitmap> <type> <opts|-> <rows> <out>
 *       rows: lines "<row> <key>"; prints "<meta hex> <row count> <file size>"
 *   sidx_driver query <btree|bitmap> <type> <total rows> <opts|-> <spec>
 *       spec: lines "F <path> <size> <meta hex>" then "Q <op> <key>..."
 *       (op = the pm_sidx_op number); prints per Q "R <ids...>", "NULL"
 *       (cannot answer) or "ERR <code> <message>"
 *   sidx_driver rb64 <in> <out>: prints the values, re-serializes to out
 *   sidx_driver rb64w <values> <out>: serializes the listed values
 *   opts: lines "key=value"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "core/strs.h"
#include "index/rb64.h"
#include "index/sidx_internal.h"
#include "index/sorted_index.h"
#include "io/fileio.h"
#include "types/datatype.h"

static void die(const char *what)
{
	fprintf(stderr, "sidx_driver: %s: %s\n", what, paimon_error_message());
	exit(2);
}

static int read_file(const char *path, pm_buf *out)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;
	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		pm_buf_append(out, tmp, n);
	fclose(f);
	return 0;
}

static void load_opts(const char *path, pm_strmap *m)
{
	pm_buf b = PM_BUF_INIT;
	char *line, *save = NULL;
	if (strcmp(path, "-") == 0)
		return;
	if (read_file(path, &b) || !b.data)
		return;
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		pm_strmap_set(m, line, eq + 1);
	}
	pm_buf_dispose(&b);
}

static uint8_t *unhex(const char *s, size_t *n)
{
	size_t l = strlen(s), i;
	uint8_t *p;
	if (strcmp(s, "E") == 0) {
		*n = 0;
		return pm_malloc(1);
	}
	p = pm_malloc(l / 2 + 1);
	for (i = 0; i < l / 2; i++)
		p[i] = (uint8_t)(pm_hexval(s[2 * i]) << 4 | pm_hexval(s[2 * i + 1]));
	*n = l / 2;
	return p;
}

static void hex(const uint8_t *p, size_t n)
{
	size_t i;
	if (!n)
		printf("E");
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/* key text -> datum; *owned keeps the bytes alive. */
static void parse_key(const pm_type *t, const char *s, pm_binrow_datum *d, uint8_t **owned)
{
	size_t n;
	memset(d, 0, sizeof *d);
	*owned = NULL;
	if (strcmp(s, "N") == 0) {
		d->is_null = 1;
		return;
	}
	*owned = unhex(s, &n);
	if (pm_sidx_key_decode(t, *owned, n, "key", d))
		die("key");
}

static pm_sidx_kind kind_of(const char *s)
{
	int k = pm_sidx_kind_from_name(s);
	if (k < 0) {
		fprintf(stderr, "bad kind %s\n", s);
		exit(2);
	}
	return (pm_sidx_kind)k;
}

static int cmd_write(char **argv)
{
	pm_sidx_kind kind = kind_of(argv[0]);
	pm_type *t = NULL;
	pm_strmap opts;
	pm_buf rows = PM_BUF_INIT, meta = PM_BUF_INIT;
	pm_fileio *io = NULL;
	pm_out_stream *out = NULL;
	pm_sidx_writer *w = NULL;
	char *line, *save = NULL;
	int64_t rc_rows = 0, size = 0;
	memset(&opts, 0, sizeof opts);
	if (pm_type_parse(argv[1], &t))
		die("type");
	load_opts(argv[2], &opts);
	if (read_file(argv[3], &rows))
		die("rows");
	if (pm_fileio_local_new(&io) || pm_fileio_open_write(io, argv[4], &out))
		die("open");
	if (pm_sidx_writer_new(kind, t, &opts, out, argv[4], &w))
		die("writer");
	for (line = rows.data ? strtok_r(rows.data, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		pm_binrow_datum d;
		uint8_t *owned;
		if (!sp)
			continue;
		*sp = 0;
		parse_key(t, sp + 1, &d, &owned);
		if (pm_sidx_writer_add(w, &d, atoll(line)))
			die("add");
		pm_free(owned);
	}
	if (pm_sidx_writer_finish(w, &meta, &rc_rows, &size))
		die("finish");
	if (pm_out_close(out))
		die("close");
	hex((const uint8_t *)meta.data, meta.len);
	printf(" %lld %lld\n", (long long)rc_rows, (long long)size);
	pm_sidx_writer_free(w);
	pm_buf_dispose(&meta);
	pm_buf_dispose(&rows);
	pm_strmap_dispose(&opts);
	pm_type_free(t);
	pm_fileio_close(io);
	return 0;
}

static int print_ids(void *ctx, uint64_t v)
{
	(void)ctx;
	printf(" %llu", (unsigned long long)v);
	return 0;
}

static int cmd_query(char **argv)
{
	pm_sidx_kind kind = kind_of(argv[0]);
	pm_type *t = NULL;
	pm_strmap opts;
	pm_buf spec = PM_BUF_INIT;
	pm_fileio *io = NULL;
	pm_sidx_file files[64];
	uint8_t *metas[64];
	size_t nf = 0, i;
	pm_sidx_reader *r = NULL;
	char *line, *save = NULL;
	char *lines[4096];
	size_t nl = 0;
	memset(&opts, 0, sizeof opts);
	if (pm_type_parse(argv[1], &t))
		die("type");
	load_opts(argv[3], &opts);
	if (read_file(argv[4], &spec))
		die("spec");
	if (pm_fileio_local_new(&io))
		die("io");
	for (line = spec.data ? strtok_r(spec.data, "\n", &save) : NULL; line && nl < 4096;
	     line = strtok_r(NULL, "\n", &save))
		lines[nl++] = line;
	for (i = 0; i < nl; i++) {
		if (lines[i][0] == 'F' && nf < 64) {
			char *p = lines[i] + 2, *s1 = strchr(p, ' '), *s2;
			size_t ml;
			*s1 = 0;
			s2 = strchr(s1 + 1, ' ');
			*s2 = 0;
			files[nf].path = p;
			files[nf].size = atoll(s1 + 1);
			metas[nf] = unhex(s2 + 1, &ml);
			files[nf].meta = metas[nf];
			files[nf].meta_len = ml;
			nf++;
		}
	}
	if (pm_sidx_reader_open(kind, io, files, nf, t, atoll(argv[2]), &opts, &r))
		die("open reader");
	for (i = 0; i < nl; i++) {
		pm_binrow_datum lits[64];
		uint8_t *owned[64];
		size_t n = 0, j;
		char *tok, *s2 = NULL;
		int op, rc;
		pm_rb64 *res = NULL;
		if (lines[i][0] != 'Q')
			continue;
		tok = strtok_r(lines[i] + 2, " ", &s2);
		op = atoi(tok);
		while ((tok = strtok_r(NULL, " ", &s2)) && n < 64) {
			parse_key(t, tok, &lits[n], &owned[n]);
			n++;
		}
		rc = pm_sidx_query(r, (pm_sidx_op)op, lits, n, &res);
		if (rc)
			printf("ERR %d %s\n", rc, paimon_error_message());
		else if (!res)
			printf("NULL\n");
		else {
			printf("R");
			pm_rb64_foreach(res, print_ids, NULL);
			printf("\n");
		}
		pm_rb64_free(res);
		for (j = 0; j < n; j++)
			pm_free(owned[j]);
	}
	pm_sidx_reader_free(r);
	for (i = 0; i < nf; i++)
		pm_free(metas[i]);
	pm_buf_dispose(&spec);
	pm_strmap_dispose(&opts);
	pm_type_free(t);
	pm_fileio_close(io);
	return 0;
}

static int write_out(const char *path, pm_rb64 *b)
{
	pm_buf s = PM_BUF_INIT;
	FILE *f;
	if (pm_rb64_serialize(b, &s))
		die("serialize");
	if (!(f = fopen(path, "wb")))
		return 2;
	if (s.len)
		fwrite(s.data, 1, s.len, f);
	fclose(f);
	pm_buf_dispose(&s);
	return 0;
}

static int cmd_rb64(char **argv)
{
	pm_buf in = PM_BUF_INIT;
	pm_rb64 *b = NULL;
	size_t used = 0;
	int rc;
	if (read_file(argv[0], &in))
		die("read");
	if (pm_rb64_deserialize(in.data ? in.data : "", in.len, argv[0], &b, &used))
		die("deserialize");
	printf("%zu", used);
	pm_rb64_foreach(b, print_ids, NULL);
	printf("\n");
	rc = write_out(argv[1], b);
	pm_rb64_free(b);
	pm_buf_dispose(&in);
	return rc;
}

static int cmd_rb64w(char **argv)
{
	pm_buf in = PM_BUF_INIT;
	pm_rb64 *b = NULL;
	char *tok, *save = NULL;
	int rc;
	if (read_file(argv[0], &in) || pm_rb64_new(&b))
		die("read");
	for (tok = in.data ? strtok_r(in.data, " \n", &save) : NULL; tok; tok = strtok_r(NULL, " \n", &save))
		if (pm_rb64_add(b, strtoull(tok, NULL, 10)))
			die("add");
	rc = write_out(argv[1], b);
	pm_rb64_free(b);
	pm_buf_dispose(&in);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 7 && strcmp(argv[1], "write") == 0)
		return cmd_write(argv + 2);
	if (argc >= 7 && strcmp(argv[1], "query") == 0)
		return cmd_query(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "rb64") == 0)
		return cmd_rb64(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "rb64w") == 0)
		return cmd_rb64w(argv + 2);
	fprintf(stderr, "usage: see tests/unit/index/sidx_driver.c\n");
	return 2;
}
