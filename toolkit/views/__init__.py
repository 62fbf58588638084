"""Views: scorecards as text, JSON, HTML and charts. Views never open a file."""
