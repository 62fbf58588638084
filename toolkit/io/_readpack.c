/* The optional C reader of many small files into one buffer (issue 38).
 *
 * read_packed(paths, start, flags, want, budget) -> (data, ends, count)
 *
 * Reads the files of `paths[start:]` in order, each opened with `flags` (the reading edge's
 * _FLAGS: O_RDONLY | O_NONBLOCK | O_CLOEXEC) and read with one read() of `want` bytes,
 * into one contiguous buffer: `data` holds their bytes back to back and `ends` (an array
 * of `count` native 64-bit integers, as bytes) where each file ends. It stops:
 *
 *  - after the file that brings the bytes read to `budget` or beyond (budget < 0: none);
 *  - before a file it cannot take whole in that one read: a path that is not plain text
 *    for the file system, an open() or read() that fails, a read that fills `want` (the
 *    file may be larger). Such a file is left to the pure-Python reader
 *    (toolkit.io.edge.read_many_fast's loop), which gives its bytes or its one-line
 *    problem exactly as without this module; `count` says where it stopped.
 *
 * No Python object is made per file. The GIL is released while the files are read.
 *
 * Where the system has O_PATH (Linux), a file is opened relative to its folder: the
 * folder (the path up to its last '/') is opened once with O_PATH | O_DIRECTORY and each
 * file of it that follows in the list with openat() on its name alone, so the kernel
 * walks the folder's path once a folder, not once a file (a fleet's tick files are
 * listed folder by folder). It opens the file open() of the whole path would open (the
 * folder's path is resolved as open() resolves it); a folder that cannot be opened so
 * has its files opened by their whole path, and a file that openat() cannot open stops
 * the call there as open() failing does (the pure-Python reader then gives its bytes or
 * its problem). */
#define _GNU_SOURCE /* memrchr, O_PATH */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The folder the last file was opened in: its path (the file's path up to its last '/',
 * `len` bytes, copied into `path`) and an O_PATH descriptor of it (-1: none, its files
 * are opened by their whole path). len < 0: no folder yet. */
typedef struct {
    int fd;
    char *path;
    Py_ssize_t len;
} Folder;

/* open(name, flags), through the folder's descriptor where there is one (see the top). */
static int open_in_folder(Folder *folder, const char *name, Py_ssize_t size, int flags) {
#if defined(O_PATH) && defined(O_DIRECTORY)
    const char *slash = memrchr(name, '/', (size_t)size);
    Py_ssize_t len = slash ? slash - name : 0;
    if (len == 0 || slash[1] == 0) return open(name, flags); /* "/x", "x", "x/": as it is */
    if (len != folder->len || memcmp(name, folder->path, (size_t)len) != 0) {
        if (folder->fd >= 0) close(folder->fd);
        memcpy(folder->path, name, (size_t)len);
        folder->path[len] = 0;
        folder->len = len;
        folder->fd = open(folder->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    if (folder->fd >= 0) return openat(folder->fd, slash + 1, flags);
#else
    (void)folder;
    (void)size;
#endif
    return open(name, flags);
}

static PyObject *read_packed(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *paths;
    int flags;
    Py_ssize_t start, want, budget;
    if (!PyArg_ParseTuple(args, "O!ninn:read_packed", &PyList_Type, &paths, &start, &flags, &want,
                          &budget))
        return NULL;
    if (start < 0 || start > PyList_GET_SIZE(paths)) {
        PyErr_SetString(PyExc_IndexError, "read_packed: start out of range");
        return NULL;
    }
    if (want < 1) {
        PyErr_SetString(PyExc_ValueError, "read_packed: want must be positive");
        return NULL;
    }
    /* A copy of the list holds the strings (and their UTF-8) while the GIL is released. */
    PyObject *held = PyList_GetSlice(paths, start, PyList_GET_SIZE(paths));
    if (!held) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(held);
    const char **names = PyMem_Malloc(sizeof(char *) * (size_t)(n ? n : 1));
    Py_ssize_t *sizes = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    int64_t *ends = PyMem_Malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    Py_ssize_t plain = 0, count = 0, longest = 0;
    PyObject *result = NULL, *out = NULL;
    Folder folder = {-1, NULL, -1};
    if (!names || !sizes || !ends) {
        PyErr_NoMemory();
        goto done;
    }
    /* The names as the file system takes them: plain UTF-8 with no NUL; the first that
     * is not (a surrogate escape, say) is left to Python, as is every file after it. The
     * copy holds the strings, so their UTF-8 stays alive. */
    for (; plain < n; plain++) {
        PyObject *item = PyList_GET_ITEM(held, plain);
        Py_ssize_t size;
        const char *utf8;
        if (!PyUnicode_CheckExact(item)) break;
        utf8 = PyUnicode_AsUTF8AndSize(item, &size);
        if (!utf8) {
            PyErr_Clear();
            break;
        }
        if ((Py_ssize_t)strlen(utf8) != size) break;
        names[plain] = utf8;
        sizes[plain] = size;
        if (size > longest) longest = size;
    }
    folder.path = PyMem_Malloc((size_t)longest + 1);
    if (!folder.path) {
        PyErr_NoMemory();
        goto done;
    }
    /* Read straight into the bytes object returned: it doubles (with the GIL) when a read
     * might not fit, and is cut to its length at the end, so the files are not copied. */
    Py_ssize_t len = 0, room = want > ((Py_ssize_t)1 << 20) ? want : ((Py_ssize_t)1 << 20);
    int64_t total = 0;
    int stopped = 0;
    out = PyBytes_FromStringAndSize(NULL, room);
    if (!out) goto done;
    while (!stopped && count < plain) {
        if (room - len < want) {
            while (room - len < want) room *= 2;
            if (_PyBytes_Resize(&out, room) < 0) goto done; /* out is NULL then */
        }
        char *data = PyBytes_AS_STRING(out);
        Py_BEGIN_ALLOW_THREADS
        while (count < plain && room - len >= want) {
            int fd = open_in_folder(&folder, names[count], sizes[count], flags);
            if (fd < 0) {
                stopped = 1;
                break;
            }
            ssize_t got;
            do got = read(fd, data + len, (size_t)want);
            while (got < 0 && errno == EINTR);
            close(fd);
            if (got < 0 || got >= want) {
                stopped = 1;
                break;
            }
            len += (Py_ssize_t)got;
            total += got;
            ends[count++] = (int64_t)len;
            if (budget >= 0 && total >= budget) {
                stopped = 1;
                break;
            }
        }
        Py_END_ALLOW_THREADS
    }
    if (_PyBytes_Resize(&out, len) < 0) goto done;
    result = Py_BuildValue("(Oy#n)", out, (const char *)ends,
                           (Py_ssize_t)(sizeof(int64_t) * (size_t)count), count);
done:
    if (folder.fd >= 0) close(folder.fd);
    PyMem_Free(folder.path);
    PyMem_Free(names);
    PyMem_Free(sizes);
    PyMem_Free(ends);
    Py_XDECREF(out);
    Py_DECREF(held);
    return result;
}

/* regular_names(folder) -> list[str] | None
 *
 * The names of the entries of `folder` in the order readdir() gives them ("." and ".."
 * left out, as os.scandir and os.listdir leave them), each decoded as os.scandir decodes
 * a name (the file system encoding, undecodable bytes as surrogates), when every entry
 * is a regular file by its directory entry's type (d_type: no stat, as
 * DirEntry.is_file(follow_symlinks=False) answers). None when the folder cannot be opened
 * or read, or when any entry is anything else or of a type the file system does not say
 * (DT_UNKNOWN): the pure-Python listing (toolkit.io.edge.scan_folder and its callers)
 * then looks at each entry, and gives the reasons. No DirEntry object is made. */
static PyObject *regular_names(PyObject *self, PyObject *arg) {
    (void)self;
    PyObject *encoded = NULL, *names = NULL, *name;
    if (!PyUnicode_FSConverter(arg, &encoded)) return NULL;
    DIR *dir;
    Py_BEGIN_ALLOW_THREADS
    dir = opendir(PyBytes_AS_STRING(encoded));
    Py_END_ALLOW_THREADS
    Py_DECREF(encoded);
    if (!dir) Py_RETURN_NONE;
    names = PyList_New(0);
    if (!names) goto fail;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(dir);
        if (!e) {
            if (errno) goto other; /* a folder that cannot be read to its end */
            break;
        }
        const char *n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
        if (e->d_type != DT_REG) goto other;
        name = PyUnicode_DecodeFSDefault(n);
        if (!name) goto fail;
        if (PyList_Append(names, name) < 0) {
            Py_DECREF(name);
            goto fail;
        }
        Py_DECREF(name);
    }
    closedir(dir);
    return names;
other:
    closedir(dir);
    Py_DECREF(names);
    Py_RETURN_NONE;
fail:
    closedir(dir);
    Py_XDECREF(names);
    return NULL;
}

static PyMethodDef methods[] = {
    {"regular_names", regular_names, METH_O,
     "regular_names(folder) -> list[str] | None: the entries' names (readdir order, no . "
     "or ..) when every entry is a regular file by its d_type; None when the folder cannot "
     "be opened or read, or any entry is anything else or of an unknown type."},
    {"read_packed", read_packed, METH_VARARGS,
     "read_packed(paths, start, flags, want, budget) -> (data, ends, count): the first "
     "`count` files of the list `paths` from `start`, each read with one read() of fewer than `want` bytes, "
     "back to back in `data`; `ends` the native int64 end offset of each. Stops after the "
     "file that brings the bytes to `budget` (< 0: none) and before any file it cannot "
     "take whole (left to the pure-Python reader)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_readpack",
    "The optional C reader of many small files into one buffer (toolkit/io/_readpack.c).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__readpack(void) { return PyModule_Create(&module); }
