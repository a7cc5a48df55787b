# The two commands of README.md. Each sets up what it needs (scripts/setup is idempotent):
# demo only what the run needs, test everything (a later `make test` adds the rest).
.PHONY: demo test setup

setup:
	scripts/setup test

# make the embedded default data, build the drivers, run the default plan, write the report
demo:
	scripts/setup demo
	.venv/bin/serbench demo

# every test: the harness (pytest) and each driver's own suite
test: setup
	scripts/test
