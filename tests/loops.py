"""A fresh event loop for each Pulumi program a test runs; the one before is closed, with any
task a failed program left pending cancelled, so nothing is finalized later at a bad time."""

from __future__ import annotations

import asyncio
import gc


def fresh_loop() -> asyncio.AbstractEventLoop:
    """Close the current event loop (if any) and install a new one."""
    try:
        old = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        old = None
    if old is not None and not old.is_closed() and not old.is_running():
        pending = [task for task in asyncio.all_tasks(old) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            old.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        old.close()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    gc.collect()
    return loop
