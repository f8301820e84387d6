"""What lh refuses to store and masks before it shows: credentials and directives to the agent.

Two rule sets as data (`credentials.py`, `directives.py`) run by `engine.py`; every caller uses
`masking.py`: `mask(text)` for anyone's text, `refusal` for a refused credential. Rules load when used.
"""
