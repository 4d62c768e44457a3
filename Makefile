# redraft: `make demo` and `make test` set everything up on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-done
# the CPU build of torch; an unpinned torch would pull several GB of CUDA wheels
TORCH := torch==2.13.0

EDITORS_STAMP := $(VENV)/.editors-done
VSCODE := editors/vscode

.PHONY: setup demo test test-editors test-serve train corpus corpus-languages carry clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e '.[dev,eval]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/redraft demo

# the core suite, then the VS Code extension's unit tests (node's test runner)
test: $(STAMP) $(VSCODE)/node_modules/.package-lock.json
	$(BIN)/python -m pytest -q -x tests --ignore=tests/editors --ignore=tests/test_http_ray.py
	cd $(VSCODE) && npm test

# the extension's npm dependencies, exactly as locked (npm's own cache makes a fresh clone quick)
$(VSCODE)/node_modules/.package-lock.json: $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund

# the HTTP API on Ray Serve: a local Ray instance, two replicas (ray[serve] is installed for this only)
test-serve: $(STAMP)
	$(BIN)/pip install -q -e '.[dev,serve]'
	$(BIN)/python -m pytest -q tests/test_http_ray.py

# the clients in real editors: VS Code (code-server 4.100.3 in headless Chromium), Neovim 0.11.4
# (PyPI) and Debian's 0.7.2. Installs what they need once (cached under ~/.cache/redraft-editors).
test-editors: $(EDITORS_STAMP) $(VSCODE)/node_modules/.package-lock.json
	bash $(VSCODE)/test/e2e/setup.sh
	$(BIN)/python -m pytest -q tests/editors

$(EDITORS_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[dev,eval,editors]'
	bash editors/nvim/tests/setup.sh
	touch $@

# rebuild the corpus from this machine's Python sources and train the default model on it
corpus: $(STAMP)
	$(BIN)/redraft train --build-corpus --data data/corpus --steps 0

# the five-language corpus (issue 27): the pinned Rust, Go and npm packages (model/sources), then
# Python, Rust, Go, JavaScript and TypeScript filtered and split (model/corpus.py)
corpus-languages: $(STAMP)
	test -d data/sources/js || bash model/sources/fetch.sh data/sources
	$(BIN)/redraft train --build-corpus --sources data/sources --data data/corpus5 --steps 0

# what travels to a lent accelerator for the default model's training (model/weights/README.md's runbook)
carry: $(STAMP)
	test -f data/corpus5/train.jsonl.gz || $(MAKE) corpus-languages
	$(BIN)/python -m redraft.model.carry --corpus data/corpus5 --out runs/carry

train: $(STAMP)
	$(BIN)/redraft train --data data/corpus --out runs/default --time-budget 5400

clean:
	rm -rf $(VENV) build *.egg-info
