"""References to project lines and the entries they leave stale; imports only the memory core."""
