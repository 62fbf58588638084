/* The optional accelerator of the tick batch path (issue 38): one call screens a batch of
 * tick files and projects the fields the frame reads into per-column Python lists.
 *
 * It ACCEPTS a file only when it can vouch that the pure-Python batch path
 * (toolkit/load/_ticks.py `_fast`: msgspec's typed decode as `_Fast`, the colon count,
 * Polars' JSON reader) would take it and give the same row: strict UTF-8 and RFC 8259
 * JSON, a top-level object, no key repeated in any object at any depth, no key the
 * format's structs do not declare, every field of exactly the JSON type `_Fast` takes,
 * nesting at most MAX_DEPTH deep, and none of the bytes the pure path's escape scan
 * sends elsewhere (no backslash at all, no number -0). Integers beyond 18 digits (15
 * where a float column takes them), floats that are not finite or longer than 63
 * characters, and anything else unusual make it answer "not mine" for that file, which
 * then goes through the pure-Python path unchanged. It never raises for a file's bytes.
 *
 * scan(blobs) -> (kept, columns): `kept` the indexes of the files accepted, `columns` 34
 * lists (the columns of `_tick_screen._FLAT`, in order), one value per accepted file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 32
#define NCOLS 34

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
    int depth;
} P;

typedef struct {
    const char *s; /* NULL: null or absent */
    Py_ssize_t n;
} Span;

typedef struct {
    int has;
    double v;
} Num;

typedef struct {
    int has_sv;
    long long sv;
    int tid_kind; /* 0 absent, 1 text, 2 integer (its digits in tid) */
    Span tid;
    Span ts, action_text, verb, actor, target, mech, reason, obs_text, actor_id, kind, verdict;
    Span seen_text;
    int action, mut, tokens, cls, obs, costs, seen;
    int yielded, refused; /* -1 absent */
    int has_count;
    long long count;
    Span list, claimed; /* raw JSON spans */
    Num duration, cls_in, cls_out, obs_in, obs_out, cost_cls, cost_obs, cost_usd;
} Row;

#define BAIL (-1)

static inline void ws(P *ps) {
    const unsigned char *p = ps->p, *e = ps->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    ps->p = p;
}

/* A string at ps->p (which is '"'): strict UTF-8, no control character, no backslash. */
static int string(P *ps, Span *out) {
    const unsigned char *p = ps->p + 1, *e = ps->end;
    const unsigned char *start = p;
    while (p < e) {
        /* eight plain ASCII bytes at a time: none a quote, backslash, control or high */
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
            uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
            uint64_t special = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) |
                               (w - ones * 0x20) | w;
            if (special & highs) break;
            p += 8;
        }
        if (p >= e) break;
        unsigned char c = *p;
        if (c == '"') {
            out->s = (const char *)start;
            out->n = p - start;
            ps->p = p + 1;
            return 0;
        }
        if (c < 0x20 || c == '\\') return BAIL;
        if (c < 0x80) {
            p++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (e - p < 2 || (p[1] & 0xC0) != 0x80) return BAIL;
            p += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (e - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return BAIL;
            if (c == 0xE0 && p[1] < 0xA0) return BAIL; /* overlong */
            if (c == 0xED && p[1] > 0x9F) return BAIL; /* a surrogate */
            p += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (e - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
                (p[3] & 0xC0) != 0x80)
                return BAIL;
            if (c == 0xF0 && p[1] < 0x90) return BAIL; /* overlong */
            if (c == 0xF4 && p[1] > 0x8F) return BAIL; /* beyond U+10FFFF */
            p += 4;
        } else {
            return BAIL;
        }
    }
    return BAIL;
}

typedef struct {
    const char *s;
    Py_ssize_t n;
    int is_int;
    int digits; /* of the integer part */
} Tok;

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* A number token (RFC 8259 grammar) at ps->p. */
static int number(P *ps, Tok *t) {
    const unsigned char *p = ps->p, *e = ps->end, *start = p;
    t->is_int = 1;
    if (p < e && *p == '-') p++;
    if (p >= e) return BAIL;
    if (*p == '0') {
        p++;
        t->digits = 1;
    } else if (*p >= '1' && *p <= '9') {
        const unsigned char *d = p;
        while (p < e && is_digit(*p)) p++;
        t->digits = (int)((p - d) > 1000 ? 1000 : (p - d));
    } else {
        return BAIL;
    }
    if (p < e && *p == '.') {
        p++;
        t->is_int = 0;
        if (p >= e || !is_digit(*p)) return BAIL;
        while (p < e && is_digit(*p)) p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        t->is_int = 0;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (p >= e || !is_digit(*p)) return BAIL;
        while (p < e && is_digit(*p)) p++;
    }
    t->s = (const char *)start;
    t->n = p - start;
    ps->p = p;
    return 0;
}

static long long int_value(const Tok *t) {
    const char *s = t->s;
    int neg = 0;
    long long v = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    for (; s < t->s + t->n; s++) v = v * 10 + (*s - '0');
    return neg ? -v : v;
}

static int literal(P *ps, const char *word, Py_ssize_t n) {
    if (ps->end - ps->p < n || memcmp(ps->p, word, n) != 0) return BAIL;
    ps->p += n;
    return 0;
}

/* ---- objects and arrays ------------------------------------------------------------ */

static int open_(P *ps, unsigned char c) {
    if (ps->p >= ps->end || *ps->p != c) return BAIL;
    if (++ps->depth > MAX_DEPTH) return BAIL;
    ps->p++;
    return 0;
}

/* The next key of an object (1), its end (0) or BAIL; leaves ps->p at the value. */
static int next_key(P *ps, Span *key, int *count) {
    ws(ps);
    if (ps->p >= ps->end) return BAIL;
    if (*ps->p == '}') {
        ps->p++;
        ps->depth--;
        return 0;
    }
    if (*count) {
        if (*ps->p != ',') return BAIL;
        ps->p++;
        ws(ps);
        if (ps->p >= ps->end) return BAIL;
    }
    if (*ps->p != '"' || string(ps, key)) return BAIL;
    ws(ps);
    if (ps->p >= ps->end || *ps->p != ':') return BAIL;
    ps->p++;
    ws(ps);
    if (ps->p >= ps->end) return BAIL;
    (*count)++;
    return 1;
}

/* The next element of an array (1), its end (0) or BAIL; leaves ps->p at the value. */
static int next_elem(P *ps, int *count) {
    ws(ps);
    if (ps->p >= ps->end) return BAIL;
    if (*ps->p == ']') {
        ps->p++;
        ps->depth--;
        return 0;
    }
    if (*count) {
        if (*ps->p != ',') return BAIL;
        ps->p++;
        ws(ps);
        if (ps->p >= ps->end) return BAIL;
    }
    (*count)++;
    return 1;
}

static inline int is_null(P *ps) {
    if (ps->end - ps->p >= 4 && memcmp(ps->p, "null", 4) == 0) {
        ps->p += 4;
        return 1;
    }
    return 0;
}

static int span_cmp(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return memcmp(x->s, y->s, x->n);
}

/* Whether any two of n keys are equal (the bytes: no escape is ever accepted). */
static int repeated(Span *keys, int n) {
    if (n <= 16) {
        for (int i = 1; i < n; i++)
            for (int j = 0; j < i; j++)
                if (keys[i].n == keys[j].n && memcmp(keys[i].s, keys[j].s, keys[i].n) == 0)
                    return 1;
        return 0;
    }
    qsort(keys, n, sizeof(Span), span_cmp);
    for (int i = 1; i < n; i++)
        if (span_cmp(&keys[i - 1], &keys[i]) == 0) return 1;
    return 0;
}

typedef struct {
    Span *keys;
    int n, cap;
    Span local[16];
} Keys;

static void keys_init(Keys *k) {
    k->keys = k->local;
    k->n = 0;
    k->cap = 16;
}

static void keys_free(Keys *k) {
    if (k->keys != k->local) PyMem_Free(k->keys);
}

static int keys_add(Keys *k, const Span *key) {
    if (k->n == k->cap) {
        if (k->cap >= (1 << 20)) return BAIL;
        int cap = k->cap * 2;
        Span *grown = PyMem_Malloc(sizeof(Span) * cap);
        if (!grown) return BAIL;
        memcpy(grown, k->keys, sizeof(Span) * k->n);
        if (k->keys != k->local) PyMem_Free(k->keys);
        k->keys = grown;
        k->cap = cap;
    }
    k->keys[k->n++] = *key;
    return 0;
}

static int any_value(P *ps);

static int any_object(P *ps) {
    Keys keys;
    Span key;
    int count = 0, r, bad = 0;
    if (open_(ps, '{')) return BAIL;
    keys_init(&keys);
    while ((r = next_key(ps, &key, &count)) == 1) {
        if (keys_add(&keys, &key) || any_value(ps)) {
            bad = 1;
            break;
        }
    }
    if (r == BAIL || (!bad && repeated(keys.keys, keys.n))) bad = 1;
    keys_free(&keys);
    return bad ? BAIL : 0;
}

/* Any JSON value (an `Any` field of `_Fast`): checked, no repeated key inside. */
static int any_value(P *ps) {
    Span s;
    Tok t;
    int count = 0, r;
    if (ps->p >= ps->end) return BAIL;
    switch (*ps->p) {
        case '{':
            return any_object(ps);
        case '[':
            if (open_(ps, '[')) return BAIL;
            while ((r = next_elem(ps, &count)) == 1)
                if (any_value(ps)) return BAIL;
            return r;
        case '"':
            return string(ps, &s);
        case 't':
            return literal(ps, "true", 4);
        case 'f':
            return literal(ps, "false", 5);
        case 'n':
            return literal(ps, "null", 4);
        default:
            return number(ps, &t);
    }
}

/* ---- the typed fields ------------------------------------------------------------- */

/* str | None */
static int f_str(P *ps, Span *out) {
    if (is_null(ps)) {
        out->s = NULL;
        return 0;
    }
    if (*ps->p != '"') return BAIL;
    return string(ps, out);
}

/* An integer of at most 18 digits (within 64 bits); `nullable`: or null (has = 0). */
static int f_int(P *ps, int nullable, int *has, long long *v) {
    Tok t;
    if (nullable && is_null(ps)) {
        *has = 0;
        return 0;
    }
    if (*ps->p != '-' && !is_digit(*ps->p)) return BAIL;
    if (number(ps, &t) || !t.is_int || t.digits > 18) return BAIL;
    *has = 1;
    *v = int_value(&t);
    return 0;
}

/* float | an integer a float holds exactly | None */
static int f_num(P *ps, Num *out) {
    Tok t;
    char buf[64];
    char *endp;
    if (is_null(ps)) {
        out->has = 0;
        return 0;
    }
    if (*ps->p != '-' && !is_digit(*ps->p)) return BAIL;
    if (number(ps, &t)) return BAIL;
    if (t.is_int) {
        if (t.digits > 15) return BAIL;
        out->has = 1;
        out->v = (double)int_value(&t);
        return 0;
    }
    if (t.n >= (Py_ssize_t)sizeof(buf)) return BAIL;
    memcpy(buf, t.s, t.n);
    buf[t.n] = '\0';
    double v = PyOS_string_to_double(buf, &endp, NULL);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return BAIL;
    }
    if (endp != buf + t.n || !isfinite(v)) return BAIL;
    out->has = 1;
    out->v = v;
    return 0;
}

static int f_bool(P *ps, int *out) {
    if (ps->end - ps->p >= 4 && memcmp(ps->p, "true", 4) == 0) {
        ps->p += 4;
        *out = 1;
        return 0;
    }
    if (ps->end - ps->p >= 5 && memcmp(ps->p, "false", 5) == 0) {
        ps->p += 5;
        *out = 0;
        return 0;
    }
    return BAIL;
}

/* list[list[str | int64 | None]], its raw span; `nullable`: or null (span NULL). */
static int f_changes(P *ps, int nullable, Span *out) {
    const unsigned char *start = ps->p;
    int outer = 0, r;
    if (nullable && is_null(ps)) {
        out->s = NULL;
        return 0;
    }
    if (open_(ps, '[')) return BAIL;
    while ((r = next_elem(ps, &outer)) == 1) {
        int inner = 0, q;
        if (open_(ps, '[')) return BAIL;
        while ((q = next_elem(ps, &inner)) == 1) {
            Span s;
            if (is_null(ps)) continue;
            if (*ps->p == '"') {
                if (string(ps, &s)) return BAIL;
            } else {
                int has;
                long long v;
                if (f_int(ps, 0, &has, &v)) return BAIL;
            }
        }
        if (q == BAIL) return BAIL;
    }
    if (r == BAIL) return BAIL;
    out->s = (const char *)start;
    out->n = ps->p - start;
    return 0;
}

/* A struct of `_Fast`: an object whose keys are among `names`, none twice. `field` is
 * called with the key's index; null is taken (present = 0) only when `nullable`. */
typedef struct {
    const char *s;
    Py_ssize_t n;
} Name;
#define N(text) {text, sizeof(text) - 1}

typedef int (*FieldFn)(P *ps, int index, void *ctx);

static int f_struct(P *ps, const Name *names, int nnames, int nullable, int *present,
                    FieldFn field, void *ctx) {
    Span key;
    int count = 0, r;
    unsigned seen = 0;
    if (nullable && is_null(ps)) {
        if (present) *present = 0;
        return 0;
    }
    if (open_(ps, '{')) return BAIL;
    if (present) *present = 1;
    while ((r = next_key(ps, &key, &count)) == 1) {
        int i;
        for (i = 0; i < nnames; i++)
            if (names[i].n == key.n && memcmp(key.s, names[i].s, key.n) == 0) break;
        if (i == nnames || (seen & (1u << i))) return BAIL;
        seen |= 1u << i;
        if (field(ps, i, ctx)) return BAIL;
    }
    return r;
}

static int any_field(P *ps, int index, void *ctx) {
    (void)index;
    (void)ctx;
    return any_value(ps);
}

static const Name ACTION[] = {N("verb"), N("actor"), N("target"), N("indirect_object"), N("params")};

static int action_field(P *ps, int i, void *ctx) {
    Row *row = ctx;
    Span ignored;
    switch (i) {
        case 0:
            return f_str(ps, row ? &row->verb : &ignored);
        case 1:
            return f_str(ps, row ? &row->actor : &ignored);
        case 2:
            return f_str(ps, row ? &row->target : &ignored);
        default:
            return any_value(ps);
    }
}

static const Name LONG[] = {N("active"), N("turns_elapsed"), N("turns_total"), N("threshold_fired"),
                                   N("interrupted")};
static const Name NODE[] = {N("type"), N("properties"), N("edges")};
static const Name MUTATIONS[] = {N("count"), N("list")};
static const Name OBSERVATION[] = {N("text"), N("claimed_changes")};
static const Name STAGES[] = {N("classifier"), N("observer")};
static const Name TOKENS[] = {N("in"), N("out")};

static int mutations_field(P *ps, int i, void *ctx) {
    Row *row = ctx;
    if (i == 0) return f_int(ps, 1, &row->has_count, &row->count);
    return f_changes(ps, 0, &row->list);
}

static int observation_field(P *ps, int i, void *ctx) {
    Row *row = ctx;
    if (i == 0) return f_str(ps, &row->seen_text);
    return f_changes(ps, 1, &row->claimed);
}

typedef struct {
    Num *in, *out;
} TokensCtx;

static int tokens_field(P *ps, int i, void *ctx) {
    TokensCtx *t = ctx;
    return f_num(ps, i == 0 ? t->in : t->out);
}

static int stage_tokens_field(P *ps, int i, void *ctx) {
    Row *row = ctx;
    TokensCtx t;
    if (i == 0) {
        t.in = &row->cls_in;
        t.out = &row->cls_out;
        return f_struct(ps, TOKENS, 2, 1, &row->cls, tokens_field, &t);
    }
    t.in = &row->obs_in;
    t.out = &row->obs_out;
    return f_struct(ps, TOKENS, 2, 1, &row->obs, tokens_field, &t);
}

static int costs_field(P *ps, int i, void *ctx) {
    Row *row = ctx;
    return f_num(ps, i == 0 ? &row->cost_cls : &row->cost_obs);
}

static int node_value(P *ps) { return f_struct(ps, NODE, 3, 0, NULL, any_field, NULL); }

/* dict[str, node] | None */
static int f_state(P *ps) {
    Keys keys;
    Span key;
    int count = 0, r, bad = 0;
    if (is_null(ps)) return 0;
    if (open_(ps, '{')) return BAIL;
    keys_init(&keys);
    while ((r = next_key(ps, &key, &count)) == 1) {
        if (keys_add(&keys, &key) || node_value(ps)) {
            bad = 1;
            break;
        }
    }
    if (r == BAIL || (!bad && repeated(keys.keys, keys.n))) bad = 1;
    keys_free(&keys);
    return bad ? BAIL : 0;
}

/* list[action] | None */
static int f_actions(P *ps) {
    int count = 0, r;
    if (is_null(ps)) return 0;
    if (open_(ps, '[')) return BAIL;
    while ((r = next_elem(ps, &count)) == 1)
        if (f_struct(ps, ACTION, 5, 0, NULL, action_field, NULL)) return BAIL;
    return r;
}

static const Name TOP[] = {
    N("schema_version"),  N("tick_id"),         N("timestamp_iso"),         N("action_text"),
    N("classified_action"), N("classified_actions"), N("matched_mechanic_id"), N("yielded"),
    N("refused"),         N("refusal_reason"),  N("mutations"),             N("observation_text"),
    N("long_running_action"), N("duration_ms"), N("llm_tokens_by_stage"),   N("llm_cost_usd_by_stage"),
    N("actor_id"),        N("kind"),            N("conservation_verdict"),  N("projected_state"),
    N("observation"),     N("cost_usd"),
};

static int top_field(P *ps, int i, void *ctx) {
    Row *row = ctx;
    switch (i) {
        case 0:
            return f_int(ps, 0, &row->has_sv, &row->sv);
        case 1: {
            if (*ps->p == '"') {
                row->tid_kind = 1;
                return string(ps, &row->tid);
            }
            int has;
            long long v;
            const unsigned char *start = ps->p;
            if (f_int(ps, 0, &has, &v)) return BAIL;
            row->tid_kind = 2;
            row->tid.s = (const char *)start;
            row->tid.n = ps->p - start;
            return 0;
        }
        case 2:
            return f_str(ps, &row->ts);
        case 3:
            return f_str(ps, &row->action_text);
        case 4:
            return f_struct(ps, ACTION, 5, 1, &row->action, action_field, row);
        case 5:
            return f_actions(ps);
        case 6:
            return f_str(ps, &row->mech);
        case 7:
            return f_bool(ps, &row->yielded);
        case 8:
            return f_bool(ps, &row->refused);
        case 9:
            return f_str(ps, &row->reason);
        case 10:
            return f_struct(ps, MUTATIONS, 2, 1, &row->mut, mutations_field, row);
        case 11:
            return f_str(ps, &row->obs_text);
        case 12:
            return f_struct(ps, LONG, 5, 1, NULL, any_field, NULL);
        case 13:
            return f_num(ps, &row->duration);
        case 14:
            return f_struct(ps, STAGES, 2, 1, &row->tokens, stage_tokens_field, row);
        case 15:
            return f_struct(ps, STAGES, 2, 1, &row->costs, costs_field, row);
        case 16:
            return f_str(ps, &row->actor_id);
        case 17:
            return f_str(ps, &row->kind);
        case 18:
            return f_str(ps, &row->verdict);
        case 19:
            return f_state(ps);
        case 20:
            return f_struct(ps, OBSERVATION, 2, 1, &row->seen, observation_field, row);
        default:
            return f_num(ps, &row->cost_usd);
    }
}

/* What the pure path's escape scan (`_ticks._UNSAFE`) flags: a backslash (all of its
 * patterns start with one, and any escape is left to the pure path here) or "-0" then a
 * delimiter. */
static int unsafe_bytes(const unsigned char *b, Py_ssize_t n) {
    if (memchr(b, '\\', n)) return 1;
    const unsigned char *p = b, *e = b + n;
    while ((p = memchr(p, '-', e - p)) != NULL) {
        if (e - p >= 3 && p[1] == '0') {
            unsigned char c = p[2];
            if (c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' ||
                c == '\t')
                return 1;
        }
        p++;
    }
    return 0;
}

/* 0 when the file is accepted (row filled), BAIL when it is the pure path's. */
static int scan_file(const unsigned char *b, Py_ssize_t n, Row *row) {
    P ps = {b, b + n, 0};
    memset(row, 0, sizeof(*row));
    row->yielded = row->refused = -1;
    if (unsafe_bytes(b, n)) return BAIL;
    ws(&ps);
    if (f_struct(&ps, TOP, 22, 0, NULL, top_field, row)) return BAIL;
    ws(&ps);
    return ps.p == ps.end ? 0 : BAIL;
}

/* ---- the columns ------------------------------------------------------------------- */

static PyObject *text(const Span *s) {
    if (!s->s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s->s, s->n, "strict");
}

static PyObject *flag(int v) {
    if (v < 0) Py_RETURN_NONE;
    return PyBool_FromLong(v);
}

static PyObject *num(const Num *x) {
    if (!x->has) Py_RETURN_NONE;
    return PyFloat_FromDouble(x->v);
}

/* A change list's raw span as compact JSON (whitespace outside strings dropped). */
static PyObject *compact(const Span *s) {
    if (!s->s) Py_RETURN_NONE;
    char local[512] = {0};
    char *buf = s->n <= (Py_ssize_t)sizeof(local) ? local : PyMem_Malloc(s->n);
    if (!buf) return PyErr_NoMemory();
    Py_ssize_t k = 0;
    int in_string = 0;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        char c = s->s[i];
        if (c == '"') in_string = !in_string;
        if (!in_string && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) continue;
        buf[k++] = c;
    }
    PyObject *out = PyUnicode_DecodeUTF8(buf, k, "strict");
    if (buf != local) PyMem_Free(buf);
    return out;
}

static int row_values(const Row *r, PyObject **v) {
    int i = 0;
    v[i++] = r->has_sv ? PyLong_FromLongLong(r->sv) : (Py_INCREF(Py_None), Py_None);
    v[i++] = r->tid_kind ? text(&r->tid) : (Py_INCREF(Py_None), Py_None);
    v[i++] = text(&r->ts);
    v[i++] = text(&r->action_text);
    v[i++] = PyBool_FromLong(r->action);
    v[i++] = text(&r->verb);
    v[i++] = text(&r->actor);
    v[i++] = text(&r->target);
    v[i++] = text(&r->mech);
    v[i++] = flag(r->yielded);
    v[i++] = flag(r->refused);
    v[i++] = text(&r->reason);
    v[i++] = PyBool_FromLong(r->mut);
    v[i++] = r->has_count ? PyLong_FromLongLong(r->count) : (Py_INCREF(Py_None), Py_None);
    v[i++] = compact(&r->list);
    v[i++] = text(&r->obs_text);
    v[i++] = num(&r->duration);
    v[i++] = PyBool_FromLong(r->tokens);
    v[i++] = PyBool_FromLong(r->cls);
    v[i++] = num(&r->cls_in);
    v[i++] = num(&r->cls_out);
    v[i++] = PyBool_FromLong(r->obs);
    v[i++] = num(&r->obs_in);
    v[i++] = num(&r->obs_out);
    v[i++] = PyBool_FromLong(r->costs);
    v[i++] = num(&r->cost_cls);
    v[i++] = num(&r->cost_obs);
    v[i++] = text(&r->actor_id);
    v[i++] = text(&r->kind);
    v[i++] = text(&r->verdict);
    v[i++] = PyBool_FromLong(r->seen);
    v[i++] = text(&r->seen_text);
    v[i++] = compact(&r->claimed);
    v[i++] = num(&r->cost_usd);
    for (int j = 0; j < NCOLS; j++)
        if (!v[j]) return -1;
    return 0;
}

static PyObject *scan(PyObject *self, PyObject *arg) {
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "scan() takes a sequence of bytes");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *kept = PyList_New(0);
    PyObject *columns = PyList_New(NCOLS);
    PyObject *result = NULL;
    if (!kept || !columns) goto done;
    for (int j = 0; j < NCOLS; j++) {
        PyObject *col = PyList_New(0);
        if (!col) goto done;
        PyList_SET_ITEM(columns, j, col);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *blob = items[i];
        Row row;
        PyObject *v[NCOLS];
        if (!PyBytes_CheckExact(blob)) continue;
        if (scan_file((const unsigned char *)PyBytes_AS_STRING(blob), PyBytes_GET_SIZE(blob),
                      &row))
            continue;
        memset(v, 0, sizeof(v));
        if (row_values(&row, v)) {
            for (int j = 0; j < NCOLS; j++) Py_XDECREF(v[j]);
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) { /* not expected */
                PyErr_Clear();
                continue;
            }
            goto done;
        }
        PyObject *index = PyLong_FromSsize_t(i);
        int failed = !index || PyList_Append(kept, index) < 0;
        Py_XDECREF(index);
        for (int j = 0; j < NCOLS; j++) {
            if (!failed && PyList_Append(PyList_GET_ITEM(columns, j), v[j]) < 0) failed = 1;
            Py_DECREF(v[j]);
        }
        if (failed) goto done;
    }
    result = PyTuple_Pack(2, kept, columns);
done:
    Py_DECREF(seq);
    Py_XDECREF(kept);
    Py_XDECREF(columns);
    return result;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O,
     "scan(blobs) -> (kept, columns): the indexes of the tick files accepted and their "
     "34 flat columns (toolkit.load._tick_screen._FLAT); every other file is the "
     "pure-Python path's."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tickscan",
    "The optional C screen and projector of tick files (toolkit/load/_tickscan.c).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__tickscan(void) { return PyModule_Create(&module); }
