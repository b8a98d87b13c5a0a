/*
 * tests/interop/ftindex_driver.c - a command-line face of the full-text
 * binding (index/ftindex.h) for tests/interop/test_ftindex_interop.py:
 *
 *   ftindex_driver write OUT DOCS [key=value ...]
 *       DOCS: one document per line, "<relative row id>\t<text>" (text
 *       with \n, \t and \\ escaped as those two characters), or
 *       "<id>\t\N" for a null value; options passed to the engine
 *   ftindex_driver search INDEX LIMIT QUERYFILE [FILTERFILE]
 *       QUERYFILE holds the query text; FILTERFILE portable Roaring64 bytes
 *       (read into a pm_rb64); prints {"ids":[...],"scores":[...]} with
 *       scores as exact float32 values (%.9g)
 *
 * Exit 0, or 1 with "error <code name>: <message>" on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/strs.h"
#include "index/ftindex.h"
#include "index/rb64.h"
#include "io/fileio.h"

static int die(int rc)
{
	fprintf(stderr, "error %s: %s\n", paimon_error_name(rc), paimon_error_message());
	return 1;
}

static int unescape(char *s, size_t *len)
{
	size_t i, o = 0, n = strlen(s);
	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			char c = s[++i];
			s[o++] = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		} else {
			s[o++] = s[i];
		}
	}
	*len = o;
	return 0;
}

static int cmd_write(pm_fileio *io, int argc, char **argv)
{
	pm_strmap opts = {0};
	pm_ft_writer *w = NULL;
	pm_out_stream *out = NULL;
	pm_buf docs = PM_BUF_INIT;
	char *line, *save = NULL;
	int64_t size = 0;
	int i, rc;
	for (i = 4; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			return die(pm_err(PAIMON_EINVAL, "option '%s' is not key=value", argv[i]));
		*eq = '\0';
		if ((rc = pm_strmap_set(&opts, argv[i], eq + 1)))
			return die(rc);
	}
	if ((rc = pm_fileio_read_all(io, argv[3], &docs)) || (rc = pm_ft_writer_new(&opts, &w)))
		return die(rc);
	for (line = strtok_r(docs.data ? docs.data : (char *)"", "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');
		size_t len;
		if (!tab)
			return die(pm_err(PAIMON_EINVAL, "document line without a tab: %s", line));
		*tab = '\0';
		if (!strcmp(tab + 1, "\\N")) {
			rc = pm_ft_writer_add(w, atoll(line), NULL, 0);
		} else {
			unescape(tab + 1, &len);
			rc = pm_ft_writer_add(w, atoll(line), tab + 1, len);
		}
		if (rc)
			return die(rc);
	}
	if ((rc = pm_fileio_open_write(io, argv[2], &out)))
		return die(rc);
	if ((rc = pm_ft_writer_finish(w, out, argv[2], &size))) {
		pm_out_abort(out);
		return die(rc);
	}
	if ((rc = pm_out_close(out)))
		return die(rc);
	printf("{\"size\":%lld}\n", (long long)size);
	pm_ft_writer_free(w);
	pm_strmap_dispose(&opts);
	pm_buf_dispose(&docs);
	return 0;
}

static int cmd_search(pm_fileio *io, int argc, char **argv)
{
	pm_ft_reader *r = NULL;
	pm_rb64 *filter = NULL;
	pm_buf q = PM_BUF_INIT, fb = PM_BUF_INIT;
	pm_file_status st;
	int64_t *ids = NULL;
	float *scores = NULL;
	size_t n = 0, i;
	int rc;
	if (argc < 5)
		return die(pm_err(PAIMON_EINVAL, "search INDEX LIMIT QUERYFILE [FILTERFILE]"));
	memset(&st, 0, sizeof st);
	if ((rc = pm_fileio_stat(io, argv[2], &st)) || (rc = pm_fileio_read_all(io, argv[4], &q)))
		return die(rc);
	if (argc > 5 && ((rc = pm_fileio_read_all(io, argv[5], &fb)) ||
			 (rc = pm_rb64_deserialize(fb.data ? fb.data : "", fb.len, argv[5], &filter, NULL))))
		return die(rc);
	if ((rc = pm_ft_reader_open(io, argv[2], (int64_t)st.size, &r)))
		return die(rc);
	if ((rc = pm_ft_search(r, pm_buf_cstr(&q), atoi(argv[3]), filter, &ids, &scores, &n)))
		return die(rc);
	printf("{\"ids\":[");
	for (i = 0; i < n; i++)
		printf("%s%lld", i ? "," : "", (long long)ids[i]);
	printf("],\"scores\":[");
	for (i = 0; i < n; i++)
		printf("%s%.9g", i ? "," : "", (double)scores[i]);
	printf("]}\n");
	pm_free(ids);
	pm_free(scores);
	pm_ft_reader_free(r);
	pm_rb64_free(filter);
	pm_buf_dispose(&q);
	pm_buf_dispose(&fb);
	return 0;
}

int main(int argc, char **argv)
{
	pm_fileio *io = NULL;
	int rc;
	if (argc < 4)
		return die(pm_err(PAIMON_EINVAL, "usage: ftindex_driver write|search ..."));
	if ((rc = pm_fileio_local_new(&io)))
		return die(rc);
	if (!strcmp(argv[1], "write"))
		rc = cmd_write(io, argc, argv);
	else if (!strcmp(argv[1], "search"))
		rc = cmd_search(io, argc, argv);
	else
		rc = die(pm_err(PAIMON_EINVAL, "unknown command '%s'", argv[1]));
	pm_fileio_close(io);
	return rc;
}
