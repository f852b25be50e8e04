# What `pgxn install` runs in the distribution PGXN serves (`make`, then
# `make install`, with PG_CONFIG given): the install builds ulid in release
# mode for that server and installs it (scripts/install-from-source, which
# needs Rust, cargo-pgrx and the server's headers: docs/install.md#pgxn).
# `make` alone builds nothing: the build is the install's, for the server
# it is given.
PG_CONFIG ?= pg_config

.PHONY: all install

all:
	@echo "ulid builds on make install, for $(PG_CONFIG)'s server"

install:
	sh scripts/install-from-source "$(PG_CONFIG)"
