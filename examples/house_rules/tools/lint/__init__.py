"""House rules of this project, loaded by lion-lint from the plugins list of pyproject.toml."""
