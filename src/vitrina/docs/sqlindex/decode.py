"""Reading .sql files as text: SSMS and SSDT write UTF-8 (with or without BOM) or UTF-16.

Older scripts from Russian-language shops are cp1251; a file that is not valid UTF-8 is
read as cp1251 rather than rejected, and the caller records which encoding was used.

>>> decode_sql_bytes(b"\\xff\\xfeS\\x00Q\\x00L\\x00")
('SQL', 'utf-16-le')
>>> decode_sql_bytes("ТАБЛИЦА".encode("cp1251"))
('ТАБЛИЦА', 'cp1251')
"""

from __future__ import annotations

import codecs
from pathlib import Path

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_sql_bytes(data: bytes) -> tuple[str, str]:
    """Text (newlines normalised to \\n) and the encoding it was read with."""
    encoding = _sniff(data)
    if encoding is not None:
        bom = next((b for b, e in _BOMS if e == encoding), b"")
        body = data[len(bom) :] if encoding != "utf-8-sig" and data.startswith(bom) else data
        text = body.decode(encoding, errors="replace")
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = data.decode("cp1251", errors="replace"), "cp1251"
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def _sniff(data: bytes) -> str | None:
    """BOM first; then UTF-16 without BOM, recognised by its zero bytes on ASCII text."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    sample = data[:4000]
    if len(sample) >= 4 and sample.count(0) * 3 >= len(sample):
        even_zeros = sample[0::2].count(0)
        odd_zeros = sample[1::2].count(0)
        return "utf-16-be" if even_zeros > odd_zeros else "utf-16-le"
    return None


def read_sql_file(path: Path) -> tuple[str, str]:
    """Read and decode one file; OSError propagates to the caller, which records it."""
    return decode_sql_bytes(path.read_bytes())
