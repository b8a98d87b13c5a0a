/*
 * common.c - argument parsing, errors, help and output helpers for paimonc.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ----------------------------------------------------------------- errors */

int cli_fail(void)
{
	const char *msg = paimon_error_message();
	if (!msg || !*msg)
		msg = paimon_error_code_last() != PAIMON_OK ? paimon_error_name(paimon_error_code_last())
							    : "operation failed (no error message)";
	fprintf(stderr, "paimonc: %s\n", msg);
	return CLI_EXIT_FAIL;
}

int cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("paimonc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

int cli_oom(void)
{
	return cli_error("out of memory");
}

int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	fputs("paimonc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs("Try 'paimonc", stderr);
	if (ctx && ctx->group)
		fprintf(stderr, " %s", ctx->group->name);
	if (ctx && ctx->cmd)
		fprintf(stderr, " %s", ctx->cmd->name);
	fputs(" --help' for more information.\n", stderr);
	return CLI_EXIT_USAGE;
}

/* ---------------------------------------------------------------- catalog */

int cli_catalog(cli_ctx *ctx, paimon_catalog **out)
{
	paimon_options *opts = NULL;
	int rc;

	if (ctx->catalog) {
		*out = ctx->catalog;
		return CLI_CONTINUE;
	}
	if (!ctx->warehouse || !*ctx->warehouse)
		return cli_usage_error(NULL, "no warehouse given: use -w PATH or set PAIMONC_WAREHOUSE");
	if (paimon_options_new(&opts) < 0 ||
	    paimon_options_set(opts, "warehouse", ctx->warehouse) < 0 ||
	    paimon_catalog_open(&ctx->catalog, opts) < 0) {
		ctx->catalog = NULL;
		rc = cli_fail();
		paimon_options_free(opts);
		return rc;
	}
	paimon_options_free(opts);
	*out = ctx->catalog;
	return CLI_CONTINUE;
}

int cli_open_table(cli_ctx *ctx, const char *ident, paimon_table **out)
{
	paimon_catalog *cat;
	int rc;

	*out = NULL;
	if ((rc = cli_check_identifier(ctx, ident)) != CLI_CONTINUE)
		return rc;
	if ((rc = cli_catalog(ctx, &cat)) != CLI_CONTINUE)
		return rc;
	if (paimon_catalog_get_table(cat, ident, out) < 0) {
		*out = NULL;
		return cli_fail();
	}
	return CLI_CONTINUE;
}

/* ------------------------------------------------------------ arguments */

void cli_list_dispose(cli_list *l)
{
	free(l->items);
	l->items = NULL;
	l->count = l->cap = 0;
}

static int list_push(cli_list *l, int tag, const char *value, const char *spelling)
{
	if (l->count == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 8;
		cli_item *n = realloc(l->items, ncap * sizeof *n);
		if (!n)
			return -1;
		l->items = n;
		l->cap = ncap;
	}
	l->items[l->count].tag = tag;
	l->items[l->count].value = value;
	l->items[l->count].spelling = spelling;
	l->count++;
	return 0;
}

static int takes_value(const cli_opt *o)
{
	return o->kind == CLI_OPT_VALUE || o->kind == CLI_OPT_LIST;
}

static const cli_opt *find_long(const cli_opt *opts, const char *name, size_t len)
{
	for (; opts && opts->kind != CLI_OPT_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len && strncmp(opts->long_name, name, len) == 0)
			return opts;
	return NULL;
}

static const cli_opt *find_short(const cli_opt *opts, char c)
{
	for (; opts && opts->kind != CLI_OPT_END; opts++)
		if (opts->short_name && opts->short_name == c)
			return opts;
	return NULL;
}

/* The canonical spelling of an option, for ordered lists. */
static const char *spelling_of(const cli_opt *o)
{
	static _Thread_local char buf[8][64];
	static _Thread_local unsigned next;
	char *b = buf[next++ % 8];
	if (o->long_name)
		snprintf(b, sizeof buf[0], "--%s", o->long_name);
	else
		snprintf(b, sizeof buf[0], "-%c", o->short_name);
	return b;
}

int cli_parse(cli_ctx *ctx, const cli_opt *opts, int argc, char **argv, const char **pos, size_t *npos)
{
	const cli_cmd *cmd = ctx->cmd;
	size_t n = 0;
	int only_pos = 0, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const cli_opt *o;
		int has_val = 0;
		int shown_len;

		if (only_pos || a[0] != '-' || a[1] == '\0') {
			if (n >= cmd->max_args || n >= CLI_MAX_ARGS)
				return cli_usage_error(ctx, "unexpected argument '%s'", a);
			pos[n++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			shown_len = (int)(len + 2);
			if (len == 4 && strncmp(name, "help", 4) == 0 && !eq) {
				cli_print_cmd_help(stdout, ctx->group, cmd, opts);
				return CLI_EXIT_OK;
			}
			o = find_long(opts, name, len);
			if (!o)
				return cli_usage_error(ctx, "unknown option '%.*s'", shown_len, a);
			if (eq) {
				has_val = 1;
				val = eq + 1;
			}
		} else {
			shown_len = 2;
			if (a[1] == 'h' && a[2] == '\0') {
				cli_print_cmd_help(stdout, ctx->group, cmd, opts);
				return CLI_EXIT_OK;
			}
			o = find_short(opts, a[1]);
			if (!o)
				return cli_usage_error(ctx, "unknown option '%s'", a);
			if (a[2]) {
				if (!takes_value(o))
					return cli_usage_error(ctx, "unknown option '%s'", a);
				has_val = 1;
				val = a + 2;
			}
		}
		if (takes_value(o)) {
			if (!has_val) {
				if (i + 1 >= argc)
					return cli_usage_error(ctx, "option '%.*s' needs a value (%s)", shown_len, a,
							       o->value_name ? o->value_name : "VALUE");
				val = argv[++i];
			}
		} else if (has_val) {
			return cli_usage_error(ctx, "option '%.*s' takes no value", shown_len, a);
		}
		switch (o->kind) {
		case CLI_OPT_FLAG:
			*(int *)o->target = 1;
			break;
		case CLI_OPT_VALUE:
			*(const char **)o->target = val;
			break;
		case CLI_OPT_LIST:
		case CLI_OPT_LIST_FLAG:
			if (list_push(o->target, o->tag, val, spelling_of(o)) < 0)
				return cli_oom();
			break;
		case CLI_OPT_END:
			break;
		}
	}
	if (n < cmd->min_args) {
		/* Name the missing argument after its word in the synopsis. */
		const char *w = cmd->synopsis;
		size_t k = 0, len = 0;
		for (;;) {
			while (*w == ' ')
				w++;
			len = strcspn(w, " ");
			if (!len || *w == '[' || *w == '(' || *w == '-' || k == n)
				break;
			w += len;
			k++;
		}
		if (k != n || !len || *w == '[' || *w == '(' || *w == '-')
			w = "ARGUMENT", len = 8;
		return cli_usage_error(ctx, "missing argument %.*s (usage: paimonc %s%s%s %s)", (int)len, w,
				       ctx->group ? ctx->group->name : "", ctx->group ? " " : "", cmd->name, cmd->synopsis);
	}
	*npos = n;
	return CLI_CONTINUE;
}

int cli_split_kv(cli_ctx *ctx, const char *opt, const char *arg, char **key, char **value)
{
	const char *eq = strchr(arg, '=');
	*key = *value = NULL;
	if (!eq)
		return cli_usage_error(ctx, "invalid value '%s' for %s: expected KEY=VALUE", arg, opt);
	if (eq == arg)
		return cli_usage_error(ctx, "invalid value '%s' for %s: empty name before '='", arg, opt);
	*key = strndup(arg, (size_t)(eq - arg));
	*value = strdup(eq + 1);
	if (!*key || !*value) {
		free(*key);
		free(*value);
		*key = *value = NULL;
		return cli_oom();
	}
	return CLI_CONTINUE;
}

int cli_parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = (int64_t)v;
	return 0;
}

int cli_check_identifier(cli_ctx *ctx, const char *ident)
{
	if (!strchr(ident, '.'))
		return cli_usage_error(ctx, "invalid table identifier '%s': expected DATABASE.TABLE", ident);
	return CLI_CONTINUE;
}

void cli_names_free(char **names, size_t count)
{
	size_t i;
	if (!names)
		return;
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

int cli_split_names(cli_ctx *ctx, const char *opt, const char *arg, char ***names, size_t *count)
{
	size_t n = 1, k = 0;
	const char *p, *start;
	char **v;

	*names = NULL;
	*count = 0;
	for (p = arg; *p; p++)
		if (*p == ',')
			n++;
	v = calloc(n, sizeof *v);
	if (!v)
		return cli_oom();
	start = arg;
	for (;;) {
		const char *end = strchr(start, ','), *b = start, *e;
		if (!end)
			end = start + strlen(start);
		e = end;
		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (b == e) {
			cli_names_free(v, k);
			return cli_usage_error(ctx, "invalid value '%s' for %s: empty name in list", arg, opt);
		}
		v[k] = strndup(b, (size_t)(e - b));
		if (!v[k]) {
			cli_names_free(v, k);
			return cli_oom();
		}
		k++;
		if (!*end)
			break;
		start = end + 1;
	}
	*names = v;
	*count = k;
	return CLI_CONTINUE;
}

/* ------------------------------------------------------------------- help */

static const char *global_help =
	"Global options (before GROUP):\n"
	"  -w, --warehouse PATH   warehouse directory or file:// URI\n"
	"                         (default: $PAIMONC_WAREHOUSE)\n"
	"      --json             print listings and descriptions as JSON\n"
	"  -h, --help             show help (also after GROUP or COMMAND)\n"
	"      --version          show the version\n";

void cli_print_top_help(FILE *f, const cli_group *const *groups, size_t ngroups, const cli_cmd *const *cmds,
			size_t ncmds)
{
	size_t g, c;
	fputs("Usage: paimonc [-w PATH] [--json] [GROUP] COMMAND [ARGS]\n\n"
	      "Inspect and manage Apache Paimon tables in a filesystem warehouse.\n\n",
	      f);
	fputs(global_help, f);
	fputs("\nCommands:\n", f);
	for (c = 0; c < ncmds; c++)
		fprintf(f, "  %-19s %s\n", cmds[c]->name, cmds[c]->synopsis);
	for (g = 0; g < ngroups; g++)
		for (c = 0; c < groups[g]->ncmds; c++)
			fprintf(f, "  %-8s %-10s %s\n", groups[g]->name, groups[g]->cmds[c].name,
				groups[g]->cmds[c].synopsis);
	fputs("\nExit status: 0 success, 1 failure, 2 usage error.\n"
	      "Run 'paimonc GROUP --help' or 'paimonc GROUP COMMAND --help' for details.\n",
	      f);
}

void cli_print_group_help(FILE *f, const cli_group *g)
{
	size_t c;
	fprintf(f, "Usage: paimonc [-w PATH] [--json] %s COMMAND [ARGS]\n\n%s\n\nCommands:\n", g->name, g->summary);
	for (c = 0; c < g->ncmds; c++)
		fprintf(f, "  %-9s %s\n", g->cmds[c].name, g->cmds[c].summary);
	fprintf(f, "\nRun 'paimonc %s COMMAND --help' for a command's options.\n", g->name);
}

static void opt_left(char *buf, size_t size, const cli_opt *o)
{
	snprintf(buf, size, "%c%c%c %s%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
		 o->short_name && o->long_name ? ',' : ' ', o->long_name ? "--" : "", o->long_name ? o->long_name : "",
		 takes_value(o) ? " " : "", takes_value(o) && o->value_name ? o->value_name : (takes_value(o) ? "VALUE" : ""));
}

void cli_print_cmd_help(FILE *f, const cli_group *g, const cli_cmd *c, const cli_opt *opts)
{
	const cli_opt *o;
	char left[128];
	size_t w = strlen("-h, --help");

	fprintf(f, "Usage: paimonc [-w PATH] %s%s%s %s\n\n%s\n", g ? g->name : "", g ? " " : "", c->name, c->synopsis,
		c->summary);
	for (o = opts; o && o->kind != CLI_OPT_END; o++) {
		opt_left(left, sizeof left, o);
		if (strlen(left) > w)
			w = strlen(left);
	}
	fputs("\nOptions:\n", f);
	for (o = opts; o && o->kind != CLI_OPT_END; o++) {
		opt_left(left, sizeof left, o);
		fprintf(f, "  %-*s  %s\n", (int)w, left, o->help ? o->help : "");
	}
	fprintf(f, "  %-*s  %s\n", (int)w, "-h, --help", "show this help");
	if (c->details)
		fprintf(f, "\n%s", c->details);
}

/* ----------------------------------------------------------------- output */

void cli_format_time(char *buf, size_t size, int64_t millis)
{
	int64_t secs = millis / 1000, ms = millis % 1000;
	struct tm tm;
	time_t t;
	if (ms < 0) {
		ms += 1000;
		secs--;
	}
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, size, "%lld", (long long)millis);
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)ms);
}

int cli_color(void)
{
	const char *term = getenv("TERM");
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		return 0;
	if (term && strcmp(term, "dumb") == 0)
		return 0;
	return isatty(STDOUT_FILENO);
}

void cli_table_init(cli_table *t, size_t ncols, const char *const *headers, const char *align)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->headers = headers;
	t->align = align;
}

int cli_table_add(cli_table *t, const char *const *row)
{
	size_t i;
	if (t->nrows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		char **n;
		if (ncap > SIZE_MAX / sizeof *n / t->ncols)
			return -1;
		n = realloc(t->cells, ncap * t->ncols * sizeof *n);
		if (!n)
			return -1;
		t->cells = n;
		t->cap = ncap;
	}
	for (i = 0; i < t->ncols; i++) {
		char *s = strdup(row[i] ? row[i] : "");
		if (!s) {
			while (i-- > 0)
				free(t->cells[t->nrows * t->ncols + i]);
			return -1;
		}
		t->cells[t->nrows * t->ncols + i] = s;
	}
	t->nrows++;
	return 0;
}

size_t cli_text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

void cli_put_json(const char *json)
{
	size_t len = strlen(json);
	fputs(json, stdout);
	if (len == 0 || json[len - 1] != '\n')
		fputc('\n', stdout);
}

static void print_cell(const char *s, size_t width, char align, int last)
{
	size_t w = cli_text_width(s), pad = width > w ? width - w : 0;
	if (align == 'r')
		printf("%*s", (int)pad, "");
	fputs(s, stdout);
	if (align != 'r' && !last)
		printf("%*s", (int)pad, "");
}

void cli_table_print(const cli_table *t, int indent, int with_header)
{
	size_t widths[16] = {0}, r, c, nc = t->ncols < 16 ? t->ncols : 16;
	int bold = with_header && cli_color();

	for (c = 0; c < nc; c++) {
		if (with_header)
			widths[c] = cli_text_width(t->headers[c]);
		for (r = 0; r < t->nrows; r++) {
			size_t w = cli_text_width(t->cells[r * t->ncols + c]);
			if (w > widths[c])
				widths[c] = w;
		}
	}
	if (with_header) {
		printf("%*s", indent, "");
		if (bold)
			fputs("\033[1m", stdout);
		for (c = 0; c < nc; c++) {
			print_cell(t->headers[c], widths[c], t->align ? t->align[c] : 'l', c + 1 == nc);
			if (c + 1 < nc)
				fputs("  ", stdout);
		}
		if (bold)
			fputs("\033[0m", stdout);
		fputc('\n', stdout);
	}
	for (r = 0; r < t->nrows; r++) {
		char *const *row = &t->cells[r * t->ncols];
		size_t end = nc; /* no trailing blanks: stop after the last non-empty cell */
		while (end > 0 && !*row[end - 1])
			end--;
		printf("%*s", indent, "");
		for (c = 0; c < end; c++) {
			print_cell(row[c], widths[c], t->align ? t->align[c] : 'l', c + 1 == end);
			if (c + 1 < end)
				fputs("  ", stdout);
		}
		fputc('\n', stdout);
	}
}

void cli_table_dispose(cli_table *t)
{
	size_t i;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

int cli_emit_listing(json_t **arr, const cli_table *tab)
{
	json_t *doc = *arr;
	if (doc) {
		*arr = NULL;
		return cli_print_json(doc);
	}
	if (tab->nrows)
		cli_table_print(tab, 0, 1);
	return CLI_EXIT_OK;
}

int cli_print_json(json_t *doc)
{
	int rc;
	if (!doc)
		return cli_oom();
	rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (rc < 0)
		return cli_error("cannot write JSON output");
	fputc('\n', stdout);
	return CLI_EXIT_OK;
}

int cli_json_push(json_t *array, json_t *v)
{
	if (!v)
		return -1;
	return json_array_append_new(array, v);
}

json_t *cli_json_str(const char *s)
{
	json_t *j;
	char *copy, *p;
	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	/* Not UTF-8 (say, a file name): keep ASCII, mark the rest. */
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* The --option KEY=VALUE items of l into o; CLI_CONTINUE or an exit status. */
int cli_set_kv_options(cli_ctx *ctx, const cli_list *l, paimon_options *o)
{
	size_t i;
	for (i = 0; i < l->count; i++) {
		char *k = NULL, *v = NULL;
		int rc;
		if ((rc = cli_split_kv(ctx, "--option", l->items[i].value, &k, &v)) != CLI_CONTINUE)
			return rc;
		rc = paimon_options_set(o, k, v);
		free(k);
		free(v);
		if (rc < 0)
			return cli_fail();
	}
	return CLI_CONTINUE;
}

void cli_progress_bar(const char *verb, const char *unit, int64_t done, int64_t total)
{
	static int64_t last = -1;
	int width = 30, fill;
	if (!isatty(2))
		return;
	fill = total > 0 ? (int)((double)done / (double)total * width) : width;
	if (fill == last && done < total)
		return;
	last = fill;
	fprintf(stderr, "\r%s [%-*.*s] %lld/%lld %s", verb, width, fill, "##############################",
		(long long)done, (long long)total, unit);
	if (done >= total)
		fputc('\n', stderr);
	fflush(stderr);
}
