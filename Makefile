# The two set-up commands the README promises: `make run` and `make test`.
# Both work on a fresh Debian machine with Python 3.11.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
EXAMPLE ?= resources/examples/flanges/super_armio_bros.sdf

# Debian packages for Xvfb, Qt (xcb) and Mesa GL; installed only when missing.
SYSTEM_PACKAGES := xvfb xauth libgl1 libglx-mesa0 libgl1-mesa-dri libegl1 libegl-mesa0 \
	libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
	libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 \
	libdbus-1-3 libfontconfig1 libxrender1 libxi6

.PHONY: run test bench package system-deps clean

# Stock Debian ships venv separately (python3-venv): install it when venv creation fails.
$(BIN)/python:
	@py=$(PYTHON); command -v $$py >/dev/null 2>&1 || py=python3; \
	if ! $$py -m venv $(VENV) >/dev/null 2>&1; then \
		echo "installing python3-venv"; rm -rf $(VENV); \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-venv >/dev/null; \
		$$py -m venv $(VENV); \
	fi
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=77" wheel

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# `package` too: tests/test_packaging_app.py builds the application with PyInstaller.
$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test,package]"
	touch $@

# Opens the editor (Qt needs the same X/GL libraries as the tests: installed when missing).
run: $(VENV)/.installed system-deps
	$(BIN)/snapframe $(EXAMPLE)

system-deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing system packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# The libsdformat 12.3 oracle the `oracle` tests compare against (tests/oracle/README.md):
# its build dependencies are installed only when missing, and it is built only when its
# binary is missing.  If it cannot be built, the oracle tests skip and say why.
ORACLE_PACKAGES := libsdformat-dev g++ pkg-config
ORACLE := tests/oracle/build/sdf_oracle
# The freedesktop validators tests/test_packaging_app.py runs, and strip for the application.
CHECK_PACKAGES := desktop-file-utils appstream shared-mime-info binutils

# pytest's exit 5 ("no tests collected") is passed on as success.
test: $(VENV)/.installed-test system-deps
	@missing=""; for p in $(ORACLE_PACKAGES) $(CHECK_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing oracle build and check packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
		{ $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } \
			|| echo "warning: could not install$$missing; the tests needing them will be skipped"; \
	fi
	@[ -x $(ORACLE) ] || sh tests/oracle/build.sh || echo "warning: $(ORACLE) could not be built; the oracle tests will be skipped"
	xvfb-run -a -s "-screen 0 1280x1024x24" $(BIN)/python -m pytest; s=$$?; [ $$s -eq 5 ] && s=0; exit $$s

bench: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	$(BIN)/python benchmarks/run_all.py

# The one-folder application: dist/snapframe/snapframe (packaging/pyinstaller/snapframe.spec;
# PyInstaller comes with the `package` extra).  Run it with `dist/snapframe/snapframe`.
PACKAGE_DIST ?= dist
PACKAGE_WORK ?= build/pyinstaller

$(VENV)/.installed-package: $(VENV)/.installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[package]"
	touch $@

# PyInstaller needs binutils (objdump, objcopy); the application bundles the X/Qt libraries.
package: $(VENV)/.installed-package
	@$(MAKE) --no-print-directory system-deps SYSTEM_PACKAGES="$(SYSTEM_PACKAGES) binutils"
	$(BIN)/python -m PyInstaller --noconfirm --log-level WARN --distpath $(PACKAGE_DIST) \
		--workpath $(PACKAGE_WORK) packaging/pyinstaller/snapframe.spec
	@du -sh $(PACKAGE_DIST)/snapframe

clean:
	rm -rf $(VENV) build dist *.egg-info
