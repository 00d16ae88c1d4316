"""The sandbox of a worker process: what a bot from outside may not do to the rest of the machine.

A bot from a file or module, or a plugin's player, plays from a worker process of its own
(an [`IsolatedPlayer`][abstractgames.registry.IsolatedPlayer]). Before the worker loads the bot,
it shuts itself in with [`confine`][]; everything below is inherited by whatever the bot starts,
and none of it can be undone. On Linux:

- **signals**: a seccomp filter (libseccomp, through `pyseccomp`) refuses `kill`, `tgkill`,
  `rt_sigqueueinfo` and `rt_tgsigqueueinfo` aimed at any process but the worker itself, and
  `tkill` and `pidfd_send_signal` altogether (`EPERM`): a bot cannot stop, kill or wake its
  referee, nor signal a process group (the worker leads a session of its own, so its group
  holds nobody else either);
- **other processes**: the same filter refuses `ptrace`, `process_vm_readv` and
  `process_vm_writev`, `pidfd_open` and `pidfd_getfd`, `kcmp`; the worker drops every capability
  (it runs as root too: it keeps the user id, not the powers) and enters a Landlock domain where
  the kernel has Landlock, which denies it every process outside the domain: their
  `/proc/PID/mem`, `environ` and open files, whoever runs them. Without Landlock the referee
  makes itself undumpable ([`protect_referee`][]), so that its own `/proc` files are closed to
  the worker even under the same user;
- **limits of others**: `prlimit64`, `setpriority`, `ioprio_set` and the scheduling policy
  (`sched_setscheduler`, `sched_setparam`, `sched_setattr`) of any process but the worker itself
  (a bot cannot take its referee's open files away, nor starve it);
- **new processes**: `fork`, `vfork`, and `clone` of anything but a thread are refused
  (`clone3` answers `ENOSYS`, and the C library then makes its threads with `clone`): the bot
  computes in threads, never in processes of its own, so nothing it starts can outlive it;
- **resources** (the `resource` module): address space ([`MEMORY_LIMIT`][] by default, a
  `MemoryError` beyond it), CPU seconds ([`CPU_LIMIT`][], then the kernel ends the worker), open
  files ([`OPEN_FILES`][]), no core dumps;
- **files**: the worker holds no descriptor but its pipes and its log (the referee starts it with
  no other, and [`confine`][] closes any other it finds).

Elsewhere (macOS, the BSDs, Windows under WSL 1) there is no seccomp and no Landlock: the
worker still runs in its own session with the resource limits that the system keeps, its
hangs, exits, prints and errors are contained as on Linux, but it can signal, trace and read
the memory of the user's other processes. [`containment`][] says which of these hold on this
system, and [`Containment.gaps`][] says what does not, in words that `play`, `arena` and the
web page print.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import sys
from collections.abc import Callable
from typing import Any

import attrs

__all__ = [
    "CPU_LIMIT",
    "MEMORY_LIMIT",
    "OPEN_FILES",
    "Containment",
    "Limits",
    "SandboxError",
    "confine",
    "containment",
    "landlock_abi",
    "protect_referee",
]

MEMORY_LIMIT = 4096
"""The address space a worker may take by default, in MiB (the spec option `memory=MiB`)."""
CPU_LIMIT = 6 * 3600
"""The CPU seconds a worker may use in all (its threads together) by default: a long match's
thinking with room to spare; past it the kernel ends the worker (`SIGXCPU`), a forfeit."""
OPEN_FILES = 256
"""The most file descriptors a worker may hold at once."""

_LINUX = sys.platform.startswith("linux")

# prctl(2) options
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522
_CLONE_THREAD = 0x00010000

# Landlock (linux/landlock.h); the system calls have the same number on every architecture
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_ADD_RULE = 445
_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_RULE_PATH_BENEATH = 1
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_MAKE_CHAR = 1 << 6  # accesses the domain handles: making device nodes, which nothing
_LANDLOCK_MAKE_BLOCK = 1 << 11  # of ours does; handling any access makes a domain
_LANDLOCK_REFER = 1 << 13  # ABI 2: moving files between directories, allowed beneath / (below)
_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6: no abstract socket outside the domain
_LANDLOCK_SCOPE_SIGNAL = 1 << 1  # ABI 6: no signal outside the domain

_SIGNALS_TO_SELF = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
"""System calls that signal a process named by their first argument: allowed at the worker."""
_REFUSED = (
    "tkill",
    "pidfd_send_signal",
    "pidfd_open",
    "pidfd_getfd",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "fork",
    "vfork",
    "unshare",
    "setns",
)
"""System calls refused outright."""
_SCHEDULING = ("sched_setscheduler", "sched_setparam", "sched_setattr")
"""System calls that change how a thread named by their first argument is scheduled (0: the
caller): an idle policy given to the referee would starve it while the bot spins."""
_IOPRIO_WHO_PROCESS = 1


class SandboxError(OSError):
    """A part of the sandbox could not be put in place (the message says which and why)."""


@attrs.frozen
class Limits:
    """The resource limits of a worker.

    Attributes:
        memory: MiB of address space.
        cpu: CPU seconds in all.
        files: open file descriptors.
    """

    memory: int = MEMORY_LIMIT
    cpu: int = CPU_LIMIT
    files: int = OPEN_FILES


@attrs.frozen
class Containment:
    """What the sandbox holds on this system.

    Attributes:
        seccomp: the seccomp filter (signals, tracing, new processes).
        landlock: the Landlock ABI the kernel has (0: none).
        limits: the resource limits, the address space's above all (macOS takes it and does
            not enforce it).
    """

    seccomp: bool
    landlock: int
    limits: bool

    @property
    def complete(self) -> bool:
        """Whether everything [the module][abstractgames.registry.sandbox] lists holds."""
        return self.seccomp and self.limits

    def gaps(self) -> list[str]:
        """What a bot from outside can still do here, one phrase each (empty when complete)."""
        gaps = []
        if not self.seccomp:
            gaps.append(
                "signal, trace or read your other processes (the referee included) and start "
                "processes of its own"
            )
        if not self.limits:
            gaps.append("use all the memory it wants")
        return gaps

    def summary(self) -> str:
        """One line for a person: what is contained here, or what is not."""
        if self.complete:
            return "bots from files run sandboxed (seccomp, resource limits)"
        what = sys.platform if not _LINUX else "this Linux (no libseccomp)"
        return (
            f"on {what} a bot from a file runs in a worker process but not sandboxed: it "
            f"cannot hang the match or touch the referee's state, but it can "
            + "; it can ".join(self.gaps())
        )


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The Landlock ABI version of the kernel, 0 without Landlock (or off Linux)."""
    if not _LINUX:
        return 0
    try:
        version = _libc().syscall(
            _LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION
        )
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _seccomp() -> Any:
    """The `pyseccomp` module, or `None` where it or the system's libseccomp is missing."""
    if not _LINUX:
        return None
    try:
        import pyseccomp
    except (ImportError, OSError, RuntimeError):  # RuntimeError: no libseccomp on the system
        return None
    return pyseccomp


def containment() -> Containment:
    """What [`confine`][] would hold on this system (nothing is changed)."""
    try:
        import resource

        limits = hasattr(resource, "RLIMIT_AS") and sys.platform != "darwin"  # macOS: not enforced
    except ImportError:
        limits = False
    return Containment(seccomp=_seccomp() is not None, landlock=landlock_abi(), limits=limits)


def protect_referee() -> None:
    """On Linux without Landlock, make this process undumpable, so that a worker running as
    the same user cannot open its `/proc` files (its memory above all); with Landlock the
    worker's domain already keeps it out, and nothing is changed."""
    if _LINUX and landlock_abi() == 0:
        with contextlib.suppress(OSError, AttributeError):
            _libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def confine(limits: Limits = Limits(), *, keep: tuple[int, ...] = (0, 1, 2)) -> Containment:
    """Shut this process in (see [the module][abstractgames.registry.sandbox]): for good, and
    inherited by everything it starts. Call it before any code from outside runs.

    Args:
        limits: the resource limits.
        keep: the file descriptors to keep open; every other is closed.

    Returns:
        What holds (on Linux everything, where libseccomp is installed).

    Raises:
        SandboxError: a part that this system has could not be put in place.
    """
    _close_descriptors(keep)
    has_limits = _set_limits(limits)
    if not _LINUX:
        return Containment(seccomp=False, landlock=0, limits=has_limits)
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SandboxError(ctypes.get_errno(), "cannot set no_new_privs")
    _drop_capabilities(libc)
    landlock = _enter_landlock(libc)
    seccomp = _seccomp()
    if seccomp is not None:
        _load_filter(seccomp)
    return Containment(seccomp=seccomp is not None, landlock=landlock, limits=has_limits)


def _close_descriptors(keep: tuple[int, ...]) -> None:
    try:
        names = os.listdir("/proc/self/fd" if _LINUX else "/dev/fd")
    except OSError:
        return
    for name in names:
        if name.isdigit() and int(name) not in keep:
            with contextlib.suppress(OSError):
                os.close(int(name))


def _set_limits(limits: Limits) -> bool:
    """Set the limits this system takes; whether it took them all."""
    try:
        import resource
    except ImportError:
        return False
    wanted = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_CPU, limits.cpu),
        (resource.RLIMIT_NOFILE, limits.files),
    ]
    if hasattr(resource, "RLIMIT_AS"):
        wanted.append((resource.RLIMIT_AS, limits.memory << 20))
    held = True
    for which, value in wanted:
        try:
            _, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
        except (OSError, ValueError):  # a limit the system does not take (macOS's address space)
            held = False
    return held


def _drop_capabilities(libc: Any) -> None:
    """No capability left, none to be had again (as root too: a root worker keeps its user id,
    so the filter and Landlock are what stop it; without CAP_SYS_PTRACE, the kernel denies it
    the processes that hold capabilities it no longer has)."""
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 63
    for capability in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)  # EPERM without CAP_SETPCAP: none held
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))

    class Data(ctypes.Structure):
        _fields_ = (
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        )

    header, data = Header(_CAPABILITY_VERSION_3, 0), (Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise SandboxError(ctypes.get_errno(), "cannot drop the worker's capabilities")


def _enter_landlock(libc: Any) -> int:
    """Enter a Landlock domain of our own (if the kernel has Landlock); return its ABI.

    The domain is what matters (the kernel keeps a process in one from every process outside
    it), not its rules: it handles making device nodes, which nothing of ours does, and from ABI
    2 moving files between directories (`rename`, `link`), which Landlock refuses in any domain
    unless a rule allows it, and which a rule on `/` allows everywhere.
    """
    abi = landlock_abi()
    if abi == 0:
        return 0

    class Attributes(ctypes.Structure):
        _fields_ = (
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        )

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))

    refer = _LANDLOCK_REFER if abi >= 2 else 0
    scoped = _LANDLOCK_SCOPE_SIGNAL | _LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET if abi >= 6 else 0
    attributes = Attributes(_LANDLOCK_MAKE_CHAR | _LANDLOCK_MAKE_BLOCK | refer, 0, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(
        _LANDLOCK_CREATE_RULESET, ctypes.byref(attributes), ctypes.c_size_t(size), 0
    )
    if ruleset < 0:
        raise SandboxError(ctypes.get_errno(), "cannot make a Landlock ruleset")
    try:
        if refer:
            root = os.open("/", os.O_PATH | os.O_CLOEXEC)
            try:
                rule = PathBeneath(refer, root)
                added = libc.syscall(
                    _LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0
                )
            finally:
                os.close(root)
            if added != 0:
                raise SandboxError(ctypes.get_errno(), "cannot add a Landlock rule")
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise SandboxError(ctypes.get_errno(), "cannot enter a Landlock domain")
    finally:
        os.close(ruleset)
    return abi


def _load_filter(seccomp: Any) -> None:
    """The seccomp filter: everything allowed but what reaches other processes."""
    refuse = seccomp.ERRNO(errno.EPERM)
    me = os.getpid()
    flags = 1 if os.uname().machine.startswith("s390") else 0  # s390 passes clone's flags second
    rules: list[tuple[int, str, tuple[Any, ...]]] = [
        *((refuse, name, (seccomp.Arg(0, seccomp.NE, me),)) for name in _SIGNALS_TO_SELF),
        *((refuse, name, ()) for name in _REFUSED),
        (refuse, "clone", (seccomp.Arg(flags, seccomp.MASKED_EQ, _CLONE_THREAD, 0),)),
        # Limits and priorities of other processes: 0 is the caller (what the C library passes)
        (refuse, "prlimit64", (seccomp.Arg(0, seccomp.NE, 0),)),
        (refuse, "setpriority", (seccomp.Arg(0, seccomp.NE, 0),)),  # PRIO_PROCESS only
        (refuse, "setpriority", (seccomp.Arg(1, seccomp.NE, 0),)),
        *((refuse, name, (seccomp.Arg(0, seccomp.NE, 0),)) for name in _SCHEDULING),
        (refuse, "ioprio_set", (seccomp.Arg(0, seccomp.NE, _IOPRIO_WHO_PROCESS),)),
        (refuse, "ioprio_set", (seccomp.Arg(1, seccomp.NE, 0),)),
        (seccomp.ERRNO(errno.ENOSYS), "clone3", ()),
    ]
    try:
        syscall_filter = seccomp.SyscallFilter(seccomp.ALLOW)
        with contextlib.suppress(OSError):  # libseccomp before 2.4 kills the thread instead
            syscall_filter.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
        for action, name, arguments in rules:
            _add_rule(syscall_filter.add_rule, action, name, arguments)
        syscall_filter.load()
    except OSError as error:
        raise SandboxError(
            error.errno or errno.EINVAL, f"cannot load the seccomp filter: {error}"
        ) from None


def _add_rule(add: Callable[..., None], action: int, name: str, arguments: tuple[Any, ...]) -> None:
    try:
        add(action, name, *arguments)
    except (OSError, ValueError, RuntimeError):
        if name not in ("pidfd_getfd", "pidfd_open", "pidfd_send_signal", "clone3", "kcmp"):
            raise  # the others are as old as seccomp; a newer one the library may not know
