"""Pointers a tensor can start from, as CuTe prints them: ``smem_ptr``, swizzled ``smem_ptr``,
and CuTe's ``smem_ptr_flag_bits`` that a swizzled layout waits for.

``make_smem_ptr(address, element_type)`` is CuTe's ``make_smem_ptr((T*)address)``: a shared-memory
address of elements of ``T``. ``make_tensor(ptr, Sw<B,M,S> o smem_ptr[b](unset) o layout)`` moves
the swizzle into the pointer (CuTe's ``pointer_flagged.hpp``): the tensor's layout is the plain
layout, and the pointer applies the swizzle to each element's *absolute* byte address, so a tile
cut out of the tensor keeps the swizzle phase of where it lies in shared memory. Adding an
offset to a pointer advances it by that many elements (``ptr + i``).

>>> import labkit as lk
>>> p = make_smem_ptr(0x3000, "half_t")
>>> print(p, p + 64)
smem_ptr[16b](0x3000) smem_ptr[16b](0x3080)
>>> q = SwizzlePtr(lk.Swizzle(3, 4, 3), p)
>>> print(q + 64); q.deref(64 + 8)          # row 1, chunk 1 of a 128-byte row: moves to chunk 0
Sw<3,4,3>_smem_ptr[16b](0x3080)
12416
"""

from __future__ import annotations

from ..elements import element, element_bits
from ..errors import LayoutError
from .int_tuple import S, _int_new, is_int

__all__ = ["Iterator", "SmemPtr", "SwizzlePtr", "SmemPtrFlag", "make_smem_ptr"]


class Iterator:
    """What a :class:`~labkit.layout.tensor.Tensor` may start from instead of numpy storage:
    ``self + offset`` advances it, ``deref(offset)`` is what the element at ``offset`` gives."""

    def __add__(self, offset):
        raise NotImplementedError

    def deref(self, offset=0):
        raise NotImplementedError


class SmemPtr(Iterator):
    """CuTe's ``smem_ptr<T*>``: a shared-memory byte ``address`` of ``bits``-bit elements
    (``element``: the PTX name). ``deref(i)`` is the byte address of element ``i``."""

    __slots__ = ("address", "bits", "element")

    def __init__(self, address: int, bits: int, element_name: str = ""):
        self.address, self.bits, self.element = int(address), int(bits), element_name

    def __add__(self, offset):
        if not is_int(offset):
            raise LayoutError(f"smem_ptr + offset: offset must be an int, got {offset!r}")
        if (int(offset) * self.bits) % 8:
            raise LayoutError(f"smem_ptr + {offset}: {offset} {self.bits}-bit elements is not a whole byte")
        return SmemPtr(self.address + int(offset) * self.bits // 8, self.bits, self.element)

    def deref(self, offset=0):
        return (self + offset).address

    def __eq__(self, other):
        return isinstance(other, SmemPtr) and (self.address, self.bits) == (other.address, other.bits)

    def __hash__(self):
        return hash((self.address, self.bits))

    def __str__(self):
        return f"smem_ptr[{self.bits}b]({self.address:#x})" if self.address else f"smem_ptr[{self.bits}b](nil)"

    __repr__ = __str__


class SwizzlePtr(Iterator):
    """CuTe's ``swizzle_ptr<Swizzle, smem_ptr>``: the swizzle acts on the absolute byte address of
    each element (``deref``); the pointer itself advances unswizzled."""

    __slots__ = ("swizzle", "ptr")

    def __init__(self, swizzle, ptr: SmemPtr):
        self.swizzle, self.ptr = swizzle, ptr

    @property
    def address(self) -> int:
        """The unswizzled byte address (CuTe's ``raw_pointer_cast``)."""
        return self.ptr.address

    @property
    def bits(self) -> int:
        return self.ptr.bits

    def __add__(self, offset):
        return SwizzlePtr(self.swizzle, self.ptr + offset)

    def deref(self, offset=0):
        return int(self.swizzle(self.ptr.deref(offset)))

    def __eq__(self, other):
        return isinstance(other, SwizzlePtr) and str(self.swizzle) == str(other.swizzle) and self.ptr == other.ptr

    def __hash__(self):
        return hash((str(self.swizzle), self.ptr))

    def __str__(self):
        return f"{self.swizzle}_{self.ptr}"

    __repr__ = __str__


class SmemPtrFlag(S):
    """CuTe's ``smem_ptr_flag_bits<bits>``: a static zero standing for the shared-memory pointer
    of ``bits``-bit elements that a swizzled layout (such as a GMMA layout atom) waits for. It
    prints as C++ prints it.

    >>> f = SmemPtrFlag(16)
    >>> str(f), int(f), f.bits
    ('smem_ptr[16b](unset)', 0, 16)
    """

    def __new__(cls, bits):
        if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
            raise LayoutError(f"SmemPtrFlag(bits): bits must be a positive int, got {bits!r}")
        flag = _int_new(cls, 0)
        flag.bits = int(bits)
        return flag

    def __repr__(self):
        return f"smem_ptr[{self.bits}b](unset)"

    __str__ = __repr__

    def __reduce__(self):
        return (SmemPtrFlag, (self.bits,))


def make_smem_ptr(address, element_type="half_t") -> SmemPtr:
    """CuTe's ``make_smem_ptr((T*)address)``: shared-memory byte ``address`` of ``element_type``
    elements (CuTe's, PTX's or numpy's name, or a width in bits).

    >>> print(make_smem_ptr(0x400, "float_e4m3_t"))
    smem_ptr[8b](0x400)
    """
    if isinstance(address, bool) or not is_int(address) or int(address) < 0:
        raise LayoutError(f"make_smem_ptr: address must be a non-negative int (a shared-memory "
                          f"byte address), got {address!r}")
    bits = element_bits(element_type, "make_smem_ptr: element_type")
    name = element(element_type).name if not is_int(element_type) else ""
    if bits >= 8 and int(address) % (bits // 8):
        raise LayoutError(f"make_smem_ptr: address {int(address):#x} is not aligned to its "
                          f"{bits // 8}-byte elements")
    return SmemPtr(int(address), bits, name)
