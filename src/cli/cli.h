/*
 * cli.h - shared declarations of the paimonc command-line tool.
 *
 * The tool is a client of the public API (include/paimonc) and nothing else.
 * main.c holds the table of command groups and the global options; each
 * cmd_<group>.c holds one group's command table and handlers; common.c holds
 * argument parsing, error reporting and output helpers.
 *
 * Exit status: 0 success, 1 failure (the library's message on stderr),
 * 2 usage error (message plus a --help hint on stderr). Data goes to stdout,
 * and only once a command has everything it is going to print.
 */
#ifndef PAIMONC_CLI_H
#define PAIMONC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "paimonc/paimonc.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2
/* cli_parse and friends: "go on", as opposed to an exit status. */
#define CLI_CONTINUE (-1)

struct cli_ctx;

typedef struct cli_cmd {
	const char *name;
	int (*fn)(struct cli_ctx *ctx, int argc, char **argv);
	const char *synopsis; /* what follows "paimonc GROUP CMD" in the usage line */
	const char *summary;  /* one line */
	const char *details;  /* extra help text, or NULL */
	size_t min_args, max_args; /* positional arguments */
} cli_cmd;

typedef struct cli_group {
	const char *name;
	const char *summary;
	const cli_cmd *cmds;
	size_t ncmds;
} cli_group;

typedef struct cli_ctx {
	const char *warehouse; /* -w / PAIMONC_WAREHOUSE, or NULL */
	int json;              /* --json */
	const cli_group *group;
	const cli_cmd *cmd;
	paimon_catalog *catalog; /* opened on demand, freed by main */
} cli_ctx;

extern const cli_group cli_group_db;
extern const cli_group cli_group_table;
extern const cli_group cli_group_schema;
extern const cli_group cli_group_snapshot;
extern const cli_group cli_group_tag;
extern const cli_group cli_group_branch;      /* cmd_branch.c */

/*
 * Commands without a group: `paimonc write`, `paimonc read`,
 * `paimonc snapshots`. They run with ctx->group == NULL.
 */
extern const cli_cmd cli_cmd_write; /* cmd_write.c */
extern const cli_cmd cli_cmd_update; /* cmd_write.c */
extern const cli_cmd cli_cmd_read;  /* cmd_read.c */
extern const cli_cmd cli_cmd_files; /* cmd_files.c */
extern const cli_cmd cli_cmd_remove_orphan_files; /* cmd_orphan.c */
extern const cli_cmd cli_cmd_expire_snapshots;    /* cmd_orphan.c */
extern const cli_cmd cli_cmd_compact;             /* cmd_orphan.c */
extern const cli_cmd cli_cmd_expire_partitions;   /* cmd_orphan.c */
extern const cli_cmd cli_cmd_rollback;            /* cmd_orphan.c */

/* ------------------------------------------------------------ arguments */

typedef enum cli_opt_kind {
	CLI_OPT_END = 0,   /* terminates an option table */
	CLI_OPT_FLAG,      /* int *target set to 1 */
	CLI_OPT_VALUE,     /* const char **target; the last one given wins */
	CLI_OPT_LIST,      /* cli_list *target; appends (tag, value) */
	CLI_OPT_LIST_FLAG, /* cli_list *target; appends (tag, NULL) */
} cli_opt_kind;

typedef struct cli_opt {
	cli_opt_kind kind;
	char short_name; /* 0 for none */
	const char *long_name;
	const char *value_name; /* shown in help, e.g. "KEY=VALUE" */
	const char *help;
	void *target;
	int tag;
} cli_opt;

typedef struct cli_item {
	int tag;
	const char *value; /* borrowed from argv; NULL for list flags */
	const char *spelling; /* the option as given, e.g. "--after" */
} cli_item;

/* Options that keep their order, such as `table alter`'s actions. */
typedef struct cli_list {
	cli_item *items;
	size_t count, cap;
} cli_list;

void cli_list_dispose(cli_list *l);

#define CLI_MAX_ARGS 4

/*
 * Parses a command's arguments (argv[0] is the command name). Prints the
 * command's help for -h/--help. Returns CLI_CONTINUE when the command should
 * run, otherwise the exit status to return (0 after help, 2 on bad usage).
 * pos must hold ctx->cmd->max_args entries (at most CLI_MAX_ARGS).
 */
int cli_parse(cli_ctx *ctx, const cli_opt *opts, int argc, char **argv, const char **pos, size_t *npos);

/* Splits "KEY=VALUE" at the first '='; both results are newly allocated. */
int cli_split_kv(cli_ctx *ctx, const char *opt, const char *arg, char **key, char **value);
/* The --option KEY=VALUE items of l into o; CLI_CONTINUE or an exit status. */
int cli_set_kv_options(cli_ctx *ctx, const cli_list *l, paimon_options *o);
/* A progress bar on stderr when it is a terminal: "<verb> [###   ] done/total <unit>". */
void cli_progress_bar(const char *verb, const char *unit, int64_t done, int64_t total);
/* Strict decimal integer. Returns 0 or -1. */
int cli_parse_i64(const char *s, int64_t *out);
/* Checks that a table identifier has the form DB.TABLE (library validates the names). */
int cli_check_identifier(cli_ctx *ctx, const char *ident);
/* Splits "a, b,c" into a list of trimmed names. Usage error on an empty item. */
int cli_split_names(cli_ctx *ctx, const char *opt, const char *arg, char ***names, size_t *count);
void cli_names_free(char **names, size_t count);

/* ----------------------------------------------------------------- errors */

/* "paimonc: <library message>" on stderr; returns CLI_EXIT_FAIL. */
int cli_fail(void);
/* "paimonc: <message>" on stderr; returns CLI_EXIT_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_oom(void);
/* Message plus a hint to use --help of the current command; returns CLI_EXIT_USAGE. */
int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Opens the catalog of ctx->warehouse once; returns CLI_CONTINUE or an exit status. */
int cli_catalog(cli_ctx *ctx, paimon_catalog **out);
/* Opens a table; returns CLI_CONTINUE or an exit status. */
int cli_open_table(cli_ctx *ctx, const char *ident, paimon_table **out);

/* ------------------------------------------------------------------- help */

/* cmds: the commands without a group (listed first). */
void cli_print_top_help(FILE *f, const cli_group *const *groups, size_t ngroups, const cli_cmd *const *cmds,
			size_t ncmds);
void cli_print_group_help(FILE *f, const cli_group *g);
/* g may be NULL for a command without a group. */
void cli_print_cmd_help(FILE *f, const cli_group *g, const cli_cmd *c, const cli_opt *opts);

/* ----------------------------------------------------------------- output */

/* UTC ISO-8601 with milliseconds, e.g. 2024-05-01T10:00:00.123Z. */
void cli_format_time(char *buf, size_t size, int64_t millis);
/* Whether to use terminal attributes on stdout. */
int cli_color(void);

/* A human-readable table with aligned columns; cells are copied. */
typedef struct cli_table {
	size_t ncols, nrows, cap;
	const char *const *headers;
	const char *align; /* per column 'l' or 'r'; NULL: all left */
	char **cells;      /* nrows * ncols */
} cli_table;

void cli_table_init(cli_table *t, size_t ncols, const char *const *headers, const char *align);
/* Adds a row of ncols strings (NULL prints as empty); returns 0 or -1 (OOM). */
int cli_table_add(cli_table *t, const char *const *row);
/* indent: spaces before each line; with_header: print the header row. */
void cli_table_print(const cli_table *t, int indent, int with_header);
void cli_table_dispose(cli_table *t);

/* Prints one JSON document to stdout and releases it; NULL means OOM. */
int cli_print_json(json_t *doc);
/* Output of a listing built both ways: with --json (*arr set) prints and
 * releases the array (*arr becomes NULL), else prints the table if it has rows. */
int cli_emit_listing(json_t **arr, const cli_table *tab);
/* Display width of UTF-8 text: code points (no East Asian width handling). */
size_t cli_text_width(const char *s);
/* Prints a JSON document to stdout, ending it with one newline. */
void cli_put_json(const char *json);
/* json_array_append_new that reports failure (and releases v). */
int cli_json_push(json_t *array, json_t *v);
/* A JSON string or null. */
json_t *cli_json_str(const char *s);

#endif
