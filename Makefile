# The two commands of README.md. Both set up what they need (scripts/setup is idempotent).
.PHONY: demo test setup

setup:
	scripts/setup

# make the embedded default data, build the drivers, run the default plan, write the report
demo: setup
	.venv/bin/serbench demo

# every test: the harness (pytest) and each driver's own suite
test: setup
	scripts/test
