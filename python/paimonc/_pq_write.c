/* python/paimonc/_pq_write.c - Parquet writing for paimonc.parquet (to be filled). */
#include "_native.h"

int pm_py_add_parquet_writer(PyObject *m)
{
	(void)m;
	return 0;
}
