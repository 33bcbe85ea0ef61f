/* test_types.c: the per-type tables agree with the enums protobuf-c generated from our
 * schema (and so with docs/wire.md), and their rows are self-consistent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "taskgraph.pb-c.h"
#include "taskir/types.h"

static void check_enum(const ProtobufCEnumDescriptor *desc, const char *name, int wire)
{
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(desc, name);
    if (!v)
        fail_msg("%s has no value %s", desc->name, name);
    assert_int_equal(v->value, wire);
}

static void test_block_types_match_wire(void **state)
{
    (void)state;
    for (int t = 0; t < BT_COUNT; t++)
        check_enum(&taskir__task_block_type__descriptor, bt_info(t)->name, bt_info(t)->wire);
    assert_int_equal(BT_COUNT, taskir__task_block_type__descriptor.n_values);
}

static void test_precisions_match_wire(void **state)
{
    (void)state;
    for (int p = 0; p < PR_COUNT; p++)
        check_enum(&taskir__precision__descriptor, pr_info(p)->name, pr_info(p)->wire);
    assert_int_equal(PR_COUNT, taskir__precision__descriptor.n_values);
}

static void test_attributes_match_wire(void **state)
{
    (void)state;
    for (int a = 0; a < AT_COUNT; a++)
        check_enum(&taskir__attribute_type__descriptor, at_info(a)->name, at_info(a)->wire);
    assert_int_equal(AT_COUNT, taskir__attribute_type__descriptor.n_values);
}

static void test_rearranges_match_wire(void **state)
{
    (void)state;
    for (int r = 0; r < RT_COUNT; r++)
        check_enum(&taskir__rearrange_info_type__descriptor, rt_info(r)->name,
                   rt_info(r)->wire);
    assert_int_equal(RT_COUNT, taskir__rearrange_info_type__descriptor.n_values);
}

static void test_primitive_codes(void **state)
{
    (void)state;
    /* the list: CADD/CAVG->P02, CVVH->P03, CVM->P04, CC->P41, CC2D->P81, CAX->P43,
     * CVS->P83, CCMPB->P05, CCMPS->P25, CLUT->P07, CLIF->P08 */
    static const struct { BlockType t; int p; } want[] = {
        {BT_CADD, 2}, {BT_CAVG, 2}, {BT_CVVH, 3}, {BT_CVM, 4}, {BT_CC, 41}, {BT_CC2D, 81},
        {BT_CAX, 43}, {BT_CVS, 83}, {BT_CCMPB, 5}, {BT_CCMPS, 25}, {BT_CLUT, 7}, {BT_CLIF, 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(bt_info(want[i].t)->pcode, want[i].p);
        assert_int_equal(bt_info(want[i].t)->kind, BK_COMPUTE);
    }
    int compute = 0;
    for (int t = 0; t < BT_COUNT; t++)
        compute += bt_info(t)->kind == BK_COMPUTE;
    assert_int_equal(compute, 12);
}

static void test_rows_consistent(void **state)
{
    (void)state;
    for (int t = 0; t < BT_COUNT; t++) {
        const BlockTypeInfo *ti = bt_info(t);
        assert_int_equal(strlen(ti->dims), TIR_NDIMS);
        for (int i = 0; i < TIR_NDIMS; i++)
            assert_non_null(strchr("Rov-", ti->dims[i]));
        /* every block dim a cluster uses is one the block may have */
        for (int k = 0; k < ti->n_ins + ti->n_outs; k++) {
            const ClusterSpec *cs = k < ti->n_ins ? &ti->ins[k] : &ti->outs[k - ti->n_ins];
            assert_non_null(cs->role);
            for (int i = 0; i < TIR_CDIMS; i++)
                if (cs->dim[i] >= 0)
                    assert_true(ti->dims[cs->dim[i]] != '-');
            if (k < ti->n_ins)
                assert_true(cs->producers != 0);
        }
        if (ti->kind == BK_COMPUTE) {
            assert_int_equal(ti->n_outs, 1);
            assert_true(ti->n_ins >= 1);
        }
    }
    for (int a = 0; a < AT_COUNT; a++) {
        const AttrInfo *ai = at_info(a);
        assert_true((ai->required & ~ai->allowed) == 0);
        assert_true(ai->dflt >= ai->lo && ai->dflt <= ai->hi);
    }
}

static void test_lookups(void **state)
{
    (void)state;
    BlockType t;
    assert_true(bt_from_wire(51, &t));
    assert_int_equal(t, BT_OUTPUT);
    assert_false(bt_from_wire(20, &t));
    assert_true(bt_from_name("CC2D", &t));
    assert_int_equal(t, BT_CC2D);
    PrecisionId p;
    assert_true(pr_from_wire(100, &p));
    assert_int_equal(p, PR_INT_9);
    assert_int_equal(pr_info(PR_INT_9)->lo, -256);
    assert_int_equal(pr_info(PR_UINT_8)->container, TC_UINT32);
    assert_int_equal(pr_info(PR_FLOAT_16)->container, TC_FLOAT);
    assert_false(pr_from_wire(11, &p));
    AttrId a;
    assert_true(at_from_wire(37, &a));
    assert_int_equal(a, AT_VTHETA_CONST);
    RearrangeType r;
    assert_true(rt_from_wire(10, &r));
    assert_int_equal(r, RT_SHUFFLE);
    assert_false(rt_info(RT_SCALE)->keeps_volume);
    assert_true(rt_info(RT_RESHAPE)->keeps_volume);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_types_match_wire),
        cmocka_unit_test(test_precisions_match_wire),
        cmocka_unit_test(test_attributes_match_wire),
        cmocka_unit_test(test_rearranges_match_wire),
        cmocka_unit_test(test_primitive_codes),
        cmocka_unit_test(test_rows_consistent),
        cmocka_unit_test(test_lookups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
