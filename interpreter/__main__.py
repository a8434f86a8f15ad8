from .cli.main import run

run()
