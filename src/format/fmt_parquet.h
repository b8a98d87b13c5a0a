/*
 * format/fmt_parquet.h - Parquet behind the file-format interface
 * (format.h): a thin adapter over format/parquet/reader.h and writer.h.
 */
#ifndef PM_FORMAT_FMT_PARQUET_H
#define PM_FORMAT_FMT_PARQUET_H

#include "format/format.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

extern const pm_format pm_format_parquet;

/* The Parquet reader under a reader of pm_format_parquet (for callers that
 * need Parquet-only facts such as metrics); NULL for another format. */
pm_pq_reader *pm_fmt_parquet_reader(pm_format_reader *r);

#endif
