"""Named limits that keep absurd input from hanging or exhausting the machine.

They are enforced in both sampled and exact evaluation, and documented in the README.
Each is generous for real rulebooks (the largest pool in the five books is a handful of
dice) and small enough that any input is answered within a second or refused.
"""

MAX_DICE = 1000            # dice in one dice term (e.g. 1000d6)
MAX_SIDES = 10_000         # sides of one die (d10000), or faces listed in a custom die
MAX_TARGET = 1_000_000    # a computed dice target ((n)d6>=(t)), either way: far past any face
MAX_EXPLODE_DEPTH = 100    # explosions per die that a `!xN` may ask for
DEFAULT_EXPLODE_DEPTH = 10 # explosions per die when `!` gives no depth
MAX_EXPR_LENGTH = 4000     # characters in one DSL string
MAX_EXPR_DEPTH = 64        # nesting of parentheses / operators in one expression
MAX_NODES = 200_000        # nodes in one rule document, counted after alias expansion
MAX_DEPTH = 64             # nesting of a rule document's mappings/lists (the top-level mapping is 1)
MAX_OUTCOMES = 200_000     # distinct values an exact distribution may hold
MAX_EXACT_WORK = 4_000_000 # estimated big-int steps of one exact dice sum or keep (about a second)
MAX_GROUP_PAIRS = 1_000_000  # (state so far, outcome of the next sub-roll) pairs one grouped
                             # roll's exact odds may work through: about a second
MAX_TIMES = 1_000_000      # `roll --times`
MAX_CALL_DEPTH = 50        # procedures calling procedures
MAX_RANGE = 10_000         # numbers in one range(a, b)
MAX_LOOP = 10_000          # iterations of one `repeat` / `for` when no `max` is given
INITIATIVE_REROLLS = 99    # rerolls of tied initiative rolls when `rerolls:` gives none (then
                           # the tied keep the declared order)
MAX_BRANCHES = 200_000     # distinct states when enumerating a procedure exactly, checked
                           # at every new state while a step branches
MAX_WEIGHT_BITS = 4096     # bits of one exact probability's denominator (a chance of one
                           # in 2^4096 is past anything a game needs; beyond it, simulate)
MAX_RUNS = 1_000_000       # `simulate --runs`
PROMPT_ODDS_SECONDS = 2.0  # processor seconds counting the exact odds of one option of a prompt
PROMPT_ODDS_TOTAL = 8.0    # ... and of all the options of one prompt (play --interactive)
MAX_DIGITS = 150           # digits of a whole number (or of a fraction's numerator or
                           # denominator) a rule may make or a rule file hold: within it every
                           # output can show it (exact text, JSON, and the float summaries:
                           # a mean, a deviation, whose square must still fit a float)
MAX_VALUE_SIZE = 1_000_000 # items and characters in one list, record or text a rule makes
                           # (lists, records and texts inside it counted, a shared one as
                           # often as it is held): 8 MB of a list's slots at most
MAX_NESTING = 100          # lists and records inside each other in one value
LARGE_VALUE = 10_000       # a value made of this size or more also checks the process's memory
MAX_MEMORY = 512 * 2 ** 20 # bytes the process may hold when a rule makes a large value: the
                           # bound on many large values kept at once (expr/sizes.py)

# Budgets: how much work one run, game or scenario may ask for.  Each is the default a
# ruleset may raise in its `budgets:` section (`budgets: {steps: 5000000}`) up to its hard
# ceiling, which the schema enforces; a budget exceeded is a located LimitError naming it.
MAX_STEPS = 100_000        # steps executed by one call tree: a `run`, one roll, one phase's
                           # steps for one unit or side, one status trigger (every step of
                           # every loop pass and of every procedure called counts)
MAX_STEPS_CEILING = 100_000_000
MAX_TURNS = 10_000         # `max_turns` of a game (turn or scenario)
MAX_TURNS_CEILING = 1_000_000
MAX_UNITS = 10_000         # units in one scenario, `count:` included
MAX_UNITS_CEILING = 200_000
MAX_FORKS = 150_000        # the exact-work budget: branches one exact enumeration (a
                           # procedure's odds, or one turn of odds-game) may work out, each
                           # outcome of each roll in each state counted as it arrives, and
                           # refused before a step that would pass it branches at all
MAX_FORKS_CEILING = 20_000_000
# A branch's weight against `forks`, in units of work of about one cheap branch (a roll's
# outcome added to a local: 4-6 microseconds on the machine of benchmarks/README.md): one
# for the branch (which covers one expression node worked out for it), and the further
# work it made, counted on a meter in ticks, FORK_FIELDS ticks a unit: each further
# expression node worked out exactly (expr/exact.py; not a comprehension's items, which
# the `steps` budget counts), a game's world copied with its units and their fields
# (state/world.py), a world keyed for merging (run/frames.py).  Each weight is what that
# work was measured to cost against a cheap branch (benchmarks/README.md, calib), so that
# `forks` bounds the time, not a count of branches whose cost varies twentyfold (issue
# #20).  Counted, not timed: a refusal is the same on every machine.  Not weighed: a
# procedure call's own work (its arguments bound, its memo asked, its ends handed back),
# measured at 20-60 us, and a remembered call's key (below) is weighed at less than it
# costs; charged in full they would refuse the mech volley of tests/rulesets/exact_scale
# (1.5 s of work that computes today, 320,000 units by these weights) -- see calib.
FORK_FIELDS = 8            # ticks in a unit of work; a unit field copied is one tick (a
                           # copied unit shares its fields' values: one slot of a dict)
FORK_NODE_TICKS = 12       # an expression node worked out exactly (a lookup, an operation on
                           # distributions): a cheap branch and a half
FORK_UNIT_TICKS = 4        # a unit (or object) copied with a world: its object, dict, statuses
FORK_WORLD_TICKS = 32      # a world copied: its sides, distances, positions, uses and moves,
                           # the copy's names rebound to it
FORK_KEY_TICKS = 40        # a world keyed for merging (World.snapshot, once per world)
FORK_KEY_UNIT_TICKS = 4    # each unit or object in that key
FORK_FROZEN_TICKS = 3      # each unit field frozen into a key again (a changed unit's fields)
FORK_DERIVED_TICKS = 8     # a key made from the key of the world a copy came from (only its
                           # changed fields frozen again: run/frames.derived_key)
FORKS_PER_TURN = 1         # a turn of `odds-game` may work this many times `forks` (every
                           # unit's phases of the turn in every state), each unit's or side's
                           # steps in one state `forks`, foreseen over the states left
                           # (game/odds_game.py).  1, not 3: a turn that does not fit is refused
                           # in under a second, not three to four; a scenario whose turns mean
                           # more says so in its own `budgets: {forks: N}` (benchmarks/README.md,
                           # refuse3)
FORESEE_AFTER = 4          # passes of a loop (or returns along a chain of self-calls) seen before
                           # its work ahead is foreseen against the `forks` budget
                           # (run/loop_cost.py, run/call_cost.py) ...
FORESEE_HORIZON = 1        # ... over this many times the passes seen (at most to its end)
BUDGETS = {                # the `budgets:` keys: (default, hard ceiling)
    "steps": (MAX_STEPS, MAX_STEPS_CEILING),
    "turns": (MAX_TURNS, MAX_TURNS_CEILING),
    "units": (MAX_UNITS, MAX_UNITS_CEILING),
    "forks": (MAX_FORKS, MAX_FORKS_CEILING),
}
SCENARIO_BUDGETS = ("forks", "turns", "units")   # the budgets a scenario may set for itself


def where_to_raise(budget: str, scenario: str | None = None) -> str:
    """Where a user raises `budget`: the ruleset's `budgets:`, or, for a budget a scenario
    may set and a refusal in that scenario's game, the scenario's own (one wording for
    every refusal's hint)."""
    where = f"raise the budget with `budgets: {{{budget}: N}}` in the ruleset"
    if scenario is not None and budget in SCENARIO_BUDGETS:
        where += (f", or for this scenario alone in `scenarios: {{{scenario}: {{budgets: "
                  f"{{{budget}: N}}}}}}`")
    return f"{where} (at most {BUDGETS[budget][1]:,})"
# `simulate --workers` is capped at the machine's cores (os.cpu_count()): more processes
# than cores only cost memory.
TRANSCRIPT_ITEMS = 200     # items of a list or record (nested ones counted) a transcript line shows
TRANSCRIPT_DECIMALS = 2    # decimals of a measured number in transcripts and stories (70.71)
MAX_KEPT_MODELS = 64       # checked rulesets kept in the user cache; past it the least recently written go
