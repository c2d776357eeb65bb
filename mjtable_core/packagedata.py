"""Files shipped as package data, found in an install and in a source checkout alike.

pyproject.toml ships three folders of the source tree as packages of their own
(`config/` as `mjtable_core.configs`, `systemd/` as `firmware.systemd`,
`tests/scenarios/` as `simulator.scenarios`). An install has those packages. A source
checkout imported as itself has only the folders: `python -m firmware.service.systemd_unit`
run in the checkout's folder (docs/raspberry-pi.md clones into /opt/mjtable) puts
that folder first on the import path, ahead of the install.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# The source tree's root, when these modules are imported from one.
_ROOT = Path(__file__).resolve().parent.parent


def data_folder(package: str, source_folder: str) -> Path:
    """The folder holding `package`'s files; `source_folder` (from the tree's root) is
    where they are when the package is imported from a source checkout."""
    try:
        return Path(str(resources.files(package)))
    except ModuleNotFoundError:
        # Only a checkout lacks the package; its files are the folder it is built from.
        return _ROOT / source_folder
