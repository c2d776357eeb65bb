"""The clock: virtual events in time order; the real clock scaled for fast-forward."""

from __future__ import annotations

import asyncio

from mjtable_core.clock import RealClock, VirtualClock


def test_virtual_events_run_in_time_then_fifo_order() -> None:
    clock = VirtualClock()
    seen: list[str] = []
    clock.call_later(2.0, lambda: seen.append("b"))
    clock.call_later(1.0, lambda: seen.append("a"))
    clock.call_later(2.0, lambda: seen.append("c"))
    clock.run_until(10.0)
    assert seen == ["a", "b", "c"]
    assert clock.now() == 10.0


def test_virtual_cancel_and_deadline() -> None:
    clock = VirtualClock()
    seen: list[float] = []
    timer = clock.call_later(1.0, lambda: seen.append(clock.now()))
    clock.call_later(3.0, lambda: seen.append(clock.now()))
    timer.cancel()
    clock.run_until(2.0)
    assert seen == [] and clock.now() == 2.0
    clock.run_until(5.0)
    assert seen == [3.0]


def test_virtual_until_stops_early() -> None:
    clock = VirtualClock()
    seen: list[int] = []
    for i in range(5):
        clock.call_later(i, lambda i=i: seen.append(i))
    clock.run_until(100.0, until=lambda: len(seen) == 2)
    assert seen == [0, 1] and clock.now() == 1.0


def test_real_clock_scales_time() -> None:
    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        clock = RealClock(loop, speed=50.0)
        fired = loop.create_future()
        start = loop.time()
        clock.call_later(5.0, lambda: fired.set_result(clock.now()))
        at = await fired
        return at, loop.time() - start

    at, real = asyncio.run(main())
    assert at >= 5.0
    assert real < 1.0      # 5 simulated seconds at ×50 take 0.1 s


def test_real_clock_runs_posted_work_in_one_pass_and_in_order() -> None:
    import threading

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        clock = RealClock(loop)
        seen: list[str] = []
        done = loop.create_future()
        clock.call_later(0.05, lambda: seen.append("timer"))
        clock.call_later(0.2, lambda: done.set_result(None))

        def edge() -> None:
            clock.post(lambda: seen.append(f"edge at {clock.now() < 0.05}"))

        threading.Thread(target=edge).start()
        await done
        return seen

    assert asyncio.run(main()) == ["edge at True", "timer"]


def test_work_posted_while_the_loop_was_busy_runs_before_later_timers() -> None:
    """A frame that arrived during a stall is not overtaken by a timer due after it."""
    import threading
    import time

    async def main() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        clock = RealClock(loop)
        seen: list[tuple[str, float]] = []
        done = loop.create_future()

        def busy() -> None:        # the loop blocked (a long callback, a GC pause)
            posted = threading.Event()

            def reader() -> None:  # the reader thread hands in a frame meanwhile
                clock.post(lambda: seen.append(("frame", clock.now())))
                posted.set()

            threading.Thread(target=reader).start()
            assert posted.wait(5.0)
            # A timeout armed after the frame arrived, and due before the loop is back.
            clock.call_at(clock.now() + 0.01, lambda: seen.append(("timeout", clock.now())))
            time.sleep(0.05)

        loop.call_soon(busy)
        clock.call_later(0.3, lambda: done.set_result(None))
        await done
        return seen

    seen = asyncio.run(main())
    assert [kind for kind, _ in seen] == ["frame", "timeout"]
    assert seen[0][1] < seen[1][1]     # the frame keeps the time it arrived
