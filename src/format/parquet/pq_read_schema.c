/*
 * format/parquet/pm_pq_read_schema.c - Parquet schema -> Arrow type tree for
 * the reader (pyarrow's default mapping, without ARROW:schema), and the
 * in-memory pm_fileio used by the fuzz target and tests.
 */
#include "format/parquet/pq_read_int.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"

/* ------------------------------------------------------------ leaf types */

static int set_fixed(pm_pq_leaf_type *t, const char *fmt, int width, int conv)
{
	snprintf(t->format, sizeof t->format, "%s", fmt);
	t->kind = PQ_K_FIXED;
	t->width = width;
	t->conv = conv;
	return 0;
}

static void set_decimal(pm_pq_leaf_type *t, int32_t prec, int32_t scale, int conv)
{
	if (prec > 38) {
		snprintf(t->format, sizeof t->format, "d:%d,%d,256", (int)prec, (int)scale);
		t->width = 32;
	} else {
		snprintf(t->format, sizeof t->format, "d:%d,%d", (int)prec, (int)scale);
		t->width = 16;
	}
	t->kind = PQ_K_FIXED;
	t->conv = conv;
}

static const char *unit_ch(int unit)
{
	return unit == PM_PQ_MILLIS ? "m" : unit == PM_PQ_MICROS ? "u" : "n";
}

void pm_pq_map_leaf(const pm_pq_schema_element *e, pm_pq_leaf_type *t)
{
	const pm_pq_logical_type *lt = &e->logical;
	int lk = lt->kind;
	int ct = e->has_converted_type ? e->converted_type : -1;
	int32_t prec = 0, scale = 0;
	bool is_dec = false;
	char buf[48];

	memset(t, 0, sizeof *t);
	if (lk == PM_PQ_LT_UNRECOGNIZED)
		lk = PM_PQ_LT_NONE, ct = -1;
	if (lk == PM_PQ_LT_DECIMAL) {
		is_dec = true, prec = lt->precision, scale = lt->scale;
	} else if (lk == PM_PQ_LT_NONE && ct == PM_PQ_CT_DECIMAL && e->has_precision) {
		is_dec = true, prec = e->precision, scale = e->has_scale ? e->scale : 0;
	}
	if (is_dec && (prec < 1 || scale < 0 || scale > prec || prec > 76))
		is_dec = false;
	switch (e->type) {
	case PM_PQ_BOOLEAN:
		t->kind = PQ_K_BOOL;
		snprintf(t->format, sizeof t->format, "b");
		return;
	case PM_PQ_INT32:
		if (is_dec) {
			set_decimal(t, prec, scale, PQ_CV_DEC_I32);
			return;
		}
		if (lk == PM_PQ_LT_INTEGER) {
			int bw = lt->bit_width;
			bool s = lt->is_signed;
			if (bw == 8)
				set_fixed(t, s ? "c" : "C", 1, PQ_CV_I32_I8);
			else if (bw == 16)
				set_fixed(t, s ? "s" : "S", 2, PQ_CV_I32_I16);
			else
				set_fixed(t, s ? "i" : "I", 4, PQ_CV_COPY);
			return;
		}
		if (lk == PM_PQ_LT_DATE || (lk == PM_PQ_LT_NONE && ct == PM_PQ_CT_DATE)) {
			set_fixed(t, "tdD", 4, PQ_CV_COPY);
			return;
		}
		if ((lk == PM_PQ_LT_TIME && lt->unit == PM_PQ_MILLIS) ||
		    (lk == PM_PQ_LT_NONE && ct == PM_PQ_CT_TIME_MILLIS)) {
			set_fixed(t, "ttm", 4, PQ_CV_COPY);
			return;
		}
		if (lk == PM_PQ_LT_NONE) {
			switch (ct) {
			case PM_PQ_CT_INT_8: set_fixed(t, "c", 1, PQ_CV_I32_I8); return;
			case PM_PQ_CT_UINT_8: set_fixed(t, "C", 1, PQ_CV_I32_I8); return;
			case PM_PQ_CT_INT_16: set_fixed(t, "s", 2, PQ_CV_I32_I16); return;
			case PM_PQ_CT_UINT_16: set_fixed(t, "S", 2, PQ_CV_I32_I16); return;
			case PM_PQ_CT_UINT_32: set_fixed(t, "I", 4, PQ_CV_COPY); return;
			default: break;
			}
		}
		set_fixed(t, "i", 4, PQ_CV_COPY);
		return;
	case PM_PQ_INT64:
		if (is_dec) {
			set_decimal(t, prec, scale, PQ_CV_DEC_I64);
			return;
		}
		if (lk == PM_PQ_LT_INTEGER) {
			set_fixed(t, lt->is_signed || lt->bit_width != 64 ? "l" : "L", 8, PQ_CV_COPY);
			return;
		}
		if (lk == PM_PQ_LT_TIMESTAMP) {
			snprintf(buf, sizeof buf, "ts%s:%s", unit_ch(lt->unit), lt->is_adjusted_to_utc ? "UTC" : "");
			set_fixed(t, buf, 8, PQ_CV_COPY);
			return;
		}
		if (lk == PM_PQ_LT_TIME && lt->unit != PM_PQ_MILLIS) {
			set_fixed(t, lt->unit == PM_PQ_MICROS ? "ttu" : "ttn", 8, PQ_CV_COPY);
			return;
		}
		if (lk == PM_PQ_LT_NONE) {
			switch (ct) {
			case PM_PQ_CT_UINT_64: set_fixed(t, "L", 8, PQ_CV_COPY); return;
			case PM_PQ_CT_TIMESTAMP_MILLIS: set_fixed(t, "tsm:UTC", 8, PQ_CV_COPY); return;
			case PM_PQ_CT_TIMESTAMP_MICROS: set_fixed(t, "tsu:UTC", 8, PQ_CV_COPY); return;
			case PM_PQ_CT_TIME_MICROS: set_fixed(t, "ttu", 8, PQ_CV_COPY); return;
			default: break;
			}
		}
		set_fixed(t, "l", 8, PQ_CV_COPY);
		return;
	case PM_PQ_INT96:
		set_fixed(t, "tsn:", 8, PQ_CV_INT96);
		return;
	case PM_PQ_FLOAT:
		set_fixed(t, "f", 4, PQ_CV_COPY);
		return;
	case PM_PQ_DOUBLE:
		set_fixed(t, "g", 8, PQ_CV_COPY);
		return;
	case PM_PQ_BYTE_ARRAY:
		if (is_dec) {
			set_decimal(t, prec, scale, PQ_CV_DEC_BA);
			return;
		}
		t->kind = PQ_K_BINARY;
		if (lk == PM_PQ_LT_STRING || lk == PM_PQ_LT_JSON ||
		    (lk == PM_PQ_LT_NONE && (ct == PM_PQ_CT_UTF8 || ct == PM_PQ_CT_JSON)))
			snprintf(t->format, sizeof t->format, "u");
		else
			snprintf(t->format, sizeof t->format, "z");
		return;
	case PM_PQ_FIXED_LEN_BYTE_ARRAY:
	default:
		if (is_dec) {
			set_decimal(t, prec, scale, PQ_CV_DEC_FLBA);
			return;
		}
		if (lk == PM_PQ_LT_FLOAT16 && e->type_length == 2) {
			set_fixed(t, "e", 2, PQ_CV_COPY);
			return;
		}
		snprintf(buf, sizeof buf, "w:%d", (int)e->type_length);
		set_fixed(t, buf, e->type_length, PQ_CV_COPY);
		return;
	}
}

/* ------------------------------------------------------------ arrow tree */

static bool is_list_annot(const pm_pq_schema_element *e)
{
	if (e->logical.kind == PM_PQ_LT_LIST)
		return true;
	return e->logical.kind == PM_PQ_LT_NONE && e->has_converted_type && e->converted_type == PM_PQ_CT_LIST;
}

static bool is_map_annot(const pm_pq_schema_element *e)
{
	if (e->logical.kind == PM_PQ_LT_MAP)
		return true;
	return e->logical.kind == PM_PQ_LT_NONE && e->has_converted_type &&
	       (e->converted_type == PM_PQ_CT_MAP || e->converted_type == PM_PQ_CT_MAP_KEY_VALUE);
}

static bool any_selected(const pm_pq_schema_node *n, const uint8_t *sel)
{
	int i;
	if (n->leaf_index >= 0)
		return sel[n->leaf_index] != 0;
	for (i = 0; i < n->n_children; i++)
		if (any_selected(n->children[i], sel))
			return true;
	return false;
}

static void select_all(const pm_pq_schema_node *n, uint8_t *sel)
{
	int i;
	if (n->leaf_index >= 0) {
		sel[n->leaf_index] = 1;
		return;
	}
	for (i = 0; i < n->n_children; i++)
		select_all(n->children[i], sel);
}

static pm_pq_anode *anode_new(pm_pq_build *b, int kind)
{
	pm_pq_anode *a = pm_calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->kind = kind;
	a->leaf = -1;
	a->next_all = b->all;
	b->all = a;
	return a;
}

/* Builds the node for parquet node p seen as a value (not as a repetition
 * of itself when as_element is set). rad = repeated ancestor def level. */
static int conv_node(pm_pq_build *b, const pm_pq_schema_node *p, int16_t rad, bool as_element, pm_pq_anode **out);

static int make_leaf(pm_pq_build *b, const pm_pq_schema_node *p, int16_t rad, bool required, pm_pq_anode **out)
{
	pm_pq_anode *a;
	pm_array_builder *ab;
	pm_pq_leaf_type t;
	pm_pq_map_leaf(p->elem, &t);
	if (t.kind == PQ_K_BOOL)
		ab = pm_ab_new_bool();
	else if (t.kind == PQ_K_BINARY)
		ab = pm_ab_new_binary(t.format, 0);
	else if (t.kind == PQ_K_NULL)
		ab = pm_ab_new_fixed("n", 0);
	else
		ab = pm_ab_new_fixed(t.format, t.width);
	if (!ab)
		return PAIMON_ENOMEM;
	if (!(a = anode_new(b, PQ_A_LEAF))) {
		pm_ab_free(ab);
		return PAIMON_ENOMEM;
	}
	a->ab = ab;
	a->type = t;
	a->pnode = p;
	a->def = p->max_def_level;
	a->rep = p->max_rep_level;
	a->rad = rad;
	a->nullable = !required;
	a->leaf = p->leaf_index;
	*out = a;
	return 0;
}

static int make_struct(pm_pq_build *b, const pm_pq_schema_node *p, int16_t rad, bool required, pm_pq_anode **out)
{
	pm_pq_anode *a, *ch;
	pm_array_builder **kids;
	int i, n = 0, rc;
	if (!(kids = pm_calloc((size_t)p->n_children + 1, sizeof *kids)))
		return PAIMON_ENOMEM;
	if (!(a = anode_new(b, PQ_A_STRUCT))) {
		pm_free(kids);
		return PAIMON_ENOMEM;
	}
	if (!(a->children = pm_calloc((size_t)p->n_children + 1, sizeof *a->children))) {
		pm_free(kids);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < p->n_children; i++) {
		if (!any_selected(p->children[i], b->sel))
			continue;
		if ((rc = conv_node(b, p->children[i], rad, false, &ch))) {
			pm_free(kids);
			return rc;
		}
		kids[n] = ch->ab;
		a->children[n++] = ch;
	}
	a->n_children = n;
	for (i = 0; i < n; i++)
		a->children[i]->owned = true;
	if (!(a->ab = pm_ab_new_struct(kids, n))) {
		pm_free(kids);
		return PAIMON_ENOMEM;
	}
	pm_free(kids);
	a->pnode = p;
	a->def = p->max_def_level;
	a->rep = p->max_rep_level;
	a->rad = rad;
	a->nullable = !required;
	*out = a;
	return 0;
}

static int name_node(pm_pq_anode *a, const char *name, bool nullable)
{
	return pm_ab_set_name(a->ab, name, nullable ? 1 : 0);
}

/* A list node whose repeated parquet node is r; list_def = def level at
 * which the list is non-null; elem built from `ep` (r itself for 2-level). */
static int make_list(pm_pq_build *b, const pm_pq_schema_node *owner, const pm_pq_schema_node *r,
		     const pm_pq_schema_node *ep, bool ep_is_r, int16_t rad, int16_t list_def, bool nullable,
		     pm_pq_anode **out)
{
	pm_pq_anode *a, *el;
	int rc;
	if (ep_is_r) {
		/* The repeated node itself is the (required) element. */
		if (ep->leaf_index >= 0)
			rc = make_leaf(b, ep, r->max_def_level, true, &el);
		else
			rc = make_struct(b, ep, r->max_def_level, true, &el);
	} else {
		rc = conv_node(b, ep, r->max_def_level, false, &el);
	}
	if (rc)
		return rc;
	if ((rc = name_node(el, ep->elem->name, el->nullable)))
		return rc;
	if (!(a = anode_new(b, PQ_A_LIST)))
		return PAIMON_ENOMEM;
	el->owned = true;
	if (!(a->ab = pm_ab_new_list(el->ab, 0)))
		return PAIMON_ENOMEM;
	if (!(a->children = pm_calloc(1, sizeof *a->children)))
		return PAIMON_ENOMEM;
	a->children[0] = el;
	a->n_children = 1;
	a->pnode = owner;
	a->def = list_def;
	a->rep = (int16_t)(r->max_rep_level - 1);
	a->rad = rad;
	a->elem_def = r->max_def_level;
	a->elem_rep = r->max_rep_level;
	a->nullable = nullable;
	*out = a;
	return 0;
}

static int conv_node(pm_pq_build *b, const pm_pq_schema_node *p, int16_t rad, bool as_element, pm_pq_anode **out)
{
	const pm_pq_schema_element *e = p->elem;
	bool required = e->repetition == PM_PQ_REQUIRED;
	int rc;
	pm_pq_anode *a;

	if (++b->depth > PM_PQ_MAX_SCHEMA_DEPTH + 2) {
		b->depth--;
		return pm_err(PAIMON_ECORRUPT, "schema nesting too deep at '%s'", e->name);
	}
	if (e->repetition == PM_PQ_REPEATED && !as_element) {
		/* A repeated field outside LIST/MAP: a non-null list of required elements. */
		select_all(p, b->sel);
		rc = make_list(b, p, p, p, true, rad, (int16_t)(p->max_def_level - 1), false, &a);
		if (!rc)
			rc = name_node(a, e->name, false);
		b->depth--;
		if (!rc)
			*out = a;
		return rc;
	}
	if (p->leaf_index >= 0) {
		rc = make_leaf(b, p, rad, required, &a);
	} else if (is_list_annot(e) && p->n_children == 1 &&
		   p->children[0]->elem->repetition == PM_PQ_REPEATED) {
		const pm_pq_schema_node *r = p->children[0];
		select_all(p, b->sel);
		if (r->leaf_index >= 0 || r->n_children != 1) {
			/* 2-level: the repeated node is the element. */
			rc = make_list(b, p, r, r, true, rad, p->max_def_level, !required, &a);
		} else {
			const char *rn = r->elem->name;
			size_t pl = strlen(e->name);
			/* A one-field group named "array" or "<list>_tuple" is the element
			 * (legacy 2-level), unless its field is itself repeated. */
			bool legacy = r->children[0]->elem->repetition != PM_PQ_REPEATED &&
				      (strcmp(rn, "array") == 0 ||
				       (strncmp(rn, e->name, pl) == 0 && strcmp(rn + pl, "_tuple") == 0));
			if (legacy)
				rc = make_list(b, p, r, r, true, rad, p->max_def_level, !required, &a);
			else
				rc = make_list(b, p, r, r->children[0], false, rad, p->max_def_level, !required, &a);
		}
	} else if (is_map_annot(e) && p->n_children == 1 && p->children[0]->leaf_index < 0 &&
		   p->children[0]->elem->repetition == PM_PQ_REPEATED && p->children[0]->n_children == 2) {
		const pm_pq_schema_node *kv = p->children[0];
		pm_pq_anode *k, *v;
		select_all(p, b->sel);
		if ((rc = conv_node(b, kv->children[0], kv->max_def_level, false, &k)) ||
		    (rc = conv_node(b, kv->children[1], kv->max_def_level, false, &v))) {
			b->depth--;
			return rc;
		}
		if ((rc = name_node(k, "key", false)) || (rc = name_node(v, "value", v->nullable))) {
			b->depth--;
			return rc;
		}
		if (!(a = anode_new(b, PQ_A_MAP)) || !(a->children = pm_calloc(2, sizeof *a->children))) {
			b->depth--;
			return PAIMON_ENOMEM;
		}
		a->children[0] = k;
		a->children[1] = v;
		a->n_children = 2;
		k->owned = v->owned = true;
		if (!(a->ab = pm_ab_new_map(k->ab, v->ab, 0))) {
			b->depth--;
			return PAIMON_ENOMEM;
		}
		a->pnode = p;
		a->def = p->max_def_level;
		a->rep = p->max_rep_level;
		a->rad = rad;
		a->elem_def = kv->max_def_level;
		a->elem_rep = kv->max_rep_level;
		a->nullable = !required;
		rc = 0;
	} else if (is_map_annot(e) && p->n_children == 1 && p->children[0]->leaf_index < 0 &&
		   p->children[0]->elem->repetition == PM_PQ_REPEATED) {
		/* A map without a value column: pyarrow reads it as a list of the key(s). */
		const pm_pq_schema_node *kv = p->children[0];
		select_all(p, b->sel);
		if (kv->n_children == 1)
			rc = make_list(b, p, kv, kv->children[0], false, rad, p->max_def_level, !required, &a);
		else
			rc = make_list(b, p, kv, kv, true, rad, p->max_def_level, !required, &a);
	} else {
		rc = make_struct(b, p, rad, required, &a);
	}
	if (!rc)
		rc = name_node(a, e->name, a->nullable);
	b->depth--;
	if (!rc)
		*out = a;
	return rc;
}

int pm_pq_build_tree(pm_pq_build *b, const pm_pq_schema *s, pm_pq_anode ***tops, int *n_tops)
{
	const pm_pq_schema_node *root = &s->nodes[0];
	pm_pq_anode **t;
	int i, n = 0, rc;
	if (!(t = pm_calloc((size_t)root->n_children + 1, sizeof *t)))
		return PAIMON_ENOMEM;
	for (i = 0; i < root->n_children; i++) {
		if (!any_selected(root->children[i], b->sel))
			continue;
		if ((rc = conv_node(b, root->children[i], 0, false, &t[n]))) {
			pm_free(t);
			return rc;
		}
		n++;
	}
	*tops = t;
	*n_tops = n;
	return 0;
}

/* First leaf below a node (the one whose levels drive the node). */
int pm_pq_first_leaf(const pm_pq_anode *a)
{
	while (a->kind != PQ_A_LEAF) {
		if (a->n_children == 0)
			return -1;
		a = a->children[0];
	}
	return a->leaf;
}
