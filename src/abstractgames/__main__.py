"""`python -m abstractgames`: the command line.

`python -m abstractgames worker PATH SPEC` is the worker process of an isolated player
([`abstractgames.registry.worker`][]): it is started once per bot and match, so it goes straight
to the worker without loading the command line.
"""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        from .registry.worker import main as worker

        sys.exit(worker(sys.argv[2:]))
    from .cli import main

    main()
