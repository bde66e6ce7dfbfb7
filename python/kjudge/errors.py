"""The exceptions of the kjudge package.

A candidate that fails is not an exception: kjudge.eval returns its verdict
(status "mismatch", "compile_error"...).  Exceptions are for requests the
judge refuses (UsageError, the CLI's exit 2), a judge that failed
(JudgeError, exit 3), a server's error answer (ServeError) and a missing
executable (BinaryNotFound).
"""


class KjudgeError(Exception):
    """Base class.  Attributes: message; error, the judge's JSON error
    object when it printed one (a dict, or None); exit_code (the CLI's exit
    status, or None); stderr (what the CLI wrote there, or "")."""

    def __init__(self, message, error=None, exit_code=None, stderr=""):
        super().__init__(message)
        self.message = message
        self.error = error
        self.exit_code = exit_code
        self.stderr = stderr


class UsageError(KjudgeError):
    """The CLI exited 2: a bad option, an unknown or invalid task, an
    unreadable candidate file."""


class JudgeError(KjudgeError):
    """The CLI exited 3 (the judge itself failed: no sandbox, a worker that
    did not start...), or its output was not what it promises."""


class BinaryNotFound(KjudgeError):
    """No kjudge executable: give one with kjudge=..., $KJUDGE_BIN or PATH."""


class ServeError(KjudgeError):
    """`kjudge serve` answered with an error, or a job ended without a
    verdict.  status is the HTTP status (None when the job itself failed or
    was cancelled); error is the answer's JSON object ({"error": "..."}) or
    the job."""

    def __init__(self, message, status=None, error=None):
        super().__init__(message, error=error)
        self.status = status
