"""What happened at one table: games, hands as entered, and the score lines derived from them."""
