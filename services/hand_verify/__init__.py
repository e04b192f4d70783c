"""``python -m hand_verify``: verify a room's provably fair deals on this machine
(docs/decisions/0022-provably-fair-deals.md), from its public record: a
finished or running match's events fetched from the ledger (``GetReplay``), or
a file of ``hand.v1.RoomEvent`` messages (one JSON object a line, as
``protobuf``'s JSON mapping writes them). The check itself is
``hand_table.verify_deals``: nothing is taken on the server's word."""
