"""What lh refuses to store and masks before it shows: credentials and directives to the agent.

`credentials.py` and `directives.py` hold the two rule sets as data; `engine.py` runs a rule,
whichever set it is from; `fold.py` is the view directive rules read. Two functions of `masking.py` are
for every caller: `mask(text)`, anyone's text made safe to print or store, and `refusal`, the
one way a refused credential is said. Importing this package loads no rule: they load when used.
"""
