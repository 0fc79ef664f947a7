"""The chapters' GPU experiments (``exp_*``): copies, transposes, banks, the ragged copy, the
epilogue. :mod:`labkit.lab` runs them and compares them with its predictions."""
