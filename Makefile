# redraft: `make demo` and `make test` set everything up on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-done
# the CPU build of torch; an unpinned torch would pull several GB of CUDA wheels
TORCH := torch==2.13.0

.PHONY: setup demo test train corpus clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e '.[dev,eval]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/redraft demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -x tests

# rebuild the corpus from this machine's Python sources and train the default model on it
corpus: $(STAMP)
	$(BIN)/redraft train --build-corpus --data data/corpus --steps 0

train: $(STAMP)
	$(BIN)/redraft train --data data/corpus --out runs/default --time-budget 5400

clean:
	rm -rf $(VENV) build *.egg-info
