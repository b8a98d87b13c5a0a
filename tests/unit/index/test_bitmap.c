/* tests/unit/index/test_bitmap.c - the bitmap global index format (sidx_testlib.h). */
#include "sidx_testlib.h"

static void test_bitmap_round_trips(void) { t_round_trips(PM_SIDX_BITMAP); }
static void test_bitmap_writer_errors(void) { t_writer_errors(PM_SIDX_BITMAP); }
static void test_bitmap_corrupt(void) { t_corrupt(PM_SIDX_BITMAP); }
static void test_meta_codec(void) { t_meta_codec(); }
static void test_lzo(void) { t_lzo(); }

TEST_MAIN(T(test_bitmap_round_trips), T(test_bitmap_writer_errors), T(test_bitmap_corrupt), T(test_meta_codec), T(test_lzo))
