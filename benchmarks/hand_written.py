"""The floors: the benchmarked rolls and procedures hand-written in plain Python.

Each function takes a `random.Random` and draws from it exactly as rulecraft does (one
`rng.random()` per die, a face picked as `int(random() * sides) + 1`, each die finished -
explosions included - before the next), so for the same seed it returns the same values
as the interpreter; `benchmarks/rolling.py` and `benchmarks/engine.py` assert that before
timing anything.  This file imports nothing from rulecraft.
"""
from __future__ import annotations

# ------------------------------------------------------------------ rolls (rolling.py)


def d20_plus_5(rng):                    # 1d20+5
    return int(rng.random() * 20) + 6


def four_d6_keep_3(rng):                # 4d6kh3
    r = rng.random
    return sum(sorted([int(r() * 6) + 1 for _ in range(4)])[1:])


def eight_d6(rng):                      # 8d6
    r = rng.random
    total = 8
    for _ in range(8):
        total += int(r() * 6)
    return total


def d6_plus_3_times_4(rng):             # (1d6+3)*4
    return (int(rng.random() * 6) + 4) * 4


def three_d6_exploding(rng):            # 3d6! (a 6 rolls again, at most 10 times per die)
    r = rng.random
    total = 0
    for _ in range(3):
        face = int(r() * 6) + 1
        total += face
        left = 10
        while face == 6 and left:
            face = int(r() * 6) + 1
            total += face
            left -= 1
    return total


def eight_d6_successes(rng):            # 8d6>=5: how many dice show 5 or 6
    r = rng.random
    hits = 0
    for _ in range(8):
        if int(r() * 6) >= 4:
            hits += 1
    return hits


# The same rolls written the way most people would first write them, with randint.
# They draw differently from the stream, so only their means are checked.

def randint_d20_plus_5(rng):
    return rng.randint(1, 20) + 5


def randint_4d6_keep_3(rng):
    randint = rng.randint
    return sum(sorted(randint(1, 6) for _ in range(4))[1:])


def randint_8d6(rng):
    randint = rng.randint
    return sum(randint(1, 6) for _ in range(8))


def randint_d6_plus_3_times_4(rng):
    return (rng.randint(1, 6) + 3) * 4


def randint_3d6_exploding(rng):
    randint = rng.randint
    total = 0
    for _ in range(3):
        face = randint(1, 6)
        total += face
        left = 10
        while face == 6 and left:
            face = randint(1, 6)
            total += face
            left -= 1
    return total


def randint_8d6_successes(rng):
    randint = rng.randint
    return sum(1 for _ in range(8) if randint(1, 6) >= 5)


# ------------------------------------------------------------------ procedures (engine.py)


class Unit:
    """The hand-written unit: a few fields and a list of statuses.  Like the
    interpreter's bulk runs, a run puts a unit back to its starting fields only if a rule
    changed one (`changed`), and empties its statuses only if it has any."""

    __slots__ = ("name", "to_hit", "damage", "armour", "wounds", "destroyed", "statuses",
                 "changed")

    def __init__(self, name, to_hit=7, damage=0, armour_front=5):
        self.name, self.to_hit, self.damage = name, to_hit, damage
        self.armour = {"front": armour_front}
        self.wounds, self.destroyed, self.statuses, self.changed = 0, False, [], False


def duel_attack(rng, attacker, target, cover=False):
    """benchmarks/duel.yaml `attack`: d10 to hit against to_hit (+3 cover, + damage - 1),
    a natural 1 always misses and a natural 10 always hits; then d10 + damage against
    the target's front armour (a natural 10 always kills), else the target is shaken."""
    need = attacker.to_hit + (3 if cover else 0) + (attacker.damage - 1)
    hit = int(rng.random() * 10) + 1
    if hit == 1 or (hit < need and hit != 10):
        return "miss"
    dmg = int(rng.random() * 10) + 1
    if dmg + attacker.damage >= target.armour["front"] or dmg == 10:
        target.destroyed = target.changed = True
        return "kill"
    target.statuses.append(("shaken", 1))
    return "hit"


def duel_attack_run(rng, attacker, target):
    """One benchmark run: put back what the last run changed (the interpreter's sampler
    does exactly this: fields only if a rule set one, statuses only if there are any),
    then attack."""
    if attacker.changed:
        attacker.wounds, attacker.destroyed, attacker.changed = 0, False, False
    if attacker.statuses:
        attacker.statuses = []
    if target.changed:
        target.wounds, target.destroyed, target.changed = 0, False, False
    if target.statuses:
        target.statuses = []
    return duel_attack(rng, attacker, target)


# rules/tanks/tanks.yaml `shoot` with its defaults: a BS 3 vehicle with a 36" strength 6
# weapon firing at a vehicle's front armour 12 from 12" (below half range: strength +1).

TANKS_TO_HIT = {1: 6, 2: 5, 3: 4, 4: 3}             # BS 5+ needs 2+
GLANCING = {1: "crew shaken", 2: "crew shaken", 3: "crew stunned", 4: "immobilised",
            5: "weapon destroyed", 6: "vehicle destroyed"}
PENETRATING = {1: "crew stunned", 2: "immobilised", 3: "weapon destroyed",
               4: "vehicle destroyed", 5: "vehicle destroyed, crew armour save",
               6: "vehicle destroyed, everyone killed"}


START_WEAPONS = ("75mm M3",)


class Vehicle:
    """The kind `vehicle` with its default stats; `changed` as for Unit."""

    __slots__ = ("bs", "armour", "weapons", "crew", "clock", "destroyed", "statuses", "changed")

    def __init__(self):
        self.bs, self.armour = 3, {"front": 12, "side": 10, "rear": 10}
        self.weapons, self.crew, self.clock = list(START_WEAPONS), "aboard", 0
        self.destroyed, self.statuses, self.changed = False, [], False


def tanks_shoot(rng, shooter, target, strength=6, weapon_range=36, distance=12, arc="front"):
    if any(s[0] in ("shaken", "stunned") and s[2] == shooter.clock for s in shooter.statuses):
        return "may not shoot"
    if distance > weapon_range:
        return "out of range"
    modifier = 1 if distance < weapon_range / 2 else -1 if distance > weapon_range - 1 else 0
    roll = int(rng.random() * 6) + 1
    if roll < TANKS_TO_HIT.get(shooter.bs, 2):
        return "miss"
    damage = strength + int(rng.random() * 6) + 1 + modifier
    armour = target.armour[arc]
    if damage < armour:
        return "no effect"
    table = GLANCING if damage == armour else PENETRATING
    result = table[int(rng.random() * 6) + 1]
    if result in ("crew shaken", "crew stunned"):
        target.statuses.append((result.split()[1], 1, target.clock + 1))
    elif result == "immobilised":
        target.statuses.append(("immobilised", None, None))
    elif result == "weapon destroyed":
        # the units of a lone procedure run belong to sides of policy "first": the
        # shooter picks the first of the target's weapons
        lost = target.weapons[0] if target.weapons else None
        target.weapons = [w for w in target.weapons if w != lost]
        target.changed = True
    else:
        target.destroyed = target.changed = True
        if result == "vehicle destroyed":
            target.crew = "bailed out"
        elif result == "vehicle destroyed, crew armour save":
            target.crew = "survived" if int(rng.random() * 6) + 1 >= 4 else "killed"
        else:
            target.crew = "killed"
    return result


def tanks_shoot_run(rng, shooter, target):
    """One benchmark run: the same lazy reset as duel_attack_run, then the shot."""
    if shooter.changed:
        shooter.weapons, shooter.crew, shooter.destroyed = list(START_WEAPONS), "aboard", False
        shooter.changed = False
    if shooter.statuses:
        shooter.statuses = []
    if target.changed:
        target.weapons, target.crew, target.destroyed = list(START_WEAPONS), "aboard", False
        target.changed = False
    if target.statuses:
        target.statuses = []
    return tanks_shoot(rng, shooter, target)
