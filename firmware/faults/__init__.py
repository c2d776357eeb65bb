"""What goes wrong and how the table answers: fault kinds, the shutdown path, recovery, relink."""
