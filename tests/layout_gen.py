"""Helpers the layout test modules share to generate operands (not a test module)."""


def prime_factors(n):
    """The prime factors of ``n`` with repetition, smallest first: ``prime_factors(12) == [2, 2, 3]``."""
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out
