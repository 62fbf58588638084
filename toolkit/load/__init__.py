"""Loaders: files on disk (and git, and transcripts) into typed Polars frames."""
