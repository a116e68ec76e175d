"""Language below the jobs: words, stems, stop words, language detection and periods.

Every job reads Russian and English text with the same rules, so they live here once:

* `vitrina.language.text`: normalising, tokenising and the catalog's stem matching;
* `vitrina.language.names`: CamelCase object names (1C, warehouse) to searchable stems;
* `vitrina.language.stopwords`: the one stop-word vocabulary;
* `vitrina.language.detect`: the one language detector (`detect_lang`);
* `vitrina.language.periods`: a question's time phrase to exact dates, and its grain.

A core package: it imports nothing of vitrina but itself (tests/test_architecture.py).
"""
