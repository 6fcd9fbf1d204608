// SPDX-License-Identifier: GPL-2.0
/* advise --header: the proposal as a patch of the struct's header (see advise-header.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advise-header.h"
#include "advise-paths.h"
#include "util.h"

/* One declaration of the struct's body, with what belongs to it. */
struct decl {
	char *text;		/* whole lines, its own copy */
	char **names;		/* the members it declares */
	size_t nnames;
	int unit;		/* the unit of its first member; -1: none */
	bool marker;		/* an old __cacheline_group_begin/end() */
	bool tail;		/* comments before the closing brace */
	bool emitted;
};

struct body {
	struct decl *d;
	size_t nd;
};

/* A growing string. */
struct text {
	char *s;
	size_t len, cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = 2 * (t->len + n + 1) + 256;
		t->s = xrealloc(t->s, t->cap);
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = 0;
}

static void text_printf(struct text *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	text_add(t, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n :
		 sizeof(buf) - 1);
}

static char *dup_range(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static void body_free(struct body *bd);

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static size_t line_end(const char *s, size_t i)
{
	while (s[i] && s[i] != '\n')
		i++;
	return s[i] ? i + 1 : i;
}

/* The first non-blank of the line at @i is '#'. */
static bool preprocessor_line(const char *s, size_t i)
{
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	return s[i] == '#';
}

/* +1 for #if/#ifdef/#ifndef, -1 for #endif, 0 else (line at @i). */
static int pp_nesting(const char *s, size_t i)
{
	while (s[i] == ' ' || s[i] == '\t' || s[i] == '#')
		i++;
	if (!strncmp(s + i, "if", 2))
		return 1;
	if (!strncmp(s + i, "endif", 5))
		return -1;
	return 0;
}

/*
 * The code of [@b, @e): comments and preprocessor lines blanked, so
 * that names are read from declarations only.
 */
static char *code_of(const char *s, size_t b, size_t e)
{
	char *c = xcalloc(e - b + 1, 1);
	bool at_line = true;

	for (size_t i = b, o = 0; i < e;) {
		if (at_line && preprocessor_line(s, i)) {
			size_t end = i;

			/* With its continuation lines. */
			do {
				end = line_end(s, end);
			} while (end > 1 && end < e && s[end - 2] == '\\');
			while (i < end && i < e)
				c[o++] = s[i++] == '\n' ? '\n' : ' ';
			continue;
		}
		if (s[i] == '/' && s[i + 1] == '*') {
			const char *close = strstr(s + i + 2, "*/");
			size_t end = close ? (size_t)(close - s) + 2 : e;

			while (i < end && i < e)
				c[o++] = s[i++] == '\n' ? '\n' : ' ';
			continue;
		}
		if (s[i] == '/' && s[i + 1] == '/') {
			while (i < e && s[i] != '\n')
				c[o++] = ' ', i++;
			continue;
		}
		at_line = s[i] == '\n' ||
			  (at_line && (s[i] == ' ' || s[i] == '\t'));
		c[o++] = s[i++];
	}
	return c;
}

static void add_name(struct decl *d, const char *s, size_t n)
{
	d->names = xrealloc(d->names, (d->nnames + 1) * sizeof(*d->names));
	d->names[d->nnames] = xcalloc(n + 1, 1);
	memcpy(d->names[d->nnames++], s, n);
}

/* The index of the bracket closing the one at @i, or @e. */
static size_t closing(const char *c, size_t i, size_t e)
{
	int depth = 0;

	for (; i < e; i++) {
		if (c[i] == '{' || c[i] == '(' || c[i] == '[')
			depth++;
		else if ((c[i] == '}' || c[i] == ')' || c[i] == ']') &&
			 --depth == 0)
			return i;
	}
	return e;
}

/*
 * The name one declarator declares ("u8 nonagle : 4", "u32 x[3]",
 * "void (*fn)(struct sock *)", "u32 y __aligned(8)"): the identifier
 * after "(*" for a function pointer, else the last identifier outside
 * brackets that is not an attribute (__x(...), ____x, __packed).
 */
static void declarator_name(struct decl *d, const char *c, size_t b, size_t e)
{
	size_t nb = 0, ne = 0;

	for (size_t i = b; i < e; i++) {
		if (c[i] == '(' && c[i + 1] == '*') {
			i += 2;
			while (i < e && !ident_char(c[i]))
				i++;
			nb = i;
			while (i < e && ident_char(c[i]))
				i++;
			add_name(d, c + nb, i - nb);
			return;
		}
		if (c[i] == ':' && c[i + 1] != ':')
			break;	/* a bitfield's width */
		if (c[i] == '[' || c[i] == '(') {
			i = closing(c, i, e);
			continue;
		}
		if (ident_char(c[i]) && !isdigit((unsigned char)c[i])) {
			size_t j = i;

			while (j < e && ident_char(c[j]))
				j++;
			/* Attributes: __x(...) and ____cacheline_aligned. */
			if (!(c[i] == '_' && c[i + 1] == '_' &&
			      (!strncmp(c + i, "____", 4) ||
			       !strncmp(c + i, "__packed", j - i) ||
			       (j < e && c[j] == '(')))) {
				nb = i;
				ne = j;
			}
			i = j - 1;
		}
	}
	if (ne > nb)
		add_name(d, c + nb, ne - nb);
}

static void declarations(struct decl *d, const char *c, size_t b, size_t e);

/* One statement [@b, @e) of code, its ';' excluded. */
static void statement(struct decl *d, const char *c, size_t b, size_t e)
{
	size_t i = b, part;

	while (i < e && isspace((unsigned char)c[i]))
		i++;
	if (i == e)
		return;
	if (!strncmp(c + i, "__cacheline_group_begin", 23) ||
	    !strncmp(c + i, "__cacheline_group_end", 21)) {
		d->marker = true;
		return;
	}
	for (size_t k = i; k < e; k++) {
		if (c[k] == '{') {
			size_t close = closing(c, k, e);
			size_t before = d->nnames;

			/* Named: "struct x {...} name;", else its members. */
			for (part = close + 1; part < e; part++)
				if (c[part] == ',') {
					declarator_name(d, c, close + 1, part);
					close = part;
				}
			declarator_name(d, c, close + 1, e);
			if (d->nnames == before)
				declarations(d, c, k + 1, closing(c, k, e));
			return;
		}
		if (c[k] == '(' && c[k + 1] != '*') {
			/* A macro, DECLARE_BITMAP(name, n): its first argument. */
			size_t j = k + 1, nb;
			bool macro = true;

			for (size_t t = i; t < k; t++)
				macro &= ident_char(c[t]);
			if (macro) {
				while (j < e && !ident_char(c[j]))
					j++;
				nb = j;
				while (j < e && ident_char(c[j]))
					j++;
				if (j > nb)
					add_name(d, c + nb, j - nb);
				return;
			}
		}
	}
	/* "u8 a:1, b:1": declarators at bracket depth 0. */
	part = i;
	for (size_t k = i; k <= e; k++) {
		if (k < e && (c[k] == '(' || c[k] == '[')) {
			k = closing(c, k, e);
			continue;
		}
		if (k == e || c[k] == ',') {
			declarator_name(d, c, part, k);
			part = k + 1;
		}
	}
}

/* The statements of [@b, @e), split at ';' outside brackets. */
static void declarations(struct decl *d, const char *c, size_t b, size_t e)
{
	size_t start = b;

	for (size_t i = b; i < e; i++) {
		if (c[i] == '{' || c[i] == '(' || c[i] == '[') {
			i = closing(c, i, e);
			continue;
		}
		if (c[i] == ';') {
			statement(d, c, start, i);
			start = i + 1;
		}
	}
}

/*
 * The body [@b, @e) cut into declarations: a cut after the line where a
 * ';' outside braces, comments and #if blocks ends a statement (its
 * trailing comment closed), or after the #endif closing a block that
 * held one.
 */
static void cut(struct body *bd, const char *s, size_t b, size_t e)
{
	size_t start = b, i = b;
	int depth = 0, pp = 0;
	bool in_comment = false, ended = false;

	while (i < e) {
		size_t eol = line_end(s, i);

		if (!in_comment && preprocessor_line(s, i)) {
			pp += pp_nesting(s, i);
			if (pp < 0)
				pp = 0;
			i = eol;
			/* Continuation lines of a #define. */
			while (i < e && i > 1 && s[i - 2] == '\\')
				i = line_end(s, i);
		} else {
			for (; i < eol; i++) {
				if (in_comment) {
					if (s[i] == '*' && s[i + 1] == '/')
						in_comment = false, i++;
					continue;
				}
				if (s[i] == '/' && s[i + 1] == '*') {
					in_comment = true;
					i++;
				} else if (s[i] == '/' && s[i + 1] == '/') {
					i = eol - 1;
				} else if (s[i] == '{') {
					depth++;
				} else if (s[i] == '}') {
					depth--;
				} else if (s[i] == ';' && depth == 0) {
					ended = true;
				}
			}
		}
		if (ended && !in_comment && depth == 0 && pp == 0) {
			bd->d = xrealloc(bd->d, (bd->nd + 1) * sizeof(*bd->d));
			bd->d[bd->nd++] = (struct decl){
				.text = dup_range(s + start, i - start),
				.unit = -1,
			};
			start = i;
			ended = false;
		}
	}
	if (start < e) {	/* comments before the closing brace */
		bd->d = xrealloc(bd->d, (bd->nd + 1) * sizeof(*bd->d));
		bd->d[bd->nd++] = (struct decl){
			.text = dup_range(s + start, e - start),
			.unit = -1, .tail = true,
		};
	}
}

/*
 * "#if COND" lines around declarations and nothing else: each
 * declaration becomes a block of its own under the same condition, so
 * that the proposal may part them (CONFIG_NET_RX_BUSY_POLL's u8 and u16
 * in struct sock).  A block with #else, #elif or any other directive
 * stays whole, and its members move together (advise_header_sets()).
 */
static void split_if_blocks(struct body *bd)
{
	for (size_t k = 0; k < bd->nd; k++) {
		const char *s = bd->d[k].text;
		size_t n = strlen(s), i = 0, if_at, body, endif_at = 0;
		struct body in = { 0 };

		/* Leading comments and blank lines, then the #if line. */
		while (i < n && !preprocessor_line(s, i))
			i = line_end(s, i);
		if (i == n || pp_nesting(s, i) != 1)
			continue;
		if_at = i;
		body = line_end(s, i);
		for (i = body; i < n; i = line_end(s, i))
			if (preprocessor_line(s, i)) {
				endif_at = i;
				break;
			}
		if (i == n || pp_nesting(s, endif_at) != -1 ||
		    line_end(s, endif_at) != n)
			continue;
		cut(&in, s, body, endif_at);
		if (in.nd < 2 || in.d[in.nd - 1].tail) {
			body_free(&in);
			continue;
		}
		for (size_t x = 0; x < in.nd; x++) {
			struct text t = { 0 };

			if (!x)
				text_add(&t, s, if_at);
			text_add(&t, s + if_at, body - if_at);
			text_add(&t, in.d[x].text, strlen(in.d[x].text));
			text_add(&t, s + endif_at, n - endif_at);
			free(in.d[x].text);
			in.d[x].text = t.s;
		}
		free(bd->d[k].text);
		bd->d = xrealloc(bd->d, (bd->nd + in.nd) * sizeof(*bd->d));
		memmove(&bd->d[k + in.nd], &bd->d[k + 1],
			(bd->nd - k - 1) * sizeof(*bd->d));
		memcpy(&bd->d[k], in.d, in.nd * sizeof(*in.d));
		bd->nd += in.nd - 1;
		k += in.nd - 1;
		free(in.d);
	}
}

/* The unit that has member @name (units name theirs ", " apart). */
static int unit_named(const struct advise *a, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < a->nu; i++) {
		const char *p = a->u[i].name;

		while (*p) {
			size_t len = strcspn(p, ",");

			if (len == n && !strncmp(p, name, n))
				return (int)i;
			p += len;
			while (*p == ',' || *p == ' ')
				p++;
		}
	}
	return -1;
}

/* "struct NAME {" ending its line, outside comments: the line's start. */
static const char *find_struct(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(text, "struct "); p;
	     p = strstr(p + 1, "struct ")) {
		const char *q = p + 7;

		if (p > text && p[-1] != '\n')
			continue;	/* a declaration at a line's start */
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, name, n) || ident_char(q[n]))
			continue;
		q += n;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '{')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '\n')
			return p;
	}
	return NULL;
}

/* The text's lines [@b, @e) as pointers into it. */
static size_t split_lines(const char *s, size_t b, size_t e, const char ***out)
{
	size_t n = 0;

	*out = NULL;
	for (size_t i = b; i < e; i = line_end(s, i)) {
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = s + i;
	}
	return n;
}

static size_t line_len(const char *l)
{
	return strcspn(l, "\n");
}

static bool same_line(const char *x, const char *y)
{
	size_t n = line_len(x);

	return n == line_len(y) && !strncmp(x, y, n);
}

static void emit_line(struct text *t, char sign, const char *l)
{
	text_add(t, &sign, 1);
	text_add(t, l, line_len(l));
	text_add(t, "\n", 1);
}

/*
 * A unified diff of @old (@n lines) into @new (@m), the first at line
 * @first of the file: longest common subsequence, hunks with 3 lines of
 * context.
 */
static void diff_lines(struct text *t, const char **old, size_t n,
		       const char **new, size_t m, size_t first)
{
	size_t w = m + 1, i, j, k, nops = 0;
	unsigned int *lcs = xcalloc((n + 1) * w, sizeof(*lcs));
	char *op = xcalloc(n + m + 1, 1);
	size_t *oi = xcalloc(n + m + 1, sizeof(*oi));
	size_t *nj = xcalloc(n + m + 1, sizeof(*nj));

	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			lcs[i * w + j] = same_line(old[i], new[j]) ?
				lcs[(i + 1) * w + j + 1] + 1 :
				lcs[(i + 1) * w + j] > lcs[i * w + j + 1] ?
				lcs[(i + 1) * w + j] : lcs[i * w + j + 1];
	for (i = 0, j = 0; i < n || j < m; nops++) {
		oi[nops] = i;
		nj[nops] = j;
		if (i < n && j < m && same_line(old[i], new[j]))
			op[nops] = ' ', i++, j++;
		else if (j < m && (i == n || lcs[i * w + j + 1] >=
				   lcs[(i + 1) * w + j]))
			op[nops] = '+', j++;
		else
			op[nops] = '-', i++;
	}
	for (k = 0; k < nops;) {
		size_t h0, h1, ob, nb, oc = 0, nc = 0;

		while (k < nops && op[k] == ' ')
			k++;
		if (k == nops)
			break;
		h0 = k > 3 ? k - 3 : 0;
		/* The hunk runs on while changes are 6 lines or fewer apart. */
		for (h1 = k;;) {
			size_t same = 0;

			while (h1 < nops && op[h1] != ' ')
				h1++;
			while (h1 + same < nops && op[h1 + same] == ' ')
				same++;
			if (h1 + same == nops || same > 6) {
				h1 += same < 3 ? same : 3;
				break;
			}
			h1 += same;
		}
		ob = oi[h0];
		nb = nj[h0];
		for (size_t x = h0; x < h1; x++) {
			oc += op[x] != '+';
			nc += op[x] != '-';
		}
		text_printf(t, "@@ -%zu,%zu +%zu,%zu @@\n", first + ob, oc,
			    first + nb, nc);
		for (size_t x = h0; x < h1; x++)
			emit_line(t, op[x], op[x] == '+' ? new[nj[x]] :
					    old[oi[x]]);
		k = h1;
	}
	free(lcs);
	free(op);
	free(oi);
	free(nj);
}

/* @d's text, then the declarations after it that have no unit. */
static void emit_decl(struct text *t, struct body *bd, size_t k)
{
	bd->d[k].emitted = true;
	text_add(t, bd->d[k].text, strlen(bd->d[k].text));
	for (size_t x = k + 1; x < bd->nd && bd->d[x].unit < 0; x++) {
		if (bd->d[x].emitted || bd->d[x].marker || bd->d[x].tail)
			continue;
		bd->d[x].emitted = true;
		text_add(t, bd->d[x].text, strlen(bd->d[x].text));
	}
}

/* The new body: the declarations in the proposal's order, with markers. */
static void new_body(struct text *t, const struct advise *a, struct body *bd)
{
	size_t *v = paths_by_new(a);
	int open = -1;

	/* Declarations before the first with a unit stay first. */
	for (size_t k = 0; k < bd->nd && bd->d[k].unit < 0; k++)
		if (!bd->d[k].marker && !bd->d[k].tail && !bd->d[k].emitted)
			emit_decl(t, bd, k);
	for (size_t n = 0; n < a->nu; n++) {
		int u = (int)v[n], g = a->fp ? a->u[u].path_group : -1;

		if (g != open && open >= 0) {
			text_printf(t, "\t__cacheline_group_end(%s);\n",
				    a->group_names[open]);
			open = -1;
		}
		if (g >= 0 && g != open) {
			open = g;
			text_printf(t, "\t__cacheline_group_begin(%s);\n",
				    a->group_names[open]);
		}
		for (size_t k = 0; k < bd->nd; k++)
			if (bd->d[k].unit == u && !bd->d[k].emitted)
				emit_decl(t, bd, k);
	}
	if (open >= 0)
		text_printf(t, "\t__cacheline_group_end(%s);\n",
			    a->group_names[open]);
	for (size_t k = 0; k < bd->nd; k++)
		if (!bd->d[k].emitted && !bd->d[k].marker)
			emit_decl(t, bd, k);
	free(v);
}

static void body_free(struct body *bd)
{
	for (size_t k = 0; k < bd->nd; k++) {
		free(bd->d[k].text);
		for (size_t i = 0; i < bd->d[k].nnames; i++)
			free(bd->d[k].names[i]);
		free(bd->d[k].names);
	}
	free(bd->d);
}

/*
 * Struct @name's body in @text: its bytes [*@b, *@e), the line number of
 * its "struct NAME {" line, and its declarations with their names.
 */
static int parse_struct(const char *text, const char *path, const char *name,
			struct body *bd, size_t *b_out, size_t *e_out,
			size_t *first_out, char *err, size_t errlen)
{
	const char *start = find_struct(text, name);
	size_t b, e, depth = 0, first = 1;

	if (!start) {
		snprintf(err, errlen, "%s: no line \"struct %s {\" (the struct's definition, its brace ending the line)",
			 path, name);
		return -1;
	}
	for (const char *p = text; p < start; p++)
		first += *p == '\n';
	b = line_end(text, (size_t)(start - text));
	/* The closing brace: the line whose first non-blank is "}" at depth 0. */
	for (e = b; text[e]; e = line_end(text, e)) {
		char *code = code_of(text, e, line_end(text, e));
		const char *c = code;

		while (*c == ' ' || *c == '\t')
			c++;
		if (*c == '}' && !depth) {
			free(code);
			break;
		}
		for (; *c; c++)
			depth += *c == '{' ? 1 : *c == '}' ? -1 : 0;
		free(code);
	}
	if (!text[e]) {
		snprintf(err, errlen, "%s: struct %s has no line beginning with its closing brace",
			 path, name);
		return -1;
	}
	cut(bd, text, b, e);
	split_if_blocks(bd);
	for (size_t k = 0; k < bd->nd; k++) {
		size_t n = strlen(bd->d[k].text);
		char *code = code_of(bd->d[k].text, 0, n);

		declarations(&bd->d[k], code, 0, n);
		free(code);
	}
	*b_out = b;
	*e_out = e;
	*first_out = first;
	return 0;
}

char **advise_header_sets(const char *text, const char *path,
			  const char *name, char *err, size_t errlen)
{
	struct body bd = { 0 };
	size_t b, e, first, n = 0;
	char **sets;

	if (parse_struct(text, path, name, &bd, &b, &e, &first, err, errlen))
		return NULL;
	sets = xcalloc(bd.nd + 1, sizeof(*sets));
	for (size_t k = 0; k < bd.nd; k++) {
		struct text t = { 0 };

		if (bd.d[k].nnames < 2)
			continue;
		for (size_t i = 0; i < bd.d[k].nnames; i++)
			text_printf(&t, "%s%s", i ? "," : "", bd.d[k].names[i]);
		sets[n++] = t.s;
	}
	body_free(&bd);
	return sets;
}

char *advise_header_patch(const struct advise *a, const char *text,
			  const char *path, const char *name, char *err,
			  size_t errlen)
{
	const char **old, **new;
	size_t b, e, nold, nnew, first;
	struct body bd = { 0 };
	struct text body = { 0 }, out = { 0 };

	if (parse_struct(text, path, name, &bd, &b, &e, &first, err, errlen))
		return NULL;
	for (size_t k = 0; k < bd.nd; k++)
		for (size_t i = 0; i < bd.d[k].nnames && bd.d[k].unit < 0; i++)
			bd.d[k].unit = unit_named(a, bd.d[k].names[i]);
	new_body(&body, a, &bd);
	nold = split_lines(text, b, e, &old);
	nnew = split_lines(body.s ? body.s : "", 0, body.len, &new);
	text_printf(&out, "--- a/%s\n+++ b/%s\n", path, path);
	diff_lines(&out, old, nold, new, nnew, first + 1);
	free(old);
	free(new);
	free(body.s);
	body_free(&bd);
	return out.s;
}
