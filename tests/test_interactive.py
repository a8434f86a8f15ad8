"""`play --interactive` / `--ask SIDE` through a pseudo-terminal (the standard library's pty,
no pexpect): the story streams before each prompt, the prompt says who acts and what is
chosen, answers by number or name, `?` explains, `q` and end of input stop the game with
exit code 3, and a side that does not exist is a usage error with "did you mean"."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DUEL = ROOT / "tests" / "rulesets" / "duel.yaml"
TIMEOUT = 60


class Session:
    """A rulecraft process on a pseudo-terminal: `expect(text)` reads until it appears."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
        self.proc = subprocess.Popen([sys.executable, "-m", "interpreter", *args], cwd=ROOT,
                                     stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True)
        os.close(slave)
        self.seen = ""

    def expect(self, text: str) -> str:
        deadline = time.time() + TIMEOUT
        while text not in self.seen:
            if time.time() > deadline:
                raise AssertionError(f"{text!r} never appeared; saw:\n{self.seen[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 4096).decode("utf-8", "replace")
                except OSError:
                    chunk = ""
                if not chunk and self.proc.poll() is not None:
                    raise AssertionError(f"{text!r} never appeared; saw:\n{self.seen[-2000:]}")
                self.seen += chunk.replace("\r\n", "\n")
        return self.seen

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def eof(self) -> None:
        os.write(self.master, b"\x04")

    def answer_every_prompt(self, line: str) -> int:
        """Answer `line` at each new prompt until the game ends; its exit code."""
        answered = self.seen.count("> ")
        deadline = time.time() + TIMEOUT
        while self.proc.poll() is None and time.time() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.master, 4096).decode("utf-8", "replace").replace("\r\n", "\n")
                except OSError:
                    break
            if self.seen.count("> ") > answered:
                answered = self.seen.count("> ")
                self.send(line)
        return self.finish()

    def finish(self) -> int:
        try:
            while True:
                ready, _, _ = select.select([self.master], [], [], 0.5)
                if ready:
                    chunk = os.read(self.master, 4096)
                    if not chunk:
                        break
                    self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
                elif self.proc.poll() is not None:
                    break
        except OSError:
            pass
        code = self.proc.wait(TIMEOUT)
        os.close(self.master)
        return code


def test_the_prompt_says_who_acts_and_what_is_chosen_and_takes_numbers_and_names():
    s = Session("play", str(DUEL), "--seed", "1", "--ask", "blue")
    seen = s.expect("> ")
    assert "Turn 1" in seen, "the story streams before the prompt"
    assert "choose foe" in seen and "1. Red 1" in seen and "2. Red 2" in seen
    s.send("?")
    assert "Type its number or its name" in s.expect("Type its number")
    s.send("red 2")
    assert s.answer_every_prompt("1") == 0
    assert "wins" in s.seen or "No winner" in s.seen
    assert "foe = Red 2 (ask)" not in s.seen   # the story, not the trace


@pytest.mark.parametrize("how", ["q", "eof"])
def test_q_or_end_of_input_stops_the_game_with_exit_code_3(how):
    s = Session("play", str(DUEL), "--seed", "1", "--ask", "blue")
    s.expect("> ")
    if how == "q":
        s.send("q")
    else:
        s.eof()
    assert s.finish() == 3
    assert "stopped by the player in turn 1" in s.seen
    assert "wins" not in s.seen


def test_a_wrong_answer_is_asked_again():
    s = Session("play", str(DUEL), "--seed", "1", "--ask", "blue")
    s.expect("> ")
    s.send("7")
    s.expect("type a number from 1 to 2")
    s.send("q")
    assert s.finish() == 3


@pytest.mark.parametrize("args,message", [
    (["--ask", "blu"], "did you mean 'blue'"),
    (["--interactive"], "name one with --ask SIDE"),
])
def test_asking_a_side_that_cannot_be_asked_is_a_usage_error(args, message):
    s = Session("play", str(DUEL), "--seed", "1", *args)
    assert s.finish() == 2
    assert message in s.seen


def test_jungle_warfare_shows_the_map_and_the_column_before_the_first_choice():
    """Issue #15: the layout and the column's state the rules emit are on the screen
    before the player is asked what the column does."""
    s = Session("play", "jungle-warfare", "--seed", "1", "--interactive")
    seen = s.expect("> ")
    prompt_at = seen.index("choose order")
    assert seen.index("start edge") < prompt_at
    assert seen.index("Column: 20 men in column, 0 d points") < prompt_at
    assert "1. move" in seen
    s.send("q")
    assert s.finish() == 3


def test_a_choice_is_asked_by_its_label_not_its_variable_name():
    s = Session("play", "legowars", "--seed", "1", "--ask", "good")
    seen = s.expect("> ")
    assert "choose foe to move towards" in seen
    s.send("q")
    assert s.finish() == 3


def test_with_json_the_questions_go_to_stderr_and_stdout_stays_json_lines():
    """On a terminal both streams are the same screen; the test tells them apart by
    giving stdout a pipe."""
    import json
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "interpreter", "play", str(DUEL), "--seed", "1",
                             "--ask", "blue", "--json"], cwd=ROOT, stdin=slave, stderr=slave,
                            stdout=subprocess.PIPE, env=dict(os.environ, NO_COLOR="1"))
    os.close(slave)
    seen, answered = "", 0
    deadline = time.time() + TIMEOUT
    while proc.poll() is None and time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 4096).decode("utf-8", "replace")
            except OSError:
                break
        if seen.count("> ") > answered:     # a new question: answer it once
            answered = seen.count("> ")
            os.write(master, b"1\n")
    out = proc.stdout.read().decode()
    proc.wait(TIMEOUT)
    os.close(master)
    assert proc.returncode == 0
    assert "choose foe" in seen
    events = [json.loads(line) for line in out.splitlines()]
    assert events[-1]["event"] == "result"


def test_each_option_shows_its_exact_odds_and_question_mark_explains_them():
    """Issue #18: beside each option, the odds of what the rules do with it (Blue needs
    8+ on a d10 and then 3+ to kill: miss 7/10, hit 6/100, kill 24/100)."""
    s = Session("play", str(DUEL), "--seed", "1", "--ask", "blue")
    seen = s.expect("> ")
    assert "1. Red 1 (0 away) — attack: hit 6%, kill 24%, miss 70%; destroyed 24%" in seen
    s.send("?")
    assert "the exact odds of what the rules do next with it" in s.expect("of counting)")
    s.send("q")
    assert s.finish() == 3
