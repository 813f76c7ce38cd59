"""Errors that reach the user as one line, with no traceback."""


class AtelierError(Exception):
    """A problem with the user's input: the CLI prints it as one line and exits with `exit_code`."""

    exit_code = 2


class Interrupted(AtelierError):
    """The user stopped a run (Ctrl-C); what was finished is kept for the next run to resume."""

    exit_code = 130


class IllegalMove(AtelierError):
    """A strategy returned a move the rules do not allow."""

    def __init__(self, strategy: str, detail: str):
        super().__init__(f"strategy '{strategy}' returned an illegal move: {detail}")
        self.strategy, self.detail = strategy, detail

    def __reduce__(self):  # so the error survives the trip back from a worker process
        return (IllegalMove, (self.strategy, self.detail))
