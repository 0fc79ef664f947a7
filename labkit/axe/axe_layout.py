"""The Axe layout (D, R, O): a logical index maps to a set of coordinates on named axes."""

from collections.abc import Mapping, Sequence
from math import prod

import numpy as np

from ..errors import LayoutError
from .axes import (
    HARDWARE_AXES,
    MEMORY_AXIS,
    _check_axis_name,
    _check_coordinate,
    _check_int,
)
from .iters import AxeIter
from .syntax import format_axe, read_axe

__all__ = ["AxeLayout", "parse_axe"]


def _as_iters(items, argument, *, allow_empty):
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise LayoutError(
            f"{argument}: must be a sequence of AxeIter or (extent, stride[, axis]) tuples, "
            f"got {type(items).__name__}"
        )
    if not items and not allow_empty:
        raise LayoutError(f"{argument}: needs at least one iter")
    out = []
    for k, item in enumerate(items):
        if isinstance(item, AxeIter):
            out.append(item)
        elif isinstance(item, tuple) and len(item) in (2, 3):
            out.append(AxeIter(*item, argument=f"{argument}[{k}]"))
        else:
            raise LayoutError(
                f"{argument}[{k}]: must be an AxeIter or an (extent, stride[, axis]) tuple, "
                f"got {item!r}"
            )
    return tuple(out)


def _as_offset(offset, argument):
    """Offsets as a tuple of (axis, value, tagged) triples, one per axis."""
    if offset is None:
        return ()
    if not isinstance(offset, Mapping):
        raise LayoutError(
            f"{argument}: must be a mapping {{axis: int}}, got {type(offset).__name__}"
        )
    return tuple(
        (_check_axis_name(a, f"{argument} axis"), _check_int(v, f"{argument}[{a!r}]"),
         a != MEMORY_AXIS)
        for a, v in offset.items()
    )


def _lex_digits(x, extents):
    """Unflatten ``x`` lexicographically: the last extent varies fastest."""
    digits = []
    for e in reversed(extents):
        digits.append(x % e)
        x //= e
    return tuple(reversed(digits))


class AxeLayout:
    """An Axe layout ``S[D] + R[R] + O[O]``: logical index -> set of named-axis coordinates.

    ``D`` is an ordered list of iters ``(extent, stride, axis)``; the logical index ``x`` in
    ``0..size-1`` is unflattened over the extents of ``D`` **lexicographically**, the
    rightmost digit fastest (like C / NumPy row-major order), and each digit ``c_k`` moves
    ``c_k*stride_k`` along ``axis_k``. ``R`` adds replicas: every combination of its digits
    (also lexicographic) gives one more copy, moved by its strides. ``O`` is a fixed offset
    per axis added to every copy. ``L(x)`` returns one ``{axis: value}`` dict per replica.

    CuTe unflattens the other way (colexicographic, leftmost fastest). With shape (2,3) the
    index 1 is the digits (0,1) here, but the coordinate (1,0) in CuTe, so the same
    ``shape:stride`` numbers give different functions:

    >>> import labkit as lk
    >>> L = lk.AxeLayout([(2, 3), (3, 1)])      # S[(2,3):(3,1)], row-major
    >>> print(L)
    S[(2,3):(3,1)]
    >>> L(1)                        # digits (0,1): 0*3 + 1*1; CuTe's (2,3):(3,1) gives 3 here
    [{'m': 1}]
    >>> T = lk.parse_axe("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]")
    >>> T(5)                        # digits (1,1), four replicas along TLane
    [{'TLane': 1, 'TCol': 1}, {'TLane': 33, 'TCol': 1}, {'TLane': 65, 'TCol': 1},
     {'TLane': 97, 'TCol': 1}]
    >>> T.size, T.num_replicas, T.axes
    (128, 4, ('TLane', 'TCol'))

    ``AxeLayout(text)`` is ``parse_axe(text)``. Hardware axes (see ``HARDWARE_AXES``) are
    checked: a layout that reaches outside one is refused.
    """

    __slots__ = ("_D", "_R", "_O", "_table")

    def __init__(self, D, R=(), O=None):
        if isinstance(D, str):
            if R != () or O is not None:
                raise LayoutError("D: a layout text already holds R and O; pass the text alone")
            D, R, offset = read_axe(D)
        else:
            offset = _as_offset(O, "O")
        self._init(D, R, offset)

    def _init(self, D, R, offset_triples):
        self._D = _as_iters(D, "D", allow_empty=False)
        self._R = _as_iters(R, "R", allow_empty=True)
        self._O = tuple(offset_triples)
        axes_in_o = [a for a, _, _ in self._O]
        if len(set(axes_in_o)) != len(axes_in_o):
            raise LayoutError(f"O: names an axis more than once: {axes_in_o}")
        self._table = None
        self._check_hardware_reach()

    @classmethod
    def _from_parts(cls, D, R, offset_triples):
        obj = cls.__new__(cls)
        obj._init(D, R, offset_triples)
        return obj

    def _check_hardware_reach(self):
        for axis in self.axes:
            extent = HARDWARE_AXES.get(axis)
            if extent is None:
                continue
            lo, hi = self.span(axis)
            if lo < 0 or hi >= extent:
                raise LayoutError(
                    f"layout: reaches {axis} positions {lo}..{hi}, but {axis} has {extent} "
                    f"positions (0..{extent - 1})"
                )

    # --- structure -------------------------------------------------------------------
    @property
    def D(self):
        """The shard iters, a tuple of AxeIter (the logical index unflattens over them).

        >>> import labkit as lk
        >>> L = lk.parse_axe("S[(2,4,8):(1@gpuid_y,8,1)] + R[2:1@gpuid_x] + O[3]")
        >>> [str(it) for it in L.D], [str(it) for it in L.R], L.O
        (['2:1@gpuid_y', '4:8', '8:1'], ['2:1@gpuid_x'], {'m': 3})
        >>> L.shape, L.replica_shape, L.size, len(L)
        ((2, 4, 8), (2,), 64, 64)
        """
        return self._D

    @property
    def R(self):
        """The replica iters, a tuple of AxeIter (empty when there is one copy)."""
        return self._R

    @property
    def O(self):
        """The fixed offset as a dict ``{axis: value}``."""
        return {a: v for a, v, _ in self._O}

    @property
    def shape(self):
        """The extents of D, in order: the shape the logical index unflattens over."""
        return tuple(it.extent for it in self._D)

    @property
    def size(self):
        """Number of logical elements (the product of D's extents)."""
        return prod(self.shape)

    @property
    def replica_shape(self):
        """The extents of R (``()`` when there are no replicas)."""
        return tuple(it.extent for it in self._R)

    @property
    def num_replicas(self):
        """Number of copies of each element (the product of R's extents, 1 without R)."""
        return prod(self.replica_shape)

    @property
    def axes(self):
        """The axes the layout touches, in order of first appearance in D, R, then O."""
        seen = {}
        for it in self._D + self._R:
            seen.setdefault(it.axis, None)
        for a, _, _ in self._O:
            seen.setdefault(a, None)
        return tuple(seen)

    def __len__(self):
        return self.size

    def span(self, axis):
        """The lowest and highest position ``(lo, hi)`` the layout reaches on ``axis``.

        >>> import labkit as lk
        >>> lk.parse_axe("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]").span("TLane")
        (0, 127)
        """
        if axis not in self.axes:
            raise LayoutError(f"axis: {axis!r} is not an axis of {self}; its axes are {self.axes}")
        lo = hi = sum(v for a, v, _ in self._O if a == axis)
        for it in self._D + self._R:
            if it.axis == axis:
                reach = (it.extent - 1) * it.stride
                lo += min(0, reach)
                hi += max(0, reach)
        return lo, hi

    # --- logical indices -------------------------------------------------------------
    def _check_shape(self, shape):
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
            raise LayoutError(f"shape: must be a tuple of extents, got {shape!r}")
        shape = tuple(_check_int(e, "shape", positive=True) for e in shape)
        if prod(shape) != self.size:
            raise LayoutError(
                f"shape: {shape} holds {prod(shape)} elements but the layout has {self.size}"
            )
        return shape

    def _coord_tuple(self, coord, shape):
        if len(coord) == 1 and isinstance(coord[0], (tuple, list)):
            coord = tuple(coord[0])
        if not coord:
            raise LayoutError("x: give a logical index or a coordinate")
        if shape is None:
            shape = self.shape
            if len(coord) == 1:
                shape = (self.size,)
        else:
            shape = self._check_shape(shape)
        if len(coord) != len(shape):
            raise LayoutError(
                f"x: coordinate {coord} has {len(coord)} entries but the shape {shape} has "
                f"{len(shape)}"
            )
        out = []
        for k, (c, e) in enumerate(zip(coord, shape)):
            c = _check_int(c, f"x[{k}]")
            if not 0 <= c < e:
                raise LayoutError(f"x: entry {k} of {coord} must lie in 0..{e - 1}, got {c}")
            out.append(c)
        return tuple(out), shape

    def index(self, *coord, shape=None):
        """The logical index of a coordinate, flattened lexicographically (last entry fastest).

        Without ``shape`` the coordinate has one entry per D iter; with ``shape`` it is a
        coordinate of a tensor of that shape (same number of elements).

        >>> import labkit as lk
        >>> frag = lk.parse_axe("S[(8,4,2):(4@laneid,1@laneid,1@reg)]")
        >>> frag.index(5, 1, 1), frag.index((5, 3), shape=(8, 8))
        (43, 43)
        """
        coord, shape = self._coord_tuple(coord, shape)
        x = 0
        for c, e in zip(coord, shape):
            x = x * e + c
        return x

    def coordinate(self, x, shape=None):
        """Unflatten logical index ``x`` lexicographically over ``shape`` (default: D's extents).

        >>> import labkit as lk
        >>> lk.parse_axe("S[(4,2,2,4):(16,4,8,1)]").coordinate(29)
        (1, 1, 1, 1)
        """
        x = self.index(x)
        shape = self.shape if shape is None else self._check_shape(shape)
        return _lex_digits(x, shape)

    # --- forward ----------------------------------------------------------------------
    def forward(self, *coord, shape=None, axes=None):
        """Physical coordinates of one logical element, one per replica.

        ``coord`` is a logical index ``x``, or a coordinate (see ``index``). Returns a list of
        ``{axis: value}`` dicts, or of tuples in the order of ``axes`` when it is given.

        >>> import labkit as lk
        >>> mesh = lk.parse_axe("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]")
        >>> mesh.forward(1, 2, 3, axes=("gpuid_x", "gpuid_y", "m"))
        [(0, 1, 19), (1, 1, 19)]
        """
        x = self.index(*coord, shape=shape)
        base = dict.fromkeys(self.axes, 0)
        for c, it in zip(_lex_digits(x, self.shape), self._D):
            base[it.axis] += c * it.stride
        for a, v, _ in self._O:
            base[a] += v
        out = []
        for r in range(self.num_replicas):
            point = dict(base)
            for c, it in zip(_lex_digits(r, self.replica_shape), self._R):
                point[it.axis] += c * it.stride
            out.append(point)
        if axes is None:
            return out
        if isinstance(axes, str):
            raise LayoutError(f"axes: must be a tuple of axis names, got the string {axes!r}")
        for a in axes:
            if a not in base:
                raise LayoutError(f"axes: {a!r} is not an axis of {self}; its axes are {self.axes}")
        return [tuple(p[a] for a in axes) for p in out]

    def __call__(self, *coord, shape=None):
        return self.forward(*coord, shape=shape)

    def items(self):
        """Yield ``(x, coordinates)`` for every logical index in order.

        >>> import labkit as lk
        >>> [c for _, c in lk.parse_axe("S[2:3@bank]").items()]
        [[{'bank': 0}], [{'bank': 3}]]
        """
        for x in range(self.size):
            yield x, self.forward(x)

    def table(self, shape=None, replicas=True):
        """All coordinates at once: ``{axis: int64 array}``.

        Each array has shape ``(size, num_replicas)``; with ``shape`` the leading dimension is
        reshaped to it in C (lexicographic) order, so ``table(shape)[a][i, j, r]`` is replica
        ``r`` of element ``(i, j)``. ``replicas=False`` leaves R out (arrays of ``shape``).

        >>> import labkit as lk
        >>> t = lk.tmem_accumulator_layout().table(shape=(128, 256), replicas=False)
        >>> int(t["TLane"][37, 200]), int(t["TCol"][37, 200])
        (37, 200)
        """
        if self._table is None:
            x = np.arange(self.size, dtype=np.int64)
            r = np.arange(self.num_replicas, dtype=np.int64)
            base = {a: np.zeros(self.size, np.int64) for a in self.axes}
            rep = {a: np.zeros(self.num_replicas, np.int64) for a in self.axes}
            for idx, iters, acc in ((x, self._D, base), (r, self._R, rep)):
                weight = prod(it.extent for it in iters)
                for it in iters:
                    weight //= it.extent
                    acc[it.axis] += (idx // weight) % it.extent * it.stride
            for a, v, _ in self._O:
                base[a] += v
            self._table = (base, rep)
        base, rep = self._table
        lead = (self.size,) if shape is None else self._check_shape(shape)
        if not replicas:
            return {a: base[a].reshape(lead).copy() for a in self.axes}
        return {
            a: (base[a][:, None] + rep[a][None, :]).reshape(lead + (self.num_replicas,))
            for a in self.axes
        }

    # --- backward ---------------------------------------------------------------------
    def backward(self, coord):
        """The logical indices that have a copy at physical coordinate ``coord``.

        ``coord`` is a dict ``{axis: value}``; axes left out are not constrained, so a partial
        coordinate asks "what lives anywhere along the other axes".

        >>> import labkit as lk
        >>> frag = lk.parse_axe("S[(8,4,2):(4@laneid,1@laneid,1@reg)]")
        >>> frag.backward({"laneid": 21, "reg": 1}), frag.backward({"laneid": 21})
        ([43], [42, 43])
        """
        if not isinstance(coord, Mapping):
            raise LayoutError(f"coord: must be a dict {{axis: value}}, got {type(coord).__name__}")
        checked = {}
        for a, v in coord.items():
            if a not in self.axes:
                raise LayoutError(
                    f"coord: {a!r} is not an axis of {self}; its axes are {self.axes}"
                )
            v = _check_int(v, f"coord[{a!r}]")
            _check_coordinate(a, v, "coord")
            checked[a] = v
        table = self.table()
        hit = np.ones((self.size, self.num_replicas), dtype=bool)
        for a, v in checked.items():
            hit &= table[a] == v
        return [int(x) for x in np.flatnonzero(hit.any(axis=1))]

    def is_injective(self, replicas=False):
        """Whether distinct logical elements land on distinct coordinates.

        By default only D is checked (each element's base position); with ``replicas=True``
        every copy of every element must be distinct from every other copy.

        >>> import labkit as lk
        >>> lk.parse_axe("S[(8,4,2):(4@laneid,1@laneid,1@reg)]").is_injective()
        True
        >>> lk.parse_axe("S[(4,8):(0,1)]").is_injective()
        False
        """
        table = self.table(replicas=replicas)
        points = np.stack([table[a].reshape(-1) for a in self.axes], axis=1)
        return len(np.unique(points, axis=0)) == len(points)

    # --- building ---------------------------------------------------------------------
    def with_replica(self, *iters):
        """This layout with more replica iters appended (``L + R[...]``).

        >>> import labkit as lk
        >>> print(lk.parse_axe("S[(2,4,8):(1@gpuid_y,8@m,1@m)]").with_replica((2, 1, "gpuid_x")))
        S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]
        """
        more = _as_iters(iters, "R", allow_empty=False)
        return AxeLayout._from_parts(self._D, self._R + more, self._O)

    def with_offset(self, offset):
        """This layout moved by ``offset`` (``{axis: value}``, added to any existing offset).

        >>> import labkit as lk
        >>> print(lk.parse_axe("S[(2,4,8):(1@gpuid_y,8@m,1@m)]").with_offset({"gpuid_x": 1}))
        S[(2,4,8):(1@gpuid_y,8@m,1@m)] + O[1@gpuid_x]
        """
        merged = list(self._O)
        for a, v, tagged in _as_offset(offset, "offset"):
            for k, (b, w, t) in enumerate(merged):
                if b == a:
                    merged[k] = (b, w + v, t)
                    break
            else:
                merged.append((a, v, tagged))
        return AxeLayout._from_parts(self._D, self._R, merged)

    # --- comparison and text ----------------------------------------------------------
    def _key(self):
        offset = tuple(sorted((a, v) for a, v, _ in self._O if v != 0))
        return (self._D, self._R, offset)

    def __eq__(self, other):
        return isinstance(other, AxeLayout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return format_axe(self)

    def __repr__(self):
        return f"AxeLayout({str(self)!r})"


def parse_axe(text):
    """Read the text form of an Axe layout; ``str`` of the result gives the text back.

    ``S[(e0,...,en-1):(s0,...,sn-1)]`` is the shard part; each stride is ``s@axis``, or a bare
    ``s`` meaning ``s@m``. ``+ R[...]`` (same form) adds replicas, ``+ O[v@axis]`` (or
    ``O[(v@a,w@b)]``) a fixed offset. A single iter or offset is written without parentheses.

    The logical index unflattens **lexicographically**, last extent fastest: in
    ``S[(2,3):(3,1)]`` index 1 is the digits (0,1) and lands on 1, whereas CuTe's
    colexicographic ``(2,3):(3,1)`` reads index 1 as (1,0) and gives 3.

    >>> import labkit as lk
    >>> L = lk.parse_axe("S[(4, 2, 2, 4) : (16, 4, 8, 1)]")
    >>> print(L)
    S[(4,2,2,4):(16,4,8,1)]
    >>> L(29)                                   # (i, j) = (3, 5): digits (1,1,1,1)
    [{'m': 29}]
    >>> lk.parse_axe("S[(2,3):(3,1)]")(1)
    [{'m': 1}]
    >>> print(lk.parse_axe("S[(2,4,8):(1@gpuid_y,8@m,1@m)]+O[1@gpuid_x]"))
    S[(2,4,8):(1@gpuid_y,8@m,1@m)] + O[1@gpuid_x]
    """
    return AxeLayout._from_parts(*read_axe(text))
