"""Real JAX programs whose HLO text (before and after XLA's layout assignment) is the
oracle for ndarray.formats.xla: run as a script, it prints the texts as a JSON list.
tests/test_xla_roundtrip.py runs it in a subprocess (JAX stays out of the test process)."""

import jax, jax.numpy as jnp, json
jax.config.update("jax_enable_x64", True)
progs = []
def add(f, *args):
    lo = jax.jit(f).lower(*args)
    progs.append(lo.as_text(dialect="hlo"))
    progs.append(lo.compile().as_text())
add(lambda x, y: jnp.dot(x, y.T).astype(jnp.bfloat16).sum(0), jnp.ones((3, 5)), jnp.ones((4, 5)))
add(lambda x: (x.astype(jnp.float8_e4m3fn), x.astype(jnp.float8_e5m2), x.astype(jnp.float16)), jnp.ones((2, 8), jnp.float32))
add(lambda x: (x.astype(jnp.int4) + 1).astype(jnp.int8), jnp.ones((16,), jnp.int8))
add(lambda x, i: (x[i], jnp.argmax(x, 1), x > 0, jnp.fft.fft(x[0].astype(jnp.complex64))), jnp.ones((6, 8), jnp.float64), jnp.int32(2))
def loop(x):
    return jax.lax.fori_loop(0, 3, lambda i, c: (c[0] * 2, c[1] + i), (x, jnp.uint32(0)))
add(loop, jnp.ones((2, 3, 4)))
add(lambda x: jax.lax.conv_general_dilated(x, jnp.ones((8, 3, 3, 3)), (1, 1), "SAME", dimension_numbers=("NHWC", "OIHW", "NHWC")), jnp.ones((1, 9, 9, 3)))
if __name__ == "__main__":
    print(json.dumps(progs))
