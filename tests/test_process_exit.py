"""The process's entry point (`cli.main.run`: `python -m interpreter`, the `rulecraft`
script) flushes what the command wrote and ends the process without tearing its heap
down (benchmarks/README.md, refuse3): the output is whole and the exit code is the
command's, to a pipe, to a file and to a reader that goes away."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {**os.environ, "PYTHONPATH": ROOT}


def rulecraft(*args, **options):
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True,
                          text=True, cwd=ROOT, env=ENV, timeout=120, **options)


def test_the_output_is_flushed_and_the_exit_code_is_the_commands():
    done = rulecraft("play", "tanks", "--seed", "1", "--verbose")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") > 1000 and done.stdout.endswith("\n")
    refused = rulecraft("roll", "(D6 + sc) x velocity")
    assert refused.returncode == 1
    assert "hint: write multiplication as '*'" in refused.stderr
    usage = rulecraft("plya")
    assert usage.returncode == 2
    assert "did you mean 'play'?" in usage.stderr


def test_the_output_to_a_file_is_whole(tmp_path):
    out = tmp_path / "story.txt"
    with open(out, "w") as f:
        done = subprocess.run([sys.executable, "-m", "interpreter", "play", "tanks", "--seed", "1"],
                              stdout=f, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=ENV,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    story = out.read_text()
    assert story.startswith("Tanks: Crucial Warfare: scenario default (seed 1)")
    assert story.endswith("\n")


def test_a_reader_that_goes_away_is_no_error():
    """`rulecraft play tanks --verbose | head -1`: the rest of the story has nowhere to go."""
    proc = subprocess.Popen([sys.executable, "-m", "interpreter", "play", "tanks", "--seed", "1",
                             "--verbose"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=ENV)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
