"""The `docs` job: technical documentation of BI measures traced from DAX to the warehouse.

Public entry points: `vitrina.docs.run.run_docs` (the job), `vitrina.docs.commands.register`
(the CLI), `vitrina.docs.model.load_model` (the .bim / TMDL readers).
"""
