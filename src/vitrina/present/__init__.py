"""Presenting a query result, below the jobs: ask, route, task, eval and build share it.

* `vitrina.present.columns`: what each result column means (`ColumnMeta`);
* `vitrina.present.infer_meta`: column meanings inferred from the catalog and the values;
* `vitrina.present.numbers`: Russian and English number, money and date formatting, and
  the check that every number of a text comes from the data;
* `vitrina.present.summary`: totals, extremes and shares of a result;
* `vitrina.present.answer_text`: the answer sentence written from a result;
* `vitrina.present.table`: the table view (web, terminal);
* `vitrina.present.charts`: the chart choice, Chart.js / Vega-Lite specs and PNGs;
* `vitrina.present.excel`: the Excel workbook.

A core package: it never imports a job or a face (tests/test_architecture.py).
"""
