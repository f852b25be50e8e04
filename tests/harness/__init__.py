"""What the tests share, on top of tools/ulidtools, one concern a module: docs/development.md, "A test folder"."""
