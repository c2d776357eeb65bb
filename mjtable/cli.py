"""The `mjtable` command: run, simulate, deal, audit, bench."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from firmware.diagnosis.faultcard import FORMATS, short_name
from firmware.i18n import LANGUAGES, _, join, language, resolve, set_language
from hal.interface import HalError
from mjtable import board_cli, cli_words
from mjtable_core.cli_types import number, positive_int, speed, whole
from mjtable_core.config import Config, check_link, load_config
from mjtable_core.schema import ConfigError

EXIT_CONFIG = 2
EXIT_INTERRUPTED = 130      # the shell's code for "stopped by Ctrl-C"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjtable", description=_("Open firmware controller for automatic mahjong tables."))
    parser.add_argument("--config", metavar="FILE",
                        help=_("table config (default: the reference table.toml)"))
    parser.add_argument("--state-dir", metavar="DIR",
                        help=_("event log and technicians (default: $STATE_DIRECTORY, "
                             "else ~/.local/state/mjtable)"))
    # --config may also follow the command; SUPPRESS keeps a global one from being reset.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help=_("table config (default: the reference table.toml)"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", parents=[common],
                         help=_("run the table (the built-in simulator without hardware)"),
                         description=_("Run the table's daemon: the controller on [hal] "
                                       "backend (the built-in simulator without hardware), "
                                       "its event log and its API socket for the console "
                                       "and the agent. Ctrl-C, SIGTERM or a closed terminal "
                                       "stops it with every motor off (docs/console.md)."))
    run.add_argument("--speed", type=speed, default=1.0,
                     help=_("fast-forward the simulated table by this factor"))
    run.add_argument("--cycles", type=positive_int, help=_("stop after this many hands"))
    run.add_argument("--seed", type=whole, help=_("simulator seed (default: from config)"))
    run.add_argument("--plain", action="store_true",
                     help=_("log lines instead of the live picture"))
    # As the console takes it: after the command too (SUPPRESS keeps a global one).
    run.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS,
                     help=_("event log and technicians (default: $STATE_DIRECTORY, "
                          "else ~/.local/state/mjtable)"))
    run.add_argument("--socket", metavar="PATH",
                     help=_("API socket (default: $RUNTIME_DIRECTORY/api.sock, "
                          "$XDG_RUNTIME_DIR/mjtable/api.sock or /run/mjtable/api.sock)"))

    from venue.agent.cli import add_parser as add_agent
    add_agent(sub, common)
    sim = sub.add_parser("simulate", parents=[common],
                         help=_("headless batch run on the virtual clock"))
    sim.add_argument("--cycles", type=positive_int,
                     help=_("hands to deal (default: the scenario's, else 10)"))
    sim.add_argument("--scenario", metavar="FILE",
                     help=_("faults to inject and technician actions (TOML, see "
                          "docs/scenarios.md); exit 0 only when its expectations hold"))
    sim.add_argument("--seed", type=whole, help=_("simulator seed (default: from config)"))
    sim.add_argument("--json", action="store_true", help=_("print one JSON report"))
    sim.add_argument("--hal", choices=("sim", "ioboard", "pico"), default="sim",
                     help=_("ioboard: through the serial protocol and the I/O-board emulator; "
                            "pico: the board's firmware on MicroPython on an emulated RP2040"))

    fuzz = sub.add_parser("fuzz", parents=[common],
                          help=_("random fault scenarios judged by the simulator's referee"))
    fuzz.add_argument("--count", type=positive_int, default=100, help=_("scenarios to run"))
    fuzz.add_argument("--seed", type=whole, default=1, help=_("seed of the scenario generator"))
    fuzz.add_argument("--rig", choices=("sim", "ioboard", "pico"), default="sim",
                      help=_("sim: the in-process simulated HAL; ioboard: the serial path "
                             "and the I/O-board emulator (link faults too); pico: the "
                             "board's firmware on an emulated RP2040 (link faults too)"))
    fuzz.add_argument("--out", metavar="DIR", default="fuzz-failures",
                      help=_("where each failure is written, minimised, as a scenario file"))
    fuzz.add_argument("--wall-limit", type=number, default=None, metavar="S",
                      help=_("real seconds one scenario may take (default: 30, on the "
                             "pico rig 1800)"))
    fuzz.add_argument("--no-shrink", action="store_true",
                      help=_("write failures unminimised"))
    fuzz.add_argument("--json", action="store_true", help=_("print one JSON report"))
    fuzz.add_argument("--wide", action="store_true",
                      help=_("draw far ranges too (late technicians, fast flaky sensors, very "
                             "slow motors, many tiles, wrong repairs), every second run on "
                             "the 136-tile table"))

    sub.add_parser("console", help=_("technician console: status, faults, tests, jog, TUI"),
                   add_help=False)
    sub.add_parser("deal", help=_("deal from walls and dice (JSON, docs/deal-format.md)"),
                   add_help=False)
    sub.add_parser("audit", help=_("fairness audit over handoff records"), add_help=False)
    sub.add_parser("score", help=_("check and score a declared win (JSON, docs/scoring.md)"),
                   add_help=False)
    sub.add_parser("bench", help=_("benchmarks (JSON figures)"), add_help=False)
    sub.add_parser("venue", help=_("the venue's box: every table on one screen "
                                   "(docs/venue.md)"), add_help=False)
    sub.add_parser("replay", help=_("run a fault's flight recording again on the simulator"),
                   add_help=False)
    sub.add_parser("verify-deals", help=_("check a handoff file: every reveal against its "
                                          "commitment, and the chain (docs/rules.md)"),
                   add_help=False)

    board_cli.add_parser(sub)
    card = sub.add_parser("faults", parents=[common],
                          help=_("the fault-code card: code, meaning, causes, what to do"))
    card.add_argument("--lang", choices=LANGUAGES,
                      help=_("language of the card (default: [display] language, "
                             "$MJTABLE_LANG, else the locale)"))
    card.add_argument("--format", choices=FORMATS, default="text",
                      help=_("text (80 columns), md or html"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The `mjtable` command; returns the exit code.

    Ctrl-C ends any command with a line, not a traceback; a reader that goes away
    (`| head`) ends it quietly.
    """
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()      # a closed pipe shows here, not at interpreter exit
        return code
    except KeyboardInterrupt:
        print("\n" + _("mjtable: interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Python would complain again while flushing stdout at exit: point it elsewhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _main(argv: list[str]) -> int:
    set_language(resolve())
    cli_words.install()
    # deal, audit and bench parse their own arguments.
    passthrough = _passthrough(argv)
    if passthrough is not None:
        return passthrough
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "console":
        # The console parses its own arguments and needs no table config.
        try:
            from firmware.console.cli import main as console_main
        except ModuleNotFoundError as exc:   # rich/textual come with the console extra
            print(_("mjtable: the console needs the console extra ({module} is missing): "
                    "pip install 'mjtable[console]'").format(module=exc.name), file=sys.stderr)
            return EXIT_CONFIG
        return console_main(rest, state_dir=args.state_dir)
    if rest:
        parser.error(_("unrecognized arguments: {args}").format(args=" ".join(rest)))
    if args.command == "board":
        return board_cli.run(args)
    if args.command == "faults":
        return _faults(args)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(_("mjtable: config error: {error}").format(error=exc), file=sys.stderr)
        return EXIT_CONFIG
    set_language(resolve(config.display.language))
    if args.command == "run":
        return _run(config, args)
    if args.command == "fuzz":
        return _fuzz(config, args)
    if args.command == "agent":
        from venue.agent.cli import main as agent_main
        return agent_main(config, args)
    return _simulate(config, args)


def _faults(args: argparse.Namespace) -> int:
    """The code card; it needs no valid config, only the language a config may set."""
    from firmware.diagnosis import faultcard

    lang = args.lang
    if lang is None:
        try:
            lang = resolve(load_config(args.config).display.language)
        except ConfigError:
            lang = None
    with language(lang):
        sys.stdout.write(faultcard.render(args.format))
    return 0


def _passthrough(argv: list[str]) -> int | None:
    for i, word in enumerate(argv):
        if word.startswith("-"):
            continue
        rest = argv[:i] + argv[i + 1:]
        if word == "deal":
            from rules.cli import deal_main
            _hint_stdin(rest)
            return deal_main(rest)
        if word == "venue":
            from venue.desk.cli import main as venue_main
            return venue_main(rest)
        if word == "audit":
            from simulator.harness.audit_cli import main as audit_main
            return audit_main(rest)
        if word == "score":
            from rules.scorekeeper.cli import score_main
            return score_main(rest)
        if word == "verify-deals":
            from firmware.hands.deal_log import read_anchors
            from rules.cli import verify_deals_main
            return verify_deals_main(rest, read_log=read_anchors)
        if word == "replay":
            from simulator.fuzz.replay_cli import main as replay_main
            return replay_main(rest)
        if word == "bench":
            from bench.run import main as bench_main
            return bench_main(rest)
        return None
    return None


def _hint_stdin(args: list[str]) -> None:
    """`mjtable deal` with no file reads stdin: say so rather than wait in silence."""
    if any(a in ("-h", "--help") for a in args) or not sys.stdin.isatty():
        return
    if all(a.startswith("-") and a != "-" for a in args):
        print(_("mjtable deal: reading the deal input (JSON) from the keyboard; end it with "
                "Ctrl-D, or give a FILE (mjtable deal --help)"), file=sys.stderr)


def _run(config: Config, args: argparse.Namespace) -> int:
    from firmware.service.daemon import run
    from firmware.service.tablelock import StateUnwritable, TableBusy

    try:
        return run(config, speed=args.speed, cycles=args.cycles, seed=args.seed,
                   live=False if args.plain else None, socket=args.socket,
                   state_dir=args.state_dir)
    except (TableBusy, StateUnwritable) as exc:
        print(f"mjtable: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except HalError as exc:
        print(f"mjtable: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as exc:   # a rules engine that fails to load at start-up
        print(_("mjtable: config error: {error}").format(error=exc), file=sys.stderr)
        return EXIT_CONFIG


YOUNG_COLLECTED = 10_000


def _simulate(config: Config, args: argparse.Namespace) -> int:
    from simulator.harness.run import simulate

    if args.hal == "ioboard":   # the real serial path, against the I/O-board emulator
        from simulator.harness.run import simulate_ioboard as simulate
    if args.hal == "pico":      # the board's firmware on its chip (emulated)
        from simulator.harness.run import simulate_pico as simulate
    # What startup loaded (modules, the config) outlives the run: frozen, the collector's
    # full passes during the run no longer walk it (unfrozen after, for a caller that
    # goes on). Not collected first: a full pass over it all took 7 ms of every run to
    # free a few dozen objects of start-up garbage, now frozen with the rest. A run
    # makes and drops short-lived objects by the million (timers, edges, reports), next
    # to none in cycles: the youngest generation is collected every YOUNG_COLLECTED
    # allocations instead of 700 (80 collections, 20 ms of 100 hands, to 5 and 8 ms).
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTED, *threshold[1:])
    try:
        return _simulate_report(config, args, simulate)
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _simulate_report(config: Config, args: argparse.Namespace,
                     simulate: Callable[..., dict[str, Any]]) -> int:
    from simulator.scenario import ScenarioError

    progress = None
    if sys.stderr.isatty():
        def progress(done: int, total: int) -> None:
            line = _("hand {done}/{total}").format(done=done, total=total)
            print("\r" + line, end="" if done < total else "\n",
                  file=sys.stderr, flush=True)
    try:
        if args.scenario:
            scenario, config = _scenario(args, config)
            report = simulate(config, args.cycles or 0, args.seed, progress=progress,
                              scenario=scenario)
        else:
            report = simulate(config, args.cycles or 10, args.seed, progress=progress)
    except ScenarioError as exc:    # a scenario file that cannot be read
        print(f"mjtable: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except HalError as exc:      # --hal ioboard: a setting the board's handshake refuses
        print(f"mjtable: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as exc:   # a rules engine that fails to load at start-up
        print(_("mjtable: config error: {error}").format(error=exc), file=sys.stderr)
        return EXIT_CONFIG
    except ValueError as exc:    # a scenario that cannot be run
        print(f"mjtable: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    ok = report["completed"] and report["tiles_accounted"] and report["motors_safe_after_faults"]
    judged = (report.get("referee_violations") or report.get("stalls")
              or report.get("crashed") is not None)
    passed = bool(ok and not judged)
    if args.json:
        print(json.dumps(report))
    else:
        _print_summary(report)
        print(_("verdict: PASSED") if passed else _("verdict: FAILED"))
    if report.get("interrupted"):
        print(_("mjtable: interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0 if passed else 1


def _other_table(config: Config, rig: str) -> Any:
    """The runner of the other table size (144 and 136 tiles) for `fuzz --wide`."""
    from mjtable_core.config import reference_config
    from simulator.fuzz.batch import ConfigRunner

    name = "table.toml" if config.table.tiles == 136 else "table-136.toml"
    return ConfigRunner(load_config(reference_config(name)), rig)


def _fuzz(config: Config, args: argparse.Namespace) -> int:
    from pathlib import Path

    from simulator.fuzz.batch import CLASSES, ConfigRunner, fuzz
    from simulator.harness.problems import class_name

    def progress(done: int, total: int, failed: int) -> None:
        if done % 50 == 0 or done == total:
            print(_("fuzz: {done}/{total} run, {failed} failed").format(
                done=done, total=total, failed=failed), file=sys.stderr, flush=True)

    runner = ConfigRunner(config, args.rig)
    try:
        if args.rig != "sim":       # the config may name another backend
            check_link(config)
        report = fuzz(runner, args.count, args.seed, rig=args.rig,
                      out=Path(args.out), wall_limit_s=args.wall_limit,
                      shrink=not args.no_shrink, progress=progress, wide=args.wide,
                      other=_other_table(config, args.rig) if args.wide else None)
    except HalError as exc:      # a setting the board's handshake refuses
        print(f"mjtable: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as exc:
        print(_("mjtable: config error: {error}").format(error=exc), file=sys.stderr)
        return EXIT_CONFIG
    if args.json:
        print(json.dumps(report))
    else:
        print(_("{runs} scenarios (seed {seed}, rig {rig}): {passed} passed in {wall} s").format(
            runs=report["runs"], seed=report["seed"], rig=report["rig"],
            passed=report["passed"], wall=report["wall_time_s"]))
        for name in CLASSES:
            print(f"  {class_name(name)}: {report[name]}")
        for failure in report["failures"]:
            print(_("FAILED {file}: {classes}").format(file=failure["scenario_file"],
                                                       classes=", ".join(failure["classes"])))
    if report["interrupted"]:
        print(_("fuzz: interrupted after {done} of {count} scenarios").format(
            done=report["runs"], count=args.count), file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0 if report["passed"] == report["runs"] else 1


def _scenario(args: argparse.Namespace, config: Config) -> tuple[Any, Config]:
    """The scenario, and the config it names unless --config was given."""
    from simulator.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    if scenario.config and not getattr(args, "config", None):
        config = load_config(scenario.config)
    return scenario, config


def _print_summary(report: dict) -> None:
    from simulator.harness.problems import say
    # What the referee saw comes first: it outranks anything the firmware reported.
    for v in report.get("referee_violations", []):
        print(_("VIOLATION {rule} (hand {hand}, t={t} s): {detail}").format(
            rule=v["rule"], hand=v["cycle"], t=v["t"], detail=v["detail"]))
    for stall in report.get("stalls", []):
        shown = stall["display"] or _("nothing (a silent stall)")
        print(_("STALL in {phase} (hand {hand}, t={t} s) for {waited} s; the display shows "
                "{shown}").format(phase=stall["phase"], hand=stall["cycle"], t=stall["t"],
                                  waited=stall["waited_s"], shown=shown))
    if report.get("crashed") is not None:
        print(_("CRASHED: {error} at {where}").format(error=report["crashed"]["error"],
                                                      where=report["crashed"]["where"]))
    builds = sorted(report["build_times_s"])
    median = builds[len(builds) // 2] if builds else float("nan")
    print(_("hands dealt: {done}/{requested} (seed {seed})").format(
        done=report["cycles_completed"], requested=report["cycles_requested"],
        seed=report["seed"]))
    print(_("simulated {sim:.0f} s in {wall:.2f} s (x{speed})").format(
        sim=report["sim_time_s"], wall=report["wall_time_s"], speed=report["speed_factor"]))
    print(_("median build: {median:.1f} s over {builds} builds").format(
        median=median, builds=len(builds)))
    print(_("tiles accounted for: yes") if report["tiles_accounted"]
          else _("tiles accounted for: NO"))
    for fault in report["faults"]:
        remedy = join(fault["diagnosis"]["remedy"])
        print(_("fault {code} {name} ({id}) at {where} (hand {hand}, t={t} s): {remedy}").format(
            code=fault["code"], name=short_name(fault["id"]), id=fault["id"],
            where=fault["where"], hand=fault["cycle"], t=fault["sim_time_s"], remedy=remedy))
    if not report["faults"]:
        print(_("no faults"))
    for problem in report.get("problems", []):
        print(_("PROBLEM: {problem}").format(problem=say(problem)))


if __name__ == "__main__":
    sys.exit(main())
