"""The .npz format: a zip archive of .npy members, written exactly as `numpy.savez`
does (stored, not compressed; zip64 forced), read lazily member by member."""
from __future__ import annotations

import io
import zipfile
from typing import Any, Iterator, Mapping

from .npyformat import npy_bytes, read_npy
from .rawarrays import format_error
from .sources import Source, open_for_write

MAX_MEMBERS = 1 << 16


def savez(file: Any, args: tuple, kwds: dict, compress: bool = False) -> None:
    """numpy.savez: positional arrays become `arr_0`, `arr_1`, ..."""
    if isinstance(file, str) and not file.endswith(".npz"):
        file = file + ".npz"
    named = dict(kwds)
    for i, val in enumerate(args):
        key = f"arr_{i}"
        if key in named:
            raise ValueError(f"Cannot use un-named variables and keyword {key}")
        named[key] = val
    chunks = {key: npy_bytes(val) for key, val in named.items()}  # every array converted before writing
    f, owned = open_for_write(file)
    try:
        with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED,
                             allowZip64=True) as zf:
            for key, parts in chunks.items():
                with zf.open(key + ".npy", "w", force_zip64=True) as member:
                    for part in parts:
                        member.write(part)
    finally:
        if owned:
            f.close()


class NpzFile(Mapping):
    """A read-only mapping of an .npz archive's arrays, each read (and checked) when it is
    first accessed, as numpy's NpzFile; `.files` lists the names."""

    def __init__(self, source: Source):
        self._source, self.name = source, source.name
        try:
            self._zip = zipfile.ZipFile(_BufferFile(source.buf))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
            source.close()
            raise format_error(self.name, f"not a valid .npz (zip) archive: {e}") from None
        if len(infos) > MAX_MEMBERS:
            raise format_error(self.name, f"{len(infos)} members: more than {MAX_MEMBERS}")
        self._infos = {i.filename: i for i in infos}
        self.files = [n[:-4] if n.endswith(".npy") else n for n in self._infos]
        self._cache: dict = {}

    def _member(self, key: str) -> zipfile.ZipInfo:
        for cand in (key, key + ".npy"):
            if cand in self._infos:
                return self._infos[cand]
        raise KeyError(f"{key} is not a file in the archive")

    def raw(self, key: str) -> tuple[memoryview, str]:
        """A member's .npy bytes (checked against the archive's size) and its error name."""
        info = self._member(key)
        where = f"{self.name}[{key!r}]"
        if info.file_size > len(self._source.buf) * 1032 + 1024:  # beyond deflate's best ratio
            raise format_error(where, f"member claims {info.file_size} bytes: more than the archive "
                                      "could hold (oversized or corrupt)")
        try:
            return memoryview(self._zip.read(info)), where
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as e:
            raise format_error(where, f"cannot read the member: {e}") from None

    def __getitem__(self, key: str) -> Any:
        if key not in self._cache:
            self._cache[key] = read_npy(*self.raw(key))
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self._infos or key + ".npy" in self._infos)

    def close(self) -> None:
        self._zip.close()
        self._source.close()

    def __enter__(self) -> "NpzFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NpzFile {self.name!r} with keys: {', '.join(self.files[:5])}{'...' if len(self.files) > 5 else ''}"


class _BufferFile(io.RawIOBase):
    """A seekable read-only file over a memoryview (so a mapped archive is not copied)."""

    def __init__(self, buf: memoryview):
        self._buf, self._pos = buf, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: len(self._buf)}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, b: Any) -> int:
        chunk = self._buf[self._pos:self._pos + len(b)]
        n = len(chunk)
        memoryview(b).cast("B")[:n] = chunk
        self._pos += n
        return n
