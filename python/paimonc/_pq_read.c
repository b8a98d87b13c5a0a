/* python/paimonc/_pq_read.c - Parquet reading for paimonc.parquet (to be filled). */
#include "_native.h"

int pm_py_add_parquet_reader(PyObject *m)
{
	(void)m;
	return 0;
}
