/*
 * format/fmt_vortex.h - Vortex files (`.vortex`; in tables the
 * `.vector.vortex` vector-store files of `vector.file.format=vortex`)
 * behind the file-format interface, through the optional shim library of
 * format/vortex/vx.h. Without the shim every open fails with
 * PAIMON_EUNSUPPORTED saying how to install it.
 *
 * Vortex files carry no Paimon statistics: stats() gives the row count
 * only (the vector-store files' value stats are empty in both peers).
 * Reading ignores batch_rows, the filter and threads (one batch per Vortex
 * chunk); columns and row ranges are honoured.
 */
#ifndef PM_FORMAT_FMT_VORTEX_H
#define PM_FORMAT_FMT_VORTEX_H

#include "format/format.h"

extern const pm_format pm_format_vortex;

#endif
