"""Dice: terms as gamers write them (sampling, exact distributions) and exact distributions."""
