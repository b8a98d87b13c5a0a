/*
 * core/uuid.h - random identifiers and clocks used in file names and
 * metadata: RFC 4122 version-4 UUIDs from getrandom(2), wall-clock millis.
 */
#ifndef PM_CORE_UUID_H
#define PM_CORE_UUID_H

#include <stdint.h>

#define PM_UUID_STR_LEN 36

/* Writes a lower-case v4 UUID ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx") and a
 * NUL into out. 0, or PAIMON_EIO when no randomness is available. */
int pm_uuid_v4(char out[PM_UUID_STR_LEN + 1]);
/* Uniform random 64 bits (getrandom; falls back to a time-seeded mix). */
uint64_t pm_random_u64(void);
/* Milliseconds since the epoch (UTC). */
int64_t pm_now_millis(void);
/* Local wall-clock time as if it were UTC, in millis (Java's
 * LocalDateTime.now() stored as a zone-less timestamp: _CREATION_TIME). */
int64_t pm_now_local_millis(void);
/* Monotonic milliseconds (for timeouts and backoff). */
int64_t pm_monotonic_millis(void);

#endif
