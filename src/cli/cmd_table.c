/*
 * cmd_table.c - `paimonc table`: create, list, describe, alter, rename, drop.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Reads a whole file ("-" is stdin) into a NUL-terminated buffer. */
static int read_text(const char *path, char **out)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int err;

	*out = NULL;
	if (!f)
		return cli_error("cannot open schema file '%s': %s", path, strerror(errno));
	for (;;) {
		size_t got;
		if (cap - len < 4096 + 1) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *n = realloc(buf, ncap);
			if (!n) {
				free(buf);
				if (f != stdin)
					fclose(f);
				return cli_oom();
			}
			buf = n;
			cap = ncap;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	if (f != stdin)
		fclose(f);
	if (err) {
		free(buf);
		return cli_error("cannot read schema file '%s': %s", path, strerror(err));
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return cli_error("schema file '%s' contains a NUL byte", path);
	}
	*out = buf;
	return CLI_CONTINUE;
}

/* ----------------------------------------------------------------- create */

static int table_create(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1], *columns = NULL, *schema_file = NULL, *pkeys = NULL, *prikeys = NULL, *comment = NULL;
	int ignore = 0, rc = CLI_EXIT_OK;
	size_t npos, i, npart = 0, nprim = 0;
	cli_list options = {0};
	char **part = NULL, **prim = NULL, *json = NULL;
	paimon_schema_spec *spec = NULL;
	paimon_catalog *cat;
	const cli_opt opts[] = {
		{CLI_OPT_VALUE, 0, "columns", "LIST", "columns: \"id BIGINT NOT NULL, label STRING COMMENT 'x'\"", &columns, 0},
		{CLI_OPT_VALUE, 0, "schema", "FILE", "schema as Java's Schema JSON ('-' reads stdin)", &schema_file, 0},
		{CLI_OPT_VALUE, 0, "partition-keys", "A,B", "partition keys", &pkeys, 0},
		{CLI_OPT_VALUE, 0, "primary-keys", "A,B", "primary keys", &prikeys, 0},
		{CLI_OPT_LIST, 'o', "option", "KEY=VALUE", "table option (repeatable)", &options, 0},
		{CLI_OPT_VALUE, 0, "comment", "TEXT", "table comment", &comment, 0},
		{CLI_OPT_FLAG, 0, "ignore-if-exists", NULL, "succeed if the table already exists", &ignore, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		goto out;
	if ((rc = cli_check_identifier(ctx, pos[0])) != CLI_CONTINUE)
		goto out;
	if (!columns == !schema_file) {
		rc = cli_usage_error(ctx, "give exactly one of --columns and --schema");
		goto out;
	}
	for (i = 0; i < options.count; i++) {
		char *k, *v;
		if ((rc = cli_split_kv(ctx, "--option", options.items[i].value, &k, &v)) != CLI_CONTINUE)
			goto out;
		free(k);
		free(v);
	}
	if (pkeys && (rc = cli_split_names(ctx, "--partition-keys", pkeys, &part, &npart)) != CLI_CONTINUE)
		goto out;
	if (prikeys && (rc = cli_split_names(ctx, "--primary-keys", prikeys, &prim, &nprim)) != CLI_CONTINUE)
		goto out;

	rc = CLI_EXIT_FAIL;
	if (schema_file) {
		if (read_text(schema_file, &json) != CLI_CONTINUE)
			goto out;
		if (paimon_schema_spec_from_json(&spec, json) < 0) {
			spec = NULL;
			cli_fail();
			goto out;
		}
	} else if (paimon_schema_spec_new(&spec) < 0 || paimon_schema_spec_add_columns(spec, columns) < 0) {
		cli_fail();
		goto out;
	}
	if ((part && paimon_schema_spec_set_partition_keys(spec, (const char *const *)part, npart) < 0) ||
	    (prim && paimon_schema_spec_set_primary_keys(spec, (const char *const *)prim, nprim) < 0) ||
	    (comment && paimon_schema_spec_set_comment(spec, comment) < 0)) {
		cli_fail();
		goto out;
	}
	for (i = 0; i < options.count; i++) {
		char *k, *v;
		int err;
		if (cli_split_kv(ctx, "--option", options.items[i].value, &k, &v) != CLI_CONTINUE)
			goto out;
		err = paimon_schema_spec_set_option(spec, k, v);
		free(k);
		free(v);
		if (err < 0) {
			cli_fail();
			goto out;
		}
	}
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		goto out;
	rc = paimon_catalog_create_table(cat, pos[0], spec, ignore) < 0 ? cli_fail() : CLI_EXIT_OK;
out:
	if (spec)
		paimon_schema_spec_free(spec);
	free(json);
	cli_names_free(part, npart);
	cli_names_free(prim, nprim);
	cli_list_dispose(&options);
	return rc;
}

/* ------------------------------------------------------------------- list */

static int table_list(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1];
	char **names = NULL;
	size_t n = 0, i, npos;
	paimon_catalog *cat;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "print a JSON array of {\"database\", \"name\", \"identifier\"}",
		 &ctx->json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	if (paimon_catalog_list_tables(cat, pos[0], &names, &n) < 0)
		return cli_fail();
	if (ctx->json) {
		json_t *arr = json_array();
		int err = !arr;
		for (i = 0; !err && i < n; i++) {
			json_t *o = json_object();
			char *ident = malloc(strlen(pos[0]) + strlen(names[i]) + 2);
			if (ident)
				sprintf(ident, "%s.%s", pos[0], names[i]);
			err = !o || !ident || json_object_set_new(o, "database", cli_json_str(pos[0])) < 0 ||
			      json_object_set_new(o, "name", cli_json_str(names[i])) < 0 ||
			      json_object_set_new(o, "identifier", cli_json_str(ident)) < 0;
			free(ident);
			err = cli_json_push(arr, o) < 0 || err;
		}
		paimon_string_list_free(names, n);
		if (err) {
			json_decref(arr);
			return cli_oom();
		}
		return cli_print_json(arr);
	}
	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	paimon_string_list_free(names, n);
	return CLI_EXIT_OK;
}

/* --------------------------------------------------------------- describe */

static json_t *describe_json(paimon_table *t, const paimon_schema *s, const paimon_snapshot *snap)
{
	json_t *o = json_object(), *fields = json_array(), *pk = json_array(), *prk = json_array(),
	       *op = json_object();
	size_t i;
	int err;

	if (!o) {
		json_decref(fields);
		json_decref(pk);
		json_decref(prk);
		json_decref(op);
		return NULL;
	}
	/* The containers go into o first, so that releasing o releases everything. */
	err = json_object_set_new(o, "identifier", cli_json_str(paimon_table_identifier(t))) < 0 ||
	      json_object_set_new(o, "path", cli_json_str(paimon_table_path(t))) < 0 ||
	      json_object_set_new(o, "schemaId", json_integer(paimon_schema_id(s))) < 0 ||
	      json_object_set_new(o, "latestSnapshotId", snap ? json_integer(paimon_snapshot_id(snap)) : json_null()) < 0;
	if (json_object_set_new(o, "fields", fields) < 0)
		err = 1, fields = NULL;
	if (json_object_set_new(o, "partitionKeys", pk) < 0)
		err = 1, pk = NULL;
	if (json_object_set_new(o, "primaryKeys", prk) < 0)
		err = 1, prk = NULL;
	if (json_object_set_new(o, "options", op) < 0)
		err = 1, op = NULL;
	if (!err)
		err = json_object_set_new(o, "comment", cli_json_str(paimon_schema_comment(s))) < 0;

	for (i = 0; !err && i < paimon_schema_field_count(s); i++) {
		json_t *f = json_object();
		err = !f || json_object_set_new(f, "id", json_integer(paimon_schema_field_id(s, i))) < 0 ||
		      json_object_set_new(f, "name", cli_json_str(paimon_schema_field_name(s, i))) < 0 ||
		      json_object_set_new(f, "type", cli_json_str(paimon_schema_field_type(s, i))) < 0 ||
		      json_object_set_new(f, "description", cli_json_str(paimon_schema_field_description(s, i))) < 0;
		err = cli_json_push(fields, f) < 0 || err;
	}
	for (i = 0; !err && i < paimon_schema_partition_key_count(s); i++)
		err = cli_json_push(pk, cli_json_str(paimon_schema_partition_key(s, i))) < 0;
	for (i = 0; !err && i < paimon_schema_primary_key_count(s); i++)
		err = cli_json_push(prk, cli_json_str(paimon_schema_primary_key(s, i))) < 0;
	for (i = 0; !err && i < paimon_schema_option_count(s); i++)
		err = json_object_set_new(op, paimon_schema_option_key(s, i),
					  cli_json_str(paimon_schema_option_value(s, i))) < 0;
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "a, b" or "-" */
static void print_key_line(const char *label, size_t n, const char *(*get)(const paimon_schema *, size_t),
			   const paimon_schema *s)
{
	size_t i;
	printf("%-17s", label);
	if (n == 0)
		fputs("-", stdout);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", get(s, i));
	fputc('\n', stdout);
}

static int describe_human(paimon_table *t, const paimon_schema *s, const paimon_snapshot *snap)
{
	static const char *const col_headers[] = {"ID", "NAME", "TYPE", "DESCRIPTION"};
	static const char *const opt_headers[] = {"KEY", "VALUE"};
	cli_table cols, opts;
	size_t i;
	char idbuf[32];

	cli_table_init(&cols, 4, col_headers, "rlll");
	cli_table_init(&opts, 2, opt_headers, NULL);
	for (i = 0; i < paimon_schema_field_count(s); i++) {
		const char *row[4];
		snprintf(idbuf, sizeof idbuf, "%ld", (long)paimon_schema_field_id(s, i));
		row[0] = idbuf;
		row[1] = paimon_schema_field_name(s, i);
		row[2] = paimon_schema_field_type(s, i);
		row[3] = paimon_schema_field_description(s, i);
		if (cli_table_add(&cols, row) < 0)
			goto oom;
	}
	for (i = 0; i < paimon_schema_option_count(s); i++) {
		const char *row[2];
		row[0] = paimon_schema_option_key(s, i);
		row[1] = paimon_schema_option_value(s, i);
		if (cli_table_add(&opts, row) < 0)
			goto oom;
	}

	printf("%-17s%s\n", "Table:", paimon_table_identifier(t));
	printf("%-17s%s\n", "Path:", paimon_table_path(t));
	printf("%-17s%s\n", "Comment:", paimon_schema_comment(s) ? paimon_schema_comment(s) : "-");
	printf("%-17s%lld\n", "Schema id:", (long long)paimon_schema_id(s));
	if (snap)
		printf("%-17s%lld\n", "Latest snapshot:", (long long)paimon_snapshot_id(snap));
	else
		printf("%-17s%s\n", "Latest snapshot:", "none");
	print_key_line("Partition keys:", paimon_schema_partition_key_count(s), paimon_schema_partition_key, s);
	print_key_line("Primary keys:", paimon_schema_primary_key_count(s), paimon_schema_primary_key, s);
	printf("\nColumns:\n");
	cli_table_print(&cols, 2, 1);
	if (opts.nrows) {
		printf("\nOptions:\n");
		cli_table_print(&opts, 2, 1);
	}
	cli_table_dispose(&cols);
	cli_table_dispose(&opts);
	return CLI_EXIT_OK;
oom:
	cli_table_dispose(&cols);
	cli_table_dispose(&opts);
	return cli_oom();
}

static int table_describe(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1];
	size_t npos;
	paimon_table *t = NULL;
	paimon_snapshot *snap = NULL;
	const paimon_schema *s;
	int rc;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "json", NULL, "print a JSON object", &ctx->json, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_open_table(ctx, pos[0], &t)) != CLI_CONTINUE)
		return rc;
	s = paimon_table_schema(t);
	if (paimon_table_latest_snapshot(t, &snap) < 0) {
		paimon_table_free(t);
		return cli_fail();
	}
	if (ctx->json)
		rc = cli_print_json(describe_json(t, s, snap));
	else
		rc = describe_human(t, s, snap);
	if (snap)
		paimon_snapshot_free(snap);
	paimon_table_free(t);
	return rc;
}

/* ------------------------------------------------------------ drop/rename */

static int table_drop(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1];
	size_t npos;
	int if_exists = 0, rc;
	paimon_catalog *cat;
	const cli_opt opts[] = {
		{CLI_OPT_FLAG, 0, "if-exists", NULL, "succeed if the table does not exist", &if_exists, 0},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_check_identifier(ctx, pos[0])) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	return paimon_catalog_drop_table(cat, pos[0], if_exists) < 0 ? cli_fail() : CLI_EXIT_OK;
}

static int table_rename(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[2];
	size_t npos;
	int rc;
	paimon_catalog *cat;
	const cli_opt opts[] = {{0}};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_check_identifier(ctx, pos[0])) != CLI_CONTINUE ||
	    (rc = cli_check_identifier(ctx, pos[1])) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	return paimon_catalog_rename_table(cat, pos[0], pos[1]) < 0 ? cli_fail() : CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ alter */

enum alter_tag {
	A_ADD = 1,
	A_FIRST,
	A_AFTER,
	A_BEFORE,
	A_RENAME,
	A_DROP,
	A_COL_COMMENT,
	A_COL_TYPE,
	A_COMMENT,
	A_REMOVE_COMMENT,
	A_SET_OPT,
	A_REMOVE_OPT,
};

/* One --add-column with its position, parsed. */
typedef struct add_spec {
	char *name, *type, *comment;
	paimon_column_move move;
	const char *reference;
} add_spec;

static int is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * Splits "name TYPE [COMMENT 'text']". The name may be `quoted`; COMMENT is
 * found at the top level only, so "ROW<a INT COMMENT 'x'>" stays in the type.
 * Returns NULL or a static error description.
 */
static const char *parse_column_def(const char *def, add_spec *out)
{
	const char *p = def, *nb, *ne, *tb, *te = NULL, *q;
	int depth = 0;
	char quote = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '`') {
		nb = ++p;
		while (*p && *p != '`')
			p++;
		if (!*p)
			return "unterminated `quoted` name";
		ne = p++;
	} else {
		nb = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		ne = p;
	}
	if (nb == ne)
		return "missing column name";
	while (isspace((unsigned char)*p))
		p++;
	tb = p;
	for (q = p; *q; q++) {
		if (quote) {
			if (*q == '\\' && q[1])
				q++;
			else if (*q == quote)
				quote = 0;
			continue;
		}
		if (*q == '\'' || *q == '"' || *q == '`')
			quote = *q;
		else if (*q == '<' || *q == '(')
			depth++;
		else if ((*q == '>' || *q == ')') && depth > 0)
			depth--;
		else if (depth == 0 && strncasecmp(q, "COMMENT", 7) == 0 && q > tb && isspace((unsigned char)q[-1]) &&
			 !is_word_char(q[7])) {
			te = q;
			break;
		}
	}
	if (!te)
		te = tb + strlen(tb);
	while (te > tb && isspace((unsigned char)te[-1]))
		te--;
	if (te == tb)
		return "missing type";
	out->name = strndup(nb, (size_t)(ne - nb));
	out->type = strndup(tb, (size_t)(te - tb));
	if (!out->name || !out->type)
		return "out of memory";
	if (*q) {
		/* COMMENT 'text' with '' or \' inside */
		char *c, *w;
		q += 7;
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '\'')
			return "COMMENT needs a 'quoted' text";
		q++;
		c = w = malloc(strlen(q) + 1);
		if (!c)
			return "out of memory";
		out->comment = c;
		for (;;) {
			if (!*q)
				return "unterminated comment text";
			if (*q == '\\' && q[1]) {
				*w++ = q[1];
				q += 2;
			} else if (*q == '\'' && q[1] == '\'') {
				*w++ = '\'';
				q += 2;
			} else if (*q == '\'') {
				q++;
				break;
			} else {
				*w++ = *q++;
			}
		}
		*w = '\0';
		while (isspace((unsigned char)*q))
			q++;
		if (*q)
			return "unexpected text after the comment";
	}
	return NULL;
}

static int table_alter(cli_ctx *ctx, int argc, char **argv)
{
	const char *pos[1];
	size_t npos, i, nchanges = 0, nadds = 0;
	int rc, last_add = -1;
	cli_list acts = {0};
	add_spec *adds = NULL;
	paimon_schema_change **changes = NULL;
	paimon_catalog *cat;
	const cli_opt opts[] = {
		{CLI_OPT_LIST, 0, "add-column", "\"NAME TYPE [COMMENT 'x']\"", "add a column (at the end)", &acts, A_ADD},
		{CLI_OPT_LIST_FLAG, 0, "first", NULL, "  ...as the first column", &acts, A_FIRST},
		{CLI_OPT_LIST, 0, "after", "COL", "  ...after column COL", &acts, A_AFTER},
		{CLI_OPT_LIST, 0, "before", "COL", "  ...before column COL", &acts, A_BEFORE},
		{CLI_OPT_LIST, 0, "rename-column", "OLD=NEW", "rename a column", &acts, A_RENAME},
		{CLI_OPT_LIST, 0, "drop-column", "NAME", "drop a column", &acts, A_DROP},
		{CLI_OPT_LIST, 0, "column-comment", "COL=TEXT", "set a column's comment", &acts, A_COL_COMMENT},
		{CLI_OPT_LIST, 0, "column-type", "COL=TYPE", "change a column's type", &acts, A_COL_TYPE},
		{CLI_OPT_LIST, 0, "comment", "TEXT", "set the table comment", &acts, A_COMMENT},
		{CLI_OPT_LIST_FLAG, 0, "remove-comment", NULL, "remove the table comment", &acts, A_REMOVE_COMMENT},
		{CLI_OPT_LIST, 'o', "set-option", "KEY=VALUE", "set a table option", &acts, A_SET_OPT},
		{CLI_OPT_LIST, 0, "remove-option", "KEY", "remove a table option", &acts, A_REMOVE_OPT},
		{0},
	};

	if ((rc = cli_parse(ctx, opts, argc, argv, pos, &npos)) != CLI_CONTINUE)
		goto out;
	if ((rc = cli_check_identifier(ctx, pos[0])) != CLI_CONTINUE)
		goto out;
	if (acts.count == 0) {
		rc = cli_usage_error(ctx, "nothing to change: give at least one action such as --add-column");
		goto out;
	}
	adds = calloc(acts.count, sizeof *adds);
	changes = calloc(acts.count, sizeof *changes);
	if (!adds || !changes) {
		rc = cli_oom();
		goto out;
	}

	/* Pass 1: syntax, and attach positions to their --add-column. */
	for (i = 0; i < acts.count; i++) {
		const cli_item *it = &acts.items[i];
		const char *why;
		switch (it->tag) {
		case A_ADD:
			if ((why = parse_column_def(it->value, &adds[nadds])) != NULL) {
				nadds++;
				if (strcmp(why, "out of memory") == 0)
					rc = cli_oom();
				else
					rc = cli_usage_error(ctx, "invalid --add-column '%s': %s", it->value, why);
				goto out;
			}
			last_add = (int)nadds++;
			break;
		case A_FIRST:
		case A_AFTER:
		case A_BEFORE:
			if (last_add < 0) {
				rc = cli_usage_error(ctx, "%s must follow an --add-column", it->spelling);
				goto out;
			}
			if (adds[last_add].move != PAIMON_MOVE_NONE) {
				rc = cli_usage_error(ctx, "column '%s' already has a position; %s is one too many",
						     adds[last_add].name, it->spelling);
				goto out;
			}
			adds[last_add].move = it->tag == A_FIRST   ? PAIMON_MOVE_FIRST
					      : it->tag == A_AFTER ? PAIMON_MOVE_AFTER
								   : PAIMON_MOVE_BEFORE;
			adds[last_add].reference = it->value;
			break;
		case A_RENAME:
		case A_COL_COMMENT:
		case A_COL_TYPE:
		case A_SET_OPT:
			if (!strchr(it->value, '=') || it->value[0] == '=') {
				rc = cli_usage_error(ctx, "invalid value '%s' for %s: expected %s", it->value, it->spelling,
						     it->tag == A_RENAME        ? "OLD=NEW"
						     : it->tag == A_COL_COMMENT ? "COL=TEXT"
						     : it->tag == A_COL_TYPE    ? "COL=TYPE"
										: "KEY=VALUE");
				goto out;
			}
			break;
		default:
			break;
		}
	}

	/* Pass 2: schema changes in command-line order. */
	nadds = 0;
	for (i = 0; i < acts.count; i++) {
		const cli_item *it = &acts.items[i];
		paimon_schema_change *ch = NULL;
		char *k = NULL, *v = NULL;
		int err = 0;
		const add_spec *a;

		if (it->tag == A_RENAME || it->tag == A_COL_COMMENT || it->tag == A_COL_TYPE || it->tag == A_SET_OPT) {
			if ((rc = cli_split_kv(ctx, it->spelling, it->value, &k, &v)) != CLI_CONTINUE)
				goto out;
		}
		switch (it->tag) {
		case A_ADD:
			a = &adds[nadds++];
			err = paimon_schema_change_add_column(&ch, a->name, a->type, a->comment, a->move, a->reference);
			break;
		case A_RENAME:
			err = paimon_schema_change_rename_column(&ch, k, v);
			break;
		case A_DROP:
			err = paimon_schema_change_drop_column(&ch, it->value);
			break;
		case A_COL_COMMENT:
			err = paimon_schema_change_update_column_comment(&ch, k, v);
			break;
		case A_COL_TYPE:
			err = paimon_schema_change_update_column_type(&ch, k, v);
			break;
		case A_COMMENT:
			err = paimon_schema_change_update_comment(&ch, it->value);
			break;
		case A_REMOVE_COMMENT:
			err = paimon_schema_change_update_comment(&ch, NULL);
			break;
		case A_SET_OPT:
			err = paimon_schema_change_set_option(&ch, k, v);
			break;
		case A_REMOVE_OPT:
			err = paimon_schema_change_remove_option(&ch, it->value);
			break;
		default:
			continue; /* positions were handled in pass 1 */
		}
		free(k);
		free(v);
		if (err < 0) {
			rc = cli_fail();
			goto out;
		}
		changes[nchanges++] = ch;
	}

	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		goto out;
	rc = paimon_catalog_alter_table(cat, pos[0], changes, nchanges, 0) < 0 ? cli_fail() : CLI_EXIT_OK;
out:
	for (i = 0; changes && i < nchanges; i++)
		paimon_schema_change_free(changes[i]);
	free(changes);
	for (i = 0; adds && i < acts.count; i++) {
		free(adds[i].name);
		free(adds[i].type);
		free(adds[i].comment);
	}
	free(adds);
	cli_list_dispose(&acts);
	return rc;
}

static const cli_cmd table_cmds[] = {
	{"create", table_create,
	 "DB.TABLE (--columns LIST | --schema FILE) [--partition-keys A,B] [--primary-keys A,B] "
	 "[-o KEY=VALUE]... [--comment TEXT] [--ignore-if-exists]",
	 "Create a table.",
	 "Types are Paimon type strings: INT, BIGINT, STRING, DECIMAL(10, 2), ARRAY<INT>,\n"
	 "ROW<a INT, b STRING>, BLOB..., with NOT NULL for required columns.\n"
	 "--partition-keys, --primary-keys, --option and --comment apply on top of --schema.\n\n"
	 "Example:\n"
	 "  paimonc -w /tmp/wh table create db.t --columns \"id BIGINT NOT NULL, label STRING COMMENT 'text'\" \\\n"
	 "      --primary-keys id -o bucket=2\n",
	 1, 1},
	{"list", table_list, "DATABASE [--json]", "List the tables of a database, one name per line.", NULL, 1, 1},
	{"describe", table_describe, "DB.TABLE [--json]",
	 "Show a table's columns, keys, options, comment, schema id and latest snapshot.", NULL, 1, 1},
	{"alter", table_alter, "DB.TABLE ACTION...", "Change a table's schema; all actions make one new schema version.",
	 "Actions apply in the order given, all or none. --first, --after and --before place\n"
	 "the --add-column that precedes them.\n\n"
	 "Example:\n"
	 "  paimonc table alter db.t --add-column \"ts TIMESTAMP(3) COMMENT 'event time'\" --after id \\\n"
	 "      --rename-column label=title --set-option snapshot.num-retained.max=20\n",
	 1, 1},
	{"rename", table_rename, "DB.TABLE DB.NEW_TABLE", "Rename a table.", NULL, 2, 2},
	{"drop", table_drop, "DB.TABLE [--if-exists]", "Drop a table and all its files.", NULL, 1, 1},
};

const cli_group cli_group_table = {"table", "Create, inspect, alter, rename and drop tables.", table_cmds,
				   sizeof table_cmds / sizeof table_cmds[0]};
