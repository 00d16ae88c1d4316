"""`python -m abstractgames`: the command line.

`python -m abstractgames worker PATH SPEC [LIMITS]` is the worker process of an isolated player
([`abstractgames.registry.worker`][]): it is started once per bot and match, so it goes straight
to the worker without loading the command line.
"""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        from .registry.worker import main as worker

        sys.exit(worker(sys.argv[2:]))
    from .cli import main

    try:
        main()
    finally:
        # CPython remembers a KeyboardInterrupt that ended code run from a string (`exec` of a
        # dataclass's methods, a plugin's own `exec`) even when it was caught, and under
        # `python -m` then kills itself with SIGINT after exiting, whatever status we chose.
        # Each string evaluation forgets the previous one's, so this one clears it; a
        # KeyboardInterrupt that does leave `main` is remembered again as it leaves.
        eval("None")
