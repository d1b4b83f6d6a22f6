"""The exceptions xstore raises, and where an input error points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, Type


@dataclass(frozen=True)
class Location:
    """Where an input error points: ``file``, ``line`` and ``col`` (1-based) in
    a text, or the byte ``offset`` and ``bits`` ``(hi, lo)`` in binary input.
    Fields that do not apply are None.

    >>> import xstore
    >>> try:
    ...     xstore.asm("q7", "IVP_SBN_I v0, a3, 0")
    ... except xstore.InputError as e:
    ...     print(e.location)
    Location(file=None, line=1, col=11, offset=None, bits=None)
    """

    file: Optional[str] = None
    line: Optional[int] = None
    col: Optional[int] = None
    offset: Optional[int] = None
    bits: Optional[Tuple[int, int]] = None


class Error(Exception):
    """The base of every error xstore raises. Errors pickle (so that they
    cross processes, e.g. out of a ``multiprocessing.Pool``) and compare
    equal when they are of one class with the same message and parts.

    >>> import xstore
    >>> try:
    ...     xstore.asm("pto", "BSTOPP")
    ... except xstore.Error as e:
    ...     print(type(e).__name__, isinstance(e, ValueError))
    InputError True
    """

    def __reduce__(self) -> Tuple[Any, ...]:
        # The default calls the class with `args` alone, which the keyword
        # parts of InputError and Fault do not allow.
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Error)
        return self.args == other.args and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), self.args))


def _rebuild(cls: Type[Error], args: Tuple[Any, ...], state: Dict[str, Any]) -> Error:
    """An error of class ``cls`` with ``args`` and attributes ``state`` (what
    ``Error.__reduce__`` pickles)."""
    e = cls.__new__(cls, *args)
    e.args = args
    e.__dict__.update(state)
    return e


class InputError(Error, ValueError):
    """Bad text, bytes or scenario. ``str(e)`` is the command line's one-line
    message (``file:line:col: error: …``); ``.kind``, ``.message``,
    ``.location``, ``.rule``, ``.expected``, ``.hint`` and ``.provenance`` are
    its parts (the JSON error object of ``--json``). It is a ``ValueError``
    too, as a decoder's bad input is elsewhere in Python.

    >>> import xstore
    >>> try:
    ...     xstore.disasm("neuron", bytes(70))
    ... except ValueError as e:
    ...     print(type(e).__name__, e.location.offset)
    InputError 64
    """

    def __init__(
        self,
        text: str,
        *,
        kind: str,
        message: str,
        location: Location,
        rule: Optional[str] = None,
        expected: Optional[str] = None,
        hint: Optional[str] = None,
        provenance: Optional[str] = None,
    ) -> None:
        super().__init__(text)
        self.kind = kind
        self.message = message
        self.location = location
        self.rule = rule
        self.expected = expected
        self.hint = hint
        self.provenance = provenance


class Fault(Error):
    """An instruction faulted (``Machine.execute``), or a memory access outside
    an instruction did (``Memory.read`` / ``Memory.write``). The faulting
    instruction changed nothing: memory and registers are as the completed
    instructions left them. ``.kind`` is the fault's stable name,
    ``.address`` the first failing byte (or None), ``.instruction`` the
    faulting instruction's index (PTO: block; None outside execution),
    ``.code`` the ISA's numeric code where it has one, and ``.effects`` what
    the completed instructions did (an ``Effects``, or None).

    It is not a ``ValueError``: the input was good, and the fault is what the
    modelled machine does with it (a golden model's answer to compare with,
    not an error in the call), so an ``except ValueError`` around bad input
    never swallows one.

    >>> import xstore
    >>> try:
    ...     xstore.Memory([(0, 0x10, "rw")]).read(0x10, 1)
    ... except xstore.Fault as f:
    ...     print(f.kind, hex(f.address), isinstance(f, ValueError))
    unmapped 0x10 False
    """

    def __init__(
        self,
        text: str,
        *,
        kind: str,
        address: Optional[int],
        message: str,
        instruction: Optional[int] = None,
        code: Optional[int] = None,
        effects: Any = None,
    ) -> None:
        super().__init__(text)
        self.kind = kind
        self.address = address
        self.message = message
        self.instruction = instruction
        self.code = code
        self.effects = effects


class Mismatch(Error):
    """Another implementation's effects of a unit differ from the model's
    (``Cosim.check``, ``xstore.compare``): the first divergence, as
    ``xstore compare`` reports it. ``str(e)`` is that report; ``.class_`` is
    the divergence's class (``wrong_byte``, ``missing_write``,
    ``extra_write``, ``wrong_address``, ``write_after_fault``,
    ``register_mismatch``, ``fault_mismatch``, ``unexpected_fault``,
    ``missing_fault``, ``missing_unit``, ``extra_unit``); ``.unit`` the unit's
    index in the program, ``.text`` and ``.hex`` the unit, ``.message`` the
    difference in one sentence; ``.expected`` and ``.actual`` the unit's
    write set in the model and on the other side as ``(addr, bytes)``
    ranges; ``.differing`` the addresses of the bytes that differ (at most
    256) and ``.differing_count`` how many; ``.expected_regs`` and
    ``.actual_regs`` the registers changed (``actual_regs`` None when not
    given); ``.expected_fault`` and ``.actual_fault`` the faults (dicts with
    ``kind``, ``address``, ``message``, or None); ``.dont_care`` the bytes not
    compared and why; ``.explanation`` the unit's fields, one line each; and
    ``.line`` the trace record's line (0: none). ``to_dict()`` is the
    ``divergence`` object of ``xstore compare --json``.

    >>> import xstore
    >>> sim = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64", isa="q7")
    >>> try:
    ...     sim.check([(0, bytes(63))])
    ... except xstore.Mismatch as m:
    ...     print(m.class_, m.unit, m.differing_count)
    missing_write 0 1
    """

    def __init__(
        self,
        report_text: str,
        *,
        class_: str,
        unit: int,
        text: str = "",
        hex: str = "",
        message: str = "",
        expected: Optional[List[Tuple[int, bytes]]] = None,
        actual: Optional[List[Tuple[int, bytes]]] = None,
        differing: Optional[List[int]] = None,
        differing_count: int = 0,
        expected_regs: Optional[Dict[str, Any]] = None,
        actual_regs: Optional[Dict[str, Any]] = None,
        expected_fault: Optional[Dict[str, Any]] = None,
        actual_fault: Optional[Dict[str, Any]] = None,
        dont_care: Optional[List[Dict[str, Any]]] = None,
        explanation: Optional[List[str]] = None,
        line: int = 0,
        report: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(report_text)
        self.class_ = class_
        self.unit = unit
        self.text = text
        self.hex = hex
        self.message = message
        self.expected = expected or []
        self.actual = actual or []
        self.differing = differing or []
        self.differing_count = differing_count
        self.expected_regs = expected_regs or {}
        self.actual_regs = actual_regs
        self.expected_fault = expected_fault
        self.actual_fault = actual_fault
        self.dont_care = dont_care or []
        self.explanation = explanation or []
        self.line = line
        self._report = report or {}

    def to_dict(self) -> Dict[str, Any]:
        """The divergence as ``xstore compare --json`` prints it (its
        ``divergence`` object).

        >>> import xstore
        >>> sim = xstore.Cosim(program="IVP_SV2NX8_IP v0, a3, 64", isa="q7")
        >>> try:
        ...     sim.check([], fault="unmapped")
        ... except xstore.Mismatch as m:
        ...     print(m.to_dict()["class"], m.to_dict()["unit"])
        unexpected_fault 0
        """
        return dict(self._report)
