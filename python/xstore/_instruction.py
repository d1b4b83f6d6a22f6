"""The one interface of the three ISAs' instruction classes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Protocol, runtime_checkable

if TYPE_CHECKING:
    from . import Explanation, Validation


@runtime_checkable
class Instruction(Protocol):
    """What ``xstore.neuron.Instruction`` (a 64-byte instruction),
    ``xstore.pto.Instruction`` (a command word) and ``xstore.q7.Instruction``
    (a bundle) all are. ``bytes(i)`` and ``i.encode()`` give its bytes in
    memory order (a Q7 bundle without a public encoding raises
    ``InputError``); ``i.text`` and ``str(i)`` its canonical assembly;
    ``i.fields`` its fields by name; ``i.explain()`` one ``Explanation``;
    ``i.validate()`` a ``Validation``. Two instructions are equal, and hash
    alike, when their bytes are (a Q7 bundle without public bytes: when its
    text is); ``repr(i)`` is the ``decode`` call (for such a bundle the
    ``q7.assemble`` call) that makes it again; it pickles and copies.

    >>> import xstore
    >>> from xstore import neuron
    >>> [i] = neuron.decode(xstore.asm("neuron", "tensor_store.u8 [0x10], num_elem=(1,1), imm=(9)"))
    >>> isinstance(i, xstore.Instruction), i.text
    (True, 'tensor_store.u8 [0x10], num_elem=(1,1), imm=(9)')
    """

    @property
    def text(self) -> str:
        """The canonical assembly text."""
        ...

    @property
    def fields(self) -> Dict[str, str]:
        """The fields by name (``explain()``'s), raw values as hex text."""
        ...

    def encode(self) -> bytes:
        """The bytes in memory order, as ``bytes(i)``.

        >>> import xstore
        >>> [i] = xstore.pto.decode(xstore.asm("pto", "BSTOP"))
        >>> isinstance(i, xstore.Instruction), i.encode().hex()
        (True, '01000000')
        """
        ...

    def explain(self) -> Explanation:
        """Every field with its bits, raw value, meaning and provenance.

        >>> import xstore
        >>> [i] = xstore.q7.assemble("IVP_SV2NX8_IP v0, a3, 64")
        >>> i.explain().title
        'IVP_SV2NX8_IP v0, a3, 64 (8-byte FLIX bundle at byte 0)'
        """
        ...

    def validate(self) -> Validation:
        """Every check, and the verdict.

        >>> import xstore
        >>> [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)"))
        >>> i.validate().valid
        True
        """
        ...

    def __bytes__(self) -> bytes: ...


__all__ = ["Instruction"]
