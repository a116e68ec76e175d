"""The report planner's thoughts: candidate plans (warehouse or 1C) and how each is scored."""
