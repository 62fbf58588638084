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
 * scan(blobs) -> (kept, schema, array, checked, claims): `kept` the indexes of the files
 * accepted, and their fields as one Arrow struct array of `_tick_screen.RAW_TICK_SCHEMA`
 * (two PyCapsules of the Arrow C data interface; `_tick_screen.arrow_frame` reads them);
 * `checked` whether every accepted row passes the pure path's column-wise check
 * (`_ticks._problems`, see row_checked); `claims` each accepted row's unsupported claims
 * as normalise writes them (`_tick_normalise._unsupported_claims`), a (schema, array) pair
 * of one text column, or None past CLAIM_BUDGET comparisons.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 32

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

static inline int is_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Past JSON whitespace. A pretty-printed file's whitespace is mostly a line end and an
 * indentation of spaces: after a line end (or a tab, a carriage return) the spaces are
 * skipped eight at a time, the first byte that is not a space found as the lowest
 * nonzero byte of the word XOR eight spaces; then byte by byte as before. */
static inline void ws(P *ps) {
    const unsigned char *p = ps->p, *e = ps->end;
    while (p < e && is_ws(*p)) {
        if (*p++ == ' ') continue;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t other = w ^ 0x2020202020202020ULL; /* zero bytes: the spaces */
            if (other) {
                p += __builtin_ctzll(other) >> 3;
                break;
            }
            p += 8;
        }
#endif
    }
    ps->p = p;
}

/* A string at ps->p (which is '"'): strict UTF-8, no control character, no backslash. */
static int string(P *ps, Span *out) {
    const unsigned char *p = ps->p + 1, *e = ps->end;
    const unsigned char *start = p;
    while (p < e) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* Eight bytes at a time up to the first that is a quote, a backslash, a control
         * character or not ASCII: the lowest flagged byte of the word is exactly that
         * byte (borrows run upwards only), so its position is the mask's lowest bit. */
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
            uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
            uint64_t special = (((quote - ones) & ~quote) | ((slash - ones) & ~slash) |
                                (w - ones * 0x20) | w) &
                               highs;
            if (special) {
                p += __builtin_ctzll(special) >> 3;
                break;
            }
            p += 8;
        }
#endif
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

/* The next item of an object or array (1), its end `close` (0) or BAIL: past the comma
   that separates it from the one before. */
static int next_item(P *ps, unsigned char close, int *count) {
    ws(ps);
    if (ps->p >= ps->end) return BAIL;
    if (*ps->p == close) {
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

/* The next key of an object (1), its end (0) or BAIL; leaves ps->p at the value. */
static int next_key(P *ps, Span *key, int *count) {
    int r = next_item(ps, '}', count);
    if (r != 1) return r;
    if (*ps->p != '"' || string(ps, key)) return BAIL;
    ws(ps);
    if (ps->p >= ps->end || *ps->p != ':') return BAIL;
    ps->p++;
    ws(ps);
    if (ps->p >= ps->end) return BAIL;
    return 1;
}

/* The next element of an array (1), its end (0) or BAIL; leaves ps->p at the value. */
static int next_elem(P *ps, int *count) { return next_item(ps, ']', count); }

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

/* An integer of more digits than this, inside an untyped value, is the pure path's:
 * Python and msgspec refuse one beyond sys.get_int_max_str_digits() (4,300 by default,
 * 640 at the least a setting allows), and the pure path names the file in an issue. */
#define MAX_ANY_DIGITS 640

/* Whether a float token is a finite double (msgspec refuses one that overflows:
 * "Number out of range"); a token of any length is read. */
static int finite_float(const Tok *t) {
    char local[64], *buf = local, *endp;
    int ok;
    if (t->n >= (Py_ssize_t)sizeof(local)) {
        buf = PyMem_Malloc(t->n + 1);
        if (!buf) {
            PyErr_Clear();
            return BAIL;
        }
    }
    memcpy(buf, t->s, t->n);
    buf[t->n] = '\0';
    double v = PyOS_string_to_double(buf, &endp, NULL);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        ok = 0;
    } else {
        ok = endp == buf + t->n && isfinite(v);
    }
    if (buf != local) PyMem_Free(buf);
    return ok ? 0 : BAIL;
}

/* An object of any keys, each value checked by `value`, no key repeated. */
static int keyed_object(P *ps, int (*value)(P *)) {
    Keys keys;
    Span key;
    int count = 0, r, bad = 0;
    if (open_(ps, '{')) return BAIL;
    keys_init(&keys);
    while ((r = next_key(ps, &key, &count)) == 1) {
        if (keys_add(&keys, &key) || value(ps)) {
            bad = 1;
            break;
        }
    }
    if (r == BAIL || (!bad && repeated(keys.keys, keys.n))) bad = 1;
    keys_free(&keys);
    return bad ? BAIL : 0;
}

static int any_object(P *ps) { return keyed_object(ps, any_value); }

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
            if (number(ps, &t)) return BAIL;
            return t.is_int ? (t.digits > MAX_ANY_DIGITS ? BAIL : 0) : finite_float(&t);
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
    int count = 0, r;
    unsigned seen = 0;
    if (nullable && is_null(ps)) {
        if (present) *present = 0;
        return 0;
    }
    if (open_(ps, '{')) return BAIL;
    if (present) *present = 1;
    int next = 0; /* keys mostly come in the declared order: look there first */
    while ((r = next_item(ps, '}', &count)) == 1) {
        /* The key is one of `names` (plain ASCII) exactly when its bytes and the closing
         * quote follow the opening one: no string scan; any other key is refused. */
        const unsigned char *p = ps->p;
        Py_ssize_t room = ps->end - p;
        int i = -1;
        if (*p != '"') return BAIL;
        for (int j = 0; j < nnames; j++) {
            int k = next + j < nnames ? next + j : next + j - nnames;
            Py_ssize_t n = names[k].n;
            if (room > n + 1 && p[n + 1] == '"' && memcmp(p + 1, names[k].s, n) == 0) {
                i = k;
                break;
            }
        }
        if (i < 0 || (seen & (1u << i))) return BAIL;
        ps->p = p + names[i].n + 2;
        ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') return BAIL;
        ps->p++;
        ws(ps);
        if (ps->p >= ps->end) return BAIL;
        next = i + 1 < nnames ? i + 1 : 0;
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
static int f_state(P *ps) { return is_null(ps) ? 0 : keyed_object(ps, node_value); }

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

/* ---- the columns, built as Arrow arrays ------------------------------------------- */
/*
 * The accepted files' fields go straight into Arrow buffers laid out as the raw frame
 * (`_tick_screen.RAW_TICK_SCHEMA`): one struct array of 19 fields, handed to Polars
 * through the Arrow PyCapsule interface (`__arrow_c_array__`), so that no Python object
 * is made per field and no JSON is read again. Text is "U" (large UTF-8), change lists
 * "+L" of "+L" of "U" (a number in a change as its digits, as Polars' reader gives it),
 * a missing object a null struct whose fields are null too. Buffers are malloc'd: a
 * release callback may run on a thread of Polars' without the GIL.
 */

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#define ARROW_FLAG_NULLABLE 2
#define MAX_CHILDREN 3

typedef struct {
    unsigned char *data;
    size_t len, cap;
} Buf;

typedef struct Col {
    const char *format; /* "l" "g" "b" "U" "+s" "+L" */
    const char *name;
    int64_t len, nulls;
    Buf valid;  /* bitmap */
    Buf values; /* "l" "g": values; "b": bitmap; "U" "+L": int64 offsets */
    Buf data;   /* "U": the bytes */
    int nchild;
    struct Col *child[MAX_CHILDREN];
} Col;

static int buf_grow(Buf *b, size_t need) {
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap *= 2;
    unsigned char *grown = realloc(b->data, cap);
    if (!grown) return -1;
    memset(grown + b->cap, 0, cap - b->cap);
    b->data = grown;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const void *src, size_t n) {
    if (buf_grow(b, b->len + n)) return -1;
    if (n) memcpy(b->data + b->len, src, n);
    b->len += n;
    return 0;
}

static int bit_put(Buf *b, int64_t i, int on) {
    size_t need = (size_t)(i >> 3) + 1;
    if (buf_grow(b, need)) return -1;
    if (b->len < need) b->len = need;
    if (on) b->data[i >> 3] |= (unsigned char)(1u << (i & 7));
    return 0;
}

static void col_free(Col *c) { /* this column alone (its children are freed on their own) */
    if (!c) return;
    free(c->valid.data);
    free(c->values.data);
    free(c->data.data);
    free(c);
}

static void col_free_tree(Col *c) {
    if (!c) return;
    for (int i = 0; i < c->nchild; i++) col_free_tree(c->child[i]);
    col_free(c);
}

static Col *col_new(const char *format, const char *name, int nchild, Col **children) {
    Col *c = calloc(1, sizeof(Col));
    int64_t zero = 0;
    if (!c) goto fail;
    c->format = format;
    c->name = name;
    for (int i = 0; i < nchild; i++) {
        if (!children[i]) goto fail;
        c->child[c->nchild++] = children[i];
    }
    if ((format[0] == 'U' || format[1] == 'L') && buf_put(&c->values, &zero, 8)) goto fail;
    if (buf_grow(&c->valid, 8) || buf_grow(&c->values, 8) || buf_grow(&c->data, 8)) goto fail;
    return c;
fail:
    if (c) {
        col_free_tree(c);
    } else {
        for (int i = 0; i < nchild; i++) col_free_tree(children[i]);
    }
    return NULL;
}

static int push_valid(Col *c, int valid) {
    if (bit_put(&c->valid, c->len, valid)) return -1;
    if (!valid) c->nulls++;
    return 0;
}

static int64_t last_offset(const Col *c) {
    int64_t v;
    memcpy(&v, c->values.data + c->values.len - 8, 8);
    return v;
}

/* A null of any column; a struct's fields get a null each. */
static int push_null(Col *c) {
    if (push_valid(c, 0)) return -1;
    switch (c->format[0] == '+' ? c->format[1] : c->format[0]) {
        case 'l':
        case 'g': {
            int64_t zero = 0;
            if (buf_put(&c->values, &zero, 8)) return -1;
            break;
        }
        case 'b':
            if (bit_put(&c->values, c->len, 0)) return -1;
            break;
        case 'U':
        case 'L': {
            int64_t end = last_offset(c);
            if (buf_put(&c->values, &end, 8)) return -1;
            break;
        }
        case 's':
            for (int i = 0; i < c->nchild; i++)
                if (push_null(c->child[i])) return -1;
            break;
    }
    c->len++;
    return 0;
}

static int push_text(Col *c, const char *s, Py_ssize_t n) {
    if (!s) return push_null(c);
    int64_t end = last_offset(c) + n;
    if (push_valid(c, 1) || buf_put(&c->data, s, n) || buf_put(&c->values, &end, 8)) return -1;
    c->len++;
    return 0;
}

static int push_str(Col *c, const Span *s) { return push_text(c, s->s, s->n); }

static int push_i64(Col *c, int has, long long v) {
    if (!has) return push_null(c);
    int64_t x = v;
    if (push_valid(c, 1) || buf_put(&c->values, &x, 8)) return -1;
    c->len++;
    return 0;
}

static int push_f64(Col *c, const Num *x) {
    if (!x->has) return push_null(c);
    if (push_valid(c, 1) || buf_put(&c->values, &x->v, 8)) return -1;
    c->len++;
    return 0;
}

static int push_bool(Col *c, int v) {
    if (v < 0) return push_null(c);
    if (push_valid(c, 1) || bit_put(&c->values, c->len, v)) return -1;
    c->len++;
    return 0;
}

/* A struct's own validity (its fields are pushed by the caller when it is present). */
static int push_struct(Col *c, int present) {
    if (!present) return push_null(c);
    if (push_valid(c, 1)) return -1;
    c->len++;
    return 0;
}

static int list_close(Col *c) {
    int64_t end = c->child[0]->len;
    if (push_valid(c, 1) || buf_put(&c->values, &end, 8)) return -1;
    c->len++;
    return 0;
}

/* A change list (already checked by f_changes: lists of strings, integers and nulls
 * without escapes) from its raw bytes into "+L" of "+L" of "U". */
static int push_changes(Col *c, const Span *raw) {
    if (!raw->s) return push_null(c);
    Col *inner = c->child[0], *parts = inner->child[0];
    const char *p = raw->s, *e = raw->s + raw->n;
    int level = 0;
    while (p < e) {
        char ch = *p;
        if (ch == '[') {
            level++;
            p++;
        } else if (ch == ']') {
            if (level == 2 && list_close(inner)) return -1;
            level--;
            p++;
        } else if (ch == '"') {
            const char *start = ++p;
            while (*p != '"') p++;
            if (push_text(parts, start, p - start)) return -1;
            p++;
        } else if (ch == 'n') {
            if (push_null(parts)) return -1;
            p += 4;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            const char *start = p;
            while (p < e && (*p == '-' || (*p >= '0' && *p <= '9'))) p++;
            if (push_text(parts, start, p - start)) return -1;
        } else {
            p++; /* a comma or whitespace */
        }
    }
    return list_close(c);
}

static Col *changes_col(const char *name) {
    Col *part = col_new("U", "item", 0, NULL);
    Col *inner = col_new("+L", "item", 1, &part);
    return col_new("+L", name, 1, &inner);
}

static Col *struct_col(const char *name, int n, Col *a, Col *b, Col *c) {
    Col *children[MAX_CHILDREN] = {a, b, c};
    return col_new("+s", name, n, children);
}

enum {
    C_VERSION, C_TICK_ID, C_TIME, C_ACTION_TEXT, C_ACTION, C_MECHANIC, C_YIELDED, C_REFUSED,
    C_REASON, C_MUTATIONS, C_OBS_TEXT, C_DURATION, C_TOKENS, C_COSTS, C_ACTOR_ID, C_KIND,
    C_VERDICT, C_OBSERVATION, C_COST, NFIELDS
};

typedef struct {
    Col *root;
    Col *f[NFIELDS];
} Tree;

static int tree_new(Tree *t) {
    Col *f[NFIELDS];
    f[C_VERSION] = col_new("l", "schema_version", 0, NULL);
    f[C_TICK_ID] = col_new("U", "tick_id", 0, NULL);
    f[C_TIME] = col_new("U", "timestamp_iso", 0, NULL);
    f[C_ACTION_TEXT] = col_new("U", "action_text", 0, NULL);
    f[C_ACTION] = struct_col("classified_action", 3, col_new("U", "verb", 0, NULL),
                             col_new("U", "actor", 0, NULL), col_new("U", "target", 0, NULL));
    f[C_MECHANIC] = col_new("U", "matched_mechanic_id", 0, NULL);
    f[C_YIELDED] = col_new("b", "yielded", 0, NULL);
    f[C_REFUSED] = col_new("b", "refused", 0, NULL);
    f[C_REASON] = col_new("U", "refusal_reason", 0, NULL);
    f[C_MUTATIONS] =
        struct_col("mutations", 2, col_new("l", "count", 0, NULL), changes_col("list"), NULL);
    f[C_OBS_TEXT] = col_new("U", "observation_text", 0, NULL);
    f[C_DURATION] = col_new("g", "duration_ms", 0, NULL);
    f[C_TOKENS] = struct_col(
        "llm_tokens_by_stage", 2,
        struct_col("classifier", 2, col_new("g", "in", 0, NULL), col_new("g", "out", 0, NULL),
                   NULL),
        struct_col("observer", 2, col_new("g", "in", 0, NULL), col_new("g", "out", 0, NULL),
                   NULL),
        NULL);
    f[C_COSTS] = struct_col("llm_cost_usd_by_stage", 2, col_new("g", "classifier", 0, NULL),
                            col_new("g", "observer", 0, NULL), NULL);
    f[C_ACTOR_ID] = col_new("U", "actor_id", 0, NULL);
    f[C_KIND] = col_new("U", "kind", 0, NULL);
    f[C_VERDICT] = col_new("U", "conservation_verdict", 0, NULL);
    f[C_OBSERVATION] = struct_col("observation", 2, col_new("U", "text", 0, NULL),
                                  changes_col("claimed_changes"), NULL);
    f[C_COST] = col_new("g", "cost_usd", 0, NULL);
    /* the root's fields are kept in t->f, not in Col.child (more than MAX_CHILDREN) */
    t->root = col_new("+s", "", 0, NULL);
    int ok = t->root != NULL;
    for (int i = 0; i < NFIELDS; i++) {
        t->f[i] = f[i];
        if (!f[i]) ok = 0;
    }
    return ok ? 0 : -1;
}

static void tree_free(Tree *t) {
    col_free_tree(t->root);
    for (int i = 0; i < NFIELDS; i++) col_free_tree(t->f[i]);
}

static int push_row(Tree *t, const Row *r) {
    Col **f = t->f;
    Col *action = f[C_ACTION], *mut = f[C_MUTATIONS], *tok = f[C_TOKENS];
    Col *costs = f[C_COSTS], *seen = f[C_OBSERVATION];
    if (push_struct(t->root, 1) || push_i64(f[C_VERSION], r->has_sv, r->sv) ||
        push_text(f[C_TICK_ID], r->tid_kind ? r->tid.s : NULL, r->tid.n) ||
        push_str(f[C_TIME], &r->ts) || push_str(f[C_ACTION_TEXT], &r->action_text) ||
        push_struct(action, r->action))
        return -1;
    if (r->action && (push_str(action->child[0], &r->verb) ||
                      push_str(action->child[1], &r->actor) ||
                      push_str(action->child[2], &r->target)))
        return -1;
    if (push_str(f[C_MECHANIC], &r->mech) || push_bool(f[C_YIELDED], r->yielded) ||
        push_bool(f[C_REFUSED], r->refused) || push_str(f[C_REASON], &r->reason) ||
        push_struct(mut, r->mut))
        return -1;
    if (r->mut && (push_i64(mut->child[0], r->has_count, r->count) ||
                   push_changes(mut->child[1], &r->list)))
        return -1;
    if (push_str(f[C_OBS_TEXT], &r->obs_text) || push_f64(f[C_DURATION], &r->duration) ||
        push_struct(tok, r->tokens))
        return -1;
    if (r->tokens) {
        Col *cls = tok->child[0], *obs = tok->child[1];
        if (push_struct(cls, r->cls)) return -1;
        if (r->cls && (push_f64(cls->child[0], &r->cls_in) || push_f64(cls->child[1], &r->cls_out)))
            return -1;
        if (push_struct(obs, r->obs)) return -1;
        if (r->obs && (push_f64(obs->child[0], &r->obs_in) || push_f64(obs->child[1], &r->obs_out)))
            return -1;
    }
    if (push_struct(costs, r->costs)) return -1;
    if (r->costs && (push_f64(costs->child[0], &r->cost_cls) ||
                     push_f64(costs->child[1], &r->cost_obs)))
        return -1;
    if (push_str(f[C_ACTOR_ID], &r->actor_id) || push_str(f[C_KIND], &r->kind) ||
        push_str(f[C_VERDICT], &r->verdict) || push_struct(seen, r->seen))
        return -1;
    if (r->seen && (push_str(seen->child[0], &r->seen_text) ||
                    push_changes(seen->child[1], &r->claimed)))
        return -1;
    return push_f64(f[C_COST], &r->cost_usd);
}

/* ---- the export (Arrow C data interface) ------------------------------------------ */

static void release_schema(struct ArrowSchema *s) {
    for (int64_t i = 0; i < s->n_children; i++) {
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
        free(s->children[i]);
    }
    free(s->children);
    s->release = NULL;
}

static int export_schema(const Col *c, Col *const *fields, int nfields, struct ArrowSchema *s) {
    memset(s, 0, sizeof(*s));
    s->format = c->format;
    s->name = c->name;
    s->flags = ARROW_FLAG_NULLABLE;
    s->release = release_schema;
    if (!nfields) return 0;
    s->children = calloc(nfields, sizeof(struct ArrowSchema *));
    if (!s->children) return -1;
    for (int i = 0; i < nfields; i++) {
        s->children[i] = calloc(1, sizeof(struct ArrowSchema));
        if (!s->children[i]) return -1;
        s->n_children = i + 1;
        if (export_schema(fields[i], fields[i]->child, fields[i]->nchild, s->children[i]))
            return -1;
    }
    return 0;
}

typedef struct {
    Col *col;
    const void *buffers[3];
} Owned;

static void release_array(struct ArrowArray *a) {
    for (int64_t i = 0; i < a->n_children; i++) {
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
        free(a->children[i]);
    }
    free(a->children);
    Owned *own = a->private_data;
    if (own) {
        col_free(own->col);
        free(own);
    }
    a->release = NULL;
}

/* The array of `c` (taking its buffers; its fields' arrays take theirs). On failure the
 * caller releases `a`, which frees what was taken so far; what was not is still in the
 * Col tree, whose taken columns are NULLed here. */
static int export_array(Col **slot, Col **fields, int nfields, struct ArrowArray *a) {
    Col *c = *slot;
    memset(a, 0, sizeof(*a));
    a->release = release_array;
    Owned *own = calloc(1, sizeof(Owned));
    if (!own) return -1;
    own->col = c;
    *slot = NULL;
    a->private_data = own;
    a->length = c->len;
    a->null_count = c->nulls;
    a->buffers = own->buffers;
    own->buffers[0] = c->nulls ? c->valid.data : NULL;
    if (c->format[0] == '+') {
        a->n_buffers = c->format[1] == 'L' ? 2 : 1;
        own->buffers[1] = c->values.data;
    } else {
        a->n_buffers = c->format[0] == 'U' ? 3 : 2;
        own->buffers[1] = c->values.data;
        own->buffers[2] = c->data.data;
    }
    if (!nfields) return 0;
    a->children = calloc(nfields, sizeof(struct ArrowArray *));
    if (!a->children) return -1;
    for (int i = 0; i < nfields; i++) {
        a->children[i] = calloc(1, sizeof(struct ArrowArray));
        if (!a->children[i]) return -1;
        a->n_children = i + 1;
        Col *field = fields[i];
        if (export_array(&fields[i], field->child, field->nchild, a->children[i])) return -1;
    }
    return 0;
}

static void schema_capsule_free(PyObject *capsule) {
    struct ArrowSchema *s = PyCapsule_GetPointer(capsule, "arrow_schema");
    if (s) {
        if (s->release) s->release(s);
        free(s);
    }
}

static void array_capsule_free(PyObject *capsule) {
    struct ArrowArray *a = PyCapsule_GetPointer(capsule, "arrow_array");
    if (a) {
        if (a->release) a->release(a);
        free(a);
    }
}

/* A column's (with its fields') schema and array as two capsules; the columns are taken
 * (NULLed). */
static PyObject *export_col(Col **slot, Col **fields, int nfields) {
    struct ArrowSchema *s = calloc(1, sizeof(*s));
    struct ArrowArray *a = calloc(1, sizeof(*a));
    PyObject *sc = NULL, *ac = NULL;
    if (!s || !a) goto fail;
    if (export_schema(*slot, fields, nfields, s)) goto fail;
    if (export_array(slot, fields, nfields, a)) goto fail;
    sc = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
    if (!sc) goto fail;
    s = NULL;
    ac = PyCapsule_New(a, "arrow_array", array_capsule_free);
    if (!ac) goto fail;
    a = NULL;
    PyObject *out = PyTuple_Pack(2, sc, ac);
    Py_DECREF(sc);
    Py_DECREF(ac);
    return out;
fail:
    if (s) {
        if (s->release) s->release(s);
        free(s);
    }
    if (a) {
        if (a->release) a->release(a);
        free(a);
    }
    Py_XDECREF(sc);
    Py_XDECREF(ac);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return NULL;
}

/* ---- what normalise and the column-wise check would find ----------------------- */

static int span_is(const Span *s, const char *text) {
    Py_ssize_t n = (Py_ssize_t)strlen(text);
    return s->s && s->n == n && memcmp(s->s, text, n) == 0;
}

/* A tick id as `_tick_normalise.plain_ids` takes it: the digits of a number that fits
 * 64 bits, no sign, no leading zero (the file's text, or the digits of an integer). */
static int plain_id(const Row *r) {
    if (!r->tid_kind || r->tid.n < 1 || r->tid.n > 18) return 0;
    if (r->tid.s[0] == '0' && r->tid.n > 1) return 0;
    for (Py_ssize_t i = 0; i < r->tid.n; i++)
        if (!is_digit((unsigned char)r->tid.s[i])) return 0;
    return 1;
}

static int below(const Num *x, double bound) { return !x->has || fabs(x->v) < bound; }

/* Whether the pure path's column-wise check (`_ticks._problems`) passes this row: a
 * schema version 1 or 2 (absent: 1), a v2 row's kind and verdict among the format's,
 * a duration and token counts the frame's integers hold (costs are finite already: f_num),
 * and a plain tick id. A row it does not vouch for is checked by Polars as before. */
static int row_checked(const Row *r) {
    long long version = r->has_sv ? r->sv : 1;
    if (version != 1 && version != 2) return 0;
    if (version == 2) {
        if (!span_is(&r->kind, "execute") && !span_is(&r->kind, "yield") &&
            !span_is(&r->kind, "refuse"))
            return 0;
        if (r->verdict.s && !span_is(&r->verdict, "ok") && !span_is(&r->verdict, "violated"))
            return 0;
    }
    if (!below(&r->duration, 0x1p63)) return 0;
    if (!below(&r->cls_in, 0x1p62) || !below(&r->cls_out, 0x1p62) ||
        !below(&r->obs_in, 0x1p62) || !below(&r->obs_out, 0x1p62))
        return 0;
    return plain_id(r);
}

/* One change (or claim) of a change list already checked by f_changes: its first,
 * second, third and last parts (s NULL: a null, or no such part) and how many. */
typedef struct {
    Span part[3], last;
    Py_ssize_t count;
    int null_[3], last_null;
} Change;

/* The next change of the list at *at (a position inside its raw bytes, up to e): 1 and
 * `c` filled, or 0 at the list's end. */
static int next_change(const char **at, const char *e, Change *c) {
    const char *p = *at;
    memset(c, 0, sizeof(*c));
    while (p < e && *p != '[' && *p != ']') p++; /* the list's '[', a comma, whitespace */
    if (p >= e || *p == ']') return 0;
    p++;
    for (;;) {
        while (p < e && (*p == ',' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
        if (p >= e || *p == ']') break;
        Span part = {NULL, 0};
        int null_ = 0;
        if (*p == '"') {
            const char *start = ++p;
            while (p < e && *p != '"') p++;
            part.s = start;
            part.n = p - start;
            p++;
        } else if (*p == 'n') {
            null_ = 1;
            p += 4;
        } else {
            const char *start = p;
            while (p < e && (*p == '-' || is_digit((unsigned char)*p))) p++;
            part.s = start;
            part.n = p - start;
        }
        if (c->count < 3) {
            c->part[c->count] = part;
            c->null_[c->count] = null_;
        }
        c->last = part;
        c->last_null = null_;
        c->count++;
    }
    *at = p + 1;
    return 1;
}

/* A part as the text normalise compares (`_change_parts`): a null is "null". */
static Span part_text(const Span *part, int null_) {
    Span out = {part->s, part->n};
    if (null_) {
        out.s = "null";
        out.n = 4;
    }
    return out;
}

static int same_part(Span a, Span b) { return a.n == b.n && memcmp(a.s, b.s, a.n) == 0; }

/* Whether a change of the row's list makes the claim: the same target, property and value
 * (its third part against the change's last), each of at least three parts. */
static int claim_made(const Change *claim, const Span *list, Py_ssize_t *budget) {
    if (claim->count < 3 || !list->s) return 0;
    const char *at = list->s + 1, *e = list->s + list->n;
    Change change;
    while (next_change(&at, e, &change)) {
        if (--*budget < 0) return BAIL;
        if (change.count < 3) continue;
        if (same_part(part_text(&claim->part[0], claim->null_[0]),
                      part_text(&change.part[0], change.null_[0])) &&
            same_part(part_text(&claim->part[1], claim->null_[1]),
                      part_text(&change.part[1], change.null_[1])) &&
            same_part(part_text(&claim->part[2], claim->null_[2]),
                      part_text(&change.last, change.last_null)))
            return 1;
    }
    return 0;
}

static int put_part(Buf *b, const Change *c, int which, const char *missing) {
    const Span *part = which < 0 ? &c->last : &c->part[which];
    int null_ = which < 0 ? c->last_null : c->null_[which];
    int present = c->count > (which < 0 ? 0 : which) && !null_;
    if (present) return buf_put(b, part->s, part->n);
    return buf_put(b, missing, strlen(missing));
}

/* The row's unsupported claims as normalise writes them (`_unsupported_claims`): each
 * claim of a v2 row that no change of the row makes, "target.property=value", joined by
 * "; " into `text` (empty: none). BAIL past `budget` comparisons (the caller then leaves
 * the column to Polars). */
static int unsupported_claims(const Row *r, Buf *text, Py_ssize_t *budget) {
    text->len = 0;
    if (!(r->has_sv && r->sv == 2) || !r->seen || !r->claimed.s) return 0;
    const Span *list = r->mut ? &r->list : NULL;
    Span none = {NULL, 0};
    const char *at = r->claimed.s + 1, *e = r->claimed.s + r->claimed.n;
    Change claim;
    while (next_change(&at, e, &claim)) {
        int made = claim_made(&claim, list ? list : &none, budget);
        if (made == BAIL) return BAIL;
        if (made) continue;
        if ((text->len && buf_put(text, "; ", 2)) || put_part(text, &claim, 0, "?") ||
            buf_put(text, ".", 1) || put_part(text, &claim, 1, "?") || buf_put(text, "=", 1) ||
            put_part(text, &claim, -1, "null"))
            return -2;
    }
    return 0;
}

/* Comparisons of claims with changes allowed in one call: past them (a hostile file of
 * thousands of each) the claims are left to Polars. */
#define CLAIM_BUDGET (1 << 24)

/* The files a scan reads: a sequence of bytes objects, or one buffer with each file's
 * end offset (scan_packed). */
typedef struct {
    PyObject **items;        /* the bytes objects, or NULL */
    const unsigned char *data; /* the packed buffer */
    const int64_t *ends;     /* where each packed file ends */
} Files;

static int file_at(const Files *f, Py_ssize_t i, const unsigned char **at, Py_ssize_t *len) {
    if (f->items) {
        PyObject *blob = f->items[i];
        if (!PyBytes_CheckExact(blob)) return -1;
        *at = (const unsigned char *)PyBytes_AS_STRING(blob);
        *len = PyBytes_GET_SIZE(blob);
        return 0;
    }
    int64_t start = i ? f->ends[i - 1] : 0;
    *at = f->data + start;
    *len = (Py_ssize_t)(f->ends[i] - start);
    return 0;
}

static PyObject *scan_files(const Files *files, Py_ssize_t n) {
    Tree tree;
    Col *claims = NULL;
    Buf text = {NULL, 0, 0};
    PyObject *kept = PyList_New(0), *arrow = NULL, *claims_arrow = NULL, *result = NULL;
    int checked = 1, claims_ok = 1;
    Py_ssize_t budget = CLAIM_BUDGET;
    memset(&tree, 0, sizeof(tree));
    if (!kept) goto done;
    claims = col_new("U", "unsupported_claims", 0, NULL);
    if (tree_new(&tree) || !claims) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *at;
        Py_ssize_t len;
        Row row;
        if (file_at(files, i, &at, &len) || scan_file(at, len, &row)) continue;
        if (push_row(&tree, &row)) {
            PyErr_NoMemory();
            goto done;
        }
        if (checked && !row_checked(&row)) checked = 0;
        if (claims_ok) {
            int r = unsupported_claims(&row, &text, &budget);
            if (r == -2 || (r == 0 && push_text(claims, text.len ? (const char *)text.data : NULL,
                                                (Py_ssize_t)text.len))) {
                PyErr_NoMemory();
                goto done;
            }
            if (r == BAIL) claims_ok = 0;
        }
        PyObject *index = PyLong_FromSsize_t(i);
        int failed = !index || PyList_Append(kept, index) < 0;
        Py_XDECREF(index);
        if (failed) goto done;
    }
    arrow = export_col(&tree.root, tree.f, NFIELDS);
    if (!arrow) goto done;
    if (claims_ok) {
        claims_arrow = export_col(&claims, NULL, 0);
        if (!claims_arrow) goto done;
    } else {
        Py_INCREF(Py_None);
        claims_arrow = Py_None;
    }
    result = Py_BuildValue("(OOOOO)", kept, PyTuple_GET_ITEM(arrow, 0), PyTuple_GET_ITEM(arrow, 1),
                           checked ? Py_True : Py_False, claims_arrow);
done:
    tree_free(&tree);
    col_free_tree(claims);
    free(text.data);
    Py_XDECREF(kept);
    Py_XDECREF(arrow);
    Py_XDECREF(claims_arrow);
    return result;
}

static PyObject *scan(PyObject *self, PyObject *arg) {
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "scan() takes a sequence of bytes");
    if (!seq) return NULL;
    Files files = {PySequence_Fast_ITEMS(seq), NULL, NULL};
    PyObject *result = scan_files(&files, PySequence_Fast_GET_SIZE(seq));
    Py_DECREF(seq);
    return result;
}

/* scan_packed(data, ends): scan() of the files packed back to back in `data`, file i
 * ending at the native int64 ends[i] (toolkit.io.edge.Packed). The offsets are checked:
 * ascending, from 0, within the buffer. */
static PyObject *scan_packed(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer data, ends;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*:scan_packed", &data, &ends)) return NULL;
    Py_ssize_t n = ends.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *at = ends.buf;
    int64_t last = 0;
    if (ends.len % (Py_ssize_t)sizeof(int64_t)) goto bad;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t end;
        memcpy(&end, at + i, sizeof(end));
        if (end < last || end > (int64_t)data.len) goto bad;
        last = end;
    }
    if (n && ((uintptr_t)ends.buf) % _Alignof(int64_t)) goto bad; /* empty: any pointer */
    Files files = {NULL, data.buf, at};
    result = scan_files(&files, n);
    goto done;
bad:
    PyErr_SetString(PyExc_ValueError, "scan_packed: ends must be ascending int64 offsets "
                                      "within the data");
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&ends);
    return result;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O,
     "scan(blobs) -> (kept, schema, array, checked, claims): the indexes of the tick files "
     "accepted, their fields as one Arrow struct array of the raw frame's schema (two "
     "PyCapsules of the Arrow C data interface), whether every accepted row passes the "
     "column-wise check, and their unsupported claims as a (schema, array) pair of one text "
     "column (None: left to Polars); every other file is the pure-Python path's."},
    {"scan_packed", scan_packed, METH_VARARGS,
     "scan_packed(data, ends) -> scan()'s result over the files packed back to back in "
     "`data` (bytes), file i ending at ends[i] (native int64, an array('q')): no bytes "
     "object per file."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tickscan",
    "The optional C screen and projector of tick files (toolkit/load/_tickscan.c).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__tickscan(void) { return PyModule_Create(&module); }
