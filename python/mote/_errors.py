"""The one exception the mote package raises."""


class MoteError(Exception):
    """A Mote failure, with Mote's diagnostic as its message (motec's
    file:line:col errors, or the runtime's status)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status  # the runtime's mote_status code, when it is one
