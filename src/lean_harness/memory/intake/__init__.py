"""What comes from outside: import, the inbox, adopting prose; imports every memory layer below it."""
