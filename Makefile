# Both entry points set everything up themselves: venv, install, then run.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export DAGSTER_HOME ?= $(CURDIR)/.dagster_home
# the embedded sample's report windows close at 11:39 (UTC+8), like the seed report
export VLLM_DIGEST_CUTOFF ?= 11:39
PORT ?= 3000

.PHONY: demo test dev bench eval install instance browser postgres strace clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip 2>/dev/null || true
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# the instance's storages are created here, by one process under a lock (vllm_digest/orchestration/instance.py):
# two commands opening a fresh $(DAGSTER_HOME) at once could stamp two schema heads and break it for good
instance: install
	@mkdir -p $(DAGSTER_HOME)
	@cp dagster.yaml $(DAGSTER_HOME)/dagster.yaml
	@$(PY) -m vllm_digest.orchestration.instance

# the demo prints what each run plans, each step's wall time, and the total: install (this make's, 0 when
# already installed), the daily_digest run, the weekly_digest run
demo:
	@t0=$$(date +%s%N); $(MAKE) --no-print-directory install instance; t1=$$(date +%s%N); \
	VLLM_DIGEST_DEMO_INSTALL_MS=$$(( (t1 - t0) / 1000000 )) $(PY) -m vllm_digest.demo

# $(call apt_install,PACKAGES,WHAT IS SKIPPED WITHOUT THEM): Debian packages some tests need, installed
# with apt-get when run as root; otherwise, or if apt fails, say which tests will be skipped.
apt_install = if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null) \
	    || echo "$(1) could not be installed; $(2)"; \
	else echo "$(1) missing, and installing needs root and apt-get; $(2)"; fi

# Browser tests drive Debian's chromium through Playwright (no browser download).
# The fonts only make the saved screenshots legible (Chinese text, emoji headings).
BROWSER_FONTS := fonts-wqy-microhei fonts-noto-color-emoji
browser:
	@command -v chromium >/dev/null 2>&1 || { $(call apt_install,chromium $(BROWSER_FONTS),browser tests will be skipped); }
	@dpkg -s $(BROWSER_FONTS) >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
	  { $(call apt_install,$(BROWSER_FONTS),screenshots may show boxes for Chinese text); }

# tests/e2e/test_postgres_instance.py starts a real PostgreSQL server from Debian's package (initdb, pg_ctl);
# without it that test is skipped and says why.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { $(call apt_install,postgresql,the PostgreSQL instance test will be skipped); }

# tests/warehouse/test_warehouse.py holds a process at a chosen system call with Debian's strace, to show that two
# processes creating the warehouse at once lose nothing; without it that test is skipped and says why.
strace:
	@command -v strace >/dev/null 2>&1 || { $(call apt_install,strace,the warehouse creation race test will be skipped); }

# two workers, a test file each at a time (--dist loadfile: a module's fixtures, such as the end-to-end
# modules' dagster dev server, stay in one process), the files in the order conftest.py gives them (the
# end-to-end ones first; xdist would otherwise start the files with the most tests first, and those with
# few, such as the end-to-end ones, last); the 15 slowest tests printed at the end
test: install browser postgres strace
	$(PY) -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --no-loadscope-reorder --durations=15

# `dg dev`, Dagster's supported command (`dagster dev` warns that it is superseded); it reads [tool.dg] in
# pyproject.toml, the same code location `vllm_digest` as workspace.yaml; started through
# vllm_digest.orchestration.planned_events, so the webserver and daemon that create the UI's runs see that setting
dev: install instance
	$(PY) -m vllm_digest.orchestration.planned_events $(VENV)/bin/dg dev --host 127.0.0.1 --port $(PORT)

bench: install postgres
	$(PY) -m tools.perf

# the analysis sections against the original editor's picks (../shared/samples/.../selections.json):
# item recall and cite ratio, story recall (an entry told when we cite any of its items; same section and
# anywhere), leave-one-day-out for the fitted sections, and the editor's own consistency where it can be read;
# writes tools/editorial/editorial.md, then the same on days given bodies in vLLM's templates (tools/editorial/editorial-bodies.md). EVAL_ARGS passes options, e.g. EVAL_ARGS='--selections PATH --lang en'
eval: install
	$(PY) -m tools.editorial.editorial $(EVAL_ARGS)
	$(PY) -m tools.editorial.editorial --bodies $(EVAL_ARGS)

clean:
	rm -rf $(VENV) data .dagster_home
