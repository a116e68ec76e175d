"""Vitrina: an open-source analytics agent platform for BI teams."""

__version__ = "0.1.0"
