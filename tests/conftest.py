import os

# Tests run single-threaded numba kernels by default; the runs pick threads explicitly.
os.environ.setdefault("PVSIM_TESTING", "1")
