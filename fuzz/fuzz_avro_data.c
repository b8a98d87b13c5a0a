/*
 * fuzz/fuzz_avro_data.c - feeds arbitrary bytes to the Avro data-file
 * reader (format/avro/avro_data.h), the path `file.format=avro` and
 * `.vector.avro` files take: once typed from the Avro schema alone, once
 * with Paimon fields of every type the reader maps (matched by name, so a
 * file naming its columns like them meets the typed decoders), and once
 * with a row range and a projection.
 *
 * Invariants: every batch is a struct of the schema's column count whose
 * children have the batch's length; the rows add up to num_rows when the
 * read ends without error. Errors are fine; crashes, leaks and hangs are
 * findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro_data.h"
#include "types/datatype.h"

#define PAIMON_ROW \
	"ROW<b BOOLEAN, ti TINYINT, si SMALLINT NOT NULL, i INT, l BIGINT, f FLOAT, d DOUBLE, s STRING, y BYTES, " \
	"dec DECIMAL(20, 2), dt DATE, tm TIME(0), ts0 TIMESTAMP(0), ts6 TIMESTAMP(6), " \
	"ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, arr ARRAY<INT>, vec VECTOR<FLOAT, 3>, ms MAP<STRING, BIGINT>, " \
	"mi MAP<INT NOT NULL, STRING>, row ROW<x INT, y STRING NOT NULL, z INT>, bl BLOB>"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static void run(const uint8_t *data, size_t size, const pm_avro_data_options *o)
{
	pm_avro_data_reader *r = NULL;
	struct ArrowSchema s;
	struct ArrowArray b;
	int64_t rows = 0;
	int eof = 0, n = 0, rc = 0;
	if (pm_avro_data_reader_open_mem(data, size, "fuzz.avro", o, &r))
		return;
	if (pm_avro_data_reader_schema(r, &s)) {
		pm_avro_data_reader_free(r);
		return;
	}
	while (n++ < 100000 && !(rc = pm_avro_data_reader_next(r, &b, &eof)) && !eof) {
		int64_t i;
		if (b.n_children != s.n_children)
			fail("batch children differ from the schema");
		for (i = 0; i < b.n_children; i++)
			if (b.children[i]->length != b.length)
				fail("column length differs from the batch length");
		rows += b.length;
		b.release(&b);
	}
	if (!rc && eof && rows != pm_avro_data_reader_num_rows(r))
		fail("rows read differ from num_rows");
	s.release(&s);
	pm_avro_data_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static pm_type *row;
	pm_avro_data_options o;
	const int64_t ranges[] = {1, 3, 7, 100};
	const char *cols[] = {"si", "vec"};
	if (!row && pm_type_parse(PAIMON_ROW, &row))
		abort();
	memset(&o, 0, sizeof o);
	o.batch_rows = 5;
	run(data, size, &o);
	o.fields = row->fields;
	o.n_fields = row->nfields;
	run(data, size, &o);
	o.row_ranges = ranges;
	o.n_row_ranges = 2;
	o.columns = cols;
	o.n_columns = 2;
	run(data, size, &o);
	return 0;
}
