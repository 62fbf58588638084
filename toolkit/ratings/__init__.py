"""Human ratings: the SQLite ratings store and rater-agreement statistics."""
