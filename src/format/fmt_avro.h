/*
 * format/fmt_avro.h - Avro data files behind the file-format interface
 * (format.h): an adapter over format/avro/avro_data.h.
 */
#ifndef PM_FORMAT_FMT_AVRO_H
#define PM_FORMAT_FMT_AVRO_H

#include "format/format.h"

extern const pm_format pm_format_avro;

#endif
