"""A seccomp filter that denies nested namespaces and mounts inside the sandbox.

A user namespace made inside the sandbox would give the script every capability in it (then
mounts, a new network stack, the kernel surface that user namespaces open). bwrap's
`--disable-userns` closes that only where bwrap itself made a user namespace (an ordinary
user); as root the sandbox has none. This classic-BPF program, handed to bwrap's `--seccomp`,
works in both modes: `unshare`, `setns`, `clone` with any CLONE_NEW* flag, the mount family
and `chroot` fail with EPERM; `clone3` (whose flags a filter cannot read) with ENOSYS, so the C
library falls back to `clone`; a foreign system-call ABI (i386, x32) gets EPERM for everything.
Standard library only; `None` on an architecture it does not know (the caller says so).

>>> len(program("x86_64")) % 8 == 0 and program("s390x") is None
True
"""

from __future__ import annotations

import errno
import platform
import struct

# struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}
LD_ABS_W, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
ALLOW = 0x7FFF0000
DENY = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO
NO_SYS = 0x00050000 | errno.ENOSYS
NR, ARCH, ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg 0's low half: little-endian)
X32_BIT = 0x40000000
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# the mount API of Linux 5.2+ and mount_setattr: the same numbers on every architecture
NEW_MOUNT_API = {"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
                 "fsmount": 432, "fspick": 433, "mount_setattr": 442}  # fmt: skip
ARCHES = {
    "x86_64": (0xC000003E, {"unshare": 272, "setns": 308, "mount": 165, "umount2": 166,
                            "pivot_root": 155, "chroot": 161, "clone": 56, "clone3": 435}),
    "aarch64": (0xC00000B7, {"unshare": 97, "setns": 268, "mount": 40, "umount2": 39,
                             "pivot_root": 41, "chroot": 51, "clone": 220, "clone3": 435}),
}  # fmt: skip
DENIED = ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot", *NEW_MOUNT_API)


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for `machine` (default: this one) as bytes for bwrap's `--seccomp FD`."""
    known = ARCHES.get(machine or platform.machine())
    if known is None:
        return None
    audit_arch, numbers = known
    numbers = {**NEW_MOUNT_API, **numbers}
    ops = [
        _op(LD_ABS_W, ARCH),
        _op(JEQ, audit_arch, jt=1),
        _op(RET, DENY),  # another ABI's numbers mean other calls: none of them
        _op(LD_ABS_W, NR),
        _op(JGE, X32_BIT, jf=1),
        _op(RET, DENY),
    ]
    for name in DENIED:
        ops += [_op(JEQ, numbers[name], jf=1), _op(RET, DENY)]
    ops += [_op(JEQ, numbers["clone3"], jf=1), _op(RET, NO_SYS)]
    ops += [
        _op(JEQ, numbers["clone"], jf=3),
        _op(LD_ABS_W, ARG0),
        _op(JSET, CLONE_NEW, jf=1),
        _op(RET, DENY),
        _op(RET, ALLOW),
    ]
    return b"".join(ops)
