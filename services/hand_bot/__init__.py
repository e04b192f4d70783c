"""The bot service: decides a bot seat's turn from that seat's perspective only."""
