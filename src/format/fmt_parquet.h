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

#endif
