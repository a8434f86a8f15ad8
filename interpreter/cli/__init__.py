"""The command line: argument parsing, and one function per command over the Python API."""
