"""The ask job: questions in Russian or English answered from the warehouse, rules first."""
