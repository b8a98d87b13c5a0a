/* tests/unit/index/test_btree.c - the btree global index format (sidx_testlib.h). */
#include "sidx_testlib.h"

static void test_btree_round_trips(void) { t_round_trips(PM_SIDX_BTREE); }
static void test_btree_writer_errors(void) { t_writer_errors(PM_SIDX_BTREE); }
static void test_btree_corrupt(void) { t_corrupt(PM_SIDX_BTREE); }
static void test_meta_codec(void) { t_meta_codec(); }
static void test_lzo(void) { t_lzo(); }

TEST_MAIN(T(test_btree_round_trips), T(test_btree_writer_errors), T(test_btree_corrupt), T(test_meta_codec), T(test_lzo))
