"""The routine maintenance schedule, by usage: daily, weekly and monthly jobs.

The jobs are those the trade's maintenance and repair guides give for automatic
tables (docs/maintenance.md names them): wipe the tiles and the table, clean the
optical sensors and the disc felt, oil the sliders and lift rods, check the push tips.
A "day" is counted in hands dealt, not on a calendar (the firmware reads no wall
clock): DAY_HANDS hands is a busy day of a venue's table. A job is due when that many
hands were dealt since it was last done (`done`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware.i18n import N_

DAY_HANDS = 40
DAILY, WEEKLY, MONTHLY = "daily", "weekly", "monthly"
EVERY = {DAILY: DAY_HANDS, WEEKLY: 7 * DAY_HANDS, MONTHLY: 30 * DAY_HANDS}


@dataclass(frozen=True)
class Job:
    id: str
    every: str
    text: str


JOBS: tuple[Job, ...] = (
    Job("wipe", DAILY, N_("wipe the tiles and the table top")),
    Job("hole", DAILY, N_("look for tiles or debris left in the centre hole and on the "
                          "disc")),
    Job("sensors", WEEKLY, N_("clean the count sensors of every side and the dice sensor")),
    Job("felt", WEEKLY, N_("clean the felt of the shuffle disc")),
    Job("channels", WEEKLY, N_("blow the dust out of the conveyor channels")),
    Job("oil", MONTHLY, N_("oil the head sliders, the push sliders and the lift rods")),
    Job("tips", MONTHLY, N_("check the push tips of the stacking heads; replace worn ones")),
    Job("ring", MONTHLY, N_("check the magnet ring's position and the rubber strip")),
    Job("rails", MONTHLY, N_("clean the rails of the wall lift plates")),
)
BY_ID = {job.id: job for job in JOBS}


def schedule(hands: int, done_at: dict[str, int]) -> list[dict[str, Any]]:
    """Every job with its interval, the hands since it was last done and whether due."""
    out = []
    for job in JOBS:
        since = hands - done_at.get(job.id, 0)
        out.append({"job": job.id, "every": job.every, "every_hands": EVERY[job.every],
                    "text": job.text, "since_hands": since,
                    "due": since >= EVERY[job.every]})
    return out
