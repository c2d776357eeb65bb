# Two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench diagrams docs messages clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "mjtable needs Python 3.11 or newer ($(PYTHON) is older): make PYTHON=python3.11"; exit 1; }
	@$(PYTHON) -m venv $(VENV) || \
	  { echo "could not create $(VENV): install the venv module (Debian: apt install python3-venv)"; exit 1; }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/mjtable run $(ARGS)

# pytest exits 5 when it collected nothing; that must fail, and it does here
# because make propagates any non-zero exit.
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/pytest -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/mjtable bench

diagrams: $(STAMP)
	$(BIN)/python -m firmware.diagrams docs/state-machines.md

# Every generated document: the state diagrams, the fault tables, the desk's fault
# words and the Chinese fault card (from the kinds).
docs: diagrams
	$(BIN)/python -m firmware.faults.tables docs
	$(BIN)/python -m firmware.faults.deskwords venue/desk/faults/faultwords.json
	$(BIN)/mjtable faults --lang zh_CN --format md > docs/zh_CN/faults.md

# Strings a person reads: extract them, merge into the catalogues, then translate the
# new entries in firmware/locale/*/LC_MESSAGES/mjtable.po (tests/test_i18n.py checks).
POT := firmware/locale/mjtable.pot
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k N_ --no-location --sort-output \
	  --project mjtable -o $(POT) mjtable_core firmware hal simulator rules venue bench mjtable
	$(BIN)/pybabel update -i $(POT) -d firmware/locale -D mjtable --no-fuzzy-matching \
	  --ignore-obsolete --no-wrap

clean:
	rm -rf $(VENV) build *.egg-info
