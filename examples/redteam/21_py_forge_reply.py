# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 8 (forged protocol reply), Triton track: writes an OK
reply with tiny times straight onto fd 3, the protocol socket.  os is not an
allowed import (and a second reply to one request is a protocol violation)."""
import os
import struct


def relu(x, y, B: int, D: int) -> None:
    os.write(3, struct.pack("<IIqqq", 0x100, 1, 1, 1, 1))
