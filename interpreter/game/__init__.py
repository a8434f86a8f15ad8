"""Games: one procedure run alone, policies, playing a scenario, simulating, the API."""
