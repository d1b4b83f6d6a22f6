from typing import Any, Dict, List, Optional, Sequence, Union

from typing_extensions import Buffer

from . import Effects, Explanation, Memory, Regs, RegValue, Validation, Verdict

class Instruction:
    def encode(self) -> bytes: ...
    @property
    def text(self) -> str: ...
    def explain(self) -> Explanation: ...
    def validate(self) -> Validation: ...
    @property
    def is_stop(self) -> bool: ...
    @property
    def fields(self) -> Dict[str, str]: ...
    def __bytes__(self) -> bytes: ...
    def __hash__(self) -> int: ...

# Tile data: a sequence of ints, a bytes-like object (one element per byte),
# or a NumPy array (any shape, read row-major).
TileData = Union[Sequence[int], Buffer, Any]

class Machine:
    def __init__(self, profile: Optional[str] = None, memory: Optional[Memory] = None) -> None: ...
    @property
    def memory(self) -> Memory: ...
    @property
    def regs(self) -> Regs: ...
    def reg(self, name: str) -> Optional[RegValue]: ...
    def set_reg(self, name: str, value: Union[int, str, Buffer]) -> None: ...
    def reg_names(self) -> List[str]: ...
    def execute(self, data: Union[Buffer, str], *, keep_bytes: int = 1048576) -> Effects: ...
    def set_tile(
        self,
        pe: int,
        reg: str,
        *,
        dtype: str,
        capacity: int,
        cols: int,
        valid_rows: int,
        valid_cols: int,
        layout: Optional[str] = None,
        location: Optional[str] = None,
        data: Optional[TileData] = None,
        payload: Optional[Buffer] = None,
        undefined: Sequence[int] = (),
    ) -> None: ...
    def set_shared(
        self,
        id: int,
        *,
        dtype: str,
        capacity: int,
        cols: int,
        valid_rows: int,
        valid_cols: int,
        published: bool = True,
        layout: Optional[str] = None,
        location: Optional[str] = None,
        data: Optional[TileData] = None,
        payload: Optional[Buffer] = None,
        undefined: Sequence[int] = (),
    ) -> None: ...

def decode(data: Buffer) -> List[Instruction]: ...
def check(data: Buffer) -> Verdict: ...
