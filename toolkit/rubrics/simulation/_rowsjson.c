/*
 * Rows of a Polars frame as JSON lines, the bytes Polars' own `write_ndjson` writes
 * (issue 38): the optional C accelerator of the simulation scoring's input digests
 * (`toolkit/rubrics/simulation/digests.py`).
 *
 * A run's input digest hashes its rows as `write_ndjson` writes them; Polars plans a
 * streaming sink per write and spends about 1.6 µs a row on it, two thirds of the digest.
 * This module reads the frame through the Arrow PyCapsule interface
 * (`__arrow_c_stream__`) and writes the same bytes itself: one object a row, keys in
 * column order, `null` for a null, integers in decimal, `true`/`false`, text quoted with
 * `"` `\` and the control characters escaped (`\b \f \n \r \t`, else `\u00XX`), lists as
 * arrays, structs as objects, dictionary (Enum, Categorical) values as their text, UTC
 * datetimes as `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff|.fffffffff]+00:00`. Floats are not
 * formatted here: the caller casts a float column to Polars' own text (the same digits
 * Polars' JSON writer prints) and names it in `raw`, whose text is written unquoted. Any
 * other type (a float inside a list, a time zone other than UTC, a year outside
 * 1-9999, binary, dates, durations, ...) raises `Unsupported`, and the caller writes
 * with Polars: the pure path, which stays the reference in the differential tests
 * (`tests/rubrics/test_simulation_digests_accel.py`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

static PyObject *Unsupported;

/* ---- the output: a growing bytes object ----------------------------------------- */

typedef struct {
    PyObject *bytes;
    char *p;
    Py_ssize_t len, cap;
} Out;

static int out_grow(Out *o, Py_ssize_t need) {
    Py_ssize_t cap = o->cap ? o->cap : 4096;
    while (cap - o->len < need) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    if (!o->bytes) {
        o->bytes = PyBytes_FromStringAndSize(NULL, cap);
        if (!o->bytes) return -1;
    } else if (_PyBytes_Resize(&o->bytes, cap) < 0) {
        return -1;
    }
    o->p = PyBytes_AS_STRING(o->bytes);
    o->cap = cap;
    return 0;
}

#define ROOM(o, n) ((o)->cap - (o)->len >= (n) ? 0 : out_grow((o), (n)))

static inline int put(Out *o, const char *s, Py_ssize_t n) {
    if (ROOM(o, n) < 0) return -1;
    memcpy(o->p + o->len, s, (size_t)n);
    o->len += n;
    return 0;
}

static inline int put_ch(Out *o, char c) {
    if (ROOM(o, 1) < 0) return -1;
    o->p[o->len++] = c;
    return 0;
}

static const char HEX[] = "0123456789abcdef";

/* Whether any of the 8 bytes of `w` is below 0x20, a '"' or a '\' (exact: each test is
 * the classic "has a zero byte" / "has a byte less than n" word trick, n <= 128). */
static inline int word_needs_escape(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
    uint64_t low = (w - ones * 0x20) & ~w;
    uint64_t q = (quote - ones) & ~quote, b = (slash - ones) & ~slash;
    return ((low | q | b) & highs) != 0;
}

/* Text as a JSON string (quoted unless raw), escaped as Polars' writer escapes it. */
static int put_text(Out *o, const unsigned char *s, Py_ssize_t n, int raw) {
    if (raw) return put(o, (const char *)s, n);
    if (ROOM(o, n * 6 + 2) < 0) return -1; /* the worst case: every byte as \u00XX */
    char *d = o->p + o->len, *start = d;
    *d++ = '"';
    Py_ssize_t i = 0;
    while (i < n) {
        while (i + 8 <= n) { /* whole words that need nothing, copied as they are */
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (word_needs_escape(w)) break;
            memcpy(d, &w, 8);
            d += 8;
            i += 8;
        }
        Py_ssize_t stop = i + 8 < n ? i + 8 : n;
        for (; i < stop; i++) {
            unsigned char c = s[i];
            if (c >= 0x20 && c != '"' && c != '\\') {
                *d++ = (char)c;
                continue;
            }
            *d++ = '\\';
            switch (c) {
            case '"': *d++ = '"'; break;
            case '\\': *d++ = '\\'; break;
            case '\b': *d++ = 'b'; break;
            case '\f': *d++ = 'f'; break;
            case '\n': *d++ = 'n'; break;
            case '\r': *d++ = 'r'; break;
            case '\t': *d++ = 't'; break;
            default:
                *d++ = 'u';
                *d++ = '0';
                *d++ = '0';
                *d++ = HEX[c >> 4];
                *d++ = HEX[c & 15];
            }
        }
    }
    *d++ = '"';
    o->len += d - start;
    return 0;
}

static const char PAIRS[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static int put_uint_sign(Out *o, uint64_t u, int negative) {
    if (ROOM(o, 21) < 0) return -1;
    char tmp[24], *e = tmp + sizeof tmp, *b = e;
    while (u >= 100) {
        unsigned k = (unsigned)(u % 100) * 2;
        u /= 100;
        *--b = PAIRS[k + 1];
        *--b = PAIRS[k];
    }
    if (u >= 10) {
        *--b = PAIRS[u * 2 + 1];
        *--b = PAIRS[u * 2];
    } else {
        *--b = (char)('0' + u);
    }
    if (negative) *--b = '-';
    memcpy(o->p + o->len, b, (size_t)(e - b));
    o->len += e - b;
    return 0;
}

static int put_int(Out *o, int64_t v) {
    return put_uint_sign(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

static int put_uint(Out *o, uint64_t u) { return put_uint_sign(o, u, 0); }

/* ---- the schema as a tree of typed nodes ------------------------------------------ */

enum Kind {
    K_NULL, K_BOOL, K_I8, K_I16, K_I32, K_I64, K_U8, K_U16, K_U32, K_U64,
    K_STR, K_LSTR, K_VSTR, K_TS, K_LIST, K_LLIST, K_STRUCT
};

typedef struct Node {
    int kind;
    int raw;               /* text written unquoted (a float the caller cast to text) */
    int64_t per_second;    /* K_TS: units a second */
    const struct ArrowSchema *schema;
    struct Node *dict;     /* the values of a dictionary column, else NULL */
    int n_children;
    struct Node *children; /* a list's item, a struct's fields */
    char **keys;           /* a struct's fields' keys, quoted with their ':' */
    Py_ssize_t *key_lens;
} Node;

static void node_free(Node *n) {
    if (!n) return;
    for (int i = 0; i < n->n_children; i++) node_free(&n->children[i]);
    free(n->children);
    if (n->keys)
        for (int i = 0; i < n->n_children; i++) free(n->keys[i]);
    free(n->keys);
    free(n->key_lens);
    if (n->dict) {
        node_free(n->dict);
        free(n->dict);
    }
}

static int unsupported(const char *format) {
    PyErr_Format(Unsupported, "Arrow type %s is written by Polars, not here", format);
    return -1;
}

static int int_kind(const char *f) {
    if (f[0] && f[1]) return -1;
    switch (f[0]) {
    case 'c': return K_I8;
    case 's': return K_I16;
    case 'i': return K_I32;
    case 'l': return K_I64;
    case 'C': return K_U8;
    case 'S': return K_U16;
    case 'I': return K_U32;
    case 'L': return K_U64;
    }
    return -1;
}

static int node_build(Node *n, const struct ArrowSchema *s);

static int node_build_value(Node *n, const struct ArrowSchema *s) {
    const char *f = s->format;
    int k = int_kind(f);
    if (k >= 0) n->kind = k;
    else if (!strcmp(f, "n")) n->kind = K_NULL;
    else if (!strcmp(f, "b")) n->kind = K_BOOL;
    else if (!strcmp(f, "u")) n->kind = K_STR;
    else if (!strcmp(f, "U")) n->kind = K_LSTR;
    else if (!strcmp(f, "vu")) n->kind = K_VSTR;
    else if (!strncmp(f, "ts", 2) && f[2] && f[3] == ':' && !strcmp(f + 4, "UTC")) {
        n->kind = K_TS;
        switch (f[2]) {
        case 's': n->per_second = 1; break;
        case 'm': n->per_second = 1000; break;
        case 'u': n->per_second = 1000000; break;
        case 'n': n->per_second = 1000000000; break;
        default: return unsupported(f);
        }
    } else if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strcmp(f, "+s")) {
        n->kind = f[1] == 'l' ? K_LIST : f[1] == 'L' ? K_LLIST : K_STRUCT;
        if (n->kind != K_STRUCT && s->n_children != 1) return unsupported(f);
        n->n_children = (int)s->n_children;
        n->children = calloc((size_t)s->n_children + 1, sizeof(Node));
        if (!n->children) {
            PyErr_NoMemory();
            return -1;
        }
        for (int i = 0; i < n->n_children; i++)
            if (node_build(&n->children[i], s->children[i]) < 0) return -1;
    } else {
        return unsupported(f);
    }
    return 0;
}

/* The key of a struct's field, as `"name":` (escaped as text is). */
static char *quoted_key(const char *name, Py_ssize_t *len) {
    Out o = {0};
    size_t n = name ? strlen(name) : 0;
    if (put_text(&o, (const unsigned char *)(name ? name : ""), (Py_ssize_t)n, 0) < 0 ||
        put(&o, ":", 1) < 0) {
        Py_XDECREF(o.bytes);
        return NULL;
    }
    char *key = malloc((size_t)o.len);
    if (!key) {
        Py_DECREF(o.bytes);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(key, o.p, (size_t)o.len);
    *len = o.len;
    Py_DECREF(o.bytes);
    return key;
}

static int node_build(Node *n, const struct ArrowSchema *s) {
    memset(n, 0, sizeof *n);
    n->schema = s;
    if (s->dictionary) { /* the indexes are this node's; the values its dict's */
        n->kind = int_kind(s->format);
        if (n->kind < 0) return unsupported(s->format);
        n->dict = calloc(1, sizeof(Node));
        if (!n->dict) {
            PyErr_NoMemory();
            return -1;
        }
        return node_build(n->dict, s->dictionary);
    }
    if (node_build_value(n, s) < 0) return -1;
    if (n->kind == K_STRUCT) {
        n->keys = calloc((size_t)n->n_children + 1, sizeof(char *));
        n->key_lens = calloc((size_t)n->n_children + 1, sizeof(Py_ssize_t));
        if (!n->keys || !n->key_lens) {
            PyErr_NoMemory();
            return -1;
        }
        for (int i = 0; i < n->n_children; i++) {
            n->keys[i] = quoted_key(s->children[i]->name, &n->key_lens[i]);
            if (!n->keys[i]) return -1;
        }
    }
    return 0;
}

/* ---- the values ----------------------------------------------------------------- */

static inline int valid(const struct ArrowArray *a, int64_t i) {
    const uint8_t *bits = a->n_buffers > 0 ? (const uint8_t *)a->buffers[0] : NULL;
    if (!bits) return 1;
    int64_t j = a->offset + i;
    return (bits[j >> 3] >> (j & 7)) & 1;
}

static int64_t int_at(const Node *n, const struct ArrowArray *a, int64_t i, uint64_t *u) {
    const void *v = a->buffers[1];
    int64_t j = a->offset + i;
    *u = 0;
    switch (n->kind) {
    case K_I8: return ((const int8_t *)v)[j];
    case K_I16: return ((const int16_t *)v)[j];
    case K_I32: return ((const int32_t *)v)[j];
    case K_I64: return ((const int64_t *)v)[j];
    case K_U8: return ((const uint8_t *)v)[j];
    case K_U16: return ((const uint16_t *)v)[j];
    case K_U32: return ((const uint32_t *)v)[j];
    default: *u = ((const uint64_t *)v)[j]; return -1;
    }
}

/* Howard Hinnant's days_from_civil, inverted: the date of `days` since 1970-01-01. */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d) {
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void digits(char *p, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
}

static int put_timestamp(Out *o, const Node *n, int64_t v) {
    int64_t per = n->per_second;
    int64_t secs = v / per, sub = v % per;
    if (sub < 0) {
        sub += per;
        secs -= 1;
    }
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days -= 1;
    }
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    if (y < 1 || y > 9999) return unsupported(n->schema->format);
    uint64_t nanos = (uint64_t)sub * (uint64_t)(1000000000 / per);
    char b[48];
    digits(b, (uint64_t)y, 4);
    b[4] = '-';
    digits(b + 5, m, 2);
    b[7] = '-';
    digits(b + 8, d, 2);
    b[10] = 'T';
    digits(b + 11, (uint64_t)(rem / 3600), 2);
    b[13] = ':';
    digits(b + 14, (uint64_t)(rem / 60 % 60), 2);
    b[16] = ':';
    digits(b + 17, (uint64_t)(rem % 60), 2);
    int k = 19;
    if (nanos) { /* as chrono's automatic precision: 3, 6 or 9 digits */
        b[k++] = '.';
        if (nanos % 1000000 == 0) {
            digits(b + k, nanos / 1000000, 3);
            k += 3;
        } else if (nanos % 1000 == 0) {
            digits(b + k, nanos / 1000, 6);
            k += 6;
        } else {
            digits(b + k, nanos, 9);
            k += 9;
        }
    }
    memcpy(b + k, "+00:00", 6);
    k += 6;
    return put_text(o, (const unsigned char *)b, k, 0);
}

static int put_value(Out *o, const Node *n, const struct ArrowArray *a, int64_t i);

static int put_struct_fields(Out *o, const Node *n, const struct ArrowArray *a, int64_t i,
                             char open) {
    if (a->n_children != n->n_children) return unsupported(n->schema->format);
    if (put_ch(o, open) < 0) return -1;
    for (int c = 0; c < n->n_children; c++) {
        if (c && put_ch(o, ',') < 0) return -1;
        if (put(o, n->keys[c], n->key_lens[c]) < 0) return -1;
        if (put_value(o, &n->children[c], a->children[c], a->offset + i) < 0) return -1;
    }
    return put_ch(o, '}');
}

static int put_value(Out *o, const Node *n, const struct ArrowArray *a, int64_t i) {
    if (!valid(a, i)) return put(o, "null", 4);
    int64_t j = a->offset + i;
    if (n->dict) {
        uint64_t u;
        int64_t k = int_at(n, a, i, &u);
        if (k < 0) {
            if (n->kind != K_U64 || u > INT64_MAX) return unsupported(n->schema->format);
            k = (int64_t)u;
        }
        if (!a->dictionary || k >= a->dictionary->length) return unsupported(n->schema->format);
        return put_value(o, n->dict, a->dictionary, k);
    }
    switch (n->kind) {
    case K_NULL: return put(o, "null", 4);
    case K_BOOL: {
        const uint8_t *bits = a->buffers[1];
        return (bits[j >> 3] >> (j & 7)) & 1 ? put(o, "true", 4) : put(o, "false", 5);
    }
    case K_I8: case K_I16: case K_I32: case K_I64: case K_U8: case K_U16: case K_U32: {
        uint64_t u;
        return put_int(o, int_at(n, a, i, &u));
    }
    case K_U64: return put_uint(o, ((const uint64_t *)a->buffers[1])[j]);
    case K_STR: {
        const int32_t *off = a->buffers[1];
        return put_text(o, (const unsigned char *)a->buffers[2] + off[j], off[j + 1] - off[j], n->raw);
    }
    case K_LSTR: {
        const int64_t *off = a->buffers[1];
        return put_text(o, (const unsigned char *)a->buffers[2] + off[j],
                        (Py_ssize_t)(off[j + 1] - off[j]), n->raw);
    }
    case K_VSTR: { /* a 16-byte view: length, then the text inline or prefix, buffer, offset */
        const uint8_t *view = (const uint8_t *)a->buffers[1] + 16 * j;
        int32_t len, buf, at;
        memcpy(&len, view, 4);
        if (len <= 12) return put_text(o, view + 4, len, n->raw);
        memcpy(&buf, view + 8, 4);
        memcpy(&at, view + 12, 4);
        if (buf < 0 || at < 0 || 3 + (int64_t)buf >= a->n_buffers) return unsupported(n->schema->format);
        return put_text(o, (const unsigned char *)a->buffers[2 + buf] + at, len, n->raw);
    }
    case K_TS: return put_timestamp(o, n, ((const int64_t *)a->buffers[1])[j]);
    case K_LIST: case K_LLIST: {
        int64_t from, to;
        if (n->kind == K_LIST) {
            from = ((const int32_t *)a->buffers[1])[j];
            to = ((const int32_t *)a->buffers[1])[j + 1];
        } else {
            from = ((const int64_t *)a->buffers[1])[j];
            to = ((const int64_t *)a->buffers[1])[j + 1];
        }
        if (put_ch(o, '[') < 0) return -1;
        for (int64_t k = from; k < to; k++) {
            if (k > from && put_ch(o, ',') < 0) return -1;
            if (put_value(o, &n->children[0], a->children[0], k) < 0) return -1;
        }
        return put_ch(o, ']');
    }
    case K_STRUCT: return put_struct_fields(o, n, a, i, '{');
    }
    return unsupported(n->schema->format);
}

/* ---- the call ------------------------------------------------------------------- */

static int stream_error(struct ArrowArrayStream *st, int code) {
    const char *why = st->get_last_error ? st->get_last_error(st) : NULL;
    PyErr_Format(PyExc_RuntimeError, "Arrow stream error %d: %s", code, why ? why : "unknown");
    return -1;
}

static PyObject *rows(PyObject *self, PyObject *args) {
    PyObject *capsule, *raw;
    if (!PyArg_ParseTuple(args, "OO!", &capsule, &PyFrozenSet_Type, &raw)) return NULL;
    struct ArrowArrayStream *st = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!st) return NULL;
    if (!st->release) {
        PyErr_SetString(PyExc_ValueError, "the Arrow stream was already consumed");
        return NULL;
    }
    struct ArrowSchema schema = {0};
    struct ArrowArray batch = {0};
    Node root = {0};
    Out o = {0};
    PyObject *ends = NULL, *result = NULL;
    int code = st->get_schema(st, &schema);
    if (code) {
        stream_error(st, code);
        goto done;
    }
    if (strcmp(schema.format, "+s")) {
        unsupported(schema.format);
        goto done;
    }
    if (node_build(&root, &schema) < 0) goto done;
    for (int c = 0; c < root.n_children; c++) {
        PyObject *name = PyUnicode_FromString(schema.children[c]->name ? schema.children[c]->name : "");
        if (!name) goto done;
        int is_raw = PySet_Contains(raw, name);
        Py_DECREF(name);
        if (is_raw < 0) goto done;
        if (is_raw) {
            int k = root.children[c].kind;
            if (root.children[c].dict || (k != K_STR && k != K_LSTR && k != K_VSTR)) {
                PyErr_SetString(PyExc_ValueError, "a raw column must be text");
                goto done;
            }
            root.children[c].raw = 1;
        }
    }
    ends = PyByteArray_FromStringAndSize(NULL, 0);
    if (!ends) goto done;
    for (;;) {
        code = st->get_next(st, &batch);
        if (code) {
            stream_error(st, code);
            goto done;
        }
        if (!batch.release) break; /* the end of the stream */
        int64_t n = batch.length, had = PyByteArray_GET_SIZE(ends) / 8;
        if (PyByteArray_Resize(ends, (had + n) * 8) < 0) goto done;
        int64_t *end = (int64_t *)PyByteArray_AS_STRING(ends) + had;
        for (int64_t i = 0; i < n; i++) {
            if (put_struct_fields(&o, &root, &batch, i, '{') < 0) goto done;
            if (put_ch(&o, '\n') < 0) goto done;
            end[i] = o.len;
            if (i == 63 && n > 64) { /* room for the rest at the first rows' size, once */
                Py_ssize_t each = (o.len - (had ? end[-1] : 0)) / 64 + 16;
                if (each < PY_SSIZE_T_MAX / n && ROOM(&o, each * (n - 64)) < 0) goto done;
            }
        }
        batch.release(&batch);
        memset(&batch, 0, sizeof batch);
    }
    if (!o.bytes && out_grow(&o, 1) < 0) goto done;
    if (_PyBytes_Resize(&o.bytes, o.len) < 0) goto done;
    result = Py_BuildValue("(NO)", o.bytes, ends);
    o.bytes = NULL;
done:
    if (batch.release) batch.release(&batch);
    node_free(&root);
    if (schema.release) schema.release(&schema);
    Py_XDECREF(o.bytes);
    Py_XDECREF(ends);
    return result;
}

static PyMethodDef methods[] = {
    {"rows", rows, METH_VARARGS,
     "rows(stream, raw) -> (bytes, ends): the rows of an Arrow stream of structs (a "
     "Polars frame's __arrow_c_stream__()) as Polars' write_ndjson writes them, and a "
     "bytearray of each line's end (native int64); the columns named in the frozenset raw "
     "are text written unquoted. Raises Unsupported for a type it does not write."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rowsjson", NULL, -1, methods};

PyMODINIT_FUNC PyInit__rowsjson(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Unsupported = PyErr_NewException("_rowsjson.Unsupported", PyExc_ValueError, NULL);
    if (!Unsupported || PyModule_AddObject(m, "Unsupported", Unsupported) < 0) {
        Py_XDECREF(Unsupported);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(Unsupported);
    return m;
}
