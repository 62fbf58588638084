"""The toolkit's version, in a leaf module: the CLI, reports and sidecars stamp it without
importing the package's front door."""

__version__ = "0.1.0"
