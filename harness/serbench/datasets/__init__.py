"""Canonical datasets: generators, ingest, manifests."""
