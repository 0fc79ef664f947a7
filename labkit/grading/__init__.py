"""Graded exercises: answer checks, the notebook ``grader``, and grading without Docker.

- :mod:`labkit.grading.checks`: the answer checks public and hidden tests call (one reading,
  one canonical form per answer kind);
- :mod:`labkit.grading.answers`: answers as data (what leaves a submission's process);
- :mod:`labkit.grading.notebook`: ``Notebook``, the ``grader`` of an exercise notebook;
- :mod:`labkit.grading.fetch`: fetch one exercise's public tests (on Colab);
- :mod:`labkit.grading.grade` and ``python -m labkit grade``: grade submissions, each run by
  :mod:`labkit.grading.child` in a bubblewrap sandbox of its own (:mod:`labkit.grading.sandbox`);
- :mod:`labkit.grading.variants`: each student's own numbers for the hand-computation questions;
- :mod:`labkit.grading.assign`: build the exercises from ``solutions/`` with otter assign;
- :mod:`labkit.grading.probes`: answers that must score 0 (always-equal objects, wrong values).
"""
