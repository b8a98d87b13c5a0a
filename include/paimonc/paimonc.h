/* paimonc/paimonc.h - the whole public API of libpaimonc. */
#ifndef PAIMONC_PAIMONC_H
#define PAIMONC_PAIMONC_H
#include "paimonc/common.h"
#include "paimonc/arrow_c.h"
#include "paimonc/catalog.h"
#include "paimonc/parquet.h"
#include "paimonc/parquet_writer.h"
#include "paimonc/predicate.h"
#include "paimonc/table.h"
#endif
