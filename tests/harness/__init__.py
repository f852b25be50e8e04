"""What the tests share, on top of tools/ulidtools, one concern a module (its docstring says which); see
docs/development.md, "A test folder"."""
