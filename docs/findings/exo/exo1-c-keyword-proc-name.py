# Exo 1.0.0 (exo-lang from PyPI): a procedure named with a C keyword compiles to C that
# does not compile. Exo accepts the name (it is a valid Python identifier) and emits
#     void double( void *ctxt, int_fast32_t n, const int32_t* x, int32_t* y );
# which the C compiler rejects ("two or more data types in declaration specifiers").
# Expected: Exo rejects or mangles names that are C keywords, as it must for any name
# it prints into C. Found while writing halo's tests (tests/test_exo.cpp).
#
#   build/halo exo docs/findings/exo/exo1-c-keyword-proc-name.py double \
#       --spec docs/findings/exo/exo1-c-keyword-proc-name.halo      # exit 2: the kernel does not compile
# Standalone: python3 -c "import exo; ..." compile_procs_to_strings([double], "d.h") and cc -c.
from __future__ import annotations

from exo import proc


@proc
def double(n: size, x: i32[n], y: i32[n]):
    for i in seq(0, n):
        y[i] = x[i] * 2
