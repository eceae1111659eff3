"""Analytic models (docs/models.md): Bianchi's 802.11 DCF saturation model (`bianchi`), seed
004's DCF Markov chain (`dcf_chain`), its RTT model eqs. (6)-(10) (`rtt`) and its 5-state
NewReno cwnd chain (`newreno5`). Pure Python + numpy; `mptlab model ...` prints them."""

from mptlab.models import bianchi, dcf_chain, newreno5, rtt

__all__ = ["bianchi", "dcf_chain", "newreno5", "rtt"]
