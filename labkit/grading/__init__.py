"""Graded exercises: answer checks, the notebook ``grader``, and grading without Docker.

- :mod:`labkit.grading.checks`: the answer checks public and hidden tests call;
- :mod:`labkit.grading.notebook`: ``Notebook``, the ``grader`` of an exercise notebook;
- :mod:`labkit.grading.fetch`: fetch one exercise's public tests (on Colab);
- :mod:`labkit.grading.grade` and ``python -m labkit grade``: grade submissions;
- :mod:`labkit.grading.assign`: build the exercises from ``solutions/`` with otter assign;
- :mod:`labkit.grading.probes`: answers that must score 0 (always-equal objects, wrong values).
"""
