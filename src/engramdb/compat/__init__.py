"""Compatibility layers that let programs written for other memory libraries run on engramdb."""
