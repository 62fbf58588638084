"""Loaders: one module per source format, each turning files into typed frames."""
