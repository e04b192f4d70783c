"""In-process simulations for tests and benchmarks (never imported by a service;
import the module you need: ``positions`` needs only the engine).

- ``positions``: ``build`` — a consistent ``RoundState`` from text notation;
- ``matches``: ``play_match`` — a whole match through the room domain with the
  engine as its rules port, its events as stored and as published;
- ``rooms``: ``memory_rooms`` — whole room-service instances (``bootstrap``, gRPC on a
  port) on one in-memory broker and one store: no broker process.
"""
