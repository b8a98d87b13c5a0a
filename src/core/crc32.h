/*
 * core/crc32.h - CRC-32 (the zlib / IEEE 802.3 polynomial) over any length.
 *
 * One function for every checksum the formats carry: .blob records, Parquet
 * page CRCs, Avro snappy blocks, deletion-vector files. Built on libdeflate's
 * PCLMUL/ARM-CRC kernels when the build found libdeflate
 * (PAIMONC_HAVE_LIBDEFLATE; about 2x zlib's speed here, which matters when
 * ingesting gigabytes of blobs), else on zlib's crc32. Both give the same
 * values; the length is a size_t (zlib's uInt limit is handled inside).
 */
#ifndef PM_CORE_CRC32_H
#define PM_CORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of crc's stream extended by data[0, len); start from 0. */
uint32_t pm_crc32(uint32_t crc, const void *data, size_t len);

/* "libdeflate" or "zlib": which implementation this build uses. */
const char *pm_crc32_impl(void);

#endif
