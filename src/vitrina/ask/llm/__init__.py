"""The ask job's model tasks: typed outputs, prompts as files, rules as the fallback."""
