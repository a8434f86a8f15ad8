"""The floor for whole games: one whole game of the `default` scenario of
rules/tanks/tanks.yaml, hand-written in plain Python.

The same rules as the ruleset (its tables, procedures `advance`, `allowance`,
`terrain_speed`, `fire`, `shoot`, `range_band`, `destroy_weapon`, `crew_save`, the turn,
the victory conditions and the scenario), written as a programmer would write this one
game: no interpreter, no transcript, the data as Python constants.  It draws from a
`random.Random(seed)` exactly where and how the interpreter does (one `rng.random()` per
die, a face `int(random() * 6) + 1`; a `random` policy's choice
`options[int(random() * len(options))]`; the priority winner of a `random` side goes
first when `random() < 0.5`), so that for every seed it ends in the same state as
`rulecraft play tanks --seed N`: winner, turn, survivors, every vehicle's fields and
statuses, every distance and the generator's state.  `tests/test_benchmarks_agree.py`
and `benchmarks/games.py` assert that; this file imports nothing from rulecraft.

    python benchmarks/hand_written_game.py [--seed 1]      # one game, its final state
"""
from __future__ import annotations

import random

# ---------------------------------------------------------------- the tables (tanks.yaml)

TO_HIT = {1: 6, 2: 5, 3: 4, 4: 3}          # to_hit: BS 5+ (up to 10) needs 2+
WEAPONS = {                                 # weapons: name -> (range, strength)
    "75mm M3": (36, 6), "37mm M6": (28, 5), "76mm F-34": (36, 6), "75mm KwK 40": (40, 7),
    "50mm KwK 39": (32, 6), "20mm KwK 30": (24, 4), "30 cal MG": (18, 3), "MG 34": (18, 3),
    "DT MG": (18, 3),
}
# terrain_types: the fraction of the speed moved, as (numerator, denominator), and the
# fraction for an amphibious vehicle
TERRAIN = {"easy": (1, 1), "moderate": (1, 2), "hard": (1, 4), "impossible": (0, 1)}
TERRAIN_AMPHIBIOUS = {"easy": (1, 1), "moderate": (1, 2), "hard": (1, 4), "impossible": (1, 1)}
ARC_STRUCK = (None, "front", "front", "front", "side", "side", "rear")     # by the d6
# glancing and penetrating, by the d6: the result `shoot` returns (each row's effect is
# the branch of `effect()` below with the same name)
GLANCING = (None, "crew shaken", "crew shaken", "crew stunned", "immobilised",
            "weapon destroyed", "vehicle destroyed")
PENETRATING = (None, "crew stunned", "immobilised", "weapon destroyed", "vehicle destroyed",
               "vehicle destroyed, crew armour save", "vehicle destroyed, everyone killed")
FULL_RANGE_BAND = 1                         # parameters
CREW_ARMOUR_SAVE = 4
MAX_TURNS = 12                              # turn.max_turns
STATUS_STOPS_SHOOTING = ("shaken", "stunned")   # statuses: modifies can_shoot: false
STATUS_STOPS_MOVING = ("stunned", "immobilised")  # modifies can_move: false

# vehicles: name -> (bs, speed, armour, weapons, amphibious)
VEHICLES = {
    "M4 Sherman": (3, 10, {"front": 12, "side": 10, "rear": 9}, ["75mm M3", "30 cal MG"], False),
    "M3 Stuart": (3, 14, {"front": 10, "side": 9, "rear": 8}, ["37mm M6", "30 cal MG"], False),
    "Panzer IV H": (4, 10, {"front": 12, "side": 10, "rear": 9}, ["75mm KwK 40", "MG 34"], False),
    "Panzer III J": (3, 11, {"front": 11, "side": 10, "rear": 9}, ["50mm KwK 39", "MG 34"], False),
    "Sd.Kfz. 222": (3, 16, {"front": 9, "side": 8, "rear": 8}, ["20mm KwK 30", "MG 34"], False),
}

# scenarios.default: (side, policy), then (name, design, group, ground) per vehicle, in order
SIDES = (("allies", "prefer"), ("axis", "random"))
FORCES = {
    "allies": (("Sherman 1", "M4 Sherman", "A", "easy"),
               ("Sherman 2", "M4 Sherman", "A", "moderate"),
               ("Stuart", "M3 Stuart", "A", "easy")),
    "axis": (("Panzer IV", "Panzer IV H", "", "easy"),
             ("Panzer III", "Panzer III J", "", "hard"),
             ("Scout car", "Sd.Kfz. 222", "", "easy")),
}
DISTANCE = 40
DISTANCES = {("Stuart", "Scout car"): 34}


# ---------------------------------------------------------------------------- state

class Status:
    """apply(): which status, turns left (None = the game), the turn it was applied, the
    turn from which it has effect, and whether the start of that turn has been reached."""

    __slots__ = ("name", "turns_left", "applied", "active_from", "started")

    def __init__(self, name, turns_left, applied, active_from):
        self.name, self.turns_left, self.applied = name, turns_left, applied
        self.active_from, self.started = active_from, False

    @property
    def active(self):
        return self.active_from <= self.applied or self.started


class Vehicle:
    __slots__ = ("index", "name", "side", "bs", "speed", "armour", "weapons", "amphibious",
                 "group", "ground", "crew", "moved", "destroyed", "statuses")

    def __init__(self, index, name, side, design, group, ground):
        bs, speed, armour, weapons, amphibious = VEHICLES[design]
        self.index, self.name, self.side = index, name, side
        self.bs, self.speed, self.armour, self.weapons = bs, speed, armour, list(weapons)
        self.amphibious, self.group, self.ground = amphibious, group, ground
        self.crew, self.moved, self.destroyed, self.statuses = "aboard", 0, False, []

    def can_shoot(self):
        for s in self.statuses:
            if s.name in STATUS_STOPS_SHOOTING and s.active:
                return False
        return True

    def can_move(self):
        for s in self.statuses:
            if s.name in STATUS_STOPS_MOVING and s.active:
                return False
        return True

    def has(self, status):
        return any(s.name == status and s.active for s in self.statuses)


class Game:
    __slots__ = ("rng", "turn", "vehicles", "sides", "policy", "distance")

    def __init__(self, rng):
        self.rng, self.turn = rng, 0
        self.vehicles = []
        self.sides = {}
        self.policy = dict(SIDES)
        for side, _ in SIDES:
            members = []
            for name, design, group, ground in FORCES[side]:
                v = Vehicle(len(self.vehicles), name, side, design, group, ground)
                self.vehicles.append(v)
                members.append(v)
            self.sides[side] = members
        n = len(self.vehicles)
        self.distance = [[DISTANCE] * n for _ in range(n)]
        by_name = {v.name: v.index for v in self.vehicles}
        for (a, b), d in DISTANCES.items():
            self.distance[by_name[a]][by_name[b]] = self.distance[by_name[b]][by_name[a]] = d

    def enemies(self, side):
        return [v for v in self.vehicles if v.side != side and not v.destroyed]

    def d6(self):
        return int(self.rng.random() * 6) + 1


# ------------------------------------------------------------------------ procedures

def terrain_speed(speed, terrain, amphibious):
    num, den = (TERRAIN_AMPHIBIOUS if amphibious else TERRAIN)[terrain]
    return speed * num // den


def allowance(game, unit):
    if not unit.can_move():
        return 0
    if unit.group == "":
        return terrain_speed(unit.speed, unit.ground, unit.amphibious)
    return min(terrain_speed(m.speed, m.ground, m.amphibious) for m in game.sides[unit.side]
               if not m.destroyed and m.group == unit.group and m.can_move())


def advance(game, unit):
    can = allowance(game, unit)
    reach = max([0] + [WEAPONS[w][0] for w in unit.weapons])
    row = game.distance[unit.index]
    enemies = game.enemies(unit.side)
    nearest = min([1000] + [row[e.index] for e in enemies])
    wanted = max(0, nearest - (-(-reach // 2) - 1))      # ceil(reach / 2)
    move = min(can, wanted)
    if move > 0:
        unit.moved = move
        for e in enemies:
            d = max(1, row[e.index] - move)
            row[e.index] = game.distance[e.index][unit.index] = d
    return move


def choose(game, chooser_side, options, score):
    """A `choose` step: nothing if there are no options; a random side picks one at
    random, a prefer side the first of the best scores."""
    if not options:
        return None
    if game.policy[chooser_side] == "random":
        return options[int(game.rng.random() * len(options))]
    scores = [score(o) for o in options]
    return options[scores.index(max(scores))]


def fire(game, unit):
    if not unit.can_shoot():
        return
    row = game.distance[unit.index]
    for w in unit.weapons:
        enemies = game.enemies(unit.side)
        target = choose(game, unit.side, enemies, lambda e: 0 - row[e.index])
        if enemies and unit.can_shoot():
            d = row[target.index]
            if d <= WEAPONS[w][0]:
                arc = ARC_STRUCK[game.d6()]
                shoot(game, unit, WEAPONS[w], target, arc, d)


def shoot(game, shooter, weapon, target, arc, distance):
    if not shooter.can_shoot():
        return "may not shoot"
    weapon_range, strength = weapon
    if distance > weapon_range:
        return "out of range"
    if 2 * distance < weapon_range:
        modifier = 1                                   # below half range
    elif distance > weapon_range - FULL_RANGE_BAND:
        modifier = -1                                  # full range
    else:
        modifier = 0                                   # average range
    if game.d6() < TO_HIT.get(shooter.bs, 2):
        return "miss"
    damage = strength + game.d6() + modifier
    armour = target.armour[arc]
    if damage < armour:
        return "no effect"
    result = (GLANCING if damage == armour else PENETRATING)[game.d6()]
    effect(game, result, shooter, target)
    return result


def apply(game, unit, status, turns=None, next_turn=False):
    given = Status(status, turns, game.turn, game.turn + 1 if next_turn else game.turn)
    unit.statuses = [s for s in unit.statuses if s.name != status] + [given]


def effect(game, result, shooter, target):
    """The `effect` cell of the damage tables' rows."""
    if result in ("crew shaken", "crew stunned"):
        status = result[5:]
        if target.has(status):
            apply(game, target, status, turns=1)
        else:
            apply(game, target, status, turns=1, next_turn=True)
    elif result == "immobilised":
        apply(game, target, "immobilised")
    elif result == "weapon destroyed":                 # destroy_weapon
        lost = choose(game, shooter.side, target.weapons, lambda w: WEAPONS[w][1])
        target.weapons = [w for w in target.weapons if w != lost]
    else:
        target.destroyed = True
        if result == "vehicle destroyed":
            target.crew = "bailed out"
        elif result == "vehicle destroyed, crew armour save":    # crew_save
            target.crew = "survived" if game.d6() >= CREW_ARMOUR_SAVE else "killed"
        else:
            target.crew = "killed"


# ------------------------------------------------------------------------------ turn

def priority(game):
    """Priority at the start of the game: a D6 per side, ties rerolled (at most 100
    times), the highest goes first or last as it chooses."""
    names = [name for name, _ in SIDES]
    rolls = {}
    contenders = names
    for _ in range(100):
        for side in contenders:
            rolls[side] = game.d6()
        values = [rolls[s] for s in names]
        if len(set(values)) == len(values):
            break
        contenders = [s for s in names if values.count(rolls[s]) > 1]
    ranked = sorted(names, key=lambda s: (-rolls[s], names.index(s)))
    winner, rest = ranked[0], ranked[1:]
    first = game.policy[winner] != "random" or game.rng.random() < 0.5
    return [winner] + rest if first else rest + [winner]


def victory(game):
    """(winner, over): the last side with vehicles wins; none on either side is a draw."""
    for side in game.sides:
        if any(not v.destroyed for v in game.sides[side]) and not game.enemies(side):
            return side, True
    for side in game.sides:
        if not any(not v.destroyed for v in game.sides[side]) and not game.enemies(side):
            return None, True
    return None, False


def play(seed):
    """One game of the default scenario; (winner or None, the last turn, the game)."""
    game = Game(random.Random(seed))
    order = None
    for turn in range(1, MAX_TURNS + 1):
        game.turn = turn
        if order is None:
            order = priority(game)
        for v in game.vehicles:                       # statuses "from next turn" start
            for s in v.statuses:
                if not s.started and s.active_from <= turn:
                    s.started = True
        for v in game.vehicles:                       # start_of_turn: u.moved = 0
            if not v.destroyed:
                v.moved = 0
        for procedure in (advance, fire, None):       # movement, shooting, assault
            if procedure is not None:
                for side in order:
                    for unit in [u for u in game.sides[side] if not u.destroyed]:
                        if not unit.destroyed:
                            procedure(game, unit)
            winner, over = victory(game)
            if over:
                return winner, turn, game
        for v in game.vehicles:                       # end of turn: statuses expire
            kept = []
            for s in v.statuses:
                if s.turns_left is not None and s.applied < turn:
                    s.turns_left -= 1
                if s.turns_left is None or s.turns_left > 0:
                    kept.append(s)
            v.statuses = kept
        winner, over = victory(game)
        if over:
            return winner, turn, game
    return None, MAX_TURNS, game


def final_state(winner, turns, game):
    """The comparable end of a game (the same shape as benchmarks/_internal.final_state)."""
    units = {v.name: {"destroyed": v.destroyed, "crew": v.crew, "moved": v.moved,
                      "weapons": list(v.weapons),
                      "statuses": [(s.name, s.turns_left, s.applied, s.active_from, s.started)
                                   for s in v.statuses]}
             for v in game.vehicles}
    distances = {(a.name, b.name): game.distance[a.index][b.index]
                 for a in game.vehicles for b in game.vehicles if a.index < b.index}
    survivors = {side: sum(not v.destroyed for v in members)
                 for side, members in game.sides.items()}
    return {"winner": winner, "turns": turns, "survivors": survivors, "units": units,
            "distances": distances, "rng": game.rng.getstate()}


# -------------------------------------------------------------------------- simulate

def game_seed(seed, index):
    """The seed of game `index` of a simulation (simulate's derivation, copied)."""
    return random.Random(f"rulecraft:{seed}:{index}").randrange(2**63)


def simulate(runs, seed):
    """`runs` games as `rulecraft simulate` plays them: (wins, turns, survivors)
    counted over the games, wins under "no winner" for a game without one (as `simulate` names it)."""
    wins, turns, survivors = {}, {}, {}
    for i in range(runs):
        winner, n, game = play(game_seed(seed, i))
        winner = winner or "no winner"
        wins[winner] = wins.get(winner, 0) + 1
        turns[n] = turns.get(n, 0) + 1
        for side, members in game.sides.items():
            survivors[side] = survivors.get(side, 0) + sum(not v.destroyed for v in members)
    return wins, turns, survivors


if __name__ == "__main__":
    import argparse
    import pprint
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    state = final_state(*play(parser.parse_args().seed))
    del state["rng"]
    pprint.pprint(state, sort_dicts=False)
