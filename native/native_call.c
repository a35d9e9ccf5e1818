/* acl_bridge._native_call: the run() of a configured function as one C method.
 *
 * A NativeCall holds a native entry point `int32_t fn(void *argument)` (the shim's
 * acl_shim_function_run and a function handle, both given as addresses by acl_bridge) and
 * calls it from a METH_NOARGS method: no argument conversion, no Python frame, no int
 * object for the status. Per call: check that it is open, hold the owner, release the
 * GIL (when `release_gil`), call, take the GIL back, let go of the owner; then return the
 * result (the AclFunction, through a weak reference) or hand a non-zero status to `failure`.
 *
 * `release_gil` is acl_bridge's choice per function (executor.GIL_HELD_MAX_BYTES): as
 * numpy does for small loops, a call on little memory keeps the GIL, because handing it
 * over and back costs a large part of such a call (benchmarks/bench.py measures both).
 *
 * This module turns no status into an exception: `failure(status)` is acl_bridge's (it
 * calls acl_bridge.native.check, the one place that does), called on the same thread right
 * after the failed call, as the shim's thread-local message requires. `failure(None)`
 * means the call was closed; it must raise too.
 *
 * Lifetime, as acl_bridge.executor.Configured describes: `owner` (the ffi.gc'd handle) keeps
 * the native function and its memory alive. A run holds its own reference while the GIL is
 * released, so close() from another thread frees nothing a run in progress uses.
 * Plain C, no ACL: built beside the cffi module by setup.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef int32_t (*native_fn)(void *);

typedef struct {
    PyObject_HEAD
    native_fn fn;
    void *argument;
    PyObject *owner;   /* keeps `argument` valid; NULL once closed */
    PyObject *result;  /* a weak reference to what run() returns */
    PyObject *failure; /* failure(status) / failure(None): raises */
    int release_gil;   /* release the GIL around the native call */
} NativeCall;

static PyObject *returned(NativeCall *self) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *target = NULL;
    if (PyWeakref_GetRef(self->result, &target) < 0) return NULL;
    if (target == NULL) Py_RETURN_NONE;
    return target;
#else
    PyObject *target = PyWeakref_GetObject(self->result); /* borrowed */
    Py_INCREF(target);
    return target;
#endif
}

static PyObject *fail_with(NativeCall *self, PyObject *status) {
    PyObject *r = status == NULL ? NULL : PyObject_CallOneArg(self->failure, status);
    Py_XDECREF(status);
    if (r != NULL) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_SystemError, "NativeCall: failure() returned instead of raising");
    }
    return NULL;
}

static PyObject *NativeCall_run(NativeCall *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *owner = self->owner;
    if (owner == NULL) {
        Py_INCREF(Py_None);
        return fail_with(self, Py_None);
    }
    Py_INCREF(owner); /* a concurrent close() must not free what this run uses */
    int32_t status;
    if (self->release_gil) {
        Py_BEGIN_ALLOW_THREADS
        status = self->fn(self->argument);
        Py_END_ALLOW_THREADS
    } else {
        status = self->fn(self->argument);
    }
    Py_DECREF(owner);
    if (status != 0) return fail_with(self, PyLong_FromLong(status));
    return returned(self);
}

static PyObject *NativeCall_close(NativeCall *self, PyObject *Py_UNUSED(ignored)) {
    Py_CLEAR(self->owner);
    Py_RETURN_NONE;
}

static PyObject *NativeCall_closed(NativeCall *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->owner == NULL);
}

static PyObject *NativeCall_releases_gil(NativeCall *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->release_gil);
}

static int NativeCall_init(NativeCall *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"function_address", "argument_address", "owner", "result", "failure", "release_gil",
                            NULL};
    unsigned long long fn = 0, argument = 0;
    PyObject *owner, *result, *failure;
    int release_gil = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KKOOO|p", names, &fn, &argument, &owner, &result, &failure,
                                     &release_gil))
        return -1;
    if (fn == 0) {
        PyErr_SetString(PyExc_ValueError, "function_address is 0, expected the address of a native function");
        return -1;
    }
    if (!PyCallable_Check(failure)) {
        PyErr_Format(PyExc_TypeError, "failure is %R, expected a callable", failure);
        return -1;
    }
    PyObject *ref = PyWeakref_NewRef(result, NULL);
    if (ref == NULL) return -1;
    self->fn = (native_fn)(uintptr_t)fn;
    self->argument = (void *)(uintptr_t)argument;
    self->release_gil = release_gil;
    Py_INCREF(owner);
    Py_INCREF(failure);
    Py_XSETREF(self->owner, owner);
    Py_XSETREF(self->result, ref);
    Py_XSETREF(self->failure, failure);
    return 0;
}

static int NativeCall_traverse(NativeCall *self, visitproc visit, void *arg) {
    Py_VISIT(self->owner);
    Py_VISIT(self->result);
    Py_VISIT(self->failure);
    return 0;
}

static int NativeCall_clear(NativeCall *self) {
    Py_CLEAR(self->owner);
    Py_CLEAR(self->result);
    Py_CLEAR(self->failure);
    return 0;
}

static void NativeCall_dealloc(NativeCall *self) {
    PyObject_GC_UnTrack(self);
    NativeCall_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef NativeCall_methods[] = {
    {"run", (PyCFunction)NativeCall_run, METH_NOARGS,
     "Call the native function (GIL released); return the result, or raise through failure()."},
    {"close", (PyCFunction)NativeCall_close, METH_NOARGS,
     "Let go of the owner; later runs call failure(None). A run in progress keeps its own reference."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef NativeCall_getset[] = {
    {"closed", (getter)NativeCall_closed, NULL, "True after close().", NULL},
    {"releases_gil", (getter)NativeCall_releases_gil, NULL, "Whether a run releases the GIL.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject NativeCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "acl_bridge._native_call.NativeCall",
    .tp_basicsize = sizeof(NativeCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "NativeCall(function_address, argument_address, owner, result, failure, release_gil=True)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)NativeCall_init,
    .tp_dealloc = (destructor)NativeCall_dealloc,
    .tp_traverse = (traverseproc)NativeCall_traverse,
    .tp_clear = (inquiry)NativeCall_clear,
    .tp_methods = NativeCall_methods,
    .tp_getset = NativeCall_getset,
};

static struct PyModuleDef native_call_module = {
    PyModuleDef_HEAD_INIT, "acl_bridge._native_call",
    "One native call per method call, for the hot path of AclFunction.run.", -1, NULL,
};

PyMODINIT_FUNC PyInit__native_call(void) {
    if (PyType_Ready(&NativeCallType) < 0) return NULL;
    PyObject *m = PyModule_Create(&native_call_module);
    if (m == NULL) return NULL;
    Py_INCREF(&NativeCallType);
    if (PyModule_AddObject(m, "NativeCall", (PyObject *)&NativeCallType) < 0) {
        Py_DECREF(&NativeCallType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
