"""Statistics, in one place: every interval, test and printed difference in the book comes from here.

- :mod:`lcrag.stats.bootstrap`: BCa bootstrap intervals of a mean and of paired or unpaired differences, and the
  exact intervals that replace them where the data have no spread (or none on one side of 0) to resample; the
  percentile intervals of other statistics (of paired columns, of strata) and the draws of a cluster bootstrap;
- :mod:`lcrag.stats.exact`: McNemar's test, the sign test of two counts, Cohen's kappa, the exact and Wilson
  intervals of a proportion, Spearman's rho and the intervals of a correlation, and a permutation test of
  labelled answers;
- :mod:`lcrag.stats.printing`: how a difference and its interval print (:func:`signed_interval`), and a share in
  per cent (:func:`percent`).
"""

from lcrag.stats.bootstrap import (
    METHOD,
    bootstrap_ci,
    bootstrap_diff,
    cluster_weights,
    constant_interval,
    is_unseen_bound,
    mean_ci,
    mover_difference,
    one_sided_bounds,
    paired_bootstrap_ci,
    paired_comparison,
    paired_statistic_ci,
    rows_ci,
    stratified_ci,
    unpaired_bootstrap_ci,
    unseen_share,
    value_range,
)
from lcrag.stats.exact import (
    cohen_kappa,
    exact_interval,
    label_permutation,
    mcnemar_test,
    pearson_interval,
    sign_test,
    spearman,
    spearman_interval,
    wilson_interval,
)
from lcrag.stats.printing import bound, percent, rounded, signed, signed_interval

__all__ = ["METHOD", "bootstrap_ci", "bootstrap_diff", "bound", "cluster_weights", "cohen_kappa", "constant_interval",
           "exact_interval", "is_unseen_bound", "label_permutation", "mcnemar_test", "mean_ci", "mover_difference",
           "one_sided_bounds", "paired_bootstrap_ci", "paired_comparison", "paired_statistic_ci", "pearson_interval",
           "percent", "rounded", "rows_ci", "sign_test", "signed", "signed_interval", "spearman", "spearman_interval",
           "stratified_ci", "unpaired_bootstrap_ci", "unseen_share", "value_range", "wilson_interval"]
