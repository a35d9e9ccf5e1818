/* acl_bridge._native_call: NativeRun, the base type whose C method run() is the hot path of
 * acl_bridge.functions.AclFunction.
 *
 * An armed NativeRun holds a native entry point `int32_t fn(void *argument)` (the shim's
 * acl_shim_function_run and the function's handle, both given as addresses by
 * acl_bridge.native.arm) and calls it from a METH_NOARGS method of the type itself: no
 * Python frame, no argument conversion, no int object for the status; `f.run()` takes
 * CPython's fastest call path (a no-argument method descriptor). Per call: check that it
 * is open, hold the owner, release the GIL (when `release_gil`), call, take the GIL back,
 * let go of the owner; return self, or raise through the subclass's Python methods:
 *
 *   _run_python()       a NativeRun that was never armed (a staged plan: copies around the
 *                       native call) runs this instead;
 *   _run_failed(status) after a non-zero status, on the same thread, right after the call,
 *                       as the shim's thread-local message requires; it raises (through
 *                       acl_bridge.native.check, the one place statuses become exceptions);
 *   _run_failed(None)   when run after _disarm() (closed); it raises.
 *
 * `release_gil` is acl_bridge's choice per function (executor.GIL_HELD_MAX_BYTES): as
 * numpy does for small loops, a call on little memory keeps the GIL, because handing it
 * over and back costs a large part of such a call (benchmarks/bench.py measures both).
 *
 * Lifetime, as acl_bridge.executor.Configured describes: `owner` (the ffi.gc'd handle) keeps
 * the native function and its memory alive. A run holds its own reference while the GIL is
 * released, so _disarm() from another thread frees nothing a run in progress uses.
 * Plain C, no ACL, CPython's stable ABI (3.11 and later, like the cffi module): built
 * beside the cffi module by setup.py.
 */
#define PY_SSIZE_T_CLEAN
#define Py_LIMITED_API 0x030B0000 /* setup.py names the module .abi3.so */
#include <Python.h>
#include <stdint.h>

typedef int32_t (*native_fn)(void *);

typedef struct {
    PyObject_HEAD
    native_fn fn;    /* NULL: never armed, run() is _run_python() */
    void *argument;
    PyObject *owner; /* keeps `argument` valid; NULL once disarmed (closed) */
    int release_gil; /* release the GIL around the native call */
} NativeRun;

static PyObject *run_failed(PyObject *self, PyObject *status) {
    if (status == NULL) return NULL;
    PyObject *r = PyObject_CallMethod(self, "_run_failed", "O", status);
    Py_DECREF(status);
    if (r != NULL) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_SystemError, "NativeRun: _run_failed() returned instead of raising");
    }
    return NULL;
}

static PyObject *NativeRun_run(NativeRun *self, PyObject *Py_UNUSED(ignored)) {
    if (self->fn == NULL) return PyObject_CallMethod((PyObject *)self, "_run_python", NULL);
    PyObject *owner = self->owner;
    if (owner == NULL) return run_failed((PyObject *)self, Py_NewRef(Py_None));
    Py_INCREF(owner); /* a concurrent _disarm() must not free what this run uses */
    int32_t status;
    if (self->release_gil) {
        Py_BEGIN_ALLOW_THREADS
        status = self->fn(self->argument);
        Py_END_ALLOW_THREADS
    } else {
        status = self->fn(self->argument);
    }
    Py_DECREF(owner);
    if (status != 0) return run_failed((PyObject *)self, PyLong_FromLong(status));
    return Py_NewRef((PyObject *)self);
}

static PyObject *NativeRun_arm(NativeRun *self, PyObject *args) {
    unsigned long long fn = 0, argument = 0;
    PyObject *owner;
    int release_gil;
    if (!PyArg_ParseTuple(args, "KKOp", &fn, &argument, &owner, &release_gil)) return NULL;
    if (fn == 0) {
        PyErr_SetString(PyExc_ValueError, "function_address is 0, expected the address of a native function");
        return NULL;
    }
    if (owner == Py_None) {
        PyErr_SetString(PyExc_ValueError, "owner is None, expected the object that keeps the argument valid");
        return NULL;
    }
    if (self->fn != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "NativeRun is already armed");
        return NULL;
    }
    self->fn = (native_fn)(uintptr_t)fn;
    self->argument = (void *)(uintptr_t)argument;
    self->release_gil = release_gil;
    PyObject *old = self->owner;
    self->owner = Py_NewRef(owner);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *NativeRun_disarm(NativeRun *self, PyObject *Py_UNUSED(ignored)) {
    Py_CLEAR(self->owner);
    Py_RETURN_NONE;
}

static PyObject *NativeRun_releases_gil(NativeRun *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->fn != NULL && self->release_gil);
}

static PyObject *NativeRun_armed(NativeRun *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->fn != NULL && self->owner != NULL);
}

/* A heap type (the limited API has no static ones): instances, of subtypes too, hold a
 * reference to their type, which traverse visits and dealloc releases. */
static int NativeRun_traverse(NativeRun *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE((PyObject *)self));
    Py_VISIT(self->owner);
    return 0;
}

static int NativeRun_clear(NativeRun *self) {
    Py_CLEAR(self->owner);
    return 0;
}

static void NativeRun_dealloc(NativeRun *self) {
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    PyObject_GC_UnTrack(self);
    NativeRun_clear(self);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    tp_free(self);
    Py_DECREF(type);
}

static PyMethodDef NativeRun_methods[] = {
    {"run", (PyCFunction)NativeRun_run, METH_NOARGS,
     "Run once; return self. Armed: one native call (GIL released if releases_gil), a failed status "
     "raised through _run_failed(status); after _disarm(), _run_failed(None). Never armed: _run_python()."},
    {"_arm", (PyCFunction)NativeRun_arm, METH_VARARGS,
     "_arm(function_address, argument_address, owner, release_gil): run() calls function(argument); "
     "owner keeps argument valid until _disarm(). Once only."},
    {"_disarm", (PyCFunction)NativeRun_disarm, METH_NOARGS,
     "Let go of the owner; later runs raise through _run_failed(None). A run in progress keeps its own "
     "reference."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef NativeRun_getset[] = {
    {"_native_releases_gil", (getter)NativeRun_releases_gil, NULL,
     "Whether the armed native call releases the GIL (False when not armed).", NULL},
    {"_armed", (getter)NativeRun_armed, NULL, "Armed and not disarmed.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot NativeRun_slots[] = {
    {Py_tp_doc, (void *)"Base type whose run() calls one native function (see native/native_call.c)."},
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_dealloc, (void *)NativeRun_dealloc},
    {Py_tp_traverse, (void *)NativeRun_traverse},
    {Py_tp_clear, (void *)NativeRun_clear},
    {Py_tp_methods, (void *)NativeRun_methods},
    {Py_tp_getset, (void *)NativeRun_getset},
    {0, NULL},
};

static PyType_Spec NativeRun_spec = {
    "acl_bridge._native_call.NativeRun", sizeof(NativeRun), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, NativeRun_slots,
};

static struct PyModuleDef native_call_module = {
    PyModuleDef_HEAD_INIT, "acl_bridge._native_call",
    "NativeRun: the base type whose C method run() is the hot path of AclFunction.", -1, NULL, NULL, NULL, NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native_call(void) {
    PyObject *m = PyModule_Create(&native_call_module);
    if (m == NULL) return NULL;
    PyObject *type = PyType_FromSpec(&NativeRun_spec);
    if (type == NULL || PyModule_AddObjectRef(m, "NativeRun", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(type);
    return m;
}
