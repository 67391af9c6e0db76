"""The user's settings (DESIGN §4): :mod:`.settings` loads ``config.toml`` and the environment."""
