"""`python -m vitrina ...`: the same as the `vitrina` console script."""

from vitrina.cli import main

main()
