"""Rubrics: versioned, declarative thresholds plus column-wise scoring."""
