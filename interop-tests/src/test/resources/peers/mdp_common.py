"""Majordomo frames shared by the interop peers (MDP/0.1 = 7/MDP, MDP/0.2 = 18/MDP)."""

CLIENT = {"0.1": b"MDPC01", "0.2": b"MDPC02"}
WORKER = {"0.1": b"MDPW01", "0.2": b"MDPW02"}
# worker command codes per version
W = {
    "0.1": {"READY": 1, "REQUEST": 2, "REPLY": 3, "HEARTBEAT": 4, "DISCONNECT": 5},
    "0.2": {"READY": 1, "REQUEST": 2, "PARTIAL": 3, "FINAL": 4, "HEARTBEAT": 5, "DISCONNECT": 6},
}
# MDP/0.2 client command codes
C_REQUEST, C_PARTIAL, C_FINAL = 1, 2, 3


def lead(version):
    """0.1 messages start with an empty frame; 0.2 ones do not."""
    return [b""] if version == "0.1" else []


def worker_command(version, name, *rest):
    return lead(version) + [WORKER[version], bytes([W[version][name]])] + list(rest)


def text(frames):
    return "|".join(f.decode("utf-8", "replace") for f in frames)


def say(*words):
    print(*words, flush=True)
