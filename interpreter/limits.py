"""Named limits that keep absurd input from hanging or exhausting the machine.

They are enforced in both sampled and exact evaluation, and documented in the README.
Each is generous for real rulebooks (the largest pool in the five books is a handful of
dice) and small enough that any input is answered within a second or refused.
"""

MAX_DICE = 1000            # dice in one dice term (e.g. 1000d6)
MAX_SIDES = 10_000         # sides of one die (d10000), or faces listed in a custom die
MAX_EXPLODE_DEPTH = 100    # explosions per die that a `!xN` may ask for
DEFAULT_EXPLODE_DEPTH = 10 # explosions per die when `!` gives no depth
MAX_EXPR_LENGTH = 4000     # characters in one DSL string
MAX_EXPR_DEPTH = 64        # nesting of parentheses / operators in one expression
MAX_OUTCOMES = 200_000     # distinct values an exact distribution may hold
MAX_EXACT_WORK = 4_000_000 # estimated big-int steps of one exact dice sum or keep (about a second)
MAX_TIMES = 1_000_000      # `roll --times`
MAX_CALL_DEPTH = 50        # procedures calling procedures
MAX_RANGE = 10_000         # numbers in one range(a, b)
MAX_LOOP = 10_000          # iterations of one `repeat` / `for` when no `max` is given
MAX_BRANCHES = 200_000     # distinct states when enumerating a procedure exactly, checked
                           # at every new state while a step branches
MAX_WEIGHT_BITS = 4096     # bits of one exact probability's denominator (a chance of one
                           # in 2^4096 is past anything a game needs; beyond it, simulate)
MAX_RUNS = 1_000_000       # `simulate --runs`
