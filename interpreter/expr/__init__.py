"""Expressions: the value model and the two ways to evaluate an expression tree."""
