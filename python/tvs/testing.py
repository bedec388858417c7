"""tvs.testing: the assertion helpers TVM's tests and notebooks use."""
import numpy as np

from .ir import assert_structural_equal  # noqa: F401


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(desired), rtol=rtol, atol=atol, verbose=True)
