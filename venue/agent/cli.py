"""`mjtable agent`: argument handling and the process around `Agent`."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

from firmware import statedir
from firmware.i18n import _
from mjtable_core.config import Config, check_phone_listen
from mjtable_core.schema import Invalid

EXIT_CONFIG = 2


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    agent = sub.add_parser("agent", parents=[common],
                           help=_("this table on the venue's MQTT broker (docs/venue.md)"),
                           description=_("Put this table on the venue's MQTT broker: its "
                                         "status, faults and hand records out, the venue's "
                                         "signed commands in, and the phone console on the "
                                         "venue's network. Runs beside `mjtable run` and "
                                         "talks to it through its API socket "
                                         "(docs/venue.md)."))
    agent.add_argument("--socket", metavar="PATH",
                       help=_("the daemon's API socket (default under the runtime directory)"))
    agent.add_argument("--broker", metavar="URL",
                       help=_("mqtt://host:port or mqtts://host:port (default: [venue] broker)"))
    agent.add_argument("--phone", metavar="HOST:PORT",
                       help=_("serve the phone console here, on the venue's network (default: "
                              "[venue] phone_listen; \"\" = off)"))


def main(config: Config, args: argparse.Namespace) -> int:
    broker = args.broker or config.venue.broker
    if broker and not broker.startswith(("mqtt://", "mqtts://")):
        print(_("mjtable agent: “{broker}” is not a broker address: use mqtt://host:port "
                "or mqtts://host:port").format(broker=broker), file=sys.stderr)
        return EXIT_CONFIG
    if not broker:
        print(_("mjtable agent: no broker: set [venue] broker or pass --broker "
                "mqtt://host:port"), file=sys.stderr)
        return EXIT_CONFIG
    try:
        from venue.agent.agent import Agent
        from venue.wire import one_level
    except ModuleNotFoundError as exc:
        print(_("mjtable agent: needs the venue extra ({module} is missing): "
                "pip install 'mjtable[venue]'").format(module=exc.name), file=sys.stderr)
        return EXIT_CONFIG
    if not one_level(config.table.id):
        print(_("mjtable agent: [table] id “{table}” cannot name the table's topics: "
                "it must not be empty nor hold / + or #").format(table=config.table.id),
              file=sys.stderr)
        return EXIT_CONFIG
    listen = config.venue.phone_listen if args.phone is None else args.phone
    if listen:
        try:
            check_phone_listen(listen)
        except Invalid as exc:
            print(f"mjtable agent: --phone {exc}", file=sys.stderr)
            return EXIT_CONFIG
    # Here, not at the top: every `mjtable` command builds this parser, and asyncio is
    # a tenth of a simulation's start-up.
    import asyncio

    from venue.agent.secret import SecretError, broker_password
    try:
        password, warning = broker_password(config.venue, config.source)
    except SecretError as exc:
        print(f"mjtable agent: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    socket = Path(args.socket) if args.socket else statedir.default_socket()
    agent = Agent(config, socket, broker, password=password)
    if warning is not None:
        agent.log(warning)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, agent.stop)
        phone = await _phone(config, socket, listen, agent.log)
        try:
            await agent.run()
        finally:
            if phone is not None:
                await phone.close()

    asyncio.run(run())
    return 0


async def _phone(config: Config, socket: Path, listen: str, log: Any) -> Any:
    """The phone console beside the agent; a console that cannot start is said, and
    the agent goes on (the table plays on without it)."""
    if not listen:
        return None
    try:
        from venue.agent.phone.server import PhoneConsole
    except ModuleNotFoundError as exc:
        log(_("no phone console: {module} is missing (pip install 'mjtable[venue]')").format(
            module=exc.name))
        return None
    phone = PhoneConsole(config, socket, listen)
    try:
        await phone.start()
    except OSError as exc:
        log(_("no phone console on {listen}: {error}").format(listen=listen, error=exc))
        return None
    log(_("phone console on http://{listen}/").format(listen=listen))
    return phone
