/*
 * format/format.c - the registry of file formats (see format.h).
 */
#include "format/format.h"

#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "format/fmt_avro.h"
#include "format/fmt_parquet.h"
#include "format/fmt_vortex.h"

static const pm_format *const formats[] = {
	&pm_format_parquet,
	&pm_format_avro,
	&pm_format_vortex, /* through the optional shim (format/vortex/vx.h) */
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

/* Names Java Paimon knows that we do not read or write. */
static const char *const known_unsupported[] = { "orc", "csv", "json", "lance" };

int pm_format_by_name(const char *name, const pm_format **out)
{
	size_t i;
	*out = NULL;
	if (!name || !*name)
		return pm_err(PAIMON_EINVAL, "file.format is empty");
	for (i = 0; i < N_FORMATS; i++)
		if (!strcasecmp(formats[i]->name, name)) {
			*out = formats[i];
			return 0;
		}
	return pm_err(PAIMON_EUNSUPPORTED, "unsupported file format '%s' (paimonc reads and writes parquet, and vortex "
		      "with the optional vortex support installed)", name);
}

int pm_format_for_file(const char *file_name, const pm_format **out)
{
	const char *dot, *base;
	size_t i;
	*out = NULL;
	base = strrchr(file_name, '/');
	base = base ? base + 1 : file_name;
	for (i = 0; i < N_FORMATS; i++) {
		size_t n = strlen(base), m = strlen(formats[i]->extension);
		if (n > m && !strcasecmp(base + n - m, formats[i]->extension)) {
			*out = formats[i];
			return 0;
		}
	}
	dot = strrchr(base, '.');
	if (dot && dot[1]) {
		for (i = 0; i < sizeof known_unsupported / sizeof known_unsupported[0]; i++)
			if (!strcasecmp(dot + 1, known_unsupported[i]))
				return pm_err(PAIMON_EUNSUPPORTED, "unsupported file format '%s' (data file %s)",
					      known_unsupported[i], file_name);
		return pm_err(PAIMON_EUNSUPPORTED, "unsupported file format '%s' (data file %s)", dot + 1,
			      file_name);
	}
	return pm_err(PAIMON_EUNSUPPORTED, "unsupported file format: data file %s has no extension", file_name);
}
