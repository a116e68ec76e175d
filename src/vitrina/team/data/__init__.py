"""What the team's rules compute: the brief, the scope, the dataset views and the checks."""
