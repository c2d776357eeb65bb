"""The chi-square and t survival functions against known values."""

import math

import pytest

from rules.stats import beta_i, chi2_sf, gamma_q, t_sf


@pytest.mark.parametrize("x, dof, p", [
    (3.841458820694124, 1, 0.05),      # classic critical values
    (6.634896601021214, 1, 0.01),
    (5.991464547107979, 2, 0.05),
    (11.070497693516351, 5, 0.05),
    (18.307038053275146, 10, 0.05),
    (124.34210715175356, 100, 0.05),
    (10.827566170662733, 1, 0.001),
])
def test_chi2_critical_values(x, dof, p):
    assert chi2_sf(x, dof) == pytest.approx(p, rel=1e-6)


def test_chi2_closed_forms():
    for x in (0.01, 0.5, 1, 3, 10, 40, 200):
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)
        # even dof: Q(m, y) = exp(-y) * sum_{i<m} y^i / i!
        y = x / 2
        expected = math.exp(-y) * sum(y ** i / math.factorial(i) for i in range(5))
        assert chi2_sf(x, 10) == pytest.approx(expected, rel=1e-9)


def test_chi2_edges():
    assert chi2_sf(0, 3) == 1.0
    assert chi2_sf(-1, 3) == 1.0
    assert 0 < chi2_sf(2000, 1000) < 1e-60
    assert chi2_sf(1e-6, 50) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        gamma_q(0, 1)


def test_t_closed_forms():
    for t in (-3, -0.5, 0, 0.7, 2, 12):
        assert t_sf(t, 1) == pytest.approx(0.5 - math.atan(t) / math.pi, rel=1e-9)
        assert t_sf(t, 2) == pytest.approx(0.5 * (1 - t / math.sqrt(t * t + 2)), rel=1e-9)
    assert t_sf(2.015048373333024, 5) == pytest.approx(0.05, rel=1e-6)
    for t in (-1, 0.3, 2.5, 9):
        u = t / math.sqrt(3)
        assert t_sf(t, 3) == pytest.approx(0.5 - (math.atan(u) + u / (1 + u * u)) / math.pi,
                                           rel=1e-9)
    # large dof: the normal distribution
    assert t_sf(1.6448536269514722, 10**7) == pytest.approx(0.05, rel=1e-5)


def test_beta_edges_and_symmetry():
    assert beta_i(2, 3, 0) == 0 and beta_i(2, 3, 1) == 1
    assert beta_i(2.5, 2.5, 0.5) == pytest.approx(0.5)
    assert beta_i(1, 1, 0.3) == pytest.approx(0.3)
