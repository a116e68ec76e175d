"""Prompt templates of the eval harness (the judge)."""
