"""The bundled theme files (``*.toml``), shipped as this package so every install has them."""
