"""Reviews that look at the result as its audience will: the dashboard in a real browser."""
