"""Evaluation harness: compare the pipeline's answers with hand-written references by result."""
