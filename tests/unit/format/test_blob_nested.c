/*
 * format/blob/blob_nested: ARRAY<BLOB> and MAP<K, BLOB> record payloads
 * against the bytes pypaimon 2.1.0 writes (docs/blob-layout.md §2.3), read
 * back with the .blob reader; bad rows (duplicate or null keys, null
 * elements of NOT NULL types, bad Arrow types) are refused before anything
 * is written, and the writer stays usable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "format/blob/blob_file.h"
#include "format/blob/blob_nested.h"
#include "io/fileio.h"
#include "types/datatype.h"
#include "test.h"

static void norelease(struct ArrowArray *a)
{
	a->release = NULL;
}

/* A large-binary array over (data, offsets, validity). */
static void bin_array(struct ArrowArray *a, const void **bufs, int64_t n, int64_t nulls)
{
	memset(a, 0, sizeof *a);
	a->length = n;
	a->null_count = nulls;
	a->n_buffers = 3;
	a->buffers = bufs;
	a->release = norelease;
}

static pm_type *parse(const char *s)
{
	pm_type *t = NULL;
	if (pm_type_parse(s, &t))
		abort();
	return t;
}

/* Writes row k of (a, s) as type text t; the payload of that record. */
static int write_one(const char *t_text, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t k,
		     pm_buf *payload)
{
	char dir[] = "/tmp/pm-nested-XXXXXX", path[64];
	pm_fileio *io = NULL;
	pm_blob_writer *w = NULL;
	pm_blob_reader *r = NULL;
	pm_type *t = parse(t_text);
	int rc;
	if (!mkdtemp(dir) || pm_fileio_local_new(&io))
		abort();
	snprintf(path, sizeof path, "%s/x.blob", dir);
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	rc = pm_blob_nested_check_arrow(t, s, "c");
	if (!rc)
		rc = pm_blob_nested_write(w, t, s, a, k, io, "c", k, NULL);
	if (rc) {
		/* nothing written: the writer takes a null and closes */
		CHECK(pm_blob_writer_position(w) == 0);
		CHECK_OK(pm_blob_writer_add_null(w));
	}
	CHECK_OK(pm_blob_writer_close(w, NULL));
	CHECK_OK(pm_blob_reader_open(io, path, NULL, &r));
	if (!rc)
		CHECK_OK(pm_blob_reader_read(r, 0, payload));
	pm_blob_reader_close(r);
	pm_fileio_remove_all(io, dir);
	pm_fileio_close(io);
	pm_type_free(t);
	return rc;
}

static void test_array(void)
{
	/* [b"ab", null, b""] and [] */
	static const int64_t eoff[] = {0, 2, 2, 2};
	static const uint8_t evalid[] = {0x05};
	static const int32_t loff[] = {0, 3, 3};
	static const uint8_t want[] = {0x42, 0x43, 0x42, 0x41, 0x01, 0x03, 0, 0, 0, 'a', 'b', 0x04, 0x05, 0x02,
				       0x03, 0, 0, 0};
	static const uint8_t want_empty[] = {0x42, 0x43, 0x42, 0x41, 0x01, 0, 0, 0, 0, 0, 0, 0, 0};
	const void *ebufs[3] = {evalid, eoff, "ab"}, *lbufs[2] = {NULL, loff};
	struct ArrowArray e, l, *lch[1] = {&e};
	struct ArrowSchema es = {0}, ls = {0}, *lsch[1] = {&es};
	pm_buf p = PM_BUF_INIT;
	bin_array(&e, ebufs, 3, 1);
	memset(&l, 0, sizeof l);
	l.length = 2;
	l.n_buffers = 2;
	l.buffers = lbufs;
	l.n_children = 1;
	l.children = lch;
	l.release = norelease;
	es.format = "Z";
	ls.format = "+l";
	ls.n_children = 1;
	ls.children = lsch;
	CHECK_OK(write_one("ARRAY<BLOB>", &ls, &l, 0, &p));
	CHECK(p.len == sizeof want && !memcmp(p.data, want, sizeof want));
	p.len = 0;
	CHECK_OK(write_one("ARRAY<BLOB>", &ls, &l, 1, &p));
	CHECK(p.len == sizeof want_empty && !memcmp(p.data, want_empty, sizeof want_empty));
	/* a null element of ARRAY<BLOB NOT NULL> */
	CHECK_RC(write_one("ARRAY<BLOB NOT NULL>", &ls, &l, 0, &p), PAIMON_EINVAL);
	CHECK_MSG("does not allow null elements");
	/* not a list of binaries */
	es.format = "u";
	CHECK_RC(write_one("ARRAY<BLOB>", &ls, &l, 0, &p), PAIMON_EINVAL);
	pm_buf_dispose(&p);
}

static void test_map(void)
{
	/* {1: b"ab", 2: null}; then {1: .., 1: ..} */
	static const int32_t keys[] = {1, 2, 1, 1};
	static const int64_t voff[] = {0, 2, 2, 3, 4};
	static const uint8_t vvalid[] = {0x0d};
	static const int32_t moff[] = {0, 2, 4};
	static const uint8_t want[] = {0x42, 0x43, 0x42, 0x4d, 0x01, 0x02, 0, 0, 0, 0x01, 0, 0, 0, 0x02, 0, 0, 0,
				       'a', 'b', 0x08, 0x00, 0x04, 0x05, 0x02, 0, 0, 0, 0x02, 0, 0, 0};
	const void *kbufs[2] = {NULL, keys}, *vbufs[3] = {vvalid, voff, "abxy"}, *ebufs[1] = {NULL},
		   *mbufs[2] = {NULL, moff};
	struct ArrowArray k, v, ent, m, *ech[2] = {&k, &v}, *mch[1] = {&ent};
	struct ArrowSchema ks = {0}, vs = {0}, es = {0}, ms = {0}, *esch[2] = {&ks, &vs}, *msch[1] = {&es};
	pm_buf p = PM_BUF_INIT;
	memset(&k, 0, sizeof k);
	k.length = 4;
	k.n_buffers = 2;
	k.buffers = kbufs;
	k.release = norelease;
	bin_array(&v, vbufs, 4, 1);
	memset(&ent, 0, sizeof ent);
	ent.length = 4;
	ent.n_buffers = 1;
	ent.buffers = ebufs;
	ent.n_children = 2;
	ent.children = ech;
	ent.release = norelease;
	memset(&m, 0, sizeof m);
	m.length = 2;
	m.n_buffers = 2;
	m.buffers = mbufs;
	m.n_children = 1;
	m.children = mch;
	m.release = norelease;
	ks.format = "i";
	vs.format = "Z";
	es.format = "+s";
	es.n_children = 2;
	es.children = esch;
	ms.format = "+m";
	ms.n_children = 1;
	ms.children = msch;
	CHECK_OK(write_one("MAP<INT NOT NULL, BLOB>", &ms, &m, 0, &p));
	CHECK(p.len == sizeof want && !memcmp(p.data, want, sizeof want));
	CHECK_RC(write_one("MAP<INT NOT NULL, BLOB>", &ms, &m, 1, &p), PAIMON_EINVAL);
	CHECK_MSG("keys must be unique");
	/* the key's Arrow type must fit the key type */
	CHECK_RC(write_one("MAP<BIGINT NOT NULL, BLOB>", &ms, &m, 0, &p), PAIMON_EINVAL);
	CHECK_RC(write_one("MAP<DOUBLE NOT NULL, BLOB>", &ms, &m, 0, &p), PAIMON_EUNSUPPORTED);
	pm_buf_dispose(&p);
}

TEST_MAIN(T(test_array), T(test_map))
