"""FSRS: scheduling, card state, parameters, fitting, and workload simulation."""
