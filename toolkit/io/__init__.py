"""Where bytes come from and go to: the one door of the toolkit."""
