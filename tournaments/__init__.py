"""Clubs, players, events, rounds, tables and seats; standings from the score lines."""
